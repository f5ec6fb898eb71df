// DATABASE_READ_URL (DESIGN.md 3.12): reads outside a transaction go to a read replica, and
// everything else to the primary. Kysely's driver is wrapped so that a connection is chosen at
// its first statement: a transaction's BEGIN or any statement that is not a SELECT takes the
// primary, a SELECT of a request takes a replica when one is fresh enough for its caller
// (replica-monitor.ts). A request's reads keep the server chosen first, until it writes: then
// they go to the primary, and the caller's later requests too until a replica has replayed the
// write. The exact memos are the primary's only (statement-runner: none while reading a replica), so
// they never mix servers. A replica that fails or refuses a statement as a write is skipped: the
// statement runs again on the primary.
import type {
  CompiledQuery,
  DatabaseConnection,
  Driver,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { type ReadingCaller, readingCaller } from '../../reading-caller.js';
import { postgresAdapter } from './adapter.js';
import type { ReplicaMonitor, ReplicaState } from './replica-monitor.js';

/** A statement a read-only standby runs: a SELECT (a WITH may hold a write). */
const READ = /^\s*\(?\s*select\s/i;
/** read_only_sql_transaction: the statement writes (a locking SELECT, nextval). */
const WRITE_REFUSED = '25006';

export interface ReadRouting {
  /** Where the current request's reads go: a replica's index, or undefined for the primary. */
  replicaNow(): number | undefined;
  /** The current request (if any) wrote, now: its caller reads from the primary until replayed. */
  wrote(): void;
  /** Whether `error` from replica `index` means: run it on the primary (and skip the replica). */
  fallsBack(error: unknown, index: number): boolean;
}

export function readRouting(monitor: ReplicaMonitor, clock: () => number = Date.now): ReadRouting {
  /** When each user's last write was acknowledged; entries older than any usable lag are dropped. */
  const wroteAt = new Map<number, number>();
  let turn = 0;
  const target = (store: ReadingCaller): ReplicaState | undefined => {
    if (store.target === undefined) {
      const user = store.user as number;
      store.target = monitor.usable(wroteAt.get(user) ?? Number.NEGATIVE_INFINITY, turn++) ?? null;
    }
    return (store.target as ReplicaState | null) ?? undefined;
  };
  return {
    replicaNow() {
      const store = readingCaller.getStore();
      if (!store || store.wrote || store.user === null) return undefined;
      return target(store)?.index;
    },
    wrote() {
      const store = readingCaller.getStore();
      if (!store) return;
      store.wrote = true;
      if (store.user === null) return;
      const now = clock();
      wroteAt.set(store.user, now);
      // A write older than the allowed lag is replayed on every replica that may be read: its
      // entry says nothing more. (Dropped at a fixed 60 s, a write was forgotten too early
      // under a DB_REPLICA_MAX_LAG_MS above it, and its writer could read a replica without it.)
      if (wroteAt.size > 10_000)
        for (const [user, at] of wroteAt) if (now - at > monitor.maxLagMs) wroteAt.delete(user);
    },
    fallsBack(error, index) {
      if ((error as { code?: string }).code === WRITE_REFUSED) return true;
      if (postgresAdapter.translateError(error)?.kind !== 'unavailable') return false;
      monitor.failed(index);
      return true;
    },
  };
}

/** A connection bound to a server at its first statement. */
class RoutedConnection implements DatabaseConnection {
  bound: { driver: Driver; connection: DatabaseConnection; replica?: number } | undefined;

  constructor(private readonly router: RoutingDriver) {}

  async bindPrimary(): Promise<DatabaseConnection> {
    if (!this.bound) {
      const { primary } = this.router;
      this.bound = { driver: primary, connection: await primary.acquireConnection() };
    }
    return this.bound.connection;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { routing, replicas } = this.router;
    if (!this.bound && READ.test(query.sql)) {
      const index = routing.replicaNow();
      const driver = index === undefined ? undefined : replicas[index];
      if (driver && index !== undefined) {
        try {
          this.bound = { driver, connection: await driver.acquireConnection(), replica: index };
          return await this.bound.connection.executeQuery<R>(query);
        } catch (error) {
          if (!routing.fallsBack(error, index)) throw error;
          await this.release();
        }
      }
    }
    const connection = await this.bindPrimary();
    const result = await connection.executeQuery<R>(query);
    if (!READ.test(query.sql) && this.bound?.replica === undefined) routing.wrote();
    return result;
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.bindPrimary()).streamQuery<R>(query, chunkSize);
  }

  async release(): Promise<void> {
    const bound = this.bound;
    this.bound = undefined;
    if (bound) await bound.driver.releaseConnection(bound.connection);
  }
}

/** Kysely's driver over the primary's and the replicas' PostgreSQL drivers. */
export class RoutingDriver implements Driver {
  constructor(
    readonly primary: Driver,
    readonly replicas: readonly Driver[],
    readonly routing: ReadRouting,
  ) {}

  async init(): Promise<void> {
    await Promise.all([this.primary, ...this.replicas].map((driver) => driver.init()));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const routed = connection as RoutedConnection;
    await this.primary.beginTransaction(await routed.bindPrimary(), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.primary.commitTransaction(await (connection as RoutedConnection).bindPrimary());
    this.routing.wrote();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.primary.rollbackTransaction(await (connection as RoutedConnection).bindPrimary());
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: never): Promise<void> {
    await this.primary.savepoint?.(
      await (connection as RoutedConnection).bindPrimary(),
      name,
      compile,
    );
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: never,
  ): Promise<void> {
    await this.primary.rollbackToSavepoint?.(
      await (connection as RoutedConnection).bindPrimary(),
      name,
      compile,
    );
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: never,
  ): Promise<void> {
    await this.primary.releaseSavepoint?.(
      await (connection as RoutedConnection).bindPrimary(),
      name,
      compile,
    );
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).release();
  }

  async destroy(): Promise<void> {
    await Promise.all([this.primary, ...this.replicas].map((driver) => driver.destroy()));
  }
}
