// The databases of the units' data tables (DESIGN.md 3.5): DATABASE_URL's for a unit without a
// connection, and one per DB_CONNECTIONS entry for the units that name it. Every entry is
// opened and brought to the latest 'data' migration at start (a database that cannot be opened
// stops the start, naming the entry, never its URL: it may hold a password), and all are closed
// at shutdown. System tables never live here: they stay in DATABASE_URL.
import { type ConnectOptions, connectDatabase } from './connect.js';
import type { Database } from './database.js';
import { type MigrationReport, migrate } from './migrator.js';

/** A unit's connection that names no configured database: its data requests must not run. */
export interface UnknownConnection {
  readonly unknownConnection: string;
}

export interface UnitDatabaseSettings {
  readonly databaseUrl: string;
  readonly dbConnections: Readonly<Record<string, string>>;
}

export class UnitDatabases {
  private constructor(
    private readonly main: Database,
    private readonly named: ReadonlyMap<string, Database>,
    /** The databases this instance opened (an entry with DATABASE_URL's URL shares the main one). */
    private readonly owned: readonly Database[],
    /** The migrations each entry's 'data' set applied while opening. */
    readonly reports: Readonly<Record<string, MigrationReport[]>>,
  ) {}

  /**
   * Opens every DB_CONNECTIONS entry and migrates it (unless `migrateThem` is false: svc check,
   * MIGRATE_ON_START=false). Entries with the same URL share one database,
   * and an entry with DATABASE_URL's URL is the main database itself (so a write there stays one
   * transaction with its system reads).
   */
  static async open(
    main: Database,
    settings: UnitDatabaseSettings,
    options: ConnectOptions,
    migrateThem = true,
  ): Promise<UnitDatabases> {
    const byUrl = new Map<string, Database>([[settings.databaseUrl, main]]);
    const named = new Map<string, Database>();
    const owned: Database[] = [];
    const reports: Record<string, MigrationReport[]> = {};
    try {
      for (const [name, url] of Object.entries(settings.dbConnections)) {
        let database = byUrl.get(url);
        if (!database) {
          database = await openEntry(name, url, options);
          owned.push(database);
          byUrl.set(url, database);
        }
        reports[name] = migrateThem ? await migrateEntry(name, database) : [];
        named.set(name, database);
      }
    } catch (error) {
      await Promise.allSettled(owned.map((database) => database.close()));
      throw error;
    }
    return new UnitDatabases(main, named, owned, reports);
  }

  /**
   * The database of a unit's data tables: the main one when the unit has no connection (null or
   * empty), the named one otherwise, or the unknown name: never the main database instead.
   */
  for(connection: string | null): Database | UnknownConnection {
    if (connection === null || connection === '') return this.main;
    return this.named.get(connection) ?? { unknownConnection: connection };
  }

  /** The databases opened for DB_CONNECTIONS (not the main one). */
  databases(): readonly Database[] {
    return this.owned;
  }

  /**
   * Every database of data tables once, the main one first, each with a name that is the same
   * on every instance: '' for the main one, else the first DB_CONNECTIONS name that opens it.
   */
  keyed(): ReadonlyArray<{ readonly key: string; readonly database: Database }> {
    const keyed = new Map<Database, string>([[this.main, '']]);
    for (const [name, database] of this.named) if (!keyed.has(database)) keyed.set(database, name);
    return [...keyed].map(([database, key]) => ({ key, database }));
  }

  /** The configured names, in DB_CONNECTIONS order. */
  names(): string[] {
    return [...this.named.keys()];
  }

  /** Closes the databases opened for DB_CONNECTIONS; the main one is its owner's to close. */
  async close(): Promise<void> {
    await Promise.all(this.owned.map((database) => database.close()));
  }
}

async function openEntry(name: string, url: string, options: ConnectOptions): Promise<Database> {
  try {
    return connectDatabase(url, options);
  } catch (error) {
    throw new Error(`DB_CONNECTIONS entry "${name}": ${messageOf(error)}`, { cause: error });
  }
}

async function migrateEntry(name: string, database: Database): Promise<MigrationReport[]> {
  try {
    return await migrate(database.db, ['data']);
  } catch (error) {
    throw new Error(`DB_CONNECTIONS entry "${name}": ${messageOf(error)}`, { cause: error });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
