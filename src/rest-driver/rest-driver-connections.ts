// The databases the driver can reach by name: the main one (DATABASE_URL) when a request names
// none, and each DB_CONNECTIONS entry. Each is set up at start, so an engine the driver does not
// support stops the service with a clear message; files are opened on first use.
import { type Config, ConfigError } from '../config/config.js';
import { openRawSql } from '../database/connect.js';
import type { RawSql } from '../database/raw-sql.js';

export class RestDriverConnections {
  private constructor(
    private readonly main: RawSql,
    private readonly named: ReadonlyMap<string, RawSql>,
  ) {}

  static open(config: Config): RestDriverConnections {
    const limits = {
      allowWrite: config.restDriver.allowWrite,
      maxRows: config.restDriver.maxRows,
      timeoutMs: config.restDriver.timeoutMs,
      maxAnswerBytes: config.restDriver.maxAnswerMb * 1024 * 1024,
    };
    const open = (url: string, what: string): RawSql => {
      try {
        return openRawSql(url, limits);
      } catch (error) {
        throw new ConfigError(
          `REST_DRIVER_ENABLED: the driver cannot use ${what}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    const named = new Map(
      Object.entries(config.dbConnections).map(([name, url]) => [
        name,
        open(url, `DB_CONNECTIONS entry "${name}"`),
      ]),
    );
    return new RestDriverConnections(open(config.databaseUrl, 'DATABASE_URL'), named);
  }

  /** The database a request names (null: the main one), or undefined for an unknown name. */
  get(name: string | null): RawSql | undefined {
    return name === null ? this.main : this.named.get(name);
  }

  async close(): Promise<void> {
    await Promise.all([this.main, ...this.named.values()].map((connection) => connection.close()));
  }
}
