// Where a serving process's log lines go (LOG_FORMAT): human-readable through pino-pretty when
// stdout is a terminal (or LOG_FORMAT=pretty), one JSON record per line otherwise, for a log
// collector. The Fastify app of each process and the --workers primary log alike.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config/config.js';

export function prettyLogs(config: Config): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY);
}

/** pino-pretty on stdout, synchronous so the last lines before an exit are not lost. */
function prettyStream(): DestinationStream {
  return pretty({
    colorize: process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'hostname',
    sync: true,
  });
}

/** Fastify's `logger` option for `svc serve`: pino's own options plus the stream. */
export function serverLogger(config: Config): { level: string; stream?: DestinationStream } {
  return prettyLogs(config)
    ? { level: config.logLevel, stream: prettyStream() }
    : { level: config.logLevel };
}

/** A logger outside any Fastify app (the --workers primary), in the same format. */
export function processLogger(config: Config): Logger {
  return prettyLogs(config)
    ? pino({ level: config.logLevel }, prettyStream())
    : pino({ level: config.logLevel });
}
