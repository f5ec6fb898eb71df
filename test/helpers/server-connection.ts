// A connection of the test's own to the database server under test, straight to the server (not
// through the proxy): it holds locks that make the service's statements wait, and ends the
// service's connections as a server shutting down does. The engines differ only in the SQL,
// written here as data (STYLE.md example 11).
import mysql from 'mysql2/promise';
import pg from 'pg';

export type ServerEngine = 'postgres' | 'mysql';

interface EngineSql {
  /** Statements that take an exclusive lock on `table` and keep it until `unlock`. */
  lock(table: string): string[];
  readonly unlock: string;
  /** Statements after which inserts into `table` wait until `rollback`; reads go on. */
  lockInserts(table: string): string[];
  /** The ids of the other connections to this database. */
  readonly others: string;
  terminate(id: number): string;
}

const SQL: Record<ServerEngine, EngineSql> = {
  postgres: {
    lock: (table) => ['begin', `lock table ${table} in access exclusive mode`],
    unlock: 'rollback',
    lockInserts: (table) => ['begin', `lock table ${table} in share mode`],
    others:
      'select pid as id from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    terminate: (id) => `select pg_terminate_backend(${id})`,
  },
  mysql: {
    lock: (table) => [`lock tables ${table} write`],
    unlock: 'unlock tables',
    // A locking read of the whole table takes InnoDB's gap locks up to the end of its index
    // (REPEATABLE READ). LOCK TABLES would not do: MariaDB then also holds up inserts into the
    // tables its foreign keys refer to.
    lockInserts: (table) => ['begin', `select id from ${table} for update`],
    others:
      'select id from information_schema.processlist where db = database() and id <> connection_id()',
    terminate: (id) => `kill connection ${id}`,
  },
};

export interface ServerConnection {
  query(text: string): Promise<Array<Record<string, unknown>>>;
  /** Holds an exclusive lock on `table` until unlock(): every statement of the service on it waits. */
  lock(table: string): Promise<void>;
  /** Holds `table` until unlock() so that inserts into it wait; reads go on. */
  lockInserts(table: string): Promise<void>;
  unlock(): Promise<void>;
  /** Ends every other connection to this database (the service's), as a server shutting down does. */
  terminateOthers(): Promise<number>;
  close(): Promise<void>;
}

export async function openServerConnection(
  engine: ServerEngine,
  url: string,
): Promise<ServerConnection> {
  const sql = SQL[engine];
  let query: (text: string) => Promise<Array<Record<string, unknown>>>;
  let close: () => Promise<void>;
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    query = async (text) => (await client.query(text)).rows as Array<Record<string, unknown>>;
    close = () => client.end();
  } else {
    const connection = await mysql.createConnection(url);
    query = async (text) => {
      const [rows] = await connection.query(text);
      return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
    };
    close = () => connection.end();
  }
  let release = sql.unlock;
  const hold = async (statements: readonly string[], then: string) => {
    for (const statement of statements) await query(statement);
    release = then;
  };
  return {
    query,
    lock: (table) => hold(sql.lock(table), sql.unlock),
    lockInserts: (table) => hold(sql.lockInserts(table), 'rollback'),
    unlock: async () => {
      await query(release);
    },
    async terminateOthers() {
      const others = await query(sql.others);
      for (const { id } of others) await query(sql.terminate(Number(id)));
      return others.length;
    },
    close,
  };
}
