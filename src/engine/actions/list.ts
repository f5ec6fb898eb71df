// List (SPEC.md 4.2): filters, sort, page; a fixed number of statements whatever the page size:
// the total by the count strategy (list-total.ts), the page with its counts and relations
// (list-page.ts), then one statement per relation the page's statement cannot carry
// (output/assemble-records.ts). Statements are compiled once per shape
// (database/statement-runner). Issue 21: cursors (query/cursor.ts) instead of an OFFSET. Issue 22, on PostgreSQL: one statement
// reads the total, the token check and the page, and the page (and the answer made from it,
// output/made-answers.ts) is kept until the database moves on (database/kept-reads.ts).
import { ridingOn } from '../../database/riding-check.js';
import type { Charged } from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Order, Resource } from '../definition/define-resource.js';
import { assembleRecords } from '../output/assemble-records.js';
import { type AnswerKeeper, answerKeeper, type MadeAnswer } from '../output/made-answers.js';
import { readInOne } from '../output/record-layout.js';
import { type Count, parseCount } from '../query/count.js';
import {
  encodeCursor,
  listBinding,
  type Position,
  PROCESS_CURSOR_KEY,
  parseCursor,
} from '../query/cursor.js';
import { filterExpression, filtersShape, filterValues, parseFilters } from '../query/filters.js';
import type { Input } from '../query/input.js';
import { parsePage } from '../query/paginate.js';
import { parseSort } from '../query/sort.js';
import { type PageQuery, readPage } from './list-page.js';
import { listTotal, ridingTotal, type Total } from './list-total.js';

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
  readonly keeper: AnswerKeeper | null;
  body(): Promise<ListResult>;
}

export interface ListOptions extends Charged {
  /** The request's Prefer header. */
  readonly prefer?: string;
  /** The HMAC key of cursors (query/cursor.ts cursorKey); default: valid in this process only. */
  readonly cursorKey?: Buffer;
  /**
   * The caller makes the answer's text (the list route): it may be kept, and an answer made
   * earlier returned instead of the body (ListAnswer.made).
   */
  readonly keepAnswers?: boolean;
}

/** A list request, parsed: what its page's statement is built from, and what its answer says. */
interface ListRequest extends PageQuery {
  readonly page: number;
  readonly count: Count;
  readonly order: Order | null;
  readonly position: Position | null;
  /** Reading backward (a prev cursor): the order reversed, then the page turned around. */
  readonly backward: boolean;
  /** Cursors of this request's positions. */
  cursorAt(position: Position): string;
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
  const request = parseList(resource, context, input, options);
  const { rows, kept, total } = await readList(resource, context, request, options);
  // Answers made from a kept page are kept too (output/made-answers.ts) when the page's statement
  // read all they are made of; the key is what else the answer is made from.
  const answers =
    options.keepAnswers &&
    kept &&
    readInOne(connectionsOf(context), resource, adapterFor(context, resource.entity.storage))
      ? answerKeeper(resource, kept, JSON.stringify([input, options.prefer ?? null]))
      : null;
  const made = answers?.made();
  const preferenceApplied = request.count.preferenceApplied;
  if (made)
    return {
      next: made.next,
      prev: made.prev,
      preferenceApplied,
      made,
      keeper: null,
      body: () => Promise.reject(new Error('A made answer has no body: use its text.')),
    };
  const more = rows.length > request.perPage;
  const shown = rows.slice(0, request.perPage);
  if (request.backward) shown.reverse();
  const { next, prev } = cursorsAround(resource, request, shown, more);
  const meta = listMeta(input, request, total, next, prev);
  return {
    next,
    prev,
    made: undefined,
    keeper: answers,
    async body() {
      const adapter = adapterFor(context, resource.entity.storage);
      const connections = connectionsOf(context);
      const records = await assembleRecords(connections, resource, context.scope, adapter, shown);
      return { data: records.map(resource.index), meta };
    },
    preferenceApplied,
  };
}

