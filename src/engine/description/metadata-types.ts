// The shape of GET /app/resources (DESIGN.md 3.8): what the admin front end renders its screens
// from. Generated from the same definitions that drive the engine (resource-metadata.ts), so a
// resource added in src/app/ gets its list and form with no front-end code. The front end
// imports these types (type-only), so both sides read one declaration.
import type { Action, AdminPanel } from '../definition/resource-config.js';

export type { Action };

/** A value's JSON type, from the entity's casts (`object`/`array` for loaded relations). */
export type FieldType =
  | 'integer'
  | 'number'
  | 'string'
  | 'boolean'
  | 'datetime'
  | 'json'
  | 'object'
  | 'array';

/**
 * How a person enters the value: `text` (one line), `textarea` (a string without a length
 * bound), `json` (a string holding JSON: a code area that checks it), `choice` (one of
 * `choices`), `reference` (an id picked through `reference.lookup`), `number`, `datetime`,
 * `email`, `password` (write-only).
 */
export type InputKind =
  | 'text'
  | 'textarea'
  | 'json'
  | 'choice'
  /** Several of the choices: the value is a JSON array of them. */
  | 'choices'
  | 'reference'
  | 'number'
  | 'datetime'
  | 'email'
  | 'password';

export interface Choice {
  readonly value: string;
  readonly label: string;
}

/** A foreign key's target: the resource whose records it names, and where to look them up. */
export interface Reference {
  /** The target resource's name (`users`), whether or not the caller may list it. */
  readonly resource: string;
  /** `GET <lookup>?search=<text>` or `?ids=1,2` -> `{data: [{id, label}]}` (docs/api.md: who). */
  readonly lookup: string;
}

export interface FieldMeta {
  readonly name: string;
  readonly label: string;
  readonly type: FieldType;
  readonly input: InputKind;
  /** Required on create. */
  readonly required: boolean;
  /** Required on update (a password is required on create only). */
  readonly required_on_update: boolean;
  /** Whether null (an empty input) is accepted. */
  readonly nullable: boolean;
  readonly max_length: number | null;
  readonly min_length: number | null;
  readonly choices: readonly Choice[] | null;
  readonly reference: Reference | null;
  /** Shown, never sent (the key, timestamps, columns the entity does not let a payload fill). */
  readonly read_only: boolean;
  /** Sent, never shown (a password). */
  readonly write_only: boolean;
}

/** A column of the list table: a key of the list projection. */
export interface ColumnMeta {
  readonly name: string;
  readonly label: string;
  readonly type: FieldType;
  readonly sortable: boolean;
  /** For an `object` column (a loaded belongs-to record): the keys that name it, e.g. ['name']. */
  readonly display: readonly string[] | null;
  /** For a foreign key: where to look up the labels of its ids (`?ids=1,2`). */
  readonly reference: Reference | null;
  /**
   * Shown in the table by default: false for long text (no length bound, JSON), for a foreign
   * key whose record the list also loads (its column names it), and for detail arrays (their
   * counts are columns). An explicit indexFields shows every column it lists; a resource's
   * listColumns setting chooses them (and their order: they come first).
   */
  readonly visible: boolean;
}

export interface FilterMeta {
  readonly name: string;
  readonly label: string;
  readonly type: FieldType;
  readonly input: 'text' | 'choice' | 'reference' | 'number' | 'datetime';
  /** The operators of DESIGN.md 3.5 that fit the field. */
  readonly operators: readonly string[];
  /** `like` for text, `=` otherwise. */
  readonly default_operator: string;
  readonly choices: readonly Choice[] | null;
  readonly reference: Reference | null;
}

export interface DetailMeta {
  /** The payload key, e.g. `groups`. */
  readonly name: string;
  readonly label: string;
  /** The row's key (`id`): sent for rows that exist, left out for new ones. */
  readonly key: string;
  /** The column the service sets to the master's id (never sent). */
  readonly foreign_key: string;
  /** The row's fillable fields, in order. */
  readonly fields: readonly FieldMeta[];
}

/** Another resource whose records name this one (a template's logs), shown on the edit screen. */
export interface RelatedMeta {
  readonly resource: string;
  readonly label: string;
  /** Its field holding this resource's key: list it with `filters[<field>][=]=<id>`. */
  readonly field: string;
}

export interface ListMeta {
  readonly columns: readonly ColumnMeta[];
  readonly filters: readonly FilterMeta[];
  readonly sortable: readonly string[];
  readonly default_order: { readonly column: string; readonly direction: 'asc' | 'desc' } | null;
  readonly per_page: number;
  readonly max_per_page: number;
  /** Page sizes to offer, per_page first among them. */
  readonly page_sizes: readonly number[];
}

export interface ResourceMeta {
  /** The last path segment (`import-templates`): the admin screens are /admin/r/<name>. */
  readonly name: string;
  /** The collection path, e.g. `/api/import-templates`; items are `<path>/<id>`. */
  readonly path: string;
  /** Plural, e.g. `Import templates`. */
  readonly label: string;
  readonly singular_label: string;
  /** The record's key, e.g. `id`. */
  readonly key: string;
  /** The fields that name a record (`title`; a user's `name` and `login`), for headings. */
  readonly title_fields: readonly string[];
  /** The actions the routes expose. */
  readonly actions: readonly Action[];
  /** Those of `actions` the caller may use (the resource's authorization check, for them). */
  readonly allowed: readonly Action[];
  readonly list: ListMeta;
  /** The master fields of the form, in order (read-only ones included, to show them). */
  readonly fields: readonly FieldMeta[];
  readonly details: readonly DetailMeta[];
  readonly related: readonly RelatedMeta[];
  /** Panels the form adds under a saved record (`deliveries`: a webhook's deliveries, Replay). */
  readonly panels: readonly AdminPanel[];
}

export interface ResourcesAnswer {
  readonly data: readonly ResourceMeta[];
}

/** One record as a picker shows it: GET /app/lookups/<resource>. */
export interface LookupItem {
  readonly id: number | string;
  readonly label: string;
}
