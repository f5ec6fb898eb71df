// Opens a PostgreSQL database through a pg pool. Big integers (ids, counts) come back as
// numbers, timestamps as Date objects in UTC: the casts of src/model then give the same JSON as
// on the other engines.

import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import type pg from 'pg';
import type { Database } from '../../database.js';
import type { Db } from '../../db.js';
import { type SlicedReader, useRunner } from '../../statement-runner.js';
import { countingLog, type PoolOptions } from '../pool-options.js';
import { postgresAdapter } from './adapter.js';
import { openPostgresPool } from './pool.js';
import { RoutingDriver, readRouting } from './read-routing.js';
import { ReplicaMonitor } from './replica-monitor.js';
import { postgresSlicedReader } from './sliced-reader.js';
import { snapshotMemo } from './snapshot-memo.js';
import { postgresRunner } from './statement-runner.js';

/** DATABASE_READ_URL's replicas of the primary (DESIGN.md 3.12). */
export interface ReplicaOptions {
  readonly urls: readonly string[];
  readonly maxLagMs: number;
}

export function connectPostgres(
  url: string,
  options: PoolOptions,
  replicas?: ReplicaOptions,
): Database {
  const { pool, mode } = openPostgresPool(url, options);
  let executed = 0;
  const counted = () => (executed += 1);
  const direct = () =>
    new Kysely({ dialect: new PostgresDialect({ pool }), log: countingLog(counted) });
  const routed =
    replicas && replicas.urls.length > 0
      ? readFromReplicas(pool, options, replicas, counted)
      : null;
  const db: Db = routed?.db ?? direct();
  const primaryReads = postgresSlicedReader(pool, counted);
  if (routed) {
    // The memo's statements run on the primary, and apply only while the request reads there.
    const reads: SlicedReader = (text, parameters, share) => {
      const index = routed.routing.replicaNow();
      const reader = index === undefined ? undefined : routed.slicedReaders[index];
      if (!reader || index === undefined) return primaryReads(text, parameters, share);
      return reader(text, parameters, share).catch((error: unknown) => {
        if (!routed.routing.fallsBack(error, index)) throw error;
        return primaryReads(text, parameters, share);
      });
    };
    const onPrimary = () => routed.routing.replicaNow() === undefined;
    useRunner(db, postgresRunner(db, snapshotMemo(direct()), reads, onPrimary));
  } else {
    useRunner(db, postgresRunner(db, snapshotMemo(db), primaryReads));
  }
  return {
    db,
    adapter: postgresAdapter,
    statementCount: () => executed,
    behindPooler: () => mode.pooler,
    transaction: (work) => db.transaction().execute(work),
    close: async () => {
      routed?.monitor.stop();
      await db.destroy();
    },
  };
}

function readFromReplicas(
  primary: pg.Pool,
  options: PoolOptions,
  replicas: ReplicaOptions,
  counted: () => void,
) {
  const pools = replicas.urls.map((url) => openPostgresPool(url, options).pool);
  const monitor = new ReplicaMonitor(primary, pools, replicas.maxLagMs);
  monitor.start();
  const routing = readRouting(monitor);
  const driver = new RoutingDriver(
    new PostgresDialect({ pool: primary }).createDriver(),
    pools.map((pool) => new PostgresDialect({ pool }).createDriver()),
    routing,
  );
  const db: Db = new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    },
    log: countingLog(counted),
  });
  const slicedReaders = pools.map((pool) => postgresSlicedReader(pool, counted));
  return { db, routing, monitor, slicedReaders };
}
