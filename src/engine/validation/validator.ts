// Validates a master record and all its detail rows in one pass. Pure checks run
// first; exists/unique values are then gathered across every unit so the database
// sees one query per table/column instead of one per row.

import type { ErrorBag } from '../../errors.js';
import type {
  DbRule,
  FieldRules,
  ParsedRuleSet,
  PureRule,
  UniqueWhere,
} from '../../model/rules.js';
import { attributeName } from '../../support/attribute-name.js';
import { messageFor, requiredMessage, type SizeType } from './messages.js';

export interface ValidationUnit {
  data: Record<string, unknown>;
  rules: ParsedRuleSet;
  /** Error-key prefix for detail rows, e.g. 'groups.0.'. */
  prefix?: string;
}

export interface Lookup {
  /** Return the subset of `values` (compared as strings: String(v)) that exist in table.column. */
  exists(table: string, column: string, values: unknown[]): Promise<Set<string>>;
  /**
   * For unique: for each value present in table.column (among the rows matching `where`, when
   * given), the primary key ids (as strings) holding it.
   */
  taken(
    table: string,
    column: string,
    values: unknown[],
    where?: UniqueWhere | null,
  ): Promise<Map<string, string[]>>;
}

/** Insertion order = order of units, then order of fields in the rules. */
export type { ErrorBag };

/** A database check waiting for the batched lookup; its message is written only if it fails. */
interface Pending {
  readonly rule: DbRule;
  readonly values: readonly unknown[];
  readonly field: FieldRules;
  readonly prefix: string;
  readonly size: SizeType;
}
type Slot = string | Pending;
interface FieldResult {
  readonly key: string;
  readonly slots: readonly Slot[];
}
/** The values one batched lookup asks about (by their string form). */
interface Group {
  readonly table: string;
  readonly column: string;
  readonly where: UniqueWhere | null;
  readonly values: Map<string, unknown>;
}

const NO_SLOTS: readonly Slot[] = [];

export async function validateAll(units: ValidationUnit[], lookup: Lookup): Promise<ErrorBag> {
  const results: FieldResult[] = [];
  const existsGroups = new Map<string, Group>();
  const uniqueGroups = new Map<string, Group>();
  for (const unit of units) {
    for (const field of unit.rules) {
      const result = checkField(unit, field);
      results.push(result);
      for (const slot of result.slots) {
        if (typeof slot !== 'string')
          collect(slot.rule.name === 'exists' ? existsGroups : uniqueGroups, slot);
      }
    }
  }
  const [found, holders] = await Promise.all([
    ask(existsGroups, (g) => lookup.exists(g.table, g.column, [...g.values.values()])),
    ask(uniqueGroups, (g) => lookup.taken(g.table, g.column, [...g.values.values()], g.where)),
  ]);

  const fails = (p: Pending): boolean => {
    const rule = p.rule;
    if (rule.name === 'exists') {
      const present = found.get(rule.lookup);
      return p.values.some((v) => present?.has(String(v)) !== true);
    }
    const ids = holders.get(rule.lookup);
    return p.values.some((v) => (ids?.get(String(v)) ?? []).some((id) => id !== rule.ignoreId));
  };

  const bag: ErrorBag = {};
  for (const { key, slots } of results) {
    for (const slot of slots) {
      const message =
        typeof slot === 'string'
          ? slot
          : fails(slot)
            ? messageFor(slot.rule, attributeName(slot.field.field, slot.prefix), slot.size)
            : null;
      if (message !== null) (bag[key] ??= []).push(message);
    }
  }
  return bag;
}

function checkField(unit: ValidationUnit, field: FieldRules): FieldResult {
  const prefix = unit.prefix ?? '';
  const key = prefix + field.field;
  const value = unit.data[field.field];

  if (field.sometimes && !Object.hasOwn(unit.data, field.field)) return { key, slots: NO_SLOTS };
  // Bail on required: the other rules have nothing meaningful to say about an empty value.
  if (field.required && isEmpty(value))
    return { key, slots: [requiredMessage(attributeName(field.field, prefix))] };
  // Laravel only runs implicit rules (required) on absent, null or blank values.
  if (isBlank(value)) return { key, slots: NO_SLOTS };

  const size = sizeType(field, value);
  let failed: string[] | null = null;
  let pending: Pending[] | null = null;
  for (const rule of field.checks) {
    if (rule.name === 'exists' || rule.name === 'unique') {
      // Like Laravel, exists on an array checks every element.
      const values = rule.name === 'exists' && Array.isArray(value) ? value : [value];
      if (values.every(isScalar)) (pending ??= []).push({ rule, values, field, prefix, size });
      // An object can never match a column value; for unique the type rules report it.
      else if (rule.name === 'exists')
        (failed ??= []).push(messageFor(rule, attributeName(field.field, prefix), size));
    } else if (!passes(rule, value, field)) {
      (failed ??= []).push(messageFor(rule, attributeName(field.field, prefix), size));
    }
  }
  // Spend no lookup on a value that already failed (e.g. "abc" for an integer id).
  return { key, slots: failed ?? pending ?? NO_SLOTS };
}

function collect(groups: Map<string, Group>, { rule, values }: Pending): void {
  let g = groups.get(rule.lookup);
  if (g === undefined)
    groups.set(
      rule.lookup,
      (g = {
        table: rule.table,
        column: rule.column,
        where: rule.name === 'unique' ? rule.where : null,
        values: new Map(),
      }),
    );
  for (const v of values) {
    const text = String(v);
    if (!g.values.has(text)) g.values.set(text, v);
  }
}

async function ask<T>(
  groups: Map<string, Group>,
  query: (g: Group) => Promise<T>,
): Promise<Map<string, T>> {
  // A group with no values (exists on an empty array) needs no query.
  const asked = [...groups].filter(([, g]) => g.values.size > 0);
  if (asked.length === 0) return new Map();
  const answers = await Promise.all(asked.map(async ([key, g]) => [key, await query(g)] as const));
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
      return typeof value === 'number'
        ? Number.isInteger(value)
        : typeof value === 'string' && INTEGER.test(value);
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
    case 'url':
      return typeof value === 'string' && isHttpUrl(value);
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

/** An absolute http or https URL (a webhook's target). */
function isHttpUrl(value: string): boolean {
  try {
    const { protocol, hostname } = new URL(value);
    return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
  } catch {
    return false;
  }
}

function isScalar(value: unknown): value is string | number | boolean | bigint {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint';
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number'
    ? Number.isFinite(value)
    : typeof value === 'string' && NUMERIC.test(value);
}

// A decoded JSON object is a PHP array too, so Laravel's array/min/max/required accept it.
function isArrayLike(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// \s is exactly what String.prototype.trim removes.
const BLANK = /^\s*$/;

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && BLANK.test(value));
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
  return codePoints(String(value));
}

/** What `[...text].length` counts (a lone surrogate counts as one), without the array. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
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
