// count=estimated above its threshold on MariaDB/MySQL (issue 21): EXPLAIN's rows times its
// filtered percentage for the list's table, from InnoDB's statistics (index dives and the table's
// sampled row count), no row read. EXPLAIN EXTENDED: MariaDB shows `filtered` only there.
import { CompiledQuery } from 'kysely';
import type { Db } from '../../db.js';

interface ExplainRow {
  readonly table?: string | null;
  readonly rows?: number | string | null;
  readonly filtered?: number | string | null;
}

export async function estimateCount(
  db: Db,
  query: CompiledQuery,
  table: string,
): Promise<number | null> {
  const { rows } = await db.executeQuery<ExplainRow>(
    CompiledQuery.raw(`explain extended ${query.sql}`, [...query.parameters]),
  );
  const row = rows.find((r) => r.table === table) ?? rows[0];
  if (!row || row.rows === null || row.rows === undefined) return null;
  const filtered = row.filtered === null || row.filtered === undefined ? 100 : Number(row.filtered);
  return Math.round((Number(row.rows) * filtered) / 100);
}
