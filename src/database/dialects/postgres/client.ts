// The pg client of svc's pools: how a connection starts and how a statement is sent, directly or
// behind a pooler in transaction mode (DB_POOLER=transaction, DESIGN.md 3.12). PgBouncer then
// lends a server connection per transaction, so nothing may live on the session: no named
// prepared statements (another client's connection would lack them, or hold another text under
// the name) and no startup parameter it does not know (it refuses `statement_timeout` and
// `options`). What svc relies on is then sent another way:
// - the time zone: `TimeZone` as a startup parameter, one of those PgBouncer tracks per client
//   and sets on whichever server connection it lends (PostgreSQL takes it directly too);
// - the statement timeout: `set_config('statement_timeout', …, true)` (SET LOCAL) in the same
//   round trip as the statement, before it, when no transaction is open (both run in the
//   transaction the Sync closes); a transaction gets it with its BEGIN, and keeps it to its end.
import pg from 'pg';
import { nameOf } from './named-statements.js';

/** What a pool's clients do; `pooler` turns on when a pooler is detected (pool.ts). */
export interface ClientMode {
  pooler: boolean;
  readonly statementTimeoutMs: number;
}

export type Callback = (error: Error | undefined, result: pg.QueryResult) => void;

/** Values as Kysely passes them: a string and an array. */
function isStatement(config: unknown, values: unknown): config is string {
  return typeof config === 'string' && (values === undefined || Array.isArray(values));
}

/**
 * A statement sent after a SET LOCAL of the statement timeout, in one pipeline and one Sync:
 * the extended protocol's implicit transaction spans both, so the setting holds for the
 * statement and ends with it. The SET's own answer (its DataRow and CommandComplete) is skipped.
 */
class TimedQuery extends pg.Query {
  #settingDone = false;
  readonly #setting: string;

  constructor(setting: string, text: string, values: unknown[], callback: Callback) {
    super({ text, values, queryMode: 'extended' } as pg.QueryConfig, undefined, callback);
    this.#setting = setting;
  }

  prepare(connection: Wire): void {
    connection.parse({ text: this.#setting, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    // biome-ignore lint/suspicious/noExplicitAny: pg's Query.prepare is not in its typings
    (pg.Query.prototype as any).prepare.call(this, connection);
  }

  handleDataRow(message: unknown): void {
    if (this.#settingDone)
      (pg.Query.prototype as unknown as QueryHandlers).handleDataRow.call(this, message);
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    if (!this.#settingDone) {
      this.#settingDone = true;
      return;
    }
    (pg.Query.prototype as unknown as QueryHandlers).handleCommandComplete.call(
      this,
      message,
      connection,
    );
  }
}

interface QueryHandlers {
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}

interface Wire {
  parse(message: { text: string; name: string; types: string[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
}

/** What the sliced reader (sliced-reader.ts) asks of a client of these pools. */
export interface SvcClient {
  statement(text: string, values: readonly unknown[], callback: Callback): pg.Query;
}

/** The pg.Client class of a pool in `mode` (the pool passes its options to the constructor). */
export function clientClass(mode: ClientMode): typeof pg.Client {
  const setting = `select set_config('statement_timeout', '${Math.trunc(mode.statementTimeoutMs)}', true)`;
  class SvcClient extends pg.Client {
    /** Whether the server said a transaction is open (pg keeps its last ReadyForQuery status). */
    get #inTransaction(): boolean {
      const status = (this as unknown as { _txStatus: string | null })._txStatus;
      return status !== null && status !== 'I';
    }

    getStartupConf(): Record<string, string> {
      const conf = (pg.Client.prototype as unknown as StartupConf).getStartupConf.call(this);
      conf.TimeZone = 'UTC';
      if (!mode.pooler) conf.statement_timeout = String(Math.trunc(mode.statementTimeoutMs));
      return conf;
    }

    /**
     * The Query object that sends `text` with `values`: named directly, unnamed behind a
     * pooler, with the timeout in front when no transaction is open.
     */
    statement(text: string, values: readonly unknown[], callback: Callback): pg.Query {
      if (!mode.pooler)
        return new pg.Query({ name: nameOf(text), text, values: [...values] }, undefined, callback);
      if (this.#inTransaction)
        return new pg.Query({ text, values: [...values] }, undefined, callback);
      return new TimedQuery(setting, text, [...values], callback);
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg.Client.query's overloads
    override query(config: any, values?: any, callback?: any): any {
      if (!isStatement(config, values) || typeof callback === 'function')
        return super.query(config, values, callback);
      return new Promise((resolve, reject) => {
        super.query(
          this.statement(config, values ?? [], (error, result) =>
            error ? reject(error) : resolve(result),
          ),
        );
      });
    }
  }
  return SvcClient;
}

interface StartupConf {
  getStartupConf(this: unknown): Record<string, string>;
}

/** A pg.Client class that sends `parameters` at startup besides its own (no `options`: see above). */
export function clientWithStartup(parameters: Readonly<Record<string, string>>): typeof pg.Client {
  return class extends pg.Client {
    getStartupConf(): Record<string, string> {
      const conf = (pg.Client.prototype as unknown as StartupConf).getStartupConf.call(this);
      return { ...conf, ...parameters };
    }
  };
}
