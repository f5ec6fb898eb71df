// One declaration per field (docs/development.md): its type, rules, label and column properties.
// `entity()` (declare-entity.ts) compiles a set of them into the EntityDefinition the engine
// reads, and `svc make:migration` into the tables, columns, indexes and foreign keys they need.
import type { CastType } from './casts.js';
import type { Row } from './entity.js';

/** The column types a declaration can ask for; column-types.ts writes each per engine. */
export type ColumnKind =
  | 'id'
  | 'varchar'
  | 'text'
  | 'integer'
  | 'bigint'
  | 'float'
  | 'boolean'
  | 'timestamp'
  | 'json';

/** A database default: a value, or SQL text the engine evaluates (`{ sql: 'current_timestamp' }`). */
export type ColumnDefault = string | number | boolean | { readonly sql: string };

export interface ForeignKey {
  readonly table: string;
  readonly column: string;
  readonly onDelete: 'cascade' | 'restrict' | 'set null';
}

export interface ColumnSpec {
  readonly kind: ColumnKind;
  /** varchar length. */
  readonly length: number | null;
  readonly notNull: boolean;
  readonly default: ColumnDefault | undefined;
  /** An index on the column alone (one that begins with it serves as well). */
  readonly index: boolean;
  /** A unique index on the column alone. */
  readonly unique: boolean;
  readonly references: ForeignKey | null;
}

/** What the engine may stamp into the field instead of the payload. */
export type FieldRole = 'key' | 'unit' | 'tenant' | 'owner' | 'version' | null;

/** A rule, or a rule computed from the record id (null on create) and the record to be written. */
export type RuleEntry = string | ((id: number | null, record: Readonly<Row>) => string);

export interface FieldSpec {
  /** null for a write-only field, which has no column of its own. */
  readonly column: ColumnSpec | null;
  readonly cast: CastType | null;
  readonly fillable: boolean;
  readonly hidden: boolean;
  readonly label: string | null;
  readonly role: FieldRole;
  readonly required: boolean;
  /** The rule naming the value's type, e.g. `string`, `integer`, `email`; none for a list. */
  readonly typeRule: readonly string[];
  readonly max: number | null;
  readonly min: number | null;
  readonly choices: readonly string[] | null;
  /** `exists:<table>,<column>` */
  readonly exists: { readonly table: string; readonly column: string } | null;
  /** `unique:<table>,<field>,<id>` */
  readonly uniqueRule: boolean;
  /** Rules after the generated ones (a custom rule, a computed one). */
  readonly extra: readonly RuleEntry[];
  /** Replaces the generated rules altogether (escape hatch), per record id. */
  readonly ruleList: ((id: number | null, record: Readonly<Row>) => readonly string[]) | null;
  readonly writeOnly: ((value: unknown) => Promise<Row> | Row) | null;
  /** One of the columns that name a record to a person (pickers, headings). */
  readonly title: boolean;
  /** The belongsTo relation this key loads: its name and the target columns it answers. */
  readonly relation: { readonly name: string; readonly columns: readonly string[] | null } | null;
}

/** A field under declaration: each method returns it, so a declaration reads as one chain. */
export class Field {
  constructor(readonly spec: FieldSpec) {}

  private with(change: Partial<FieldSpec>): Field {
    return new Field({ ...this.spec, ...change });
  }

  private withColumn(change: Partial<ColumnSpec>): Field {
    const column = this.spec.column;
    if (!column) throw new Error('a write-only field has no column');
    return this.with({ column: { ...column, ...change } });
  }

  /** Must be sent on create (and not null); the column is NOT NULL. */
  required(): Field {
    const required = this.with({ required: true });
    return this.spec.column ? required.withColumn({ notNull: true }) : required;
  }

  /** The column is NOT NULL while the payload may leave the field out (a default fills it). */
  notNull(): Field {
    return this.withColumn({ notNull: true });
  }

  default(value: ColumnDefault): Field {
    return this.withColumn({ default: value });
  }

  index(): Field {
    return this.withColumn({ index: true });
  }

  /** No other record holds the value: a `unique` rule, and a unique index unless `index: false`. */
  unique(options: { index?: boolean } = {}): Field {
    return this.with({ uniqueRule: true }).withColumn({ unique: options.index ?? true });
  }

  /** A database foreign key to the table `exists` names (same database only: DESIGN.md 3.5). */
  foreignKey(onDelete: ForeignKey['onDelete'] = 'restrict'): Field {
    const exists = this.spec.exists;
    if (!exists) throw new Error('foreignKey() needs a field declared with field.belongsTo()');
    return this.withColumn({ references: { ...exists, onDelete } });
  }

  max(limit: number): Field {
    return this.with({ max: limit });
  }

  min(limit: number): Field {
    return this.with({ min: limit });
  }

  label(text: string): Field {
    return this.with({ label: text });
  }

  /** Never serialised. */
  hidden(): Field {
    return this.with({ hidden: true });
  }

  /** Not filled from a payload (the service or another route writes it). */
  guarded(): Field {
    return this.with({ fillable: false, required: false, typeRule: [], max: null, min: null });
  }

  /** Stamped with the acting user on create when the payload leaves it empty. */
  owner(): Field {
    return this.with({ role: 'owner' });
  }