function parseList(
  resource: Resource,
  context: EngineContext,
  input: Input,
  options: ListOptions,
): ListRequest {
  const { entity } = resource;
  const parsed = parseFilters(input, resource.searchable);
  const order = parseSort(input, resource.sortable, resource.defaultOrder);
  const { page, perPage, offset } = parsePage(input, resource.perPage, resource.maxPerPage);
  const cursorKey = options.cursorKey ?? PROCESS_CURSOR_KEY;
  const binding = listBinding(entity.table, parsed, order);
  const position = parseCursor(input, cursorKey, binding);
  const adapter = adapterFor(context, entity.storage);
  const direction = order?.direction ?? 'asc';
  const backward = position !== null && !position.forward;
  return {
    filters: {
      shape: filtersShape(parsed),
      values: filterValues(parsed),
      conditions: () => parsed.map((f, i) => filterExpression(entity.table, f, i, adapter)),
    },
    filtered: parsed.length > 0,
    order,
    scan: backward ? (direction === 'asc' ? 'desc' : 'asc') : direction,
    page,
    perPage,
    offset,
    count: parseCount(input, options.prefer, resource.defaultCount),
    position,
    backward,
    keyset: position && {
      valueIsNull: order === null || position.value === null,
      values: {
        cursor_key: position.key,
        ...(order && position.value !== null ? { cursor_value: position.value } : {}),
      },
    },
    cursorAt: (at) => encodeCursor(cursorKey, binding, at),
  };
}

/**
 * The page and the total: the total first (by the count strategy), unless it rides on the page's
 * statement (list-total.ts ridingTotal), as the token's check does where it can (context.check).
 */
async function readList(
  resource: Resource,
  context: EngineContext,
  request: ListRequest,
  options: Charged,
): Promise<{ rows: Row[]; kept: object | null; total: Total }> {
  const { strategy } = request.count;
  const riding = ridingTotal(resource, context, strategy, request.filters);
  const counted = riding
    ? { total: null, estimated: false }
    : await listTotal(resource, context, strategy, request.filters);
  const beyondTheEnd =
    !riding &&
    !request.position &&
    !counted.estimated &&
    counted.total !== null &&
    request.offset >= counted.total;
  if (beyondTheEnd) return { rows: [], kept: null, total: counted };
  const check = ridingOn(context.check, connectionsOf(context)[resource.entity.storage]);
  const checkRides = check && {
    key: check.key,
    values: check.values,
    columns: () => [check.column()],
    read: (rows: readonly Row[]) => check.read(rows),
  };
  const page = await readPage(
    resource,
    context,
    request,
    { total: riding, check: checkRides },
    options,
  );
  if (!riding) return { ...page, total: counted };
  // Only an empty page read without keeping it carries no total: then it is counted on its own.
  const total = page.total ?? (await listTotal(resource, context, strategy, request.filters)).total;
  return { ...page, total: { total, estimated: false } };
}

/** The cursors of the pages before and after `shown` (null: none that way). */
function cursorsAround(resource: Resource, request: ListRequest, shown: Row[], more: boolean) {
  const { order, position, backward } = request;
  const around = (row: Row | undefined, forward: boolean) =>
    row &&
    request.cursorAt({
      forward,
      value: order ? row[order.column] : null,
      key: row[resource.entity.primaryKey],
    });
  const first = shown[0];
  const last = shown[shown.length - 1];
  // An empty page read by cursor still leads back the way it came: from the cursor's position.
  const turned = position && request.cursorAt({ ...position, forward: !position.forward });
  const next = backward
    ? (around(last, true) ?? turned)
    : more
      ? (around(last, true) ?? null)
      : null;
  const prev = backward
    ? more
      ? (around(first, false) ?? null)
      : null
    : position || request.offset > 0
      ? (around(first, false) ?? turned ?? null)
      : null;
  return { next, prev };
}

function listMeta(
  input: Input,
  request: ListRequest,
  { total, estimated }: Total,
  next: string | null,
  prev: string | null,
): ListMeta {
  const meta: ListMeta = {
    total,
    per_page: request.perPage,
    current_page: request.position ? null : request.page,
    last_page: total === null ? null : Math.max(1, Math.ceil(total / request.perPage)),
  };
  if (request.count.requested || 'cursor' in input)
    Object.assign(meta, {
      total_estimated: estimated,
      has_more: next !== null,
      next_cursor: next,
      prev_cursor: prev,
    });
  return meta;
}
