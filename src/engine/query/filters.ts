// filters (SPEC.md 4.2, DESIGN.md 3.5): `{column: {operator: operand}}`, as a JSON string or as
// `filters[col][op]=v`. Columns outside searchable are ignored; an unknown operator or a malformed
// value is a 422 naming the field. Operands are always bound parameters, never query text.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { listLength, param, paramList, paramListValues } from '../../database/statement-runner.js';
import { type ErrorBag, errors } from '../../errors.js';
import type { Input } from './input.js';

export type Operator =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'like'
  | 'not like'
  | 'in'
  | 'not in'
  | 'null';
type Scalar = string | number;

/** Every operator, in the order DESIGN.md 3.5 lists them. */
export const OPERATORS: readonly Operator[] = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'like',
  'not like',
  'in',
  'not in',
  'null',
];

export type Filter =
  | { readonly column: string; readonly op: '=' | '!='; readonly operand: Scalar | null }
  | { readonly column: string; readonly op: '<' | '<=' | '>' | '>='; readonly operand: Scalar }
  | { readonly column: string; readonly op: 'like' | 'not like'; readonly operand: string }
  | { readonly column: string; readonly op: 'in' | 'not in'; readonly operand: readonly Scalar[] }
  | { readonly column: string; readonly op: 'null'; readonly operand: boolean };

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
const MAX_IN_ITEMS = 1000;
// SQLite refuses LIKE patterns over 50,000 bytes with an error (a 500); 10,000 characters stay
// below that in any encoding and far above any useful pattern.
const MAX_PATTERN_LENGTH = 10_000;

function scalar(value: unknown): Scalar | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

function flag(value: unknown): boolean | undefined {
  if (value === true || value === 1 || value === 'true' || value === '1') return true;
  if (value === false || value === 0 || value === 'false' || value === '0') return false;
  return undefined;
}

function parseOne(column: string, op: string, operand: unknown): Filter | string {
  const field = `filters.${column}`;
  if (COMPARISONS.has(op)) {
    // `= null` and `!= null` read as is (not) null; an ordering against null selects nothing in
    // SQL and is refused, as Laravel refuses it ("Illegal operator and value combination").
    if (operand === null && (op === '=' || op === '!=')) return { column, op, operand: null };
    const value = scalar(operand);
    return value === undefined
      ? `The ${field} value for "${op}" must be a string or a number.`
      : { column, op: op as '<', operand: value };
  }
  if (op === 'like' || op === 'not like') {
    const value = scalar(operand);
    if (value === undefined) return `The ${field} value for "${op}" must be a string.`;
    const pattern = String(value);
    if (pattern.length > MAX_PATTERN_LENGTH)
      return `The ${field} value for "${op}" must not be greater than ${MAX_PATTERN_LENGTH} characters.`;
    // SQLite's LIKE ends a pattern at a NUL character ('%\0x' would match everything) and
    // PostgreSQL refuses one: refused on every engine alike.
    if (pattern.includes('\u0000'))
      return `The ${field} value for "${op}" must not contain a NUL character.`;
    return { column, op, operand: pattern };
  }
  if (op === 'in' || op === 'not in') {
    if (!Array.isArray(operand) || operand.length > MAX_IN_ITEMS) {
      return `The ${field} value for "${op}" must be an array of at most ${MAX_IN_ITEMS} values.`;
    }
    const values = operand.map(scalar);
    if (values.some((v) => v === undefined))
      return `The ${field} value for "${op}" must hold only strings and numbers.`;
    return { column, op, operand: values as Scalar[] };
  }
  if (op === 'null') {
    const value = flag(operand);
    return value === undefined
      ? `The ${field} value for "null" must be true or false.`
      : { column, op, operand: value };
  }
  return `The ${field} operator "${op}" is not supported.`;
}

