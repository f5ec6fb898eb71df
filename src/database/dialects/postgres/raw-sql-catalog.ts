// The catalog queries of operator SQL on PostgreSQL (raw-sql.ts): tables, a table's columns, and
// the declared types of the columns a result comes from.
import type pg from 'pg';
import type { Field } from './raw-sql-capped-statement.js';

// User tables and views of the schema the connection works in.
export const TABLES = `select table_name as name, table_type as type from information_schema.tables
  where table_schema = current_schema() and table_type in ('BASE TABLE', 'VIEW')`;
// One relation's columns: the declared type as written (format_type), the default as SQL text
// (none for a generated column, whose expression is not a default), primary key membership.
export const COLUMNS = `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable,
    case when a.attgenerated = '' then pg_get_expr(d.adbin, d.adrelid) end as "default",
    coalesce(a.attnum = any(i.indkey), false) as primary_key
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  left join pg_index i on i.indrelid = c.oid and i.indisprimary
  where n.nspname = current_schema() and c.relname = $1
  order by a.attnum`;
// The declared types of the table columns a result's fields come from.
const DECLARED = `select a.attrelid::text || ':' || a.attnum::text as key, format_type(a.atttypid, a.atttypmod) as type
  from pg_attribute a join unnest($1::oid[], $2::int2[]) as f(rel, num) on a.attrelid = f.rel and a.attnum = f.num`;

/** Declared types by "tableID:columnID"; a lookup that fails leaves the types null. */
export async function declaredTypes(
  client: pg.PoolClient,
  fields: readonly Field[],
): Promise<Map<string, string>> {
  const sourced = fields.filter((f) => f.tableID !== 0);
  if (sourced.length === 0) return new Map();
  try {
    const { rows } = await client.query<{ key: string; type: string }>(DECLARED, [
      sourced.map((f) => f.tableID),
      sourced.map((f) => f.columnID),
    ]);
    return new Map(rows.map((r) => [r.key, r.type]));
  } catch {
    return new Map();
  }
}
