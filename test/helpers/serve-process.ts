// `svc serve` as an operator runs it: a real process (through tsx) over a temporary DATA_DIR on a
// free port, its JSON log lines collected so tests wait on events (a line, the exit), not sleeps.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliWorkingDir, SVC } from './cli.js';
import { ADMIN_PASSWORD } from './test-server.js';

/** One pino line (the workers' and the single process's) or primary line (the same shape). */
export interface LogLine {
  readonly level: number;
  readonly pid: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface LaunchOptions {
  /** The working directory, whose `.env` the service reads (default: an empty one). */
  readonly cwd?: string;
  /** Variables of the test's own environment left out, so a `.env` can set them. */
  readonly unset?: readonly string[];
}

const WAIT_MS = 30_000;

export class ServeProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<Exit>;
  stderr = '';
  /** Everything written to stdout, log lines or not (LOG_FORMAT=pretty, the summary block). */
  stdout = '';
  /** http://127.0.0.1:<port>, known once the service listens. */
  url = '';
  private readonly waiters = new Set<() => void>();
  private exit: Exit | null = null;

  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
  ) {
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
      const text = partial + chunk.toString('utf8');
      const complete = text.split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete) {
        try {
          this.lines.push(JSON.parse(line) as LogLine);
        } catch {
          // not a log line
        }
      }
      this.wake();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.wake();
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.wake();
        resolve(this.exit);
      }),
    );
  }

  /** Starts `svc serve <args>` and resolves once it listens (for --workers: every worker). */
  static async start(
    args: readonly string[] = [],
    env: Record<string, string> = {},
    options: LaunchOptions = {},
  ): Promise<ServeProcess> {
    const serve = ServeProcess.launch(args, env, options);
    const pool = args.some((a) => a.startsWith('--workers'));
    const ready = await serve.waitFor(
      pool ? 'the pool listening' : 'the server listening',
      (line) =>
        pool
          ? line.pid === serve.pid && line.msg === 'listening'
          : line.msg.startsWith('Server listening at '),
    );
    serve.url = pool ? String(ready.address) : ready.msg.slice('Server listening at '.length);
    return serve;
  }

  /** Starts `svc serve <args>` without waiting for anything. */
  static launch(
    args: readonly string[] = [],
    env: Record<string, string> = {},
    options: LaunchOptions = {},
  ): ServeProcess {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-serve-test-'));
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [
      'DATABASE_URL',
      'DB_CONNECTIONS',
      'TENANT_ISOLATION',
      'APP_SECRET',
      'WORKERS',
      'HOST',
    ])
      delete base[name];
    const environment: NodeJS.ProcessEnv = {
      ...base,
      DATA_DIR: dataDir,
      PORT: '0',
      ADMIN_PASSWORD,
      LOG_LEVEL: 'info',
      ...env,
    };
    for (const name of options.unset ?? []) delete environment[name];
    const child = spawn(process.execPath, [...SVC, 'serve', ...args], {
      cwd: options.cwd ?? cliWorkingDir(),
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServeProcess(child, dataDir);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** The first log line matching `match`, now or when it comes; fails if the process exits first. */
  waitFor(what: string, match: (line: LogLine) => boolean, timeoutMs = WAIT_MS): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)),
        timeoutMs,
      );
      const finish = (error: Error | null, line?: LogLine) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (error)
          reject(
            new Error(
              `${error.message}\nlog:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${this.stderr}`,
            ),
          );
        else resolve(line as LogLine);
      };
      const check = () => {
        const line = this.lines.find(match);
        if (line) finish(null, line);
        else if (this.exit)
          finish(new Error(`svc serve exited (${JSON.stringify(this.exit)}) before ${what}`));
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves once stdout and stderr together match `pattern`; fails if the process exits first. */
  async waitForOutput(pattern: RegExp, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stdout + this.stderr)) {
      if (this.exit)
        throw new Error(`svc serve exited before ${pattern}:\n${this.stdout}${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`Timed out waiting for ${pattern}:\n${this.stdout}${this.stderr}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          resolve();
        };
        this.waiters.add(done);
        setTimeout(done, 200);
      });
    }
  }

  /** Log lines with this message. */
  logged(msg: string): LogLine[] {
    return this.lines.filter((line) => line.msg === msg);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends the process if a test left it running (SIGKILL: workers exit with their primary), removes DATA_DIR. */
  async dispose(): Promise<void> {
    if (!this.exit) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
