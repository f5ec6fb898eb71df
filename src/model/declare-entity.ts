// An entity declared field by field (fields.ts), compiled into the EntityDefinition that
// defineEntity checks and the engine reads: columns, fillable, casts, hidden, labels, rules and
// the scope columns all come from the one declaration. The column properties are kept here for
// `svc make:migration` (declaredTables).
import type { CastType } from './casts.js';
import {
  defineEntity,
  type Entity,
  type EntityDefinition,
  entityForTable,
  type Relation,
  type Row,
} from './entity.js';
import { type ColumnSpec, Field, type FieldSpec, field } from './fields.js';
import { belongsTo, hasMany } from './relations/relation.js';
import type { RuleSet } from './rules.js';

/** What an entity declares besides its fields (EntityDefinition's settings of the same names). */
export type EntityOptions = Pick<
  EntityDefinition,
  'storage' | 'relations' | 'appends' | 'tenantMember' | 'titleColumns' | 'timestamps'
> & {
  /** Indexes on several columns, e.g. `[['unit_id', 'created_at']]`. */
  readonly indexes?: readonly (readonly string[])[];
};

export interface DeclaredColumn extends ColumnSpec {
  readonly name: string;
}

/** A table as its entity declares it: what make:migration brings the database to. */
export interface DeclaredTable {
  readonly entity: string;
  readonly table: string;
  readonly storage: 'system' | 'data';
  readonly primaryKey: string;
  readonly columns: readonly DeclaredColumn[];
  readonly indexes: readonly (readonly string[])[];
}

const tables = new Map<string, DeclaredTable>();

/** Every table declared so far, in declaration order. */
export function declaredTables(): DeclaredTable[] {
  return [...tables.values()];
}

/** Detail rows declared inside their master (details()): a table of their own, keyed to it. */
class Details {
  constructor(
    readonly fields: Readonly<Record<string, Field>>,
    readonly options: EntityOptions,
  ) {}
}

/**
 * A one-to-many relation whose rows are declared here: entity `<Master><Row>` (SupplierContact)
 * in table `<master>_<relation>` (supplier_contacts), keyed by `<master>_id` to the master and
 * stored where the master is.
 */
export function details(
  fields: Readonly<Record<string, Field>>,
  options: EntityOptions = {},
): Details {
  return new Details(fields, options);
}

/** A declaration's entries: fields, detail relations, and relations written out (escape hatch). */
type Entries = Readonly<Record<string, Field | Details | Relation>>;

/** `suppliers` -> `supplier`, `addresses` -> `address`, `categories` -> `category`. */
export function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

const pascal = (snake: string) =>
  snake.replace(/(^|_)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());

/** The entity stored in `table`, for a relation declared by table name. */
function storedIn(table: string): Entity {
  const found = entityForTable(table);
  if (!found) throw new Error(`No entity is stored in table "${table}": import its module first`);
  return found;
}

/**
 * Declares entity `name` stored in `table` (in the data database unless `storage: 'system'`).
 * An `id` primary key is declared first unless a field has field.id(); `created_at` and
 * `updated_at` are maintained when declared (timestamps()). Entries that are details() or
 * relations become the entity's relations.
 */
