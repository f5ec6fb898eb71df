// Probes for load balancers and orchestrators, outside the API: no authentication, no session,
// never cached. GET /health answers while the process is up and touches nothing else (liveness).
// GET /ready answers 200 only when the database answers and every known migration has run, else
// 503 naming the failed check (readiness). Both are cheap enough to poll every second.

import type { FastifyInstance, FastifyReply } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../database/database.js';
import { type MigrationSet, pendingMigrations } from '../database/migrator.js';

export interface HealthOptions {
  readonly database: Database;
  /** The migration sets that must be current on `database`. */
  readonly migrationSets: readonly MigrationSet[];
  /** The DB_CONNECTIONS databases, whose data migrations must be current too. */
  readonly unitDatabases?: readonly Database[];
  /** Milliseconds the database gets to answer before /ready calls it unavailable. */
  readonly timeoutMs?: number;
}

export type DatabaseCheck = 'ok' | 'unavailable';
/** `unknown` when the database did not answer, so the migrations could not be read. */
export type MigrationsCheck = 'ok' | 'pending' | 'unknown';

export interface Readiness {
  readonly status: 'ok' | 'unavailable';
  readonly checks: { readonly database: DatabaseCheck; readonly migrations: MigrationsCheck };
}

const DEFAULT_TIMEOUT_MS = 2000;

/** Rejects when `work` takes longer than `ms` (a probe must not hang on an unreachable server). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send(body);
}

/** Migrations not run on DATABASE_URL, then on each DB_CONNECTIONS database. */
async function everyPending(db: Database['db'], options: HealthOptions): Promise<string[]> {
  const lists = await Promise.all([
    pendingMigrations(db, options.migrationSets),
    ...(options.unitDatabases ?? []).map((unit) => pendingMigrations(unit.db, ['data'])),
  ]);
  return lists.flat();
}

export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  const { db } = options.database;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  app.get('/health', async (_request, reply) => send(reply, 200, { status: 'ok' }));

  app.get('/ready', async (request, reply) => {
    let database: DatabaseCheck = 'ok';
    let migrations: MigrationsCheck = 'unknown';
    try {
      // Through Kysely, so the same probe holds on every dialect.
      await within(sql`select 1`.execute(db), timeoutMs);
    } catch (error) {
      database = 'unavailable';
      request.log.warn({ err: error }, 'readiness: the database does not answer');
    }
    if (database === 'ok') {
      try {
        const pending = await within(everyPending(db, options), timeoutMs);
        migrations = pending.length === 0 ? 'ok' : 'pending';
        if (pending.length > 0) request.log.warn({ pending }, 'readiness: migrations pending');
      } catch (error) {
        request.log.warn({ err: error }, 'readiness: the migration tables cannot be read');
      }
    }
    const ready = database === 'ok' && migrations === 'ok';
    const body: Readiness = {
      status: ready ? 'ok' : 'unavailable',
      checks: { database, migrations },
    };
    return send(reply, ready ? 200 : 503, body);
  });
}
