// GET /api/<resource>/changes (DESIGN.md 3.9): the resource's changes after `after`, oldest
// first, within the caller's unit and tenant scope as the list's (a delete too: its change keeps
// the record's scope). Two statements whatever the page size: the log's state (how far it is
// pruned, the last committed seq, whether a committed change still waits for its seq: then it
// is numbered first, changes/committed.ts), then the page. The state is read first, so every change at
// or below its last seq is visible to the page's statement: with no more to page, `next` may
// skip to it over the changes of other resources and scopes.
import { sql } from 'kysely';
import {
  CHANGE_STATE_TABLE,
  CHANGES_TABLE,
  FEED_COLUMNS,
} from '../../database/change-statements.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import { type ErrorBag, errors, HttpError } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';
import { adapterFor, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { type Change, changeOf } from './change.js';
import { knownCommitted, numberCommitted } from './committed.js';

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1000;

export interface FeedQuery {
  readonly after: number;
  readonly limit: number;
}

export interface FeedPage {
  readonly data: readonly Change[];
  readonly meta: { readonly after: number; readonly next: number; readonly has_more: boolean };
}

const LOG_STATE = statementSite('change log state');
const PAGE = statementSite('changes page');

/** A whole number in a query string's form (digits only), or null. */
export function wholeOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/** `after` (default 0) and `limit` (default 100, at most 1,000); anything else is a 422. */
export function feedQueryOf(input: Readonly<Record<string, unknown>>): FeedQuery {
  const bag: ErrorBag = {};
  const after = input.after === undefined ? 0 : wholeOf(input.after);
  if (after === null || after < 0)
    bag.after = ['The after field must be a whole number (a seq, 0 or more).'];
  const limit = input.limit === undefined ? DEFAULT_CHANGES_LIMIT : wholeOf(input.limit);
  if (limit === null || limit < 1 || limit > MAX_CHANGES_LIMIT)
    bag.limit = [`The limit field must be a whole number from 1 to ${MAX_CHANGES_LIMIT}.`];
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
  return { after: after ?? 0, limit: limit ?? DEFAULT_CHANGES_LIMIT };
}

/**
 * The log's scope conditions for `resource`: its records' unit and company, as the list's (null:
 * not bound). The feed filters by it, and the real-time relay by the same values, signed into a
 * subscription (live/resource-channels.ts).
 */
export function feedScopeOf(
  resource: Resource,
  scope: Scope,
): { unit: number | null; company: number | null } {
  const { entity } = resource;
  return {
    unit: entity.unitColumn !== null && scope.unitId !== null ? Math.trunc(scope.unitId) : null,
    company:
      entity.tenantColumn !== null && scope.tenantId !== null ? Math.trunc(scope.tenantId) : null,
  };
}

/** The 410 of an `after` whose following changes were pruned (DESIGN.md 3.9). */
function noLongerKept(after: number, oldest: number): HttpError {
  return new HttpError('CHANGES_GONE', 410, {
    error: `The changes after ${after} are no longer kept.`,
    oldest,
  });
}

export async function readChanges(
  resource: Resource,
  context: EngineContext,
  query: FeedQuery,
): Promise<FeedPage> {
  const { entity } = resource;
  const database = entity.storage === 'data' ? context.data : context.system;
  const { db } = database;
  const adapter = adapterFor(context, entity.storage);
  const numbered = adapter.numberChanges !== undefined;
  const readState = async () => {
    const [row] = await runStatement<Row>(
      db,
      [LOG_STATE, numbered],
      () =>
        db.selectNoFrom([
          sql`(select value from ${sql.table(CHANGE_STATE_TABLE)} where name = 'pruned')`.as(
            'pruned',
          ),
          adapter.lastChangeSeq.as('last'),
          // Committed changes still without a seq (a writer cut before its numbering ran).
          (numbered
            ? sql`(select count(*) from (select 1 as one from ${sql.table(CHANGES_TABLE)} where seq is null limit 1) waiting)`
            : sql`0`
          ).as('waiting'),
        ]),
      {},
    );
    return row;
  };
  let state = await readState();
  if (Number(state?.waiting ?? 0) > 0) {
    await numberCommitted(database);
    state = await readState();
  }
  const pruned = Number(state?.pruned ?? 0);
  const last = Number(state?.last ?? 0);
  knownCommitted(database, last);
  if (query.after < pruned) throw noLongerKept(query.after, pruned + 1);
  const { unit, company } = feedScopeOf(resource, context.scope);
  // A literal LIMIT (MySQL binds none), from a few sizes so the statement shapes stay few.
  let read = 2;
  while (read < query.limit + 1) read *= 2;
  const rows = await runStatement<Row>(
    db,
    [PAGE, unit, company, read],
    () => {
      let q = db
        .selectFrom(CHANGES_TABLE)
        .select([...FEED_COLUMNS])
        .where('resource', '=', param('resource'))
        .where('seq', '>', param('after'));
      // Literals, as scope.ts writes them: one statement per unit and company.
      if (unit !== null) q = q.where('unit_id', '=', sql.lit(unit));
      if (company !== null) q = q.where('company_id', '=', sql.lit(company));
      return q.orderBy('seq').limit(sql.lit(read));
    },
    { resource: resource.name, after: query.after },
  );
  const hasMore = rows.length > query.limit;
  const data = rows.slice(0, query.limit).map((row) => changeOf(row, resource.keyIsInteger));
  const lastRead = data[data.length - 1]?.seq ?? query.after;
  const next = hasMore ? lastRead : Math.max(lastRead, last, query.after);
  return { data, meta: { after: query.after, next, has_more: hasMore } };
}
