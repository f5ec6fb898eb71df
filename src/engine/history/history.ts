// GET /api/<resource>/<id>/history (DESIGN.md 3.11): the record's revisions, newest first, a
// page at a time (`before` the last seq of the previous page), within the scope of show: the
// revisions keep the record's unit and company, so a deleted record's history is scoped too,
// and a record with no revision in the caller's scope is not found, as show answers it. One
// statement per page whatever its size (two where a revision still waits for its seq: the
// numbering runs first, changes/committed.ts).
import { type SelectQueryBuilder, sql } from 'kysely';
import { CHANGES_TABLE, changeOrder } from '../../database/change-statements.js';
import type { Database } from '../../database/database.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import { type ErrorBag, errors } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { parseKey } from '../actions/record-key.js';
import { feedScopeOf, wholeOf } from '../changes/change-feed.js';
import { numberCommitted } from '../changes/committed.js';
import type { EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { keptInHistory, type Revision, revisionOf } from './revision.js';

export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

export interface HistoryQuery {
  /** Only revisions older than the one of this seq (the `next` of the previous page); null: the newest. */
  readonly before: number | null;
  readonly limit: number;
}

export interface HistoryPage {
  readonly data: readonly Revision[];
  readonly meta: {
    readonly before: number | null;
    readonly next: number | null;
    readonly has_more: boolean;
  };
}

const PAGE = statementSite('history page');
const ONE = statementSite('one revision');
const LAST_VERSION = statementSite('last revision version');

/** `before` (absent: the newest) and `limit` (default 20, at most 100); anything else is a 422. */
export function historyQueryOf(input: Readonly<Record<string, unknown>>): HistoryQuery {
  const bag: ErrorBag = {};
  const before = input.before === undefined ? null : wholeOf(input.before);
  if (input.before !== undefined && (before === null || before < 1))
    bag.before = ['The before field must be a whole number (a seq, 1 or more).'];
  const limit = input.limit === undefined ? DEFAULT_HISTORY_LIMIT : wholeOf(input.limit);
  if (limit === null || limit < 1 || limit > MAX_HISTORY_LIMIT)
    bag.limit = [`The limit field must be a whole number from 1 to ${MAX_HISTORY_LIMIT}.`];
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
  return { before, limit: limit ?? DEFAULT_HISTORY_LIMIT };
}

export function databaseOf(resource: Resource, context: EngineContext): Database {
  return resource.entity.storage === 'data' ? context.data : context.system;
}

// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
type Query = SelectQueryBuilder<any, any, Row>;

/**
 * Narrows a page's query of the log (as `alias`) to the caller's scope, and with `before` to
 * the changes below the one of that seq (the previous page's last) in the log's order: one
 * range of the index the page reads. Unit and company are literals, as scope.ts writes them:
 * one statement per unit and company.
 */
export function pageOf(
  q: Query,
  resource: Resource,
  context: EngineContext,
  alias: string,
  before: number | null,
): Query {
  const { db, adapter } = databaseOf(resource, context);
  const { unit, company } = feedScopeOf(resource, context.scope);
  const order = `${alias}.${changeOrder(adapter.name)}`;
  let page = q.where(keptInHistory(alias));
  if (before !== null)
    page = page.where(
      order,
      '<',
      db
        .selectFrom(`${CHANGES_TABLE} as cursor`)
        .select(`cursor.${changeOrder(adapter.name)}`)
        .where('cursor.seq', '=', param('before')),
    );
  if (unit !== null) page = page.where(`${alias}.unit_id`, '=', sql.lit(unit));
  if (company !== null) page = page.where(`${alias}.company_id`, '=', sql.lit(company));
  return page.orderBy(order, 'desc');
}

/** The record's revisions in the caller's scope, newest first (a record's writes hold its lock: their change ids are in seq order). */
async function readRevisions(
  resource: Resource,
  context: EngineContext,
  recordId: string,
  before: number | null,
  read: number,
): Promise<Row[]> {
  const { db } = databaseOf(resource, context);
  const { unit, company } = feedScopeOf(resource, context.scope);
  return runStatement<Row>(
    db,
    [PAGE, unit, company, before !== null, read],
    () =>
      pageOf(
        db
          .selectFrom(`${CHANGES_TABLE} as r`)
          .selectAll()
          .where('r.resource', '=', param('resource'))
          .where('r.record_id', '=', param('id')),
        resource,
        context,
        'r',
        before,
      ).limit(sql.lit(read)), // MySQL binds no LIMIT
    before !== null
      ? { resource: resource.name, id: recordId, before }
      : { resource: resource.name, id: recordId },
  );
}

export async function readHistory(
  resource: Resource,
  context: EngineContext,
  id: unknown,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const key = parseKey(resource, id);
  if (key === null) throw errors.resourceNotFound();
  // A few page sizes, so the statement shapes stay few.
  let read = 2;
  while (read < query.limit + 1) read *= 2;
  let rows = await readRevisions(resource, context, String(key), query.before, read);
  // Committed revisions whose change still waits for its seq (PostgreSQL, MySQL): number first.
  if (rows.some((row) => row.seq == null)) {
    await numberCommitted(databaseOf(resource, context));
    rows = await readRevisions(resource, context, String(key), query.before, read);
  }
  if (rows.length === 0 && query.before === null) throw errors.resourceNotFound();
  const hasMore = rows.length > query.limit;
  const data = rows.slice(0, query.limit).map((row) => revisionOf(resource, row));
  const next = hasMore ? (data[data.length - 1]?.seq ?? null) : null;
  return { data, meta: { before: query.before, next, has_more: hasMore } };
}

/** One revision of the record in the caller's scope (stored row), or null. */
export async function findRevision(
  resource: Resource,
  context: EngineContext,
  key: string | number,
  seq: number,
): Promise<Row | null> {
  const { db } = databaseOf(resource, context);
  const { unit, company } = feedScopeOf(resource, context.scope);
  const [row] = await runStatement<Row>(
    db,
    [ONE, unit, company],
    () => {
      let q = db
        .selectFrom(CHANGES_TABLE)
        .selectAll()
        .where('seq', '=', param('seq'))
        .where('resource', '=', param('resource'))
        .where('record_id', '=', param('id'))
        .where(keptInHistory(CHANGES_TABLE));
      if (unit !== null) q = q.where('unit_id', '=', sql.lit(unit));
      if (company !== null) q = q.where('company_id', '=', sql.lit(company));
      return q;
    },
    { seq, resource: resource.name, id: String(key) },
  );
  return row ?? null;
}

/** The highest version the record's revisions name: a record restored after its delete goes on above it. */
export async function lastVersion(
  resource: Resource,
  context: EngineContext,
  key: string | number,
): Promise<number> {
  const { db } = databaseOf(resource, context);
  const [row] = await runStatement<Row>(
    db,
    [LAST_VERSION],
    () =>
      db
        .selectFrom(CHANGES_TABLE)
        .select((eb) => eb.fn.max('version').as('version'))
        .where('resource', '=', param('resource'))
        .where('record_id', '=', param('id')),
    { resource: resource.name, id: String(key) },
  );
  return Number(row?.version ?? 0);
}
