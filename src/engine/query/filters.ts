// filters (SPEC.md 4.2, DESIGN.md 3.5): `{column: {operator: operand}}`, as a JSON string or as
// `filters[col][op]=v`. Columns outside searchable are ignored; an unknown operator or a malformed
// value is a 422 naming the field. Operands are always bound parameters, never query text.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { errors, type ErrorBag } from '../../errors.js';
import type { Input } from './input.js';

export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'like' | 'not like' | 'in' | 'not in' | 'null';
type Scalar = string | number;

export type Filter =
  | { readonly column: string; readonly op: '=' | '!=' | '<' | '<=' | '>' | '>='; readonly operand: Scalar | null }
  | { readonly column: string; readonly op: 'like' | 'not like'; readonly operand: string }
  | { readonly column: string; readonly op: 'in' | 'not in'; readonly operand: readonly Scalar[] }
  | { readonly column: string; readonly op: 'null'; readonly operand: boolean };

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
const MAX_IN_ITEMS = 1000;

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
    if (operand === null) return { column, op: op as '=', operand: null };
    const value = scalar(operand);
    return value === undefined ? `The ${field} value for "${op}" must be a string or a number.` : { column, op: op as '=', operand: value };
  }
  if (op === 'like' || op === 'not like') {
    const value = scalar(operand);
    return value === undefined ? `The ${field} value for "${op}" must be a string.` : { column, op, operand: String(value) };
  }
  if (op === 'in' || op === 'not in') {
    if (!Array.isArray(operand) || operand.length > MAX_IN_ITEMS) {
      return `The ${field} value for "${op}" must be an array of at most ${MAX_IN_ITEMS} values.`;
    }
    const values = operand.map(scalar);
    if (values.some((v) => v === undefined)) return `The ${field} value for "${op}" must hold only strings and numbers.`;
    return { column, op, operand: values as Scalar[] };
  }
  if (op === 'null') {
    const value = flag(operand);
    return value === undefined ? `The ${field} value for "null" must be true or false.` : { column, op, operand: value };
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
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function parseFilters(input: Input, searchable: ReadonlySet<string>): Filter[] {
  if (input.filters === undefined || input.filters === null) return [];
  const object = filtersObject(input.filters);
  if (!object) throw errors.validation({ filters: ['The filters field must be a JSON object of column to {operator: operand}.'] });
  const filters: Filter[] = [];
  const bag: ErrorBag = {};
  for (const [column, conditions] of Object.entries(object)) {
    if (!searchable.has(column)) continue; // SPEC.md 4.2 rule 1: silently ignored
    if (conditions === null || typeof conditions !== 'object' || Array.isArray(conditions)) {
      bag[`filters.${column}`] = [`The filters.${column} field must be an object of operator to operand.`];
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

/** One filter as a where-expression on `table.column`. */
export function filterExpression(table: string, filter: Filter, adapter: DialectAdapter): Expression<SqlBool> {
  const ref = sql.ref(`${table}.${filter.column}`);
  switch (filter.op) {
    case 'like':
      return adapter.likeInsensitive(`${table}.${filter.column}`, filter.operand, false);
    case 'not like':
      return adapter.likeInsensitive(`${table}.${filter.column}`, filter.operand, true);
    case 'in':
      return filter.operand.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`${ref} in (${sql.join(filter.operand)})`;
    case 'not in':
      return filter.operand.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`${ref} not in (${sql.join(filter.operand)})`;
    case 'null':
      return filter.operand ? sql<boolean>`${ref} is null` : sql<boolean>`${ref} is not null`;
    case '=':
      return filter.operand === null ? sql<boolean>`${ref} is null` : sql<boolean>`${ref} = ${filter.operand}`;
    case '!=':
      return filter.operand === null ? sql<boolean>`${ref} is not null` : sql<boolean>`${ref} <> ${filter.operand}`;
    default:
      return sql<boolean>`${ref} ${sql.raw(filter.op)} ${filter.operand}`;
  }
}