export function entity(
  name: string,
  table: string,
  entries: Entries,
  options: EntityOptions = {},
): Entity {
  const storage = options.storage ?? 'data';
  const fields: Record<string, Field> = {};
  const relations: Record<string, Relation> = { ...options.relations };
  for (const [entryName, value] of Object.entries(entries)) {
    if (value instanceof Field) fields[entryName] = value;
    else if (value instanceof Details) {
      const parentKey = `${singular(table)}_id`;
      const rows = entity(
        `${name}${pascal(singular(entryName))}`,
        `${singular(table)}_${entryName}`,
        { [parentKey]: field.parent(table), ...value.fields },
        { storage, ...value.options },
      );
      relations[entryName] = hasMany(() => rows, parentKey);
    } else relations[entryName] = value;
  }
  for (const [fieldName, f] of Object.entries(fields)) {
    const { relation, exists } = f.spec;
    if (relation && exists)
      relations[relation.name] = belongsTo(() => storedIn(exists.table), fieldName, {
        ownerKey: exists.column,
        ...(relation.columns ? { columns: relation.columns } : {}),
      });
  }
  const { indexes = [], relations: _written, ...settings } = options;
  const keyed = Object.values(fields).some((f) => f.spec.role === 'key');
  const all = Object.entries(keyed ? fields : { id: field.id(), ...fields }).map(
    ([fieldName, f]) => [fieldName, f.spec] as const,
  );
  const titles = all.filter(([, spec]) => spec.title).map(([fieldName]) => fieldName);
  const stored = all.filter(([, spec]) => spec.column !== null);
  const named = (test: (spec: FieldSpec) => boolean) =>
    all.filter(([, spec]) => test(spec)).map(([fieldName]) => fieldName);
  const roleOf = (role: FieldSpec['role']) => named((spec) => spec.role === role)[0];

  const casts: Record<string, CastType> = {};
  for (const [fieldName, spec] of stored) if (spec.cast) casts[fieldName] = spec.cast;
  const labels: Record<string, string> = {};
  for (const [fieldName, spec] of all) if (spec.label) labels[fieldName] = spec.label;
  const writeOnly: Record<string, (value: unknown) => Promise<Row> | Row> = {};
  for (const [fieldName, spec] of all) if (spec.writeOnly) writeOnly[fieldName] = spec.writeOnly;

  const ruled = all.filter(([, spec]) => spec.fillable || spec.ruleList);
  const rules = (id: number | null, record: Readonly<Row>): RuleSet => {
    const set: RuleSet = {};
    for (const [fieldName, spec] of ruled)
      set[fieldName] = rulesOf(table, fieldName, spec, id, record);
    return set;
  };

  const primaryKey = roleOf('key') ?? 'id';
  const unitColumn = roleOf('unit');
  const tenantColumn = roleOf('tenant');
  const ownerColumn = roleOf('owner');
  const versionColumn = roleOf('version');
  const compiled = defineEntity({
    name,
    table,
    primaryKey,
    columns: stored.map(([fieldName]) => fieldName),
    casts,
    fillable: named((spec) => spec.fillable && spec.column !== null),
    hidden: named((spec) => spec.hidden),
    ...(Object.keys(writeOnly).length > 0 ? { writeOnly } : {}),
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(ruled.length > 0 ? { rules } : {}),
    ...(unitColumn ? { unitColumn } : {}),
    ...(tenantColumn ? { tenantColumn } : {}),
    ...(ownerColumn ? { ownerColumn } : {}),
    ...(versionColumn ? { versionColumn } : {}),
    ...(titles.length > 0 ? { titleColumns: titles } : {}),
    ...(Object.keys(relations).length > 0 ? { relations } : {}),
    ...settings,
    storage,
  });
  tables.set(name, {
    entity: name,
    table,
    storage,
    primaryKey,
    columns: stored.map(([fieldName, spec]) => ({
      name: fieldName,
      ...(spec.column as ColumnSpec),
    })),
    indexes,
  });
  return compiled;
}

/**
 * A field's rules in the order Laravel writes them: required or nullable, its type, min, max,
 * in, exists, unique, then its own (answers list a field's failures in this order).
 */
function rulesOf(
  table: string,
  name: string,
  spec: FieldSpec,
  id: number | null,
  record: Readonly<Row>,
): string[] {
  if (spec.ruleList) return [...spec.ruleList(id, record)];
  const list = [spec.required ? 'required' : 'nullable', ...spec.typeRule];
  if (spec.min !== null) list.push(`min:${spec.min}`);
  if (spec.max !== null) list.push(`max:${spec.max}`);
  if (spec.choices) list.push(`in:${spec.choices.join(',')}`);
  if (spec.exists) list.push(`exists:${spec.exists.table},${spec.exists.column}`);
  if (spec.uniqueRule) list.push(`unique:${table},${name},${id ?? 'NULL'}`);
  for (const entry of spec.extra) list.push(typeof entry === 'string' ? entry : entry(id, record));
  return list;
}