  /** Names the record to a person: a title column (entity option titleColumns, in field order). */
  title(): Field {
    return this.with({ title: true });
  }

  /**
   * A belongsTo relation `name` through this key, to the entity stored in the table it names,
   * answering `columns` of it (all its visible ones when left out).
   */
  relation(name: string, columns?: readonly string[]): Field {
    if (!this.spec.exists)
      throw new Error('relation() needs a field declared with field.belongsTo()');
    return this.with({ relation: { name, columns: columns ?? null } });
  }

  /** Rules after the generated ones: `'url'`, or `(id, record) => 'unique:...'`. */
  rule(...entries: RuleEntry[]): Field {
    return this.with({ extra: [...this.spec.extra, ...entries] });
  }

  /** The whole rule list, written by hand (escape hatch for what the chain cannot say). */
  rules(list: (id: number | null, record: Readonly<Row>) => readonly string[]): Field {
    return this.with({ ruleList: list });
  }
}

const COLUMN: ColumnSpec = {
  kind: 'text',
  length: null,
  notNull: false,
  default: undefined,
  index: false,
  unique: false,
  references: null,
};

function make(column: Partial<ColumnSpec> | null, spec: Partial<FieldSpec> = {}): Field {
  return new Field({
    column: column ? { ...COLUMN, ...column } : null,
    cast: null,
    fillable: true,
    hidden: false,
    label: null,
    role: null,
    required: false,
    typeRule: [],
    max: null,
    min: null,
    choices: null,
    exists: null,
    uniqueRule: false,
    extra: [],
    ruleList: null,
    writeOnly: null,
    title: false,
    relation: null,
    ...spec,
  });
}

/** Columns the service writes itself: no payload fills them, so they have no rules. */
const system = (column: Partial<ColumnSpec>, spec: Partial<FieldSpec> = {}): Field =>
  make(column, { fillable: false, ...spec });

export const field = {
  /** The generated integer primary key (declared for you when a definition has none). */
  id: () => system({ kind: 'id', notNull: true }, { cast: 'integer', role: 'key' }),
  /** varchar(length): `string`, `max:<length>`. */
  string: (length: number) =>
    make({ kind: 'varchar', length }, { typeRule: ['string'], max: length }),
  /** Text of any length: `string`. */
  text: () => make({ kind: 'text' }, { typeRule: ['string'] }),
  /** Text holding JSON (kept as written): `string`, `json`. */
  jsonText: () => make({ kind: 'text' }, { typeRule: ['string', 'json'] }),
  /** A JSON value (object, array) stored in a json column, answered parsed. */
  json: () => make({ kind: 'json' }, { cast: 'json', typeRule: ['array'] }),
  email: (length = 255) => make({ kind: 'varchar', length }, { typeRule: ['email'], max: length }),
  url: (length = 2000) =>
    make({ kind: 'varchar', length }, { typeRule: ['string'], max: length, extra: ['url'] }),
  integer: () => make({ kind: 'integer' }, { cast: 'integer', typeRule: ['integer'] }),
  number: () => make({ kind: 'float' }, { cast: 'float', typeRule: ['numeric'] }),
  boolean: () => make({ kind: 'boolean' }, { cast: 'boolean', typeRule: ['boolean'] }),
  /** A value from a list, in a varchar as long as the longest (or `length`): `in:<values>`. */
  enum: (values: readonly string[], length = Math.max(...values.map((v) => v.length))) =>
    make({ kind: 'varchar', length }, { choices: values }),
  /** Y/N in a varchar(1) with a default (the shipped tables' active/admin flags). */
  flag: (defaultValue: 'Y' | 'N' = 'Y') =>
    make({ kind: 'varchar', length: 1, default: defaultValue }, { choices: ['Y', 'N'] }),
  /** The id of a record of `table` (`integer`, `exists:<table>,<column>`). */
  belongsTo: (table: string, column = 'id') =>
    make({ kind: 'bigint' }, { cast: 'integer', typeRule: ['integer'], exists: { table, column } }),
  /** A timestamp the service maintains (created_at/updated_at) or another route writes. */
  timestamp: () => system({ kind: 'timestamp' }, { cast: 'datetime' }),
  /** A detail row's key to its master: set by the service, deleted with the master. */
  parent: (table: string, column = 'id') =>
    system(
      {
        kind: 'bigint',
        notNull: true,
        index: true,
        references: { table, column, onDelete: 'cascade' },
      },
      { cast: 'integer' },
    ),
  /** The unit a record belongs to: filtered by and stamped with the caller's (unit-bound). */
  unit: () => system({ kind: 'bigint' }, { cast: 'integer', role: 'unit' }),
  /** The company a record belongs to under TENANT_ISOLATION: stamped, filtered, never answered. */
  tenant: () => system({ kind: 'bigint', index: true }, { hidden: true, role: 'tenant' }),
  /** The record's version, incremented by every write: its strong ETag. */
  version: () => system({ kind: 'bigint', notNull: true, default: 1 }, { role: 'version' }),
  /** A payload-only field turned into stored columns (a password into its hash). */
  writeOnly: (store: (value: unknown) => Promise<Row> | Row) => make(null, { writeOnly: store }),
};

/** created_at and updated_at, maintained by the service. */
export function timestamps(): { created_at: Field; updated_at: Field } {
  return { created_at: field.timestamp(), updated_at: field.timestamp() };
}
