// What the migrations create, read off a scratch in-memory SQLite database they ran on:
// `svc make:migration` compares the entity declarations with it (model/schema-plan.ts).
// SQLite keeps each column's declared type text (`varchar(120)`), its NOT NULL, its indexes and
// foreign keys, which is what a declaration says; engine-specific types are not compared.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Db } from '../../db.js';

export interface MigratedColumn {
  readonly name: string;
  /** The declared type, lower case (`varchar(120)`, `integer`, `text`). */
  readonly type: string;
  readonly notNull: boolean;
}

export interface MigratedTable {
  readonly name: string;
  readonly columns: ReadonlyMap<string, MigratedColumn>;
  /** Each index's columns in order (unique constraints and the primary key included). */
  readonly indexes: ReadonlyArray<{
    readonly columns: readonly string[];
    readonly unique: boolean;
  }>;
  readonly foreignKeys: ReadonlyArray<{ readonly column: string; readonly table: string }>;
}

/** Runs `migrate` on a new in-memory SQLite database and answers every table it made. */
export async function migratedSchema(
  migrate: (db: Db) => Promise<unknown>,
): Promise<Map<string, MigratedTable>> {
  const db: Db = new Kysely({
    dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
  });
  try {
    await migrate(db);
    const names = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
    const tables = new Map<string, MigratedTable>();
    for (const { name } of names.rows) tables.set(name, await tableOf(db, name));
    return tables;
  } finally {
    await db.destroy();
  }
}

async function tableOf(db: Db, name: string): Promise<MigratedTable> {
  const pragma = <T>(query: string) =>
    sql<T>`select * from ${sql.raw(query)}(${sql.lit(name)})`.execute(db).then((r) => r.rows);
  const columns = await pragma<{ name: string; type: string; notnull: number; pk: number }>(
    'pragma_table_info',
  );
  const indexList = await pragma<{ name: string; unique: number }>('pragma_index_list');
  const indexes = [];
  for (const index of indexList) {
    const info = await sql<{ name: string; seqno: number }>`
      select * from pragma_index_info(${sql.lit(index.name)})`.execute(db);
    const ordered = [...info.rows].sort((a, b) => a.seqno - b.seqno).map((c) => c.name);
    indexes.push({ columns: ordered, unique: index.unique === 1 });
  }
  for (const column of columns)
    if (column.pk) indexes.push({ columns: [column.name], unique: true });
  const foreignKeys = await pragma<{ from: string; table: string }>('pragma_foreign_key_list');
  return {
    name,
    columns: new Map(
      columns.map((c) => [
        c.name,
        { name: c.name, type: c.type.toLowerCase(), notNull: c.notnull === 1 || c.pk === 1 },
      ]),
    ),
    indexes,
    foreignKeys: foreignKeys.map((fk) => ({ column: fk.from, table: fk.table })),
  };
}
