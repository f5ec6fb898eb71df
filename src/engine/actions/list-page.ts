// The statement of a list's page (SPEC.md 4.2): the records of the page in the list's order, read
// one row further, so the answer knows whether more follow (issue 21: meta.has_more, the next
// cursor); a `cursor` reads the rows after (or before) a position through the order's index
// instead of an OFFSET. What rides on the statement (the total, the token check) and how its rows
// are kept are the database's (database/kept-reads.ts): the page only hands them over.
import { sql } from 'kysely';
import { KEPT_ROWS, keptReadsOf, type Rider, type RidingTotal } from '../../database/kept-reads.js';
import {
  type Charged,
  param,
  runStatement,
  type StatementKey,
  statementSite,
} from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { scopeConditions } from '../../model/scope.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Order, Resource } from '../definition/define-resource.js';
import { recordsKey, type Select, selectRecords } from '../output/select-records.js';
import { keysetBranches } from '../query/cursor.js';
import type { ListFilters } from './list-total.js';

/** What a page's statement is built from, parsed from the request (list.ts). */
export interface PageQuery {
  readonly filters: ListFilters;
  /** Whether any filter applies (the filtered page reads its keys first). */
  readonly filtered: boolean;
  readonly order: Order | null;
  /** The direction the rows are read in: the order's, reversed for a prev cursor. */
  readonly scan: 'asc' | 'desc';
  readonly perPage: number;
  readonly offset: number;
  /** Reading from a cursor's position (null: by page). */
  readonly keyset: {
    readonly valueIsNull: boolean;
    readonly values: Readonly<Record<string, unknown>>;
  } | null;
}

/** What rides on the page's statement: the total, and the request's check (context.check). */
export interface PageRiders {
  readonly total: RidingTotal | null;
  readonly check: (Rider & { readonly key: string; read(rows: readonly Row[]): void }) | null;
}

/** The page's rows, the kept rows they are (the same object while they stand), the total read. */
export interface PageRows {
  readonly rows: Row[];
  readonly kept: object | null;
  /** The riding total (null: none rode, or an empty page read anew carried none). */
  readonly total: number | null;
}

const PAGE = statementSite('list page');

/** Reads the page of `query`; the riders read their columns from its rows. */
export async function readPage(
  resource: Resource,
  context: EngineContext,
  query: PageQuery,
  riders: PageRiders,
  options: Charged,
): Promise<PageRows> {
  const connections = connectionsOf(context);
  const db = connections[resource.entity.storage];
  const adapter = adapterFor(context, resource.entity.storage);
  const keeping = keptReadsOf(db);
  const { total, check } = riders;
  const { keyset, offset } = query;
  const key: StatementKey = [
    PAGE,
    ...recordsKey(connections, resource, context.scope, adapter),
    query.filters.shape,
    query.order?.column ?? null,
    query.scan,
    query.perPage,
    keyset
      ? keyset.valueIsNull
        ? 'after null'
        : 'after value'
      : offset === 0
        ? 'first'
        : 'offset',
    keeping ? 'memoised' : 'read',
    total ? 'carries the total' : 'page only',
    check?.key ?? null,
  ];
  const build = (): Select => {
    const page = pageStatement(resource, context, query);
    if (keeping)
      return page.ordered(keeping.page(page.rows(), [total, check]) as Select, KEPT_ROWS);
    // No kept reads (MariaDB/MySQL): the request's check rides on every row of the page; an
    // empty page has no row to read it from, and the check then runs on its own.
    return check ? (page.rows().select(check.columns()) as Select) : page.rows();
  };
  const values = {
    ...query.filters.values,
    ...(keyset ? keyset.values : offset === 0 ? {} : { offset }),
  };
  const riderValues = { ...total?.values, ...check?.values };
  const kept = keeping?.pageRead(key, build, values, riderValues);
  const read = await runStatement(
    db,
    key,
    build,
    { ...values, ...kept?.values, ...riderValues },
    // A page can be large (issue 19): where the engine reads synchronously, read it in slices;
    // its rows are charged to the answers' memory budget.
    { ...options, sliced: true },
  );
  check?.read(read);
  const ridden = total?.read(read) ?? null;
  if (!kept) return { rows: read, kept: null, total: ridden };
  return {
    ...kept.settle(read, (row) => row?.[resource.entity.primaryKey] == null),
    total: ridden,
  };
}

