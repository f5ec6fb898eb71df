// svc serve: migrate (unless MIGRATE_ON_START=false), check the resources against their
// databases (issue 36: a problem stops the start), then listen on HOST:PORT until SIGTERM/SIGINT,
// closing gracefully. With --workers N (or WORKERS) the process becomes a node:cluster primary that migrates and
// bootstraps once, then runs N workers on the same port.
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { type Config, MAX_WORKERS } from '../../config/config.js';
import { prepareService, startService } from '../../service.js';
import { cliConfig, settingsSource } from '../cli-config.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { closeOnSignals } from '../graceful-shutdown.js';
import { boundHeapGrowth } from '../heap-growth.js';
import { prettyLogs, processLogger, serverLogger } from '../log-output.js';
import { startupSummary, summaryText } from '../startup-summary.js';
import { runWorkerPool } from '../worker-pool.js';

/** The generated first admin password, on lines of its own (stderr), never in a log record. */
function adminPasswordLine(password: string): void {
  process.stderr.write(
    `\nAdmin login "admin", generated password (shown only this once): ${password}\nChange it with: npx svc user:password admin\n\n`,
  );
}

interface SummaryLog {
  info(fields: object, message: string): void;
}

/** Said once per service: by the single process, or by the primary of a pool. */
function announce(config: Config, port: number, workers: number, log: SummaryLog): void {
  const summary = startupSummary(config, port, workers, settingsSource());
  if (prettyLogs(config)) process.stdout.write(summaryText(summary));
  else log.info(summary, `svc ${summary.version} started`);
}

function workerCount(option: unknown, config: Config): number | null {
  if (option === undefined) return config.workers;
  const n = Number(option);
  if (typeof option !== 'string' || !/^\d+$/.test(option.trim()) || n < 1 || n > MAX_WORKERS) {
    throw new CliError(
      `--workers must be a whole number from 1 to ${MAX_WORKERS}, got "${String(option)}"`,
    );
  }
  return n;
}

/**
 * State that lives in one process's memory would be split between the workers: refused rather
 * than half working.
 */
function refuseUnshared(config: Config): void {
  // With REDIS_URL the workers share the fan-out and the nonces like separate instances do.
  if (config.redis) return;
  if (config.realtime.enabled && !config.realtime.external) {
    throw new CliError(
      '--workers with REALTIME_NOTIFICATIONS=true needs REDIS_URL or PUSHER_HOST: the embedded Pusher server of each worker would push only to the clients connected to that worker',
    );
  }
  if (config.restDriver.enabled) {
    throw new CliError(
      '--workers with REST_DRIVER_ENABLED=true needs REDIS_URL: each worker would otherwise keep its own used nonces, so a signed request could be replayed on another worker',
    );
  }
}

/** One serving process: the whole service, or one worker of the pool (prepared by the primary). */
async function serveHere(config: Config, prepared: boolean): Promise<never> {
  boundHeapGrowth();
  const service = await startService(config, {
    prepared,
    logger: serverLogger(config),
    onAdminPassword: adminPasswordLine,
  });
  closeOnSignals(service, { timeoutMs: config.shutdownTimeoutMs, watchParent: !prepared });
  try {
    await service.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await service.close();
    throw error;
  }
  if (!prepared) {
    const { port } = service.app.server.address() as AddressInfo;
    announce(config, port, 1, service.app.log);
  }
  return new Promise<never>(() => {});
}

export const serve: Command = {
  summary:
    'Run the HTTP service (migrates, then checks every resource against its databases); the production entry point',
  usage: '[--workers=<n>]',
  options: {
    workers: {
      type: 'string',
      value: '<n>',
      description: 'run n worker processes on one port (default: WORKERS, else one process)',
    },
  },
  examples: ['npx svc serve', 'npx svc serve --workers=4'],
  async run({ options }) {
    const config = cliConfig();
    // A worker runs this same command line again (cluster.fork): it serves.
    if (cluster.isWorker) {
      // A worker that cannot serve lets go of the primary's channel, or that would keep it alive.
      return serveHere(config, true).catch((error: unknown) => {
        cluster.worker?.disconnect();
        throw error;
      });
    }
    const workers = workerCount(options.workers, config);
    if (workers === null) return serveHere(config, false);
    refuseUnshared(config);
    const log = processLogger(config);
    await prepareService(
      config,
      { info: (message) => log.info(message), warn: (message) => log.warn(message) },
      adminPasswordLine,
    );
    return runWorkerPool({
      workers,
      log,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      onListening: (port) => announce(config, port, workers, log),
    });
  },
};
