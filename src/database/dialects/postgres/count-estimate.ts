// count=estimated above its threshold on PostgreSQL (issue 21): the planner's row estimate for
// the filtered list, from EXPLAIN (FORMAT JSON): the statistics ANALYZE and autovacuum keep, no
// row read. Parameters are bound as for the query itself.
import { CompiledQuery } from 'kysely';
import type { Db } from '../../db.js';

interface Plan {
  readonly Plan?: { readonly 'Plan Rows'?: number };
}

export async function estimateCount(
  db: Db,
  query: CompiledQuery,
  _table: string,
): Promise<number | null> {
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': Plan[] | string }>(
    CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
  );
  const raw = rows[0]?.['QUERY PLAN'];
  const plans: Plan[] = typeof raw === 'string' ? JSON.parse(raw) : (raw ?? []);
  const estimate = plans[0]?.Plan?.['Plan Rows'];
  return typeof estimate === 'number' ? Math.round(estimate) : null;
}
