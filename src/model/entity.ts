// An entity: a stored table with its key, columns, casts, fillable and hidden fields, computed
// attributes, relations, validation rules and optional unit/tenant binding. Declared once,
// checked and compiled at boot; the engine reads only the compiled form.

import type { Expression, SqlBool } from 'kysely';
import { compileObjectLiteral } from '../support/object-literal.js';
import { type CastType, type ReadCast, readCasts } from './casts.js';
import { type ParsedRuleSet, parseRules, type RuleSet } from './rules.js';

export type Row = Record<string, unknown>;

/** Where an entity's table lives: the system database, or the data database of the caller's unit. */
export type Storage = 'system' | 'data';

// Relation kinds (relations/relation.ts builds them), declared with Entity: each refers to the other.

export interface BelongsTo {
  readonly kind: 'belongsTo';
  readonly target: () => Entity;
  /** Column on the owning entity holding the target's key. */
  readonly foreignKey: string;
  /** Key on the target, usually its primary key. */
  readonly ownerKey: string;
  /** The target columns to load (all visible ones when absent), e.g. only a user's id and name. */
  readonly columns: readonly string[] | null;
}

export interface HasMany {
  readonly kind: 'hasMany';
  readonly target: () => Entity;
  /** Column on the target that holds this entity's key. */
  readonly foreignKey: string;
  /** Key on this entity, usually its primary key. */
  readonly localKey: string;
}

export type Relation = BelongsTo | HasMany;

export interface EntityDefinition {
  /** The entity type name, also what a resource's `model` may name. */
  readonly name: string;
  readonly table: string;
  /** Defaults to `id`. */
  readonly primaryKey?: string;
  /** Every stored column; nothing else is ever selected or written. */
  readonly columns: readonly string[];
  readonly casts?: Readonly<Record<string, CastType>>;
  /** Columns a payload may fill. */
  readonly fillable: readonly string[];
  /** Columns never serialised (passwords, hashes). */
  readonly hidden?: readonly string[];
  /** Write-only payload fields turned into stored columns, e.g. password -> password_hash. */
  readonly writeOnly?: Readonly<Record<string, (value: unknown) => Promise<Row> | Row>>;
  /** Computed attributes a resource may append, each a function of the serialised record. */
  readonly appends?: Readonly<Record<string, (record: Row) => unknown>>;
  readonly relations?: Readonly<Record<string, Relation>>;
  /**
   * Laravel-style rules as a function of the record id (null on create) and the record as it
   * will be written (the stored one merged with the payload; empty when only described), for
   * rules that depend on another field (a unit's name unique within its company).
   */
  readonly rules?: (id: number | null, record: Readonly<Row>) => RuleSet;
  /** Timestamp columns the service maintains; default: created_at/updated_at when declared. */
  readonly timestamps?: { readonly createdAt: string | null; readonly updatedAt: string | null };
  /** Unit-bound: filtered by, and stamped with, the caller's unit. */
  readonly unitColumn?: string;
  /** Tenant-bound: filtered by, and stamped with, the caller's tenant (company). */
  readonly tenantColumn?: string;
  /**
   * For a table whose rows belong to a tenant without being bound to it (a company is its own,
   * a unit has one, a user has units): the condition that a row is tenant `tenantId`'s. In
   * isolation mode it keeps what a tenant-bound record names and what a lookup answers to the
   * caller's tenant (scope.ts, referenceConditions); the table's own list stays unbound.
   */
  readonly tenantMember?: (tenantId: number) => Expression<SqlBool>;
  /** Stamped with the acting user on create when the payload leaves it empty. */
  readonly ownerColumn?: string;
  readonly storage?: Storage;
  /** Labels of fields where the default (labels.ts: `database_name` -> "Database name") is wrong. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The columns that name a record to a person (a template's title; a user's name and login). */
  readonly titleColumns?: readonly string[];
  /**
   * An integer column the engine increments in every write of the record, details-only ones
   * included: the record's version, its strong ETag (engine/conditional). Never serialised.
   */
  readonly versionColumn?: string;
}

export interface Entity {
  readonly name: string;
  readonly table: string;
  readonly primaryKey: string;
  readonly columns: readonly string[];
  readonly columnSet: ReadonlySet<string>;
  readonly casts: Readonly<Record<string, CastType>>;
  readonly fillable: ReadonlySet<string>;
  readonly hidden: ReadonlySet<string>;
  readonly writeOnly: Readonly<Record<string, (value: unknown) => Promise<Row> | Row>>;
  readonly appends: Readonly<Record<string, (record: Row) => unknown>>;
  readonly relations: Readonly<Record<string, Relation>>;
  /** The rules for the record with `id` (null on create), parsed; checked at definition. */
  readonly rules: ((id: number | null, record?: Readonly<Row>) => ParsedRuleSet) | null;
  readonly timestamps: { readonly createdAt: string | null; readonly updatedAt: string | null };
  readonly unitColumn: string | null;
  readonly tenantColumn: string | null;
  /** EntityDefinition.tenantMember, or null. */
  readonly tenantMember: ((tenantId: number) => Expression<SqlBool>) | null;
  readonly ownerColumn: string | null;
  readonly storage: Storage;
  readonly labels: Readonly<Record<string, string>>;
  /** The columns that name a record (pickers, headings); the key alone when none is declared. */
  readonly titleColumns: readonly string[];
  /** The record's version column (EntityDefinition.versionColumn), or null. */
  readonly versionColumn: string | null;
  /** Stored row -> JSON-ready record: casts applied, hidden columns left out. */
  serialize(row: Row): Row;
}