/** The SQL of a page: its rows, and the list's order on another source. */
function pageStatement(resource: Resource, context: EngineContext, query: PageQuery) {
  const { entity } = resource;
  const connections = connectionsOf(context);
  const db = connections[entity.storage];
  const adapter = adapterFor(context, entity.storage);
  const { order, scan, keyset, offset } = query;
  // The list's order on `source` (the table, or the derived table of a cursor's branches).
  const ordered = <Q extends Select>(select: Q, source = entity.table): Q => {
    const sorted = order
      ? select.orderBy(`${source}.${order.column}`, (o) =>
          adapter.nullsSortLow
            ? o[scan]()
            : scan === 'asc'
              ? o.asc().nullsFirst()
              : o.desc().nullsLast(),
        )
      : select;
    // The key breaks ties so pages never overlap or skip a row.
    return sorted.orderBy(`${source}.${entity.primaryKey}`, scan) as Q;
  };
  // One row more than the page: whether another page follows. LIMIT is a literal (per_page
  // takes few values): SQLite re-prepares a statement at every execution when its LIMIT is
  // a bound parameter. OFFSET does not have that cost.
  const limited = <Q extends Select>(select: Q, source?: string): Q =>
    ordered(select, source).limit(sql.lit(query.perPage + 1)) as Q;
  const filtered = (columns: string[]) =>
    [...scopeConditions(entity, context.scope).where, ...query.filters.conditions()].reduce(
      (q, w) => q.where(w),
      db.selectFrom(entity.table).select(columns.map((c) => `${entity.table}.${c}`)) as Select,
    );
  const keysAfter = (valueIsNull: boolean): Select => {
    // By cursor: the page's keys from the branches of the position (query/cursor.ts), each
    // an index range read in order and limited to the page, merged in the list's order.
    const columns = order ? [entity.primaryKey, order.column] : [entity.primaryKey];
    const [first, second] = keysetBranches(
      entity.table,
      order?.column ?? null,
      entity.primaryKey,
      scan,
      valueIsNull,
    ).map((condition) => limited(filtered(columns).where(condition)));
    if (!second || !first) return first as Select;
    const branches = db
      .selectFrom(first.as('first_branch'))
      .selectAll()
      .unionAll(db.selectFrom(second.as('second_branch')).selectAll())
      .as('branches');
    return limited(
      db.selectFrom(branches).select(`branches.${entity.primaryKey}`) as Select,
      'branches',
    );
  };
  const rows = (): Select => {
    const records = selectRecords(connections, resource, context.scope, adapter);
    let keys: Select;
    if (keyset) keys = keysAfter(keyset.valueIsNull);
    else {
      // The first page, the one most asked for, has no OFFSET: a statement with no values
      // (unfiltered) is planned once, where PostgreSQL plans one with a bound OFFSET anew at
      // every run (its generic plan cannot know how deep the offset goes).
      const page = <Q extends Select>(select: Q): Q =>
        (offset === 0 ? limited(select) : limited(select).offset(param<number>('offset'))) as Q;
      if (!query.filtered) return page(records);
      // Filtered: pick the page's keys first ("deferred join"), so the count sub-queries run
      // for the page's rows only, even when the plan filters through one index and sorts.
      keys = page(filtered([entity.primaryKey]));
    }
    // Read through a derived table: MySQL refuses LIMIT directly inside IN (...).
    const pageKeys = db.selectFrom(keys.as('page_keys')).select(`page_keys.${entity.primaryKey}`);
    return ordered(records.where(`${entity.table}.${entity.primaryKey}`, 'in', pageKeys));
  };
  return { rows, ordered };
}
