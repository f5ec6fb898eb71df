// The primary of `svc serve --workers N` (node:cluster): forks N workers that listen on the same
// HOST:PORT (the primary accepts and hands connections out round-robin), replaces a worker that
// dies while serving, forwards SIGTERM/SIGINT to every worker and resolves with the exit code
// once all have finished. A worker that dies before it ever listened (bad port, unreadable
// database) would only die again: then the whole pool stops with exit code 1.
import cluster, { type Address, type Worker } from 'node:cluster';
import { stopWhenOrphaned } from './parent-watch.js';

/** The primary's pino logger (cli/log-output.ts), as far as the pool uses it. */
export interface ProcessLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface WorkerPoolOptions {
  readonly workers: number;
  readonly log: ProcessLog;
  /** Each worker's own shutdown bound; the primary waits a little longer, then kills. */
  readonly shutdownTimeoutMs: number;
  /** Once every worker listens, with the port they share. */
  readonly onListening?: (port: number) => void;
}

/** Beyond the workers' own shutdown timeout, before the primary kills what is left. */
const KILL_AFTER_MS = 5000;

function urlOf(address: Address): string {
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export function runWorkerPool(options: WorkerPoolOptions): Promise<number> {
  const { log } = options;
  /** Every live worker, and whether it has listened yet. */
  const live = new Map<Worker, boolean>();
  let stopping = false;
  let forwarded: NodeJS.Signals | null = null;
  let exitCode = 0;
  let announced = false;

  return new Promise((resolve) => {
    const fork = () => {
      const worker = cluster.fork();
      live.set(worker, false);
      log.info({ worker: worker.process.pid }, 'worker started');
    };

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      forwarded = signal;
      log.info({ signal, workers: live.size }, 'shutting down: signalling every worker');
      for (const worker of live.keys()) worker.process.kill(signal);
      setTimeout(() => {
        exitCode = 1;
        for (const worker of live.keys()) {
          log.error({ worker: worker.process.pid }, 'worker did not stop in time; killing it');
          worker.process.kill('SIGKILL');
        }
      }, options.shutdownTimeoutMs + KILL_AFTER_MS).unref();
      if (live.size === 0) resolve(exitCode);
    };

    cluster.on('listening', (worker, address) => {
      if (!live.has(worker)) return;
      live.set(worker, true);
      if (!announced && live.size === options.workers && [...live.values()].every(Boolean)) {
        announced = true;
        log.info({ address: urlOf(address), workers: options.workers }, 'listening');
        options.onListening?.(address.port);
      }
    });

    cluster.on('exit', (worker, code, signal) => {
      const served = live.get(worker) ?? false;
      live.delete(worker);
      const fields = { worker: worker.process.pid, code, signal };
      if (stopping) {
        // A worker still starting when the signal came dies of it: a clean stop too.
        if (code !== 0 && !(code === null && signal === forwarded)) exitCode = 1;
        log.info(fields, 'worker stopped');
        if (live.size === 0) resolve(exitCode);
      } else if (!served) {
        log.error(fields, 'worker exited before it was listening; stopping');
        exitCode = 1;
        stop('SIGTERM');
      } else {
        log.warn(fields, 'worker exited unexpectedly; starting a new one');
        fork();
      }
    });

    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    stopWhenOrphaned(() => stop('SIGTERM'));
    for (let i = 0; i < options.workers; i += 1) fork();
  });
}
