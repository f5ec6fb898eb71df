// meta.total of a list by its count strategy (issue 21, engine/query/count.ts). exact: one
// count(*) of the filtered rows. estimated: one bounded count (at most threshold + 1 matches),
// exact at or below the threshold; above it the engine's estimate (DialectAdapter.estimateCount:
// PostgreSQL's planner, MariaDB's EXPLAIN; one statement more) or, where the engine has none
// (SQLite), an extrapolation the bounded count's statement also reads: the share of matches
// among the newest SAMPLE rows times the table's key span. none: no statement.
import { type Expression, type SqlBool, sql } from 'kysely';
import { keptReadsOf, type RidingTotal } from '../../database/kept-reads.js';
import { compiledStatement, runStatement, statementSite } from '../../database/statement-runner.js';
import { scopeConditions, scopeKey } from '../../model/scope.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import type { Select } from '../output/select-records.js';
import type { CountStrategy } from '../query/count.js';

export interface Total {
  /** null with count=none. */
  readonly total: number | null;
  readonly estimated: boolean;
}

/** The list's filters: built only the first time a shape is seen, values are placeholders. */
export interface ListFilters {
  readonly shape: string;
  readonly values: Readonly<Record<string, unknown>>;
  conditions(): Array<Expression<SqlBool>>;
}

const TOTAL = statementSite('list total');
const BOUNDED = statementSite('list bounded total');
const ESTIMATED = statementSite('list estimated total');
/** Rows the SQLite extrapolation reads: a share of matches within about 2 % (at 27 % matching). */
const SAMPLE = 5000;

/** The rows of the list's table the caller may see that match the filters. */
function matching(resource: Resource, context: EngineContext, filters: ListFilters) {
  const { entity } = resource;
  const db = connectionsOf(context)[entity.storage];
  const filtered = (query: Select) =>
    [...scopeConditions(entity, context.scope).where, ...filters.conditions()].reduce(
      (q, w) => q.where(w),
      query,
    );
  const from = () => db.selectFrom(entity.table) as unknown as Select;
  const exact = () => filtered(from().select(sql<number>`count(*)`.as('total')));
  const scopeShape = scopeKey(entity, context.scope);
  const key = [TOTAL, resource, scopeShape, filters.shape] as const;
  return { db, filtered, from, exact, key, scopeShape };
}

export async function listTotal(
  resource: Resource,
  context: EngineContext,
  strategy: CountStrategy,
  filters: ListFilters,
): Promise<Total> {
  if (strategy === 'none') return { total: null, estimated: false };
  const { entity } = resource;
  const {
    db,
    filtered,
    from,
    exact,
    key: totalKey,
    scopeShape,
  } = matching(resource, context, filters);
  if (strategy === 'exact') {
    const [counted] = await runStatement(db, totalKey, exact, filters.values, { reuse: true });
    return { total: Number(counted?.total ?? 0), estimated: false };
  }

  const threshold = resource.countThreshold;
  const key = `${entity.table}.${entity.primaryKey}`;
  const adapter = adapterFor(context, entity.storage);
  const [bounded] = await runStatement(
    db,
    [BOUNDED, resource, scopeShape, filters.shape],
    () => {
      // Stops after threshold + 1 matches, in whatever order the plan reads them.
      const matches = filtered(from().select(sql.lit(1).as('one'))).limit(sql.lit(threshold + 1));
      const counted = db
        .selectFrom(matches.as('matches'))
        .select(sql<number>`count(*)`.as('hits')) as unknown as Select;
      if (adapter.estimateCount) return counted;
      // No planner estimate (SQLite): the share of matches among the newest SAMPLE rows (read
      // by key, the derived table named like the table so the filters apply to it as written)
      // and the key span, for an extrapolation above the threshold.
      const newest = db
        .selectFrom(entity.table)
        .selectAll()
        .orderBy(key, 'desc')
        .limit(sql.lit(SAMPLE));
      const sample = filtered(
        db.selectFrom(newest.as(entity.table)).select(sql<number>`count(*)`.as('n')) as Select,
      );
      const keys = (aggregate: 'max' | 'min') =>
        sql`(select ${sql.raw(aggregate)}(${sql.ref(entity.primaryKey)}) from ${sql.table(entity.table)})`;
      return counted.select([
        sql`(${sample})`.as('sampled'),
        sql`(select count(*) from (${newest}) as newest)`.as('read'),
        keys('max').as('top'),
        keys('min').as('bottom'),
      ]);
    },
    filters.values,
    { reuse: true },
  );
  const hits = Number(bounded?.hits ?? 0);
  if (hits <= threshold) return { total: hits, estimated: false };

  let estimate: number | null = null;
  if (adapter.estimateCount) {
    estimate = await adapter.estimateCount(
      db,
      compiledStatement(
        db,
        [ESTIMATED, resource, scopeShape, filters.shape],
        () => filtered(from().select(sql.ref(key).as('k'))),
        filters.values,
      ),
      entity.table,
    );
  } else {
    const span = Number(bounded?.top) - Number(bounded?.bottom) + 1;
    const read = Number(bounded?.read);
    if (read > 0 && span > 0) estimate = Math.round((Number(bounded?.sampled) * span) / read);
  }
  // More than the threshold matched: an estimate below that would contradict the count.
  return { total: Math.max(threshold + 1, estimate ?? 0), estimated: true };
}

/**
 * Where the database keeps reads (PostgreSQL, database/kept-reads.ts), the exact total rides on
 * the list's page statement, counted only when the database moved on since the total kept for
 * this statement and these values: one statement less per list than listTotal, and the same
 * kept total as listTotal's, so either keeps it for the other. null elsewhere.
 */
export function ridingTotal(
  resource: Resource,
  context: EngineContext,
  strategy: CountStrategy,
  filters: ListFilters,
): RidingTotal | null {
  const keeping = keptReadsOf(connectionsOf(context)[resource.entity.storage]);
  if (strategy !== 'exact' || !keeping) return null;
  const { exact, key } = matching(resource, context, filters);
  return keeping.total(key, exact, filters.values);
}
