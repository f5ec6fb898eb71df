// Column types per engine for the migrations, so each migration is written once.
import { MysqlAdapter, PostgresAdapter, type ColumnDataType, type CreateTableBuilder, sql, type Expression } from 'kysely';
import type { Db } from '../database.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Table = CreateTableBuilder<any, any>;

export interface ColumnTypes {
  /** Adds an auto-generated integer primary key named id. */
  id(table: Table): Table;
  readonly timestamp: ColumnDataType | Expression<unknown>;
  readonly json: ColumnDataType | Expression<unknown>;
  readonly bigint: ColumnDataType;
}

export function columnTypes(db: Db): ColumnTypes {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) {
    return {
      id: (t) => t.addColumn('id', 'bigserial', (c) => c.primaryKey()),
      timestamp: sql`timestamp(3) with time zone`,
      json: 'jsonb',
      bigint: 'bigint',
    };
  }
  if (adapter instanceof MysqlAdapter) {
    return {
      id: (t) => t.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement().unsigned()),
      timestamp: sql`datetime(3)`,
      json: 'json',
      bigint: 'bigint',
    };
  }
  // SQLite: "integer primary key" is the rowid; ISO-8601 text timestamps sort as strings.
  return {
    id: (t) => t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    timestamp: 'text',
    json: 'text',
    bigint: 'integer',
  };
}
