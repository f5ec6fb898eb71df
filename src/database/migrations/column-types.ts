// Column types per engine for the migrations, so each migration is written once.
import {
  type ColumnDataType,
  type CreateTableBuilder,
  type DropIndexBuilder,
  type Expression,
  MysqlAdapter,
  PostgresAdapter,
  sql,
} from 'kysely';
import type { Db } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
type Table = CreateTableBuilder<any, any>;

export interface ColumnTypes {
  /** Adds an auto-generated integer primary key named id (and the engine's table options). */
  id(table: Table): Table;
  /** The engine's table options, for a table keyed otherwise. */
  table(table: Table): Table;
  /** Drops an index (MySQL names the table; the others refuse it). */
  dropIndex(name: string, table: string): DropIndexBuilder;
  readonly timestamp: ColumnDataType | Expression<unknown>;
  readonly json: ColumnDataType | Expression<unknown>;
  readonly bigint: ColumnDataType;
}

export function columnTypes(db: Db): ColumnTypes {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) {
    return {
      id: (t) => t.addColumn('id', 'bigserial', (c) => c.primaryKey()),
      table: (t) => t,
      dropIndex: (name) => db.schema.dropIndex(name),
      timestamp: sql`timestamp(3) with time zone`,
      // json, not jsonb: the text is kept as written, so keys keep their order in every answer.
      json: 'json',
      bigint: 'bigint',
    };
  }
  if (adapter instanceof MysqlAdapter) {
    // A binary collation: equality, uniqueness and sorting of text compare bytes, as on SQLite
    // and PostgreSQL with the C collation, instead of MySQL's case-insensitive default.
    const table = (t: Table) =>
      t.modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`);
    return {
      // Signed, like the bigint columns that reference it (MySQL requires equal types).
      id: (t) => table(t.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement())),
      table,
      dropIndex: (name, table) => db.schema.dropIndex(name).on(table),
      timestamp: sql`datetime(3)`,
      json: 'json',
      bigint: 'bigint',
    };
  }
  // SQLite: "integer primary key" is the rowid; ISO-8601 text timestamps sort as strings.
  return {
    id: (t) => t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    table: (t) => t,
    dropIndex: (name) => db.schema.dropIndex(name),
    timestamp: 'text',
    json: 'text',
    bigint: 'integer',
  };
}
