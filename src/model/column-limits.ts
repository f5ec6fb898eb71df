// The character lengths of an entity's columns as its databases declare them (varchar(120)),
// learnt at start by the schema check (engine/definition/schema-check.ts). A longer value is a
// 422 `max` on its field on every engine: SQLite would store it, PostgreSQL and MariaDB refuse
// it with an error. A declared `max` at most the column's length stays the only one.
import type { Entity, Row } from './entity.js';
import type { CheckRule, FieldRules, ParsedRuleSet } from './rules.js';

const lengths = new WeakMap<Entity, ReadonlyMap<string, number>>();
const limited = new WeakMap<Entity, WeakMap<ParsedRuleSet, ParsedRuleSet>>();

/** Sets the lengths of `entity`'s fillable text columns (the shortest over its databases). */
export function learnColumnLimits(entity: Entity, columns: ReadonlyMap<string, number>): void {
  const fillable = new Map<string, number>();
  for (const [column, length] of columns)
    if (entity.fillable.has(column) && entity.casts[column] !== 'json')
      fillable.set(column, length);
  lengths.set(entity, fillable);
  limited.delete(entity);
}

/** The lengths learnt for `entity` (empty before the check ran). */
export function columnLimits(entity: Entity): ReadonlyMap<string, number> {
  return lengths.get(entity) ?? new Map();
}

/** The entity's rules for a write, with each column's length as a `max` where none is smaller. */
export function writeRules(entity: Entity, id: number | null, data: Readonly<Row>): ParsedRuleSet {
  const rules = entity.rules ? entity.rules(id, data) : [];
  const limits = lengths.get(entity);
  if (!limits || limits.size === 0) return rules;
  let memo = limited.get(entity);
  if (!memo) {
    memo = new WeakMap();
    limited.set(entity, memo);
  }
  let out = memo.get(rules);
  if (!out) {
    out = withLimits(rules, limits);
    memo.set(rules, out);
  }
  return out;
}

function withLimits(rules: ParsedRuleSet, limits: ReadonlyMap<string, number>): ParsedRuleSet {
  const out: FieldRules[] = [];
  const seen = new Set<string>();
  for (const field of rules) {
    seen.add(field.field);
    const length = limits.get(field.field);
    // Numbers and lists are sized by value and items: the column's characters are not theirs.
    // A list of choices that all fit says more than the column would: its message stays alone.
    const applies =
      length !== undefined && !field.numeric && !field.array && !choicesFit(field, length);
    const smaller = field.checks.some((c) => c.name === 'max' && c.limit <= (length ?? 0));
    out.push(applies && !smaller ? { ...field, checks: [...field.checks, maxOf(length)] } : field);
  }
  for (const [column, length] of limits) {
    if (seen.has(column)) continue;
    out.push({
      field: column,
      checks: [maxOf(length)],
      required: false,
      sometimes: false,
      numeric: false,
      array: false,
    });
  }
  return out;
}

function maxOf(length: number): CheckRule {
  return { name: 'max', limit: length, raw: String(length) };
}

function choicesFit(field: FieldRules, length: number): boolean {
  return field.checks.some(
    (c) => c.name === 'in' && c.values.every((value) => [...value].length <= length),
  );
}
