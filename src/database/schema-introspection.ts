// What a database holds of some tables: their columns (type, length) and foreign keys, read in
// two statements whatever the number of tables (the start-up check, engine/definition/
// schema-check.ts, reads each database once). The catalogue differs per engine; the shape read
// back does not.
import { type RawBuilder, sql } from 'kysely';
import type { Database } from './database.js';

export interface StoredColumn {
  /** The declared type as the engine reports it, lower case: `varchar(200)`, `bigint`, `text`. */
  readonly type: string;
  /** The most characters it holds (varchar/char), or null when the type sets no length. */
  readonly length: number | null;
}

export interface StoredForeignKey {
  readonly column: string;
  readonly table: string;
  readonly referenced: string;
}

export interface StoredTable {
  readonly columns: ReadonlyMap<string, StoredColumn>;
  readonly foreignKeys: readonly StoredForeignKey[];
}

/** The tables found, by name; a table missing from the database is missing from the map. */
export type StoredSchema = ReadonlyMap<string, StoredTable>;

interface ColumnRow {
  readonly table_name: string;
  readonly column_name: string;
  readonly data_type: string;
  readonly length: number | string | null;
}

interface ForeignKeyRow {
  readonly table_name: string;
  readonly column_name: string;
  readonly referenced_table: string;
  readonly referenced_column: string;
}

/** `varchar(200)` -> 200 (SQLite keeps the declared text; it is the length a value may have). */
function declaredLength(type: string): number | null {
  const match = /char[^(]*\(\s*(\d+)\s*\)/.exec(type);
  return match ? Number(match[1]) : null;
}

async function sqliteCatalogue(database: Database, names: RawBuilder<unknown>) {
  const { db } = database;
  const columns = await sql<ColumnRow>`select m.name as table_name, p.name as column_name,
      lower(p.type) as data_type, null as length
    from sqlite_master m join pragma_table_info(m.name) p
    where m.type = 'table' and m.name in (${names})`.execute(db);
  const keys = await sql<ForeignKeyRow>`select m.name as table_name, f."from" as column_name,
      f."table" as referenced_table, f."to" as referenced_column
    from sqlite_master m join pragma_foreign_key_list(m.name) f
    where m.type = 'table' and m.name in (${names})`.execute(db);
  return { columns: columns.rows, keys: keys.rows };
}

// pg_catalog, not information_schema: its views cost PostgreSQL 50-100 ms here, these a few.
async function postgresCatalogue(database: Database, names: RawBuilder<unknown>) {
  const { db } = database;
  const columns = await sql<ColumnRow>`select c.relname as table_name, a.attname as column_name,
      format_type(a.atttypid, a.atttypmod) as data_type, null as length
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = current_schema()::regnamespace and c.relname in (${names})
      and a.attnum > 0 and not a.attisdropped`.execute(db);
  // Single-column keys: a relation names one column on each side.
  const keys = await sql<ForeignKeyRow>`select c.relname as table_name, a.attname as column_name,
      f.relname as referenced_table, fa.attname as referenced_column
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_class f on f.oid = k.confrelid
    join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
    join pg_attribute fa on fa.attrelid = k.confrelid and fa.attnum = k.confkey[1]
    where k.contype = 'f' and c.relnamespace = current_schema()::regnamespace
      and c.relname in (${names})`.execute(db);
  return { columns: columns.rows, keys: keys.rows };
}

async function mysqlCatalogue(database: Database, names: RawBuilder<unknown>) {
  const { db } = database;
  // Aliased: MySQL answers information_schema's columns in upper case.
  const columns = await sql<ColumnRow>`select table_name as table_name,
      column_name as column_name, column_type as data_type,
      character_maximum_length as length
    from information_schema.columns
    where table_schema = database() and table_name in (${names})`.execute(db);
  const keys = await sql<ForeignKeyRow>`select table_name as table_name,
      column_name as column_name, referenced_table_name as referenced_table,
      referenced_column_name as referenced_column
    from information_schema.key_column_usage
    where table_schema = database() and referenced_table_name is not null
      and table_name in (${names})`.execute(db);
  return { columns: columns.rows, keys: keys.rows };
}

const CATALOGUES = { sqlite: sqliteCatalogue, postgres: postgresCatalogue, mysql: mysqlCatalogue };

export async function introspectSchema(
  database: Database,
  tables: readonly string[],
): Promise<StoredSchema> {
  const schema = new Map<string, StoredTable>();
  if (tables.length === 0) return schema;
  const read = CATALOGUES[database.adapter.name];
  const { columns, keys } = await read(database, sql.join([...tables]));
  const found = new Map<
    string,
    { columns: Map<string, StoredColumn>; foreignKeys: StoredForeignKey[] }
  >();
  for (const row of columns) {
    const table = String(row.table_name);
    let entry = found.get(table);
    if (!entry) {
      entry = { columns: new Map(), foreignKeys: [] };
      found.set(table, entry);
    }
    const type = String(row.data_type).toLowerCase();
    // Text types report a byte count, not a declared limit: only character types have a length.
    const length = !/char/.test(type)
      ? null
      : row.length === null
        ? declaredLength(type)
        : Number(row.length);
    entry.columns.set(String(row.column_name), { type, length });
  }
  for (const row of keys) {
    found.get(String(row.table_name))?.foreignKeys.push({
      column: String(row.column_name),
      table: String(row.referenced_table),
      referenced: String(row.referenced_column),
    });
  }
  for (const [table, entry] of found) schema.set(table, entry);
  return schema;
}