const registry = new Map<string, Entity>();

function check(def: EntityDefinition, condition: boolean, message: string): void {
  if (!condition) throw new Error(`Entity ${def.name}: ${message}`);
}

export function defineEntity(def: EntityDefinition): Entity {
  const columnSet = new Set(def.columns);
  const primaryKey = def.primaryKey ?? 'id';
  const known = (list: Iterable<string>, what: string) => {
    for (const column of list)
      check(def, columnSet.has(column), `${what} "${column}" is not a declared column`);
  };
  check(def, columnSet.has(primaryKey), `primary key "${primaryKey}" is not a declared column`);
  known(def.fillable, 'fillable column');
  known(def.hidden ?? [], 'hidden column');
  known(def.titleColumns ?? [], 'title column');
  known(Object.keys(def.casts ?? {}), 'cast column');
  for (const column of [def.unitColumn, def.tenantColumn, def.ownerColumn])
    if (column) known([column], 'scope column');
  if (def.versionColumn) {
    known([def.versionColumn], 'version column');
    check(
      def,
      !def.fillable.includes(def.versionColumn),
      `version column "${def.versionColumn}" must not be fillable`,
    );
  }
  const timestamps = def.timestamps ?? {
    createdAt: columnSet.has('created_at') ? 'created_at' : null,
    updatedAt: columnSet.has('updated_at') ? 'updated_at' : null,
  };
  known(
    [timestamps.createdAt, timestamps.updatedAt].filter((c): c is string => c !== null),
    'timestamp column',
  );

  const rules = def.rules
    ? checkedRules(def, def.rules, new Set([...def.columns, ...Object.keys(def.writeOnly ?? {})]))
    : null;

  // The version is the ETag header's, not a field of the answer (SPEC.md's bodies stay as they are).
  const hidden = new Set([
    ...(def.hidden ?? []),
    ...(def.versionColumn ? [def.versionColumn] : []),
  ]);
  const casts = { ...(def.casts ?? {}) };
  const visible: Array<[string, ReadCast | null]> = def.columns
    .filter((c) => !hidden.has(c))
    .map((c) => [c, casts[c] ? readCasts[casts[c]] : null]);
  // Every record of the entity gets the same keys: one generated object literal builds them.
  const serialize = compileObjectLiteral<Row, Row>(
    visible.map(([column]) => column),
    (i) => {
      const value = `source[${JSON.stringify(visible[i]?.[0])}]`;
      return visible[i]?.[1] ? `helpers[${i}](${value})` : `(${value} ?? null)`;
    },
    visible.map(([, cast]) => cast),
  );

  const entity: Entity = Object.freeze({
    name: def.name,
    table: def.table,
    primaryKey,
    columns: [...def.columns],
    columnSet,
    casts,
    fillable: new Set(def.fillable),
    hidden,
    writeOnly: { ...(def.writeOnly ?? {}) },
    appends: { ...(def.appends ?? {}) },
    relations: { ...(def.relations ?? {}) },
    rules,
    timestamps,
    unitColumn: def.unitColumn ?? null,
    tenantColumn: def.tenantColumn ?? null,
    tenantMember: def.tenantMember ?? null,
    ownerColumn: def.ownerColumn ?? null,
    storage: def.storage ?? 'system',
    labels: { ...(def.labels ?? {}) },
    titleColumns: [...(def.titleColumns ?? [primaryKey])],
    versionColumn: def.versionColumn ?? null,
    serialize,
  });
  const previous = registry.get(def.name);
  check(
    def,
    !previous || previous.table === def.table,
    `another entity is already named "${def.name}"`,
  );
  registry.set(def.name, entity);
  return entity;
}

/**
 * The entity's rules, parsed for every write (parseRules keeps the sets it has seen); parsed once
 * here for a new record and an existing one, so a misspelt rule or field stops the service at
 * boot with the entity, field and rule named instead of answering 500 at the first write.
 */
function checkedRules(
  def: EntityDefinition,
  rules: (id: number | null, record: Readonly<Row>) => RuleSet,
  fields: ReadonlySet<string>,
): (id: number | null, record?: Readonly<Row>) => ParsedRuleSet {
  for (const id of [null, 1]) {
    const set = rules(id, {});
    for (const field of Object.keys(set)) {
      check(
        def,
        fields.has(field),
        `rules name field "${field}", which is neither a column nor a write-only field`,
      );
    }
    try {
      parseRules(set);
    } catch (error) {
      check(def, false, error instanceof Error ? error.message : String(error));
    }
  }
  return (id, record = {}) => parseRules(rules(id, record));
}

/** Resolves a resource's `model` setting given as a name. */
export function entityNamed(name: string): Entity {
  const entity = registry.get(name);
  if (!entity)
    throw new Error(
      `No entity is named "${name}" (known: ${[...registry.keys()].join(', ') || 'none'})`,
    );
  return entity;
}

/** The entity stored in `table`, if one is declared (validation lookups use its storage). */
export function entityForTable(table: string): Entity | undefined {
  for (const entity of registry.values()) if (entity.table === table) return entity;
  return undefined;
}
