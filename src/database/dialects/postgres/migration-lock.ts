// PostgreSQL's migration lock without session state (DESIGN.md 3.12). Kysely's Migrator takes
// pg_advisory_lock before its migration transaction and pg_advisory_unlock after it: three
// statements outside any transaction, which PgBouncer in transaction mode may send to three
// different server connections, so the unlock can miss and the lock stay held on a connection
// the pooler lends to others (the next instance's start then waits for it). Here the lock is
// pg_advisory_xact_lock in a transaction opened first on the Migrator's one connection:
// Kysely's own BEGIN then only warns, and its COMMIT or ROLLBACK ends the transaction and
// releases the lock on the one server connection that held it throughout.
import { type DialectAdapter, PostgresAdapter, sql } from 'kysely';
import type { Db } from '../../db.js';

/** Kysely's own lock id, so that an instance of an earlier version still excludes this one. */
const LOCK_ID = '3853314791062309107';

const transactionLock: Pick<DialectAdapter, 'acquireMigrationLock' | 'releaseMigrationLock'> = {
  async acquireMigrationLock(connection) {
    await sql`begin`.execute(connection);
    await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_ID)}::bigint)`.execute(connection);
  },
  async releaseMigrationLock(connection) {
    // The migration's COMMIT or ROLLBACK ended it already: this only warns then.
    await sql`commit`.execute(connection);
  },
};

/** `db` for Kysely's Migrator: on PostgreSQL, with the transaction-scoped lock above. */
export function withTransactionLock(db: Db): Db {
  const executor = db.getExecutor();
  if (!(executor.adapter instanceof PostgresAdapter)) return db;
  const adapter = Object.assign(Object.create(executor.adapter), transactionLock);
  // The Migrator reads the adapter from db.getExecutor(); everything else is db's own.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'getExecutor')
        return () =>
          new Proxy(executor, {
            get: (inner, key) =>
              key === 'adapter' ? adapter : bound(inner, Reflect.get(inner, key, inner)),
          });
      return bound(target, Reflect.get(target, property, target));
    },
  });
}

/** Methods keep their object: Kysely's classes hold private fields a proxy does not have. */
function bound(owner: object, value: unknown): unknown {
  return typeof value === 'function' ? value.bind(owner) : value;
}
