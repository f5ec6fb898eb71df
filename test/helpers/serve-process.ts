// `svc serve` as an operator runs it: a child process from source (through tsx) on a free port,
// which a test can kill -9 and start again over the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './cli.js';

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGKILL: no shutdown hook runs, no transaction is finished. Resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const START_TIMEOUT_MS = 60_000;

/** Starts `svc serve` with `env` (plus PORT=0 and HOST=127.0.0.1) and waits until it listens. */
export function startServeProcess(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: { ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc serve did not listen within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = LISTENING.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off('data', read);
      // Keep draining the pipes so a chatty server never blocks on a full one.
      child.stdout?.resume();
      resolve({ url: match[1], child, kill9: () => end('SIGKILL'), stop: () => end('SIGTERM') });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`svc serve exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}
