// cursor (issue 21): keyset pagination. A cursor names a row's position in a list's order (its
// sort value and its key) and the direction to read from there; the next page is the rows after
// that position, found through the order's index, so a deep page costs what the first one does.
// Cursors are opaque and tamper-evident: base64url JSON plus an HMAC-SHA256 under a key derived
// from APP_SECRET (every instance sharing the secret accepts them), and they carry a digest of the
// filters and sort they were made for. A forged cursor, or one used with other filters or another
// sort, is a 422 under `cursor`.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Expression, type SqlBool, sql } from 'kysely';
import { param } from '../../database/statement-runner.js';
import { errors } from '../../errors.js';
import type { Order } from '../definition/define-resource.js';
import type { Filter } from './filters.js';
import type { Input } from './input.js';

/** A position in a list: after (forward) or before (backward) the row with this sort value and key. */
export interface Position {
  readonly forward: boolean;
  readonly value: unknown;
  readonly key: unknown;
}

/** The HMAC key of the cursors, derived from the server secret so it never signs anything else. */
export function cursorKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('svc list cursor v1').digest();
}

/** Without a server secret (direct invocation): cursors valid for this process only. */
export const PROCESS_CURSOR_KEY = randomBytes(32);

/**
 * What a cursor is tied to: the table, the filters (in a canonical order: the same filters sent
 * in another order are the same list) and the sort.
 */
export function listBinding(
  table: string,
  filters: readonly Filter[],
  order: Order | null,
): string {
  const canonical = filters
    .map((f) => JSON.stringify([f.column, f.op, f.operand]))
    .sort()
    .join(',');
  return createHash('sha256')
    .update(JSON.stringify([table, canonical, order?.column ?? null, order?.direction ?? null]))
    .digest('base64url')
    .slice(0, 16);
}

const sign = (key: Buffer, body: string) =>
  createHmac('sha256', key).update(body).digest().subarray(0, 16);

/** Dates (PostgreSQL timestamps) travel as their ISO text, which every engine compares back. */
const plain = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export function encodeCursor(key: Buffer, binding: string, position: Position): string {
  const body = Buffer.from(
    JSON.stringify([
      1,
      binding,
      position.forward ? 1 : 0,
      plain(position.value),
      plain(position.key),
    ]),
  ).toString('base64url');
  return `${body}.${sign(key, body).toString('base64url')}`;
}

const invalid = () =>
  errors.validation({
    cursor: ['The cursor is invalid: use a next_cursor or prev_cursor as answered.'],
  });

const scalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number';

/** The request's cursor, or null without one; a forged or foreign cursor is a 422. */
export function parseCursor(input: Input, key: Buffer, binding: string): Position | null {
  const text = input.cursor;
  if (text === undefined || text === null || text === '') return null;
  if (input.page !== undefined && input.page !== null && input.page !== '')
    throw errors.validation({
      cursor: ['The cursor and page parameters cannot be sent together.'],
    });
  if (typeof text !== 'string' || text.length > 4096) throw invalid();
  const [body = '', mac = '', ...rest] = text.split('.');
  const expected = sign(key, body);
  const given = Buffer.from(mac, 'base64url');
  if (rest.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded.length !== 5 || decoded[0] !== 1) throw invalid();
  const [, boundTo, forward, value, rowKey] = decoded as [1, unknown, unknown, unknown, unknown];
  if (!scalar(value) || !scalar(rowKey) || rowKey === null) throw invalid();
  if (boundTo !== binding)
    throw errors.validation({
      cursor: [
        'The cursor was made for other filters or another sort: send the ones it was made with.',
      ],
    });
  return { forward: forward === 1, value, key: rowKey };
}

/**
 * The rows after a position when reading `table` in `direction` by `column` (NULL lowest, as
 * list sorts on every engine) then by `primaryKey`, as one or two branches that each read an
 * index range in order (an OR of the two would make the engine scan from the list's start, so a
 * deep page would cost its depth). Where NULL rows follow the position's region (reading
 * descending after a value; ascending after a NULL) they are the second branch, read after the
 * first: the caller reads each branch in the list's order, limited to the page, and merges them.
 * Placeholders: `cursor_value` (absent when the position's value is NULL: another statement
 * shape) and `cursor_key`.
 */
export function keysetBranches(
  table: string,
  column: string | null,
  primaryKey: string,
  direction: 'asc' | 'desc',
  valueIsNull: boolean,
): Array<Expression<SqlBool>> {
  const key = sql.ref(`${table}.${primaryKey}`);
  const beyond = direction === 'asc' ? sql`>` : sql`<`;
  const keyAfter = sql<boolean>`${key} ${beyond} ${param('cursor_key')}`;
  if (column === null) return [keyAfter];
  const ref = sql.ref(`${table}.${column}`);
  const value = param('cursor_value');
  if (valueIsNull)
    return direction === 'asc'
      ? [sql<boolean>`(${ref} is null and ${keyAfter})`, sql<boolean>`${ref} is not null`]
      : [sql<boolean>`(${ref} is null and ${keyAfter})`];
  // `col >= v and (col > v or key > k)`: the range bound is what lets the index seek.
  const within = direction === 'asc' ? sql`>=` : sql`<=`;
  const range = sql<boolean>`(${ref} ${within} ${value} and (${ref} ${beyond} ${value} or ${keyAfter}))`;
  return direction === 'asc' ? [range] : [range, sql<boolean>`${ref} is null`];
}
