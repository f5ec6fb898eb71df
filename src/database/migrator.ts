// Runs Kysely's migrator over the two ordered sets: system tables (the main database only) and
// data tables (the main database and every unit database). Reports instead of throwing raw.
import { type Migration, type MigrationResult, Migrator } from 'kysely';
import type { Db } from './db.js';
import * as data0001 from './migrations/data/0001-import-templates.js';
import * as data0002 from './migrations/data/0002-covering-indexes.js';
import * as data0003 from './migrations/data/0003-sort-indexes-nulls-first.js';
import * as data0004 from './migrations/data/0004-template-company.js';
import * as data0005 from './migrations/data/0005-template-version.js';
import * as data0006 from './migrations/data/0006-idempotency-keys.js';
import * as data0007 from './migrations/data/0007-changes.js';
import * as data0008 from './migrations/data/0008-revisions.js';
import * as data0009 from './migrations/data/0009-revision-deletes.js';
import * as data0010 from './migrations/data/0010-changes-hold-revisions.js';
import * as system0001 from './migrations/system/0001-identities.js';
import * as system0002 from './migrations/system/0002-sessions-notifications.js';
import * as system0003 from './migrations/system/0003-webhooks.js';

export type MigrationSet = 'system' | 'data';

/** Every set, in the order they run on the main database. */
export const MIGRATION_SETS: readonly MigrationSet[] = ['system', 'data'];

const SETS: Record<MigrationSet, Record<string, Migration>> = {
  system: {
    '0001-identities': system0001,
    '0002-sessions-notifications': system0002,
    '0003-webhooks': system0003,
  },
  data: {
    '0001-import-templates': data0001,
    '0002-covering-indexes': data0002,
    '0003-sort-indexes-nulls-first': data0003,
    '0004-template-company': data0004,
    '0005-template-version': data0005,
    '0006-idempotency-keys': data0006,
    '0007-changes': data0007,
    '0008-revisions': data0008,
    '0009-revision-deletes': data0009,
    '0010-changes-hold-revisions': data0010,
  },
};

/** The names of a set's migrations, in order. */
export function migrationNames(set: MigrationSet): string[] {
  return Object.keys(SETS[set]);
}

export interface MigrationReport {
  readonly set: MigrationSet;
  readonly applied: string[];
}

export class MigrationFailed extends Error {
  constructor(set: MigrationSet, migration: string | undefined, cause: unknown) {
    super(
      `Migration ${set}/${migration ?? '?'} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

const migrationTable = (set: MigrationSet): string => `svc_migrations_${set}`;

function migratorFor(db: Db, set: MigrationSet): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => SETS[set] },
    migrationTableName: migrationTable(set),
    migrationLockTableName: `svc_migrations_${set}_lock`,
    // A migration missing from the table runs even when later ones ran (a test re-runs one; a
    // database restored from a backup): Kysely otherwise refuses the whole set as corrupted.
    allowUnorderedMigrations: true,
  });
}

export async function migrate(db: Db, sets: readonly MigrationSet[]): Promise<MigrationReport[]> {
  const reports: MigrationReport[] = [];
  for (const set of sets) {
    const { error, results } = await migratorFor(db, set).migrateToLatest();
    const failed = results?.find((r: MigrationResult) => r.status === 'Error');
    if (error) throw new MigrationFailed(set, failed?.migrationName, error);
    reports.push({
      set,
      applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    });
  }
  return reports;
}

/**
 * Known migrations of the sets that have not run on `db`, as `<set>/<name>` (GET /ready). One
 * select per set on the migration table: Kysely's own getMigrations() introspects every table
 * first, too costly for a probe. A set whose table is missing throws (the caller reports it).
 */
export async function pendingMigrations(db: Db, sets: readonly MigrationSet[]): Promise<string[]> {
  const pending: string[] = [];
  for (const set of sets) {
    const rows = await db.selectFrom(migrationTable(set)).select('name').execute();
    const ran = new Set(rows.map((row: { name: string }) => row.name));
    for (const name of Object.keys(SETS[set])) if (!ran.has(name)) pending.push(`${set}/${name}`);
  }
  return pending;
}