function filtersObject(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export function parseFilters(input: Input, searchable: ReadonlySet<string>): Filter[] {
  if (input.filters === undefined || input.filters === null) return [];
  const object = filtersObject(input.filters);
  if (!object)
    throw errors.validation({
      filters: ['The filters field must be a JSON object of column to {operator: operand}.'],
    });
  const filters: Filter[] = [];
  const bag: ErrorBag = {};
  for (const [column, conditions] of Object.entries(object)) {
    if (!searchable.has(column)) continue; // SPEC.md 4.2 rule 1: silently ignored
    if (conditions === null || typeof conditions !== 'object' || Array.isArray(conditions)) {
      bag[`filters.${column}`] = [
        `The filters.${column} field must be an object of operator to operand.`,
      ];
      continue;
    }
    for (const [op, operand] of Object.entries(conditions as Record<string, unknown>)) {
      const parsed = parseOne(column, op.toLowerCase(), operand);
      if (typeof parsed === 'string') (bag[`filters.${column}`] ??= []).push(parsed);
      else filters.push(parsed);
    }
  }
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
  return filters;
}

/** Text holding characters beyond ASCII (engines whose plain LIKE folds ASCII only need to know). */
export const NON_ASCII = /[\u0080-\uffff]/;
const isUnicodePattern = (f: Filter) =>
  (f.op === 'like' || f.op === 'not like') && NON_ASCII.test(f.operand);

/** The SQL shape of the filters (columns, operators, list lengths), for the compiled-query cache. */
export function filtersShape(filters: readonly Filter[]): string {
  return filters
    .map((f) => {
      const kind = Array.isArray(f.operand)
        ? `[${f.operand.length === 0 ? 0 : listLength(f.operand.length)}]`
        : f.operand === null
          ? 'null'
          : typeof f.operand === 'boolean'
            ? String(f.operand)
            : isUnicodePattern(f)
              ? 'u'
              : 'v';
      return `${f.column} ${f.op} ${kind}`;
    })
    .join('|');
}

/** The placeholder values of the filters, named as filterExpression names them. */
export function filterValues(filters: readonly Filter[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  filters.forEach((f, i) => {
    if (Array.isArray(f.operand)) {
      if (f.operand.length > 0) Object.assign(values, paramListValues(`f${i}_`, f.operand));
    } else if (f.op !== 'null' && f.operand !== null) values[`f${i}`] = f.operand;
  });
  return values;
}

/** Filter number `index` as a where-expression on `table.column`, its operands as placeholders. */
export function filterExpression(
  table: string,
  filter: Filter,
  index: number,
  adapter: DialectAdapter,
): Expression<SqlBool> {
  const column = `${table}.${filter.column}`;
  const ref = sql.ref(column);
  const value = param(`f${index}`);
  switch (filter.op) {
    case 'like':
      return adapter.likeInsensitive(column, value, false, isUnicodePattern(filter));
    case 'not like':
      return adapter.likeInsensitive(column, value, true, isUnicodePattern(filter));
    case 'in':
    case 'not in': {
      if (filter.operand.length === 0)
        return filter.op === 'in' ? sql<boolean>`1 = 0` : sql<boolean>`1 = 1`;
      const list = sql.join(paramList(`f${index}_`, filter.operand.length));
      return filter.op === 'in'
        ? sql<boolean>`${ref} in (${list})`
        : sql<boolean>`${ref} not in (${list})`;
    }
    case 'null':
      return filter.operand ? sql<boolean>`${ref} is null` : sql<boolean>`${ref} is not null`;
    case '=':
      return filter.operand === null
        ? sql<boolean>`${ref} is null`
        : sql<boolean>`${ref} = ${value}`;
    case '!=':
      return filter.operand === null
        ? sql<boolean>`${ref} is not null`
        : sql<boolean>`${ref} <> ${value}`;
    default:
      // The operator comes from the whitelist above, never from the request as text.
      return sql<boolean>`${ref} ${sql.raw(filter.op)} ${value}`;
  }
}
