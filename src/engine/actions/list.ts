// List (SPEC.md 4.2): filters, sort, page; a fixed number of statements whatever the page size:
// the total, the page with its counts and relations, then one statement per relation the page's
// statement cannot carry (output/records). Both statements are compiled once per shape
// (database/query-cache).
import { sql } from 'kysely';
import { param, runCached, statementSite } from '../../database/query-cache.js';
import type { Row } from '../../model/entity.js';
import { scopeConditions, scopeKey } from '../../model/scope.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { assembleRecords, recordsKey, type Select, selectRecords } from '../output/records.js';
import { filterExpression, filtersShape, filterValues, parseFilters } from '../query/filters.js';
import type { Input } from '../query/input.js';
import { parsePage } from '../query/paginate.js';
import { parseSort } from '../query/sort.js';

export interface ListResult {
  readonly data: Row[];
  readonly meta: { total: number; per_page: number; current_page: number; last_page: number };
}

const TOTAL = statementSite('list total');
const PAGE = statementSite('list page');

export async function list(
  resource: Resource,
  context: EngineContext,
  input: Input,
): Promise<ListResult> {
  const { entity } = resource;
  const filters = parseFilters(input, resource.searchable);
  const order = parseSort(input, resource.sortable, resource.defaultOrder);
  const { page, perPage, offset } = parsePage(input, resource.perPage, resource.maxPerPage);
  const connections = connectionsOf(context);
  const db = connections[entity.storage];
  const adapter = adapterFor(context, entity.storage);
  // Built only the first time a shape is seen (the callbacks below); later only the values change.
  const conditions = () => filters.map((f, i) => filterExpression(entity.table, f, i, adapter));
  const values = filterValues(filters);
  const filterShape = filtersShape(filters);

  const [counted] = await runCached(
    db,
    [TOTAL, resource, scopeKey(entity, context.scope), filterShape],
    () =>
      [...scopeConditions(entity, context.scope).where, ...conditions()].reduce(
        (q, w) => q.where(w),
        db.selectFrom(entity.table).select(sql<number>`count(*)`.as('total')),
      ),
    values,
    { memo: true },
  );
  const total = Number(counted?.total ?? 0);

  let rows: Row[] = [];
  if (offset < total) {
    rows = await runCached(
      db,
      [
        PAGE,
        ...recordsKey(connections, resource, context.scope, adapter),
        filterShape,
        order?.column ?? null,
        order?.direction ?? null,
        perPage,
      ],
      () => {
        const ordered = <Q extends Select>(query: Q): Q => {
          const sorted = order
            ? query.orderBy(`${entity.table}.${order.column}`, (o) =>
                adapter.nullsSortLow
                  ? o[order.direction]()
                  : order.direction === 'asc'
                    ? o.asc().nullsFirst()
                    : o.desc().nullsLast(),
              )
            : query;
          // The key breaks ties so pages never overlap or skip a row.
          return sorted.orderBy(
            `${entity.table}.${entity.primaryKey}`,
            order?.direction ?? 'asc',
          ) as Q;
        };
        // LIMIT is a literal (per_page takes few values): SQLite re-prepares a statement at every
        // execution when its LIMIT is a bound parameter. OFFSET does not have that cost.
        const page = <Q extends Select>(query: Q): Q =>
          ordered(query).limit(sql.lit(perPage)).offset(param<number>('offset')) as Q;
        const records = selectRecords(connections, resource, context.scope, adapter);
        if (filters.length === 0) return page(records);
        // Filtered: pick the page's keys first ("deferred join"), so the count sub-queries run
        // for the page's rows only, even when the plan filters through one index and sorts.
        const keys = page(
          [...scopeConditions(entity, context.scope).where, ...conditions()].reduce(
            (q, w) => q.where(w),
            db.selectFrom(entity.table).select(`${entity.table}.${entity.primaryKey}`) as Select,
          ),
        );
        // Read through a derived table: MySQL refuses LIMIT directly inside IN (...).
        const pageKeys = db
          .selectFrom(keys.as('page_keys'))
          .select(`page_keys.${entity.primaryKey}`);
        return ordered(records.where(`${entity.table}.${entity.primaryKey}`, 'in', pageKeys));
      },
      { ...values, offset },
      // A page can be large (issue 19): where the engine reads synchronously, read it in slices.
      { sliced: true },
    );
  }
  const records = await assembleRecords(connections, resource, context.scope, adapter, rows);
  return {
    data: records.map(resource.index),
    meta: {
      total,
      per_page: perPage,
      current_page: page,
      last_page: Math.max(1, Math.ceil(total / perPage)),
    },
  };
}
