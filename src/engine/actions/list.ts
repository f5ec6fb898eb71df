// List (SPEC.md 4.2): filters, sort, page; a fixed number of statements whatever the page size:
// the total by the count strategy (list-total.ts), the page with its counts and relations, then
// one statement per relation the page's statement cannot carry (output/records). Statements are
// compiled once per shape (database/statement-runner). Issue 21: the page is read one row further, so
// the answer knows whether more follow (meta.has_more, the next cursor), and a `cursor` reads the
// rows after (or before) a position through the order's index instead of an OFFSET. Issue 22, on
// PostgreSQL: one statement carries the total, the token check and the page, and the page (and
// the answer made from it, output/made-answers.ts) is kept until the database's snapshot moves.
import { sql } from 'kysely';
import { carriedOn } from '../../database/carried-check.js';
import {
  compiledStatement,
  type KeptRows,
  param,
  runStatement,
  type StatementKey,
  statementMemoOf,
  statementSite,
} from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { scopeConditions } from '../../model/scope.js';
import type { AnswerLease } from '../../support/answer-budget.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { type AnswerMemo, answerMemo, type MadeAnswer } from '../output/made-answers.js';
import {
  assembleRecords,
  readInOne,
  recordsKey,
  type Select,
  selectRecords,
} from '../output/records.js';
import { parseCount } from '../query/count.js';
import {
  encodeCursor,
  keysetBranches,
  listBinding,
  type Position,
  PROCESS_CURSOR_KEY,
  parseCursor,
} from '../query/cursor.js';
import { filterExpression, filtersShape, filterValues, parseFilters } from '../query/filters.js';
import type { Input } from '../query/input.js';
import { parsePage } from '../query/paginate.js';
import { parseSort } from '../query/sort.js';
import { carriedTotal, type ListFilters, listTotal } from './list-total.js';

export interface ListMeta {
  total: number | null;
  per_page: number;
  /** null on a page read by cursor (its position is not counted). */
  current_page: number | null;
  last_page: number | null;
  /** Issue 21, on answers to requests that name a count strategy or send `cursor`. */
  total_estimated?: boolean;
  has_more?: boolean;
  next_cursor?: string | null;
  prev_cursor?: string | null;
}

export interface ListResult {
  readonly data: Row[];
  readonly meta: ListMeta;
}

/** The answer and what its headers say (Link, Preference-Applied). */
export interface ListAnswer {
  readonly next: string | null;
  readonly prev: string | null;
  readonly preferenceApplied: string | null;
  /** The answer's text, made earlier from the same kept page for the same request. */
  readonly made: MadeAnswer | undefined;
  /** Where the answer made now is kept for the next same request (null: it is not kept). */
  readonly memo: AnswerMemo | null;
  body(): Promise<ListResult>;
}

export interface ListOptions {
  /** The request's Prefer header. */
  readonly prefer?: string;
  /** The HMAC key of cursors (query/cursor.ts cursorKey); default: valid in this process only. */
  readonly cursorKey?: Buffer;
  /** The answer's share of the memory budget the page's rows are charged to (support/answer-budget.ts). */
  readonly lease?: AnswerLease;
  /**
   * The caller makes the answer's text (the list route): it may be kept, and an answer made
   * earlier returned instead of the body (ListAnswer.made).
   */
  readonly keepAnswers?: boolean;
}

const PAGE = statementSite('list page');
/** The memoised page's alias, and its column with the statement's snapshot. */
const PAGE_ROWS = 'page_rows';
const PAGE_SNAPSHOT = '$page_snapshot';

/** `values` with every value null: placeholders that do not change what the page holds. */
function nulled(values: Readonly<Record<string, unknown>>): Record<string, null> {
  return Object.fromEntries(Object.keys(values).map((name) => [name, null]));
}

export async function list(
  resource: Resource,
  context: EngineContext,
  input: Input,
  options: ListOptions = {},
): Promise<ListResult> {
  return (await listAnswer(resource, context, input, options)).body();
}

