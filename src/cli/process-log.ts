// Log lines of the `svc serve --workers` primary, which runs no Fastify app: the same JSON shape
// as the workers' pino lines (level number, time, pid, hostname, msg), so one stream holds both.
// pino itself is only Fastify's dependency, not ours, hence these few lines.
import os from 'node:os';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
type Level = keyof typeof LEVELS;

export type LogFields = Record<string, unknown>;

export interface ProcessLog {
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

/** A logger at LOG_LEVEL (`silent` writes nothing; an unknown level counts as `info`). */
export function processLog(
  level: string,
  write: (line: string) => void = (line) => process.stdout.write(line),
): ProcessLog {
  const threshold = level === 'silent' ? Infinity : (LEVELS[level as Level] ?? LEVELS.info);
  const hostname = os.hostname();
  const at = (name: Level) => (fields: LogFields, message: string) => {
    if (LEVELS[name] < threshold) return;
    write(
      `${JSON.stringify({ level: LEVELS[name], time: Date.now(), pid: process.pid, hostname, ...fields, msg: message })}\n`,
    );
  };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
