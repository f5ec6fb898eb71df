// Validates a master record and all its detail rows in one pass. Pure checks run
// first; exists/unique values are then gathered across every unit so the database
// sees one query per table/column instead of one per row.
import { attributeName, messageFor, requiredMessage, type SizeType } from './messages.js';
import type { ErrorBag } from '../../errors.js';
import type { DbRule, FieldRules, ParsedRuleSet, PureRule } from './rules.js';

export type { ParsedRuleSet, RuleSet } from './rules.js';
export { parseRules } from './rules.js';

export interface ValidationUnit {
  data: Record<string, unknown>;
  rules: ParsedRuleSet;
  /** Error-key prefix for detail rows, e.g. 'groups.0.'. */
  prefix?: string;
}

export interface Lookup {
  /** Return the subset of `values` (compared as strings: String(v)) that exist in table.column. */
  exists(table: string, column: string, values: unknown[]): Promise<Set<string>>;
  /** For unique: for each value present in table.column, the primary key ids (as strings) holding it. */
  taken(table: string, column: string, values: unknown[]): Promise<Map<string, string[]>>;
}

/** Insertion order = order of units, then order of fields in the rules. */
export type { ErrorBag };

/** A database check waiting for the batched lookup. */
interface Pending {
  readonly rule: DbRule;
  readonly values: readonly unknown[];
  /** Written only when the lookup fails it. */
  readonly message: () => string;
}
type Slot = string | Pending;
interface FieldResult {
  readonly key: string;
  readonly slots: readonly Slot[];
}
interface Group {
  readonly table: string;
  readonly column: string;
  readonly values: Map<string, unknown>;
}

export async function validateAll(units: ValidationUnit[], lookup: Lookup): Promise<ErrorBag> {
  const results = units.flatMap((unit) => unit.rules.map((field) => checkField(unit, field)));
  const pending = results.flatMap((r) => r.slots.filter((s): s is Pending => typeof s !== 'string'));
  const [found, holders] = await Promise.all([
    ask(group(pending, 'exists'), (g) => lookup.exists(g.table, g.column, [...g.values.values()])),
    ask(group(pending, 'unique'), (g) => lookup.taken(g.table, g.column, [...g.values.values()])),
  ]);

  const fails = (p: Pending): boolean => {
    const rule = p.rule;
    if (rule.name === 'exists') {
      const present = found.get(groupKey(rule));
      return p.values.some((v) => present?.has(String(v)) !== true);
    }
    const ids = holders.get(groupKey(rule));
    return p.values.some((v) => (ids?.get(String(v)) ?? []).some((id) => id !== rule.ignoreId));
  };

  const bag: ErrorBag = {};
  for (const { key, slots } of results) {
    const messages = slots.flatMap((s) => (typeof s === 'string' ? [s] : fails(s) ? [s.message()] : []));
    if (messages.length > 0) (bag[key] ??= []).push(...messages);
  }
  return bag;
}

function checkField(unit: ValidationUnit, field: FieldRules): FieldResult {
  const prefix = unit.prefix ?? '';
  const key = prefix + field.field;
  const attribute = attributeName(field.field, prefix);
  const value = unit.data[field.field];

  if (field.sometimes && !Object.hasOwn(unit.data, field.field)) return { key, slots: [] };
  // Bail on required: the other rules have nothing meaningful to say about an empty value.
  if (field.required && isEmpty(value)) return { key, slots: [requiredMessage(attribute)] };
  // Laravel only runs implicit rules (required) on absent, null or blank values.
  if (isBlank(value)) return { key, slots: [] };

  const size = sizeType(field, value);
  const slots: Slot[] = [];
  for (const rule of field.checks) {
    if (rule.name === 'exists' || rule.name === 'unique') {
      const slot = dbSlot(rule, value, () => messageFor(rule, attribute, size));
      if (slot !== null) slots.push(slot);
    } else if (!passes(rule, value, field)) {
      slots.push(messageFor(rule, attribute, size));
    }
  }
  // Spend no lookup on a value that already failed (e.g. "abc" for an integer id).
  const failed = slots.filter((s) => typeof s === 'string');
  return { key, slots: failed.length > 0 ? failed : slots };
}

function dbSlot(rule: DbRule, value: unknown, message: () => string): Slot | null {
  // Like Laravel, exists on an array checks every element.
  const values = rule.name === 'exists' && Array.isArray(value) ? value : [value];
  if (values.every(isScalar)) return { rule, values, message };
  // An object can never match a column value; for unique the type rules report it.
  return rule.name === 'exists' ? message() : null;
}

function groupKey(rule: DbRule): string {
  return JSON.stringify([rule.table, rule.column]);
}

function group(pending: readonly Pending[], name: DbRule['name']): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const { rule, values } of pending) {
    if (rule.name !== name) continue;
    const key = groupKey(rule);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { table: rule.table, column: rule.column, values: new Map() }));
    for (const v of values) if (!g.values.has(String(v))) g.values.set(String(v), v);
  }
  // A group with no values (exists on an empty array) needs no query.
  for (const [key, g] of groups) if (g.values.size === 0) groups.delete(key);
  return groups;
}

async function ask<T>(groups: Map<string, Group>, query: (g: Group) => Promise<T>): Promise<Map<string, T>> {
  const answers = await Promise.all([...groups].map(async ([key, g]) => [key, await query(g)] as const));
  return new Map(answers);
}

// ---- pure checks -------------------------------------------------------------

const INTEGER = /^-?\d+$/;
// PHP is_numeric: optional surrounding whitespace, sign, decimals, exponent.
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
// Deliberately loose (Laravel's default RFC check accepts user@localhost too).
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)*$/;
const BOOLEANS: readonly unknown[] = [true, false, 0, 1, '0', '1'];

function passes(rule: PureRule, value: unknown, field: FieldRules): boolean {
  switch (rule.name) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' ? Number.isInteger(value) : typeof value === 'string' && INTEGER.test(value);
    case 'numeric':
      return isNumeric(value);
    case 'boolean':
      return BOOLEANS.includes(value);
    case 'array':
      return isArrayLike(value);
    case 'json':
      return typeof value === 'string' && parsesAsJson(value);
    case 'email':
      return typeof value === 'string' && EMAIL.test(value);
    case 'date':
      return isDate(value);
    case 'in': {
      const items = Array.isArray(value) ? value : [value];
      return items.every((v) => isScalar(v) && rule.values.includes(String(v)));
    }
    case 'max':
      return sizeOf(value, field) <= rule.limit;
    case 'min':
      return sizeOf(value, field) >= rule.limit;
  }
}

function isScalar(value: unknown): value is string | number | boolean | bigint {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint';
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' ? Number.isFinite(value) : typeof value === 'string' && NUMERIC.test(value);
}

// A decoded JSON object is a PHP array too, so Laravel's array/min/max/required accept it.
function isArrayLike(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function isEmpty(value: unknown): boolean {
  return isBlank(value) || (isArrayLike(value) && Object.keys(value).length === 0);
}

function sizeType(field: FieldRules, value: unknown): SizeType {
  if (field.numeric) return 'numeric';
  return field.array || isArrayLike(value) ? 'array' : 'string';
}

/** Laravel getSize: numeric value, item count, else length in code points (mb_strlen). */
function sizeOf(value: unknown, field: FieldRules): number {
  if (field.numeric && isNumeric(value)) return Number(value);
  if (isArrayLike(value)) return Object.keys(value).length;
  return [...String(value)].length;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isDate(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) return false;
  // V8 rolls "2024-02-30" over into March; Laravel (checkdate) rejects it.
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (m === null) return true;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}
