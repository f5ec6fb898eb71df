// The request input of the driver, checked before any statement runs: the query body
// `{sql, bindings?, connection?}` and the `connection` of the catalog routes. Problems are the
// service's usual 422 (field -> messages, Laravel's wording).
import type { RawBinding } from '../database/raw-sql.js';
import { errors } from '../errors.js';

export interface RestDriverQuery {
  readonly sql: string;
  readonly bindings: readonly RawBinding[];
  /** A DB_CONNECTIONS name; null for the main database. */
  readonly connection: string | null;
}

const isBinding = (value: unknown): value is RawBinding =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'number' ||
  typeof value === 'boolean';

const CONNECTION_NOT_STRING = 'The connection field must be a string.';

/** `connection` as sent (absent, null or empty: the main database); a non-string is a 422. */
export function connectionName(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw errors.validation({ connection: [CONNECTION_NOT_STRING] });
  return value;
}

/** Parses the raw body the signature covered. */
export function readRestDriverQuery(raw: Buffer): RestDriverQuery {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw errors.malformedJson();
  }
  const fields =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const { sql, bindings = [], connection } = fields;
  const bag: Record<string, string[]> = {};
  if (sql === undefined || sql === null || (typeof sql === 'string' && sql.trim() === ''))
    bag.sql = ['The sql field is required.'];
  else if (typeof sql !== 'string') bag.sql = ['The sql field must be a string.'];
  if (!Array.isArray(bindings)) bag.bindings = ['The bindings field must be an array.'];
  else {
    bindings.forEach((value, i) => {
      if (!isBinding(value))
        bag[`bindings.${i}`] = [
          `The bindings.${i} field must be a string, number, boolean or null.`,
        ];
    });
  }
  if (connection !== undefined && connection !== null && typeof connection !== 'string')
    bag.connection = [CONNECTION_NOT_STRING];
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
  return {
    sql: sql as string,
    bindings: bindings as RawBinding[],
    connection: connectionName(connection),
  };
}
