// The catalog queries of operator SQL on MariaDB/MySQL (raw-sql.ts): tables, a table's columns,
// and the declared types of the columns a result comes from.
import type { FieldPacket, PoolConnection } from 'mysql2';

/** A prepared statement on a connection, its errors translated (raw-sql.ts). */
export type Execute = <Row>(
  connection: PoolConnection,
  sql: string,
  values: string[],
) => Promise<Row[]>;

export const TABLES = `select TABLE_NAME as name, TABLE_TYPE as type from information_schema.TABLES
  where TABLE_SCHEMA = database() and TABLE_TYPE in ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')`;
export const COLUMNS = `select c.TABLE_NAME as tbl, c.COLUMN_NAME as name, c.COLUMN_TYPE as type, c.IS_NULLABLE as nullable,
    c.COLUMN_DEFAULT as dflt,
    exists(select 1 from information_schema.STATISTICS s where s.TABLE_SCHEMA = c.TABLE_SCHEMA and s.TABLE_NAME = c.TABLE_NAME
      and s.COLUMN_NAME = c.COLUMN_NAME and s.INDEX_NAME = 'PRIMARY') as pk
  from information_schema.COLUMNS c where c.TABLE_SCHEMA = database() and c.TABLE_NAME = ?
  order by c.ORDINAL_POSITION`;

/** The declared types (COLUMN_TYPE) of the table columns the fields come from. */
export async function declaredTypes(
  execute: Execute,
  connection: PoolConnection,
  fields: readonly FieldPacket[],
): Promise<Map<string, string>> {
  const key = (schema: string, table: string, column: string) =>
    `${schema}\u0000${table}\u0000${column}`;
  const tables = new Map<string, [string, string]>();
  for (const f of fields)
    if (f.orgTable && f.orgName && f.schema)
      tables.set(`${f.schema}\u0000${f.orgTable}`, [f.schema, f.orgTable]);
  if (tables.size === 0) return new Map();
  const where = [...tables.values()]
    .map(() => '(TABLE_SCHEMA = ? and TABLE_NAME = ?)')
    .join(' or ');
  try {
    const rows = await execute<{ s: string; t: string; c: string; type: string }>(
      connection,
      `select TABLE_SCHEMA as s, TABLE_NAME as t, COLUMN_NAME as c, COLUMN_TYPE as type from information_schema.COLUMNS where ${where}`,
      [...tables.values()].flat(),
    );
    return new Map(rows.map((r) => [key(r.s, r.t, r.c), r.type]));
  } catch {
    return new Map();
  }
}