export async function listAnswer(
  resource: Resource,
  context: EngineContext,
  input: Input,
  options: ListOptions = {},
): Promise<ListAnswer> {
  const { entity } = resource;
  const parsed = parseFilters(input, resource.searchable);
  const order = parseSort(input, resource.sortable, resource.defaultOrder);
  const { page, perPage, offset } = parsePage(input, resource.perPage, resource.maxPerPage);
  const count = parseCount(input, options.prefer, resource.defaultCount);
  const cursorKey = options.cursorKey ?? PROCESS_CURSOR_KEY;
  const binding = listBinding(entity.table, parsed, order);
  const position = parseCursor(input, cursorKey, binding);
  const connections = connectionsOf(context);
  const db = connections[entity.storage];
  const adapter = adapterFor(context, entity.storage);
  const filters: ListFilters = {
    shape: filtersShape(parsed),
    values: filterValues(parsed),
    conditions: () => parsed.map((f, i) => filterExpression(entity.table, f, i, adapter)),
  };

  // PostgreSQL: the page's statement carries the exact total (list-total.ts carriedTotal), and
  // the bearer token's check (database/carried-check.ts).
  const carried = carriedTotal(resource, context, count.strategy, filters);
  const check = carriedOn(context.check, db);
  let { total, estimated } = carried
    ? { total: null as number | null, estimated: false }
    : await listTotal(resource, context, count.strategy, filters);

  // Reading backward (a prev cursor) walks the order reversed, then turns the page around.
  const direction = order?.direction ?? 'asc';
  const backward = position !== null && !position.forward;
  const scan = backward ? (direction === 'asc' ? 'desc' : 'asc') : direction;
  const keyset = position && {
    valueIsNull: order === null || position.value === null,
    values: {
      cursor_key: position.key,
      ...(order && position.value !== null ? { cursor_value: position.value } : {}),
    },
  };

  // PostgreSQL: the page itself is kept with its snapshot (database/statement-runner StatementMemo),
  // and read again only when the snapshot moved; see memoised below.
  const { snapshot } = adapter;
  const memo = snapshot && statementMemoOf(db);
  const key: StatementKey = [
    PAGE,
    ...recordsKey(connections, resource, context.scope, adapter),
    filters.shape,
    order?.column ?? null,
    scan,
    perPage,
    keyset
      ? keyset.valueIsNull
        ? 'after null'
        : 'after value'
      : offset === 0
        ? 'first'
        : 'offset',
    memo ? 'memoised' : 'read',
    carried ? 'carries the total' : 'page only',
    check?.key ?? null,
  ];
  const build = (): Select => {
    // The list's order on `source` (the table, or the derived table of a cursor's branches).
    const ordered = <Q extends Select>(query: Q, source = entity.table): Q => {
      const sorted = order
        ? query.orderBy(`${source}.${order.column}`, (o) =>
            adapter.nullsSortLow
              ? o[scan]()
              : scan === 'asc'
                ? o.asc().nullsFirst()
                : o.desc().nullsLast(),
          )
        : query;
      // The key breaks ties so pages never overlap or skip a row.
      return sorted.orderBy(`${source}.${entity.primaryKey}`, scan) as Q;
    };
    // One row more than the page: whether another page follows. LIMIT is a literal (per_page
    // takes few values): SQLite re-prepares a statement at every execution when its LIMIT is
    // a bound parameter. OFFSET does not have that cost.
    const limited = <Q extends Select>(query: Q, source?: string): Q =>
      ordered(query, source).limit(sql.lit(perPage + 1)) as Q;
    const filtered = (columns: string[]) =>
      [...scopeConditions(entity, context.scope).where, ...filters.conditions()].reduce(
        (q, w) => q.where(w),
        db.selectFrom(entity.table).select(columns.map((c) => `${entity.table}.${c}`)) as Select,
      );
    const records = selectRecords(connections, resource, context.scope, adapter);
    const pageRows = (): Select => {
      let keys: Select;
      if (keyset) {
        // By cursor: the page's keys from the branches of the position (query/cursor.ts), each
        // an index range read in order and limited to the page, merged in the list's order.
        const columns = order ? [entity.primaryKey, order.column] : [entity.primaryKey];
        const [first, second] = keysetBranches(
          entity.table,
          order?.column ?? null,
          entity.primaryKey,
          scan,
          keyset.valueIsNull,
        ).map((condition) => limited(filtered(columns).where(condition)));
        keys =
          second && first
            ? limited(
                db
                  .selectFrom(
                    db
                      .selectFrom(first.as('first_branch'))
                      .selectAll()
                      .unionAll(db.selectFrom(second.as('second_branch')).selectAll())
                      .as('branches'),
                  )
                  .select(`branches.${entity.primaryKey}`) as Select,
                'branches',
              )
            : (first as Select);
      } else {
        // The first page, the one most asked for, has no OFFSET: a statement with no values
        // (unfiltered) is planned once, where PostgreSQL plans one with a bound OFFSET anew at
        // every run (its generic plan cannot know how deep the offset goes).
        const page = <Q extends Select>(query: Q): Q =>
          (offset === 0 ? limited(query) : limited(query).offset(param<number>('offset'))) as Q;
        if (parsed.length === 0) return page(records);
        // Filtered: pick the page's keys first ("deferred join"), so the count sub-queries run
        // for the page's rows only, even when the plan filters through one index and sorts.
        keys = page(filtered([entity.primaryKey]));
      }
      // Read through a derived table: MySQL refuses LIMIT directly inside IN (...).
      const pageKeys = db.selectFrom(keys.as('page_keys')).select(`page_keys.${entity.primaryKey}`);
      return ordered(records.where(`${entity.table}.${entity.primaryKey}`, 'in', pageKeys));
    };
    if (!memo || !snapshot) return pageRows();
    // `select <snapshot>, <total>, <check>, page.* from (select <snapshot>) left join lateral
    // (<page> where <snapshot> <> <kept one>) as page`: the condition names only the outer row,
    // so PostgreSQL makes it a one-time filter and does not run the page at all when the
    // snapshot is the kept one. Then one row answers, its page columns null; an empty page
    // answers the same way. The total and the token check ride on that row, so they are
    // carried whatever the page holds. OFFSET 0 keeps the page a sub-query of its own.
    const memoised = db
      .selectFrom(db.selectNoFrom(snapshot.as('snapshot')).as('page_memo'))
      .leftJoinLateral(
        db
          .selectFrom(pageRows().as('page_query'))
          .selectAll()
          .where(sql<boolean>`page_memo.snapshot <> ${param<string>('kept_page_snapshot')}`)
          .offset(sql.lit(0))
          .as(PAGE_ROWS),
        (join) => join.onTrue(),
      )
      .selectAll(PAGE_ROWS)
      .select([
        sql.ref('page_memo.snapshot').as(PAGE_SNAPSHOT),
        ...(carried?.columns() ?? []),
        ...(check ? [check.column()] : []),
      ]) as unknown as Select;
    return ordered(memoised, PAGE_ROWS);
  };
  const values = {
    ...filters.values,
    ...(keyset ? keyset.values : offset === 0 ? {} : { offset }),
  };
  // What identifies the page's rows: the statement with the values it reads them by.
  const identity =
    memo &&
    compiledStatement(db, key, build, {
      ...values,
      ...nulled({ kept_page_snapshot: '', ...carried?.values, ...check?.values }),
    });
  const kept = identity ? memo.kept(identity.sql, identity.parameters) : undefined;

  let rows: Row[] = [];
  /** The kept page the rows are (PostgreSQL). */
  let source: KeptRows | null = null;
  const beyondTheEnd = !carried && !position && !estimated && total !== null && offset >= total;
  if (!beyondTheEnd) {
    const read = await runStatement(
      db,
      key,
      build,
      {
        ...values,
        ...(memo ? { kept_page_snapshot: kept?.snapshot ?? '' } : {}),
        ...carried?.values,
        ...check?.values,
      },
      // A page can be large (issue 19): where the engine reads synchronously, read it in slices;
      // its rows are charged to the answers' memory budget.
      { sliced: true, lease: options.lease },
    );
    check?.read(read);
    if (carried) {
      // Only an empty page read without the memo carries no total: then it is counted on its own.
      total =
        carried.read(read) ?? (await listTotal(resource, context, count.strategy, filters)).total;
      estimated = false;
    }
    rows = read;
    if (identity) {
      const seen = String(read[0]?.[PAGE_SNAPSHOT]);
      if (kept && kept.snapshot === seen) {
        rows = [...(kept.rows as Row[])];
        source = kept;
      } else {
        // The one row of an empty page has its page columns null.
        if (read[0]?.[entity.primaryKey] == null) rows = [];
        source = { snapshot: seen, rows };
        memo.keep(identity.sql, identity.parameters, source);
      }
    }
  }
  // Answers made from a kept page are kept too (output/made-answers.ts) when the page's statement
  // read all they are made of; the key is what else the answer is made from.
  const answers =
    options.keepAnswers && identity && source && readInOne(connections, resource, adapter)
      ? answerMemo(resource, source, JSON.stringify([input, options.prefer ?? null]))
      : null;
  const made = answers?.made();
  if (made)
    return {
      next: made.next,
      prev: made.prev,
      preferenceApplied: count.preferenceApplied,
      made,
      memo: null,
      body: () => Promise.reject(new Error('A made answer has no body: use its text.')),
    };
  const more = rows.length > perPage;
  const shown = rows.slice(0, perPage);
  if (backward) shown.reverse();

  const cursorAt = (at: Position) => encodeCursor(cursorKey, binding, at);
  const around = (row: Row | undefined, forward: boolean) =>
    row &&
    cursorAt({ forward, value: order ? row[order.column] : null, key: row[entity.primaryKey] });
  const first = shown[0];
  const last = shown[shown.length - 1];
  // An empty page read by cursor still leads back the way it came: from the cursor's position.
  const turned = position && cursorAt({ ...position, forward: !position.forward });
  const next = backward
    ? (around(last, true) ?? turned)
    : more
      ? (around(last, true) ?? null)
      : null;
  const prev = backward
    ? more
      ? (around(first, false) ?? null)
      : null
    : position || offset > 0
      ? (around(first, false) ?? turned ?? null)
      : null;

  const meta: ListMeta = {
    total,
    per_page: perPage,
    current_page: position ? null : page,
    last_page: total === null ? null : Math.max(1, Math.ceil(total / perPage)),
  };
  if (count.requested || 'cursor' in input)
    Object.assign(meta, {
      total_estimated: estimated,
      has_more: next !== null,
      next_cursor: next,
      prev_cursor: prev,
    });
  return {
    next,
    prev,
    made: undefined,
    memo: answers,
    async body() {
      const records = await assembleRecords(connections, resource, context.scope, adapter, shown);
      return { data: records.map(resource.index), meta };
    },
    preferenceApplied: count.preferenceApplied,
  };
}
