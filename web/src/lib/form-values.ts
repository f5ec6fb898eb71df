// A form's state and its payload (issue 18 item 4, STYLE.md example 17): master values and
// staged detail rows as text, each row with a client key that stays put when rows above it
// come and go; the payload is built from them in one place, and "unsaved changes" compares
// payloads, never touched flags, so a row removed and added back again is no change.
import type {
  DetailMeta,
  FieldMeta,
  ResourceMeta,
} from '../../../src/engine/description/metadata-types.js';

export type Values = Readonly<Record<string, string>>;

export interface StagedRow {
  /** The client's key: stable for the row's life in the form, never sent. */
  readonly key: number;
  /** The stored row's id, or null for a row the service has not seen. */
  readonly id: string | null;
  readonly values: Values;
}

export interface FormState {
  readonly master: Values;
  readonly details: Readonly<Record<string, readonly StagedRow[]>>;
}

export type Payload = Record<string, unknown>;

let nextKey = 1;
export const newKey = () => nextKey++;

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO-8601 instant as a datetime-local input shows it (the browser's time zone). */
function localDateTime(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A stored value as its input's text. */
export function toText(field: FieldMeta, value: unknown): string {
  if (value === null || value === undefined || field.write_only) return '';
  if (field.input === 'datetime' && typeof value === 'string') return localDateTime(value);
  if (typeof value === 'boolean') return value ? 'Y' : 'N';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** An input's text as the payload value; undefined leaves the field out. */
export function fromText(field: FieldMeta, text: string): unknown {
  switch (field.input) {
    case 'password':
      return text === '' ? undefined : text;
    case 'number':
    case 'reference':
      if (text.trim() === '') return null;
      // What is not a number goes as typed: the service names the field in its 422.
      return NUMBER.test(text.trim()) ? Number(text.trim()) : text;
    case 'choice':
      return text === '' ? null : text;
    case 'choices':
      try {
        return text === '' ? [] : (JSON.parse(text) as unknown);
      } catch {
        return text;
      }
    case 'datetime': {
      if (text === '') return null;
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
    default:
      return text === '' && field.nullable ? null : text;
  }
}

const writable = (fields: readonly FieldMeta[]) => fields.filter((f) => !f.read_only);

function rowPayload(detail: DetailMeta, row: StagedRow): Payload {
  const payload: Payload = row.id === null ? {} : { [detail.key]: fromText(idField, row.id) };
  for (const field of writable(detail.fields)) {
    if (field.name === detail.foreign_key) continue;
    const value = fromText(field, row.values[field.name] ?? '');
    if (value !== undefined) payload[field.name] = value;
  }
  return payload;
}

const idField: FieldMeta = {
  name: 'id',
  label: 'ID',
  type: 'integer',
  input: 'number',
  required: false,
  required_on_update: false,
  nullable: false,
  max_length: null,
  min_length: null,
  choices: null,
  reference: null,
  read_only: true,
  write_only: false,
};

/**
 * The one payload of a save (SPEC.md 4.4): the writable master fields and, for each detail
 * relation the form holds, every staged row (rows left out are deleted by the service).
 */
export function payloadOf(meta: ResourceMeta, state: FormState, create = false): Payload {
  const payload: Payload = {};
  for (const field of writable(meta.fields)) {
    const text = state.master[field.name] ?? '';
    // A new record's empty fields are left out: the service's defaults apply (a template's
    // `active` is Y), and a required one is still named by the 422.
    if (create && text === '') continue;
    const value = fromText(field, text);
    if (value !== undefined) payload[field.name] = value;
  }
  for (const detail of meta.details) {
    const rows = state.details[detail.name];
    // A relation the record came without is not the form's to change.
    if (rows) payload[detail.name] = rows.map((row) => rowPayload(detail, row));
  }
  return payload;
}

/**
 * The form of a stored record (or of a new one: `record` null). After a save, `previous` (the
 * form that was sent) lends its client keys: a stored row keeps its key, and the rows that were
 * new take, in order, the keys of the new rows sent, so the page keeps each row (and the focus).
 */
export function stateOf(
  meta: ResourceMeta,
  record: Readonly<Record<string, unknown>> | null,
  previous?: FormState,
): FormState {
  const master: Record<string, string> = {};
  for (const field of meta.fields) master[field.name] = toText(field, record?.[field.name]);
  const details: Record<string, StagedRow[]> = {};
  for (const detail of meta.details) {
    const stored = record?.[detail.name];
    if (record && !Array.isArray(stored)) continue;
    const before = previous?.details[detail.name] ?? [];
    const keyOf = new Map(before.filter((r) => r.id !== null).map((r) => [r.id, r.key]));
    const newKeys = before.filter((r) => r.id === null).map((r) => r.key);
    details[detail.name] = ((stored as Record<string, unknown>[] | undefined) ?? []).map((row) => {
      const values: Record<string, string> = {};
      for (const field of detail.fields) values[field.name] = toText(field, row[field.name]);
      const raw = row[detail.key];
      const id = raw === null || raw === undefined ? null : String(raw);
      const key = (id !== null ? keyOf.get(id) : undefined) ?? newKeys.shift() ?? newKey();
      return { key, id, values };
    });
  }
  return { master, details };
}

export function emptyRow(detail: DetailMeta): StagedRow {
  const values: Record<string, string> = {};
  for (const field of detail.fields) values[field.name] = '';
  return { key: newKey(), id: null, values };
}

/** The same payload: nothing to save, nothing to lose. */
export const samePayload = (a: Payload, b: Payload) => JSON.stringify(a) === JSON.stringify(b);
