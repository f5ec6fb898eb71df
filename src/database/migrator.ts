// Runs Kysely's migrator over the two ordered sets: system tables (the main database only) and
// data tables (the main database and every unit database). Each set is the files of its folder
// (migrations/system, migrations/data), found by Kysely's FileMigrationProvider and run in name
// order: a new migration is a new file, never registered anywhere. Reports instead of throwing raw.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, type Migration, type MigrationResult, Migrator } from 'kysely';
import type { Db } from './db.js';
import { withTransactionLock } from './dialects/postgres/migration-lock.js';

export type MigrationSet = 'system' | 'data';

/** Every set, in the order they run on the main database. */
export const MIGRATION_SETS: readonly MigrationSet[] = ['system', 'data'];

/** The folder of a set's migration files (compiled .js under dist/, .ts when run from src/). */
export function migrationFolder(set: MigrationSet): string {
  return fileURLToPath(new URL(`./migrations/${set}`, import.meta.url));
}

// A migration's file name without its extension is its name in svc_migrations_<set>.
const MIGRATION_FILE = /^(?!.*\.d\.[mc]?ts$).*\.(?:[mc]?js|[mc]?ts)$/;

const found = new Map<MigrationSet, Promise<Record<string, Migration>>>();

/**
 * A set's migrations, read once per process (GET /ready asks on every probe). A file that is
 * not a migration (no `up` export) stops here, named: Kysely's provider would skip it silently,
 * and its tables would be missing at the first request.
 */
function migrationsOf(set: MigrationSet): Promise<Record<string, Migration>> {
  let migrations = found.get(set);
  if (!migrations) {
    migrations = discover(set);
    found.set(set, migrations);
    migrations.catch(() => found.delete(set));
  }
  return migrations;
}

async function discover(set: MigrationSet): Promise<Record<string, Migration>> {
  const folder = migrationFolder(set);
  const migrations = await new FileMigrationProvider({
    fs,
    path,
    migrationFolder: folder,
  }).getMigrations();
  for (const file of await fs.readdir(folder)) {
    const name = file.slice(0, file.lastIndexOf('.'));
    if (MIGRATION_FILE.test(file) && !migrations[name])
      throw new Error(
        `Migration ${set}/${file} exports no up(db) function: export async function up(db) (and down) from it, or move the file out of ${folder}`,
      );
  }
  return migrations;
}

/** The names of a set's migrations, in order. */
export async function migrationNames(set: MigrationSet): Promise<string[]> {
  return Object.keys(await migrationsOf(set)).sort();
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
    db: withTransactionLock(db),
    provider: { getMigrations: () => migrationsOf(set) },
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
    for (const name of await migrationNames(set))
      if (!ran.has(name)) pending.push(`${set}/${name}`);
  }
  return pending;
}
