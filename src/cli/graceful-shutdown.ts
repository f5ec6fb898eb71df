// Graceful shutdown of a serving process on SIGTERM or SIGINT: stop accepting connections, let
// the requests in flight finish, say goodbye to WebSocket clients (the Pusher server's close
// frame, 4200), close the database, exit 0. Requests still running after SHUTDOWN_TIMEOUT_MS
// have their connections cut and the process exits 1, so a supervisor sees it was not clean.
import type { Service } from '../service.js';
import { stopWhenOrphaned } from './parent-watch.js';

/** After the timeout cuts the connections, how long closing the rest may still take. */
const AFTER_CUT_MS = 2000;

export interface ShutdownOptions {
  readonly timeoutMs: number;
  /** Also stop when the parent process exits (cli/parent-watch.ts); not in a --workers worker. */
  readonly watchParent?: boolean;
}

export function closeOnSignals(service: Service, options: ShutdownOptions): void {
  const { app } = service;
  let stopping = false;
  const stop = (signal: NodeJS.Signals, reason = `received ${signal}`) => {
    // Ctrl-C reaches every process of the group and the primary forwards signals too: a worker
    // may see two. The first one decides; the timeout bounds the wait either way.
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    app.log.info(
      {
        signal,
        reason,
        websocketClients: service.realtime?.connectionCount ?? 0,
        timeoutMs: options.timeoutMs,
      },
      'shutting down: no new connections; finishing the requests in flight',
    );
    let cut = false;
    const deadline = setTimeout(() => {
      cut = true;
      app.log.warn(
        { timeoutMs: options.timeoutMs },
        'shutdown timeout: cutting the connections still open',
      );
      app.server.closeAllConnections();
      setTimeout(() => {
        app.log.error('shutdown did not finish after the connections were cut; exiting');
        process.exit(1);
      }, AFTER_CUT_MS).unref();
    }, options.timeoutMs);
    deadline.unref();
    service.close().then(
      () => {
        clearTimeout(deadline);
        app.log.info(
          { ms: Date.now() - started },
          'stopped: requests finished, WebSocket clients closed, database closed',
        );
        process.exit(cut ? 1 : 0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (options.watchParent)
    stopWhenOrphaned(() => stop('SIGTERM', 'the parent process (npm, npx, a shell) exited'));
}
