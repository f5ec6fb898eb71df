// The start-up summary of `svc serve` (issue 20), said once when the service listens: what runs,
// on which database, and where to find it. On a terminal it is a block of aligned lines; in
// JSON logs one record with the same facts as fields.
import fs from 'node:fs';
import type { Config } from '../config/config.js';
import { databaseEngine, databaseLocation } from '../config/database-location.js';
import { REST_DRIVER_PREFIX } from '../rest-driver/rest-driver-routes.js';
import { localService } from './local-service.js';

export interface StartupSummary {
  readonly version: string;
  readonly engine: string;
  readonly database: string;
  readonly dataDir: string;
  readonly listening: string;
  readonly admin: string;
  readonly docs: string;
  readonly realtime: string;
  readonly driver: string;
  readonly workers: number;
  readonly redis: string;
  readonly settings: string;
}

function packageVersion(): string {
  try {
    const file = new URL('../../package.json', import.meta.url);
    return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version);
  } catch {
    return 'unknown';
  }
}

/** `port` is the one bound (PORT=0 picks a free one). */
export function startupSummary(
  config: Config,
  port: number,
  workers: number,
  settings: string,
): StartupSummary {
  const here = localService({ ...config, port });
  const origin = `http://${here.host}:${port}`;
  const bound = config.host.includes(':') ? `[${config.host}]` : config.host;
  const { realtime } = config;
  const push = realtime.external
    ? `on, through ${realtime.external.scheme}://${realtime.external.host}:${realtime.external.port} (PUSHER_HOST)`
    : `on, WebSocket ws://${here.host}:${port}/app/${realtime.key}`;
  return {
    version: packageVersion(),
    engine: databaseEngine(config.databaseUrl),
    database: databaseLocation(config.databaseUrl),
    dataDir: config.dataDir,
    listening: `http://${bound}:${port}`,
    admin: `${origin}/admin/`,
    docs: `${origin}/docs`,
    realtime: realtime.enabled ? push : 'off (REALTIME_NOTIFICATIONS=false)',
    driver: config.restDriver.enabled
      ? `on, ${origin}${REST_DRIVER_PREFIX}/ (${config.restDriver.allowWrite ? 'writes allowed' : 'read only'})`
      : 'off',
    workers,
    redis: config.redis
      ? `on, ${databaseLocation(config.redis.url)} (prefix ${config.redis.prefix})`
      : 'off (state kept in this process)',
    settings,
  };
}

/** The summary as a block for a person. */
export function summaryText(summary: StartupSummary): string {
  const rows: Array<[string, string]> = [
    ['Database', `${summary.engine} ${summary.database}`],
    ['Data directory', summary.dataDir],
    ['Listening on', summary.listening],
    ['Admin', summary.admin],
    ['API docs', summary.docs],
    ['Real time', summary.realtime],
    ['Driver', summary.driver],
    ['Workers', summary.workers === 1 ? '1 process' : `${summary.workers} worker processes`],
    ['Redis', summary.redis],
    ['Settings', summary.settings],
  ];
  return `\nsvc ${summary.version} is running\n${rows
    .map(([label, value]) => `  ${label.padEnd(15)} ${value}`)
    .join('\n')}\n\n`;
}
