// What an entity's fields accept and hold, read off its casts, fillable list, write-only fields
// and rules: one description for the OpenAPI document and the admin metadata alike, so neither
// can say something the engine does not do.
import type { Entity } from './entity.js';
import { labelOf } from './labels.js';
import type { FieldRules, ParsedRuleSet } from './rules.js';

/** A field's JSON type as the API answers it (casts), or as rules expect it when not cast. */
export type ScalarType = 'integer' | 'number' | 'string' | 'boolean' | 'datetime' | 'json';

export interface FieldDescription {
  readonly name: string;
  readonly label: string;
  readonly type: ScalarType;
  /** The payload may fill it (fillable or write-only). */
  readonly writable: boolean;
  /** Never serialised: write-only fields, hidden columns. */
  readonly writeOnly: boolean;
  /** Must be sent on create / on update (`required` without `sometimes`). */
  readonly required: boolean;
  readonly requiredOnUpdate: boolean;
  /** Null or blank accepted when sent on update (no `required`, even with `sometimes`). */
  readonly blankOnUpdate: boolean;
  /** A stored value can be null (neither the key, a maintained timestamp, nor required). */
  readonly storedNullable: boolean;
  /** Length bounds of a string (`max:`/`min:` without `integer`/`numeric`/`array`). */
  readonly maxLength: number | null;
  readonly minLength: number | null;
  /** Value bounds of a number. */
  readonly maximum: number | null;
  readonly minimum: number | null;
  /** `in:` values. */
  readonly choices: readonly string[] | null;
  /** `exists:table,column`: the records the value names. */
  readonly references: { readonly table: string; readonly column: string } | null;
  /** A string holding JSON text (`json` rule). */
  readonly jsonText: boolean;
  readonly email: boolean;
}

const byField = (set: ParsedRuleSet | null) =>
  new Map((set ?? []).map((rules) => [rules.field, rules] as const));

function typeOf(entity: Entity, field: string, rules: FieldRules | undefined): ScalarType {
  switch (entity.casts[field]) {
    case 'integer':
      return 'integer';
    case 'float':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'json':
      return 'json';
    case 'datetime':
      return 'datetime';
    case 'string':
      return 'string';
  }
  const names = new Set(rules?.checks.map((c) => c.name));
  if (names.has('integer')) return 'integer';
  if (names.has('numeric')) return 'number';
  if (names.has('boolean')) return 'boolean';
  if (field === entity.primaryKey) return 'integer';
  return 'string';
}

function bound(rules: FieldRules | undefined, name: 'max' | 'min', numeric: boolean) {
  if (!rules || rules.array || rules.numeric !== numeric) return null;
  for (const check of rules.checks) if (check.name === name) return check.limit;
  return null;
}

/** Every field of the entity: its columns (hidden ones too), then its write-only fields. */
export function describeFields(
  entity: Entity,
  labels: Readonly<Record<string, string>> = {},
): FieldDescription[] {
  const onCreate = byField(entity.rules?.(null) ?? null);
  const onUpdate = byField(entity.rules?.(1) ?? null);
  const maintained = new Set([entity.timestamps.createdAt, entity.timestamps.updatedAt]);
  const names = [...entity.columns, ...Object.keys(entity.writeOnly)];
  return names.map((name) => {
    const rules = onCreate.get(name) ?? onUpdate.get(name);
    const checks = rules?.checks ?? [];
    const exists = checks.find((c) => c.name === 'exists');
    const choices = checks.find((c) => c.name === 'in');
    const writeOnly = name in entity.writeOnly;
    const mustSend = (rules: FieldRules | undefined) => !!rules?.required && !rules.sometimes;
    const required = mustSend(onCreate.get(name));
    return {
      name,
      label: labels[name] ?? entity.labels[name] ?? labelOf(name),
      type: typeOf(entity, name, rules),
      writable: entity.fillable.has(name) || writeOnly,
      writeOnly: writeOnly || entity.hidden.has(name),
      required,
      requiredOnUpdate: mustSend(onUpdate.get(name)),
      blankOnUpdate: !onUpdate.get(name)?.required,
      storedNullable: !(name === entity.primaryKey || maintained.has(name) || required),
      maxLength: bound(rules, 'max', false),
      minLength: bound(rules, 'min', false),
      maximum: bound(rules, 'max', true),
      minimum: bound(rules, 'min', true),
      choices: choices?.name === 'in' ? choices.values : null,
      references: exists?.name === 'exists' ? { table: exists.table, column: exists.column } : null,
      jsonText: checks.some((c) => c.name === 'json'),
      email: checks.some((c) => c.name === 'email'),
    };
  });
}
