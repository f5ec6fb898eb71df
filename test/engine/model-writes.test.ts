// Model-based test of the write path (SPEC.md 4.4, 4.5; DESIGN.md 3.5, 3.6) through the real
// HTTP server: random sequences of create (POST), update (PUT and PATCH, both partial), delete
// and "a run log is written" commands on /api/import-templates, each checked against an
// in-memory reference model of the stored templates and their detail rows (groups, users).
//
// Every command's answer is compared with what the model expects: a 2xx body equals the whole
// expected record (master fields, creator, detail rows sorted by id, groups_count, users_count,
// logs_count, created_at unchanged by updates, updated_at an ISO timestamp; generated ids are
// learned from the answer once the rest matched), a 422 names exactly the failing fields (with
// the messages SPEC.md 7 / DESIGN.md 3.5 quote), a 404 is `Resource not found`. After every
// command the stored state is read back (the list, a show of the command's target, and the
// tables themselves) and must equal the model: a refused write changes nothing. And the change
// feed (issue 32, DESIGN.md 3.9) is read on from where it was: an accepted write appears there
// exactly once, with the changes the model predicts (on create every field and the detail rows,
// on update the fields whose value changed and the detail rows created, changed and deleted, on
// delete none), and a refused write, a 404 or a run log written straight to the table nowhere.
//
// Payloads cover: master fields absent (kept), valid, invalid (empty or blank title, title over
// 200 characters, mapping_json that is not JSON, unknown creator, active other than Y/N), forged
// id/created_at/updated_at/counts; detail relations absent, null, empty, rows kept (id only or
// id and value), changed, dropped, added (no id), forged template_id, rows of another template,
// unknown ids, group_id/user_id unknown, null or missing; detail row ids as JSON integers,
// canonical decimal strings, and non-canonical forms ("012", "12.0", " 12", "12 ", "+12", 12.5,
// true, "12e0", "0xc"), which DESIGN.md 3.5 refuses with a 422 on `<relation>.<index>.id`, and a
// row named twice (12 and "12" alike), which docs/api.md "Writing" refuses the same way.
//
// Size and replay (environment):
//   MODEL_RUNS=4         command sequences per round (fc.assert numRuns)
//   MODEL_COMMANDS=100   longest sequence (fc.commands maxCommands)
//   MODEL_MIN_TOTAL=500  rounds (seeds MODEL_SEED, + 1, + 2, ...) run until this many commands ran
//                        (sequences are 0 to MODEL_COMMANDS long, about 50 on average)
//   MODEL_SEED=<n>       replays from that seed (printed on failure, with the path)
//   MODEL_PATH=<path>    with MODEL_SEED: only the failing run (fast-check's `path`)
//   MODEL_REPLAY=<p>     with both: the shrunk commands (fast-check's replayPath, printed in
//                        the counterexample as /*replayPath="..."*/)
// A failure also prints every request of the failing (shrunk) run with its answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Db } from '../../src/database/db.js';
import { assertJson, freshTimestamp, type Reply } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { sortRows } from '../helpers/template-model.js';
import { creatorOf, type DetailRow, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RUNS = Number(process.env.MODEL_RUNS ?? 4);
const MAX_COMMANDS = Number(process.env.MODEL_COMMANDS ?? 100);
const MIN_TOTAL = Number(process.env.MODEL_MIN_TOTAL ?? 500);
const FIXED_SEED =
  process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
const REPLAY_PATH = process.env.MODEL_PATH;
const REPLAY_COMMANDS = process.env.MODEL_REPLAY;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOT_FOUND = { error: 'Resource not found' };
const DELETED = { message: 'Resource deleted successfully' };
const LOG_STAMP = '2024-01-01T00:00:00.000Z';

// ---- the model ---------------------------------------------------------------------------

type Relation = 'groups' | 'users';
type ValueColumn = 'group_id' | 'user_id';
const RELATIONS: readonly Relation[] = ['groups', 'users'];
const COLUMN: Record<Relation, ValueColumn> = { groups: 'group_id', users: 'user_id' };

const MASTER_FIELDS = [
  'title',
  'code',
  'description',
  'database_name',
  'mapping_json',
  'csv_model_path',
  'import_mode',
  'active',
  'created_by',
] as const;
type MasterField = (typeof MASTER_FIELDS)[number];
type Master = Pick<TemplateRecord, MasterField>;

interface ModelTemplate {
  readonly id: number;
  master: Master;
  readonly created_at: string;
  updated_at: string;
  groups: DetailRow[];
  users: DetailRow[];
  logs: number;
}

/** What the service should hold: the live templates, and every id it ever handed out. */
class Model {
  readonly templates = new Map<number, ModelTemplate>();
  /** Deleted template ids: show, update and delete answer 404 for them. */
  readonly gone: number[] = [];
  readonly seenTemplates = new Set<number>();
  readonly seenRows: Record<Relation, Set<number>> = { groups: new Set(), users: new Set() };

  live(): ModelTemplate[] {
    return [...this.templates.values()].sort((a, b) => a.id - b.id);
  }
  rowsOf(relation: Relation): DetailRow[] {
    return this.live().flatMap((t) => t[relation]);
  }
}

/** Users, groups and creators the server was seeded with. */
interface World {
  readonly admin: number;
  readonly alice: number;
  readonly bob: number;
  readonly groups: readonly number[];
  readonly users: readonly number[];
  readonly creators: ReadonlyMap<number, TemplateRecord['creator']>;
}

function recordOf(t: ModelTemplate, world: World): TemplateRecord {
  return {
    id: t.id,
    ...t.master,
    created_at: t.created_at,
    updated_at: t.updated_at,
    creator:
      t.master.created_by === null ? null : (world.creators.get(t.master.created_by) ?? null),
    groups: t.groups,
    users: t.users,
    groups_count: t.groups.length,
    users_count: t.users.length,
    logs_count: t.logs,
  };
}

// ---- plans: what a command sends, in terms of the model (resolved when the command runs) ----

/** A master field value: a literal (with the message its refusal must carry, '' for any), or a user. */
type FieldValue =
  | { readonly kind: 'literal'; readonly value: unknown; readonly error: string | null }
  | { readonly kind: 'user'; readonly who: 'admin' | 'alice' | 'bob' }
  | { readonly kind: 'no-user' };
type MasterPlan = Partial<Record<MasterField, FieldValue>>;
type Forged = 'id' | 'created_at' | 'updated_at' | 'groups_count' | 'creator' | 'unknown';

/** Id forms: JSON integer and canonical decimal string are accepted, the others are a 422 (DESIGN.md 3.5). */
type Encoding =
  | 'int'
  | 'string'
  | 'lead0'
  | 'dot0'
  | 'space'
  | 'trail'
  | 'plus'
  | 'half'
  | 'true'
  | 'exp'
  | 'hex';
const BAD_ENCODINGS: readonly Encoding[] = [
  'lead0',
  'dot0',
  'space',
  'trail',
  'plus',
  'half',
  'true',
  'exp',
  'hex',
];

function encodeId(id: number, encoding: Encoding): unknown {
  switch (encoding) {
    case 'int':
      return id;
    case 'string':
      return String(id);
    case 'lead0':
      return `0${id}`;
    case 'dot0':
      return `${id}.0`;
    case 'space':
      return ` ${id}`;
    case 'trail':
      return `${id} `;
    case 'plus':
      return `+${id}`;
    case 'half':
      return id + 0.5;
    case 'true':
      return true;
    case 'exp':
      return `${id}e0`;
    case 'hex':
      return `0x${id.toString(16)}`;
  }
}

/** A group_id / user_id: one of the seeded ids (maybe as a decimal string), unknown, null or left out. */
type ValueChoice =
  | { readonly kind: 'pick'; readonly pick: number; readonly asString: boolean }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'null' }
  | { readonly kind: 'missing' };
/** A forged template_id on a row: another template's id, or junk. Always ignored (SPEC.md 4.4.6). */
type ForgedKey = 'none' | 'other' | 'junk';

type ExistingAction =
  | { readonly kind: 'keep'; readonly encoding: Encoding }
  | {
      readonly kind: 'set';
      readonly value: ValueChoice;
      readonly encoding: Encoding;
      readonly key: ForgedKey;
    }
  | { readonly kind: 'drop' };
interface NewRow {
  readonly value: ValueChoice;
  readonly key: ForgedKey;
  readonly extra: boolean;
}
type Intruder =
  | {
      readonly kind: 'foreign';
      readonly pick: number;
      readonly asString: boolean;
      readonly value: ValueChoice;
    }
  /** One of this template's rows named a second time (docs/api.md "Writing": a 422 under `<relation>.<index>.id`). */
  | {
      readonly kind: 'twice';
      readonly pick: number;
      readonly asString: boolean;
      readonly value: ValueChoice;
    }
  | {
      readonly kind: 'unknown';
      readonly id: 'next' | 'zero' | 'negative' | 'huge';
      readonly value: ValueChoice;
    };
type DetailPlan =
  | { readonly kind: 'absent' }
  | { readonly kind: 'null' }
  | { readonly kind: 'empty' }
  | {
      readonly kind: 'rows';
      readonly existing: ExistingAction[];
      readonly added: NewRow[];
      readonly intruders: Intruder[];
      readonly order: number[];
    };

interface WritePlan {
  readonly master: MasterPlan;
  readonly forged: Forged[];
  readonly groups: DetailPlan;
  readonly users: DetailPlan;
}

type TargetChoice =
  | { readonly kind: 'live'; readonly pick: number }
  | { readonly kind: 'gone'; readonly pick: number }
  | { readonly kind: 'never' }
  | { readonly kind: 'word' };

// ---- expectations ----------------------------------------------------------------------

/** A refusal: keys that must be in `errors` (with the message, when the spec gives it), and keys that may be. */
interface Refusal {
  readonly required: Map<string, string | null>;
  readonly optional: Set<string>;
  /** Groups of keys of which at least one must be refused (which index of an id named twice). */
  readonly anyOf: string[][];
}

const refused = (refusal: Refusal) => refusal.required.size > 0 || refusal.anyOf.length > 0;

/** A relation after an accepted write: the kept rows (ids known) and the values of the rows added. */
interface DetailOutcome {
  readonly known: DetailRow[];
  readonly added: number[];
}

interface Resolved {
  readonly body: Record<string, unknown>;
  readonly refusal: Refusal;
  readonly master: Master;
  readonly details: Record<Relation, DetailOutcome | null>;
}

const isBlank = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const codePoints = (s: string) => [...s].length;

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The master rules (SPEC.md 2.3, 7.3; DESIGN.md 3.5 messages) on the stored record merged with the payload. */
function masterRefusal(merged: Record<string, unknown>, refusal: Refusal): void {
  const fail = (key: string, message: string | null) => refusal.required.set(key, message);
  const { title, database_name: database, mapping_json: mapping } = merged;
  if (isBlank(title)) fail('title', 'The title field is required.');
  else if (typeof title !== 'string') fail('title', null);
  else if (codePoints(title) > 200)
    fail('title', 'The title field must not be greater than 200 characters.');
  if (isBlank(database)) fail('database_name', 'The database name field is required.');
  else if (typeof database !== 'string') fail('database_name', null);
  if (isBlank(mapping)) fail('mapping_json', 'The mapping json field is required.');
  else if (typeof mapping !== 'string') fail('mapping_json', null);
  else if (!parsesAsJson(mapping))
    fail('mapping_json', 'The mapping json field must be a valid JSON string.');
}

function resolveWrite(
  plan: WritePlan,
  target: ModelTemplate | null,
  model: Model,
  world: World,
): Resolved {
  const body: Record<string, unknown> = {};
  const refusal: Refusal = { required: new Map(), optional: new Set(), anyOf: [] };
  // Create: optional fields null, active 'Y' (DESIGN.md 3.6), created_by the caller (DESIGN.md 3.4).
  const master: Master = target
    ? { ...target.master }
    : {
        title: '',
        code: null,
        description: null,
        database_name: '',
        mapping_json: '',
        csv_model_path: null,
        import_mode: null,
        active: 'Y',
        created_by: world.admin,
      };
  const merged: Record<string, unknown> = target ? { ...target.master } : {};
  for (const field of MASTER_FIELDS) {
    const choice = plan.master[field];
    if (!choice) continue;
    let value: unknown;
    if (choice.kind === 'literal') {
      value = choice.value;
      if (choice.error !== null)
        refusal.required.set(field, choice.error === '' ? null : choice.error);
    } else if (choice.kind === 'user') {
      value = world[choice.who];
    } else {
      value = 999_999;
      refusal.required.set(field, 'The selected created by is invalid.');
    }
    body[field] = value;
    merged[field] = value;
    (master as unknown as Record<string, unknown>)[field] = value;
  }
  masterRefusal(merged, refusal);

  const others = model.live().filter((t) => t.id !== target?.id);
  for (const forged of plan.forged) {
    if (forged === 'id') body.id = others[0]?.id ?? 424_242;
    else if (forged === 'created_at' || forged === 'updated_at')
      body[forged] = '2000-01-01T00:00:00.000Z';
    else if (forged === 'groups_count') body.groups_count = 99;
    else if (forged === 'creator') body.creator = { id: world.bob, name: 'forged' };
    else body.unknown_field = 'dropped';
  }

  const details = {} as Record<Relation, DetailOutcome | null>;
  for (const relation of RELATIONS) {
    details[relation] = resolveDetail(
      relation,
      plan[relation],
      target,
      others,
      model,
      world,
      body,
      refusal,
    );
  }
  return { body, refusal, master, details };
}

function resolveDetail(
  relation: Relation,
  plan: DetailPlan,
  target: ModelTemplate | null,
  others: ModelTemplate[],
  model: Model,
  world: World,
  body: Record<string, unknown>,
  refusal: Refusal,
): DetailOutcome | null {
  if (plan.kind === 'absent') return null;
  if (plan.kind === 'null' || plan.kind === 'empty') {
    body[relation] = plan.kind === 'null' ? null : [];
    return { known: [], added: [] };
  }
  const column = COLUMN[relation];
  const values = relation === 'groups' ? world.groups : world.users;
  const foreignKey = (key: ForgedKey): Record<string, unknown> =>
    key === 'none' ? {} : { template_id: key === 'other' ? (others[0]?.id ?? 31_337) : 'junk' };

  /** One payload row: the object sent, and what it must do to the index it lands at. */
  interface Entry {
    row: Record<string, unknown>;
    /** Fields (id or the column) that must be refused, with the message's kind (null: any message). */
    errors: Map<string, 'invalid' | 'required' | null>;
    /** Fields that may be refused too. */
    maybe: string[];
    /** The stored row this entry's id validly names, if any. */
    names: number | null;
    outcome: { kind: 'known'; row: DetailRow } | { kind: 'added'; value: number } | null;
  }
  /** `value` put on `row`: what it stores, and which errors it must raise (`stored` = the row's stored value). */
  const place = (
    entry: Entry,
    choice: ValueChoice,
    stored: number | null,
    idRefused: boolean,
  ): number | null => {
    switch (choice.kind) {
      case 'pick': {
        const value = values[choice.pick % values.length]!;
        entry.row[column] = choice.asString ? String(value) : value;
        return value;
      }
      case 'unknown':
        entry.row[column] = 999_999;
        entry.errors.set(column, 'invalid');
        return null;
      case 'null':
        entry.row[column] = null;
        entry.errors.set(column, 'required');
        return null;
      case 'missing':
        // A row without the value keeps the stored one; a new row (or one whose id is refused) has none.
        if (stored === null && !idRefused) entry.errors.set(column, 'required');
        if (idRefused) entry.maybe.push(column);
        return stored;
    }
  };

  const entries: Entry[] = [];
  const own = target ? target[relation] : [];
  own.forEach((stored, index) => {
    const action: ExistingAction =
      plan.existing.length > 0
        ? plan.existing[index % plan.existing.length]!
        : { kind: 'keep', encoding: 'int' };
    if (action.kind === 'drop') return;
    const refused = BAD_ENCODINGS.includes(action.encoding);
    const entry: Entry = {
      row: { id: encodeId(stored.id, action.encoding) },
      errors: new Map(),
      maybe: [],
      names: refused ? null : stored.id,
      outcome: null,
    };
    if (refused) entry.errors.set('id', null);
    const current = stored[column]!;
    let value = current;
    if (action.kind === 'keep') {
      if (refused) entry.maybe.push(column);
    } else {
      Object.assign(entry.row, foreignKey(action.key));
      value = place(entry, action.value, current, refused) ?? current;
    }
    entry.outcome = {
      kind: 'known',
      row: { id: stored.id, template_id: stored.template_id, [column]: value },
    };
    entries.push(entry);
  });
  for (const added of plan.added) {
    const entry: Entry = {
      row: { ...foreignKey(added.key) },
      errors: new Map(),
      maybe: [],
      names: null,
      outcome: null,
    };
    if (added.extra) entry.row.note = 'dropped';
    const value = place(entry, added.value, null, false);
    if (value !== null) entry.outcome = { kind: 'added', value };
    entries.push(entry);
  }
  const named = entries.flatMap((e) => (e.names === null ? [] : [e.names]));
  for (const intruder of plan.intruders) {
    const entry: Entry = {
      row: {},
      errors: new Map([['id', null]]),
      maybe: [],
      names: null,
      outcome: null,
    };
    const foreign = others.flatMap((t) => t[relation]);
    if (intruder.kind === 'twice' && named.length > 0) {
      // Which of the two namings is refused is left open; the errors are settled below.
      const id = named[intruder.pick % named.length]!;
      entry.row.id = intruder.asString ? String(id) : id;
      entry.names = id;
      entry.errors.clear();
    } else if (intruder.kind === 'foreign' && foreign.length > 0) {
      const row = foreign[intruder.pick % foreign.length]!;
      entry.row.id = intruder.asString ? String(row.id) : row.id;
    } else {
      const top = Math.max(
        0,
        ...model.rowsOf(relation).map((r) => r.id),
        ...model.seenRows[relation],
      );
      const id = intruder.kind === 'unknown' ? intruder.id : 'next';
      entry.row.id =
        id === 'next' ? top + 1 : id === 'zero' ? 0 : id === 'negative' ? -1 : 1_000_000_000_000;
    }
    place(entry, intruder.value, null, true);
    entries.push(entry);
  }

  // The payload order: a permutation drawn by the plan.
  const ordered = entries
    .map((entry, i) => ({
      entry,
      key: plan.order.length > 0 ? plan.order[i % plan.order.length]! : 0,
      i,
    }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((e) => e.entry);
  body[relation] = ordered.map((e) => e.row);
  // An id named twice: one of the namings is refused, and that row, being no stored row's, may
  // then lack its value.
  const namings = new Map<number, number[]>();
  ordered.forEach((entry, index) => {
    if (entry.names !== null)
      namings.set(entry.names, [...(namings.get(entry.names) ?? []), index]);
  });
  for (const indexes of namings.values()) {
    if (indexes.length < 2) continue;
    refusal.anyOf.push(indexes.map((i) => `${relation}.${i}.id`));
    for (const i of indexes) {
      refusal.optional.add(`${relation}.${i}.id`);
      if (!(column in ordered[i]!.row)) refusal.optional.add(`${relation}.${i}.${column}`);
    }
  }
  ordered.forEach((entry, index) => {
    const prefix = `${relation}.${index}.`;
    for (const [field, kind] of entry.errors) {
      const message =
        kind === 'invalid'
          ? `The selected ${prefix}${field} is invalid.`
          : kind === 'required'
            ? `The ${prefix}${field} field is required.`
            : null;
      refusal.required.set(prefix + field, message);
    }
    for (const field of entry.maybe) refusal.optional.add(prefix + field);
  });
  const known: DetailRow[] = [];
  const added: number[] = [];
  for (const { outcome } of ordered) {
    if (outcome?.kind === 'known') known.push(outcome.row);
    else if (outcome?.kind === 'added') added.push(outcome.value);
  }
  return { known: known.sort((a, b) => a.id - b.id), added };
}

// ---- arbitraries -----------------------------------------------------------------------

const CHARS = ['a', 'B', 'z', 'é', 'É', 'ü', 'Ω', '%', '_', ' ', "'", '"', '\\', '1', '🙂', 'ß'];
const WORDS = [
  'Customers',
  'customers',
  'CUSTOMERS',
  'École',
  'école',
  'a%b',
  'a_b',
  'Ünïcödé',
  'Ω omega',
  '🙂 smile',
  'x',
  "O'Brien",
  'quote "q"',
  'back\\slash',
  '%',
  '_',
];
const word = fc.oneof(
  fc.constantFrom(...WORDS),
  fc
    .string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 30 })
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);
const lit = (value: fc.Arbitrary<unknown>, error: string | null = null): fc.Arbitrary<FieldValue> =>
  value.map((v) => ({ kind: 'literal' as const, value: v, error }));
const weighted = <T>(...choices: Array<[number, fc.Arbitrary<T>]>): fc.Arbitrary<T> =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));

const validTitle = lit(
  fc.oneof(word, fc.constantFrom('x'.repeat(200), '🙂'.repeat(200), `${'É'.repeat(199)}z`)),
);
const invalidTitle = fc.oneof(
  lit(fc.constantFrom('', '   ', null), 'The title field is required.'),
  lit(
    fc.constantFrom('a'.repeat(201), 'é'.repeat(201), `${'🙂'.repeat(200)}x`),
    'The title field must not be greater than 200 characters.',
  ),
  lit(fc.constant(42), ''),
);
const validDatabase = lit(fc.oneof(word, fc.constantFrom('erp', 'crm')));
const invalidDatabase = lit(fc.constantFrom('', null), 'The database name field is required.');
const validMapping = lit(
  fc.constantFrom(
    '{"columns":[]}',
    '[]',
    '{"a":1}',
    '"text"',
    '12',
    JSON.stringify({ k: 'É🙂', list: [1, 2] }),
  ),
);
const invalidMapping = fc.oneof(
  lit(
    fc.constantFrom('{', 'not json', "{'a':1}", '{"a":}'),
    'The mapping json field must be a valid JSON string.',
  ),
  lit(fc.constant(''), 'The mapping json field is required.'),
  lit(fc.constant({ a: 1 }), ''),
);
const optionalText = lit(fc.oneof(fc.constant(null), word));
const description = lit(fc.oneof(fc.constant(null), word, fc.constant('long '.repeat(300))));
const importMode = lit(fc.constantFrom(null, 'upsert', 'insert', 'replace'));
const active = weighted<FieldValue>(
  [20, lit(fc.constantFrom('Y', 'N'))],
  [1, lit(fc.constantFrom('X', 'yes'), '')],
);
const creator = (allowNull: boolean) =>
  weighted<FieldValue>(
    [
      16,
      fc
        .constantFrom('admin' as const, 'alice' as const, 'bob' as const)
        .map((who) => ({ kind: 'user' as const, who })),
    ],
    [allowNull ? 2 : 0, lit(fc.constant(null))],
    [1, fc.constant({ kind: 'no-user' as const })],
  );

/** Present with weight `present`, absent with weight `absent`. */
function field(
  arbitrary: fc.Arbitrary<FieldValue>,
  present: number,
  absent: number,
): fc.Arbitrary<FieldValue | undefined> {
  return weighted<FieldValue | undefined>([present, arbitrary], [absent, fc.constant(undefined)]);
}

function masterPlan(create: boolean): fc.Arbitrary<MasterPlan> {
  const [p, a] = create ? [3, 2] : [1, 3];
  return fc
    .record({
      title: create
        ? weighted([40, validTitle], [2, invalidTitle], [1, fc.constant(undefined)])
        : field(weighted([16, validTitle], [1, invalidTitle]), 1, 2),
      code: field(optionalText, p, a),
      description: field(description, p, a),
      database_name: create
        ? weighted([60, validDatabase], [1, invalidDatabase], [1, fc.constant(undefined)])
        : field(weighted([16, validDatabase], [1, invalidDatabase]), 1, 3),
      mapping_json: create
        ? weighted([50, validMapping], [2, invalidMapping], [1, fc.constant(undefined)])
        : field(weighted([16, validMapping], [1, invalidMapping]), 1, 3),
      csv_model_path: field(optionalText, p, a),
      import_mode: field(importMode, p, a),
      active: field(active, p, a),
      created_by: field(creator(!create), p, a),
    })
    .map(
      (fields) =>
        Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as MasterPlan,
    );
}

const encoding = weighted<Encoding>(
  [10, fc.constant('int')],
  [5, fc.constant('string')],
  [3, fc.constantFrom(...BAD_ENCODINGS)],
);
const forgedKey = weighted<ForgedKey>(
  [6, fc.constant('none')],
  [1, fc.constantFrom('other' as const, 'junk' as const)],
);
const pick = fc.record({
  kind: fc.constant('pick' as const),
  pick: fc.nat(20),
  asString: weighted([5, fc.constant(false)], [1, fc.constant(true)]),
});
const setValue = weighted<ValueChoice>(
  [16, pick],
  [1, fc.constant({ kind: 'unknown' as const })],
  [1, fc.constant({ kind: 'null' as const })],
  [2, fc.constant({ kind: 'missing' as const })],
);
const newValue = weighted<ValueChoice>(
  [30, pick],
  [1, fc.constant({ kind: 'unknown' as const })],
  [1, fc.constant({ kind: 'missing' as const })],
);
const existingAction = weighted<ExistingAction>(
  [3, encoding.map((e) => ({ kind: 'keep' as const, encoding: e }))],
  [3, fc.record({ kind: fc.constant('set' as const), value: setValue, encoding, key: forgedKey })],
  [2, fc.constant({ kind: 'drop' as const })],
);
const newRow: fc.Arbitrary<NewRow> = fc.record({
  value: newValue,
  key: forgedKey,
  extra: fc.boolean(),
});
const intruder = weighted<Intruder>(
  [
    2,
    fc.record({
      kind: fc.constant('foreign' as const),
      pick: fc.nat(50),
      asString: fc.boolean(),
      value: weighted<ValueChoice>([3, pick], [1, fc.constant({ kind: 'missing' as const })]),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('twice' as const),
      pick: fc.nat(50),
      asString: fc.boolean(),
      value: weighted<ValueChoice>([3, pick], [1, fc.constant({ kind: 'missing' as const })]),
    }),
  ],
  [
    1,
    fc.record({
      kind: fc.constant('unknown' as const),
      id: fc.constantFrom('next' as const, 'zero' as const, 'negative' as const, 'huge' as const),
      value: pick,
    }),
  ],
);
const detailPlan = weighted<DetailPlan>(
  [4, fc.constant({ kind: 'absent' as const })],
  [1, fc.constant({ kind: 'null' as const })],
  [1, fc.constant({ kind: 'empty' as const })],
  [
    10,
    fc.record({
      kind: fc.constant('rows' as const),
      existing: fc.array(existingAction, { maxLength: 5 }),
      added: fc.array(newRow, { maxLength: 4 }),
      intruders: weighted<Intruder[]>(
        [20, fc.constant([])],
        [1, fc.array(intruder, { minLength: 1, maxLength: 2 })],
      ),
      order: fc.array(fc.nat(9), { maxLength: 6 }),
    }),
  ],
);
const forged = weighted<Forged[]>(
  [4, fc.constant([])],
  [
    1,
    fc.subarray<Forged>(['id', 'created_at', 'updated_at', 'groups_count', 'creator', 'unknown'], {
      minLength: 1,
    }),
  ],
);
const writePlan = (create: boolean): fc.Arbitrary<WritePlan> =>
  fc.record({ master: masterPlan(create), forged, groups: detailPlan, users: detailPlan });
const target = weighted<TargetChoice>(
  [14, fc.nat(1000).map((n) => ({ kind: 'live' as const, pick: n }))],
  [1, fc.nat(1000).map((n) => ({ kind: 'gone' as const, pick: n }))],
  [1, fc.constantFrom({ kind: 'never' as const }, { kind: 'word' as const })],
);

// ---- the real system and the commands ---------------------------------------------------

interface Real {
  readonly server: TestServer;
  readonly world: World;
  /** Every request of the current run with its answer, for the failure report. */
  readonly log: string[];
  commands: number;
  /** Where the change feed was read up to. */
  feedAt: number;
  /** The change the last command must have appended, or null for none. */
  predicted: Predicted | null;
}

/** A change the model predicts: its record, action and version, and its `changes`. */
interface Predicted {
  readonly id: number;
  readonly action: 'created' | 'updated' | 'deleted';
  readonly version: number | null;
  readonly changes: Record<string, unknown>;
}

const COUNT_FIELDS = ['creator', 'groups', 'users', 'groups_count', 'users_count', 'logs_count'];

/** The record's fields as a change carries them: the master's, relations and counts left out. */
function changedFields(record: TemplateRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !COUNT_FIELDS.includes(key)));
}

/** The change of a create or an update from `previous` (null: a create) to `next`. */
function predictChange(
  previous: ModelTemplate | null,
  next: ModelTemplate,
  version: number,
  world: World,
): Predicted {
  const after = changedFields(recordOf(next, world));
  const before = previous ? changedFields(recordOf(previous, world)) : null;
  const fields = before
    ? Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k] !== v))
    : after;
  const changes: Record<string, unknown> = { fields };
  for (const relation of RELATIONS) {
    const column = COLUMN[relation];
    const old = new Map((previous?.[relation] ?? []).map((row) => [row.id, row]));
    const now = new Set(next[relation].map((row) => row.id));
    const created = next[relation].filter((row) => !old.has(row.id));
    const updated = next[relation].filter((row) => {
      const stored = old.get(row.id);
      return stored !== undefined && stored[column] !== row[column];
    });
    const deleted = [...old.keys()].filter((id) => !now.has(id));
    if (created.length + updated.length + deleted.length > 0)
      changes[relation] = { created, updated, deleted };
  }
  return { id: next.id, action: previous ? 'updated' : 'created', version, changes };
}

/** Reads the feed on from real.feedAt: exactly the predicted change, or nothing. */
async function verifyFeed(real: Real): Promise<void> {
  const reply = await real.server.get(`${PATH}/changes?after=${real.feedAt}&limit=1000`);
  assertJson(reply, 200);
  const { data, meta } = reply.body as {
    data: Array<Predicted & { seq: number; actor: { via: string } }>;
    meta: { next: number; has_more: boolean };
  };
  const expected = real.predicted;
  assert.equal(data.length, expected ? 1 : 0, `changes appended: ${JSON.stringify(data)}`);
  const [change] = data;
  if (expected && change) {
    assert.ok(change.seq > real.feedAt, `seq ${change.seq} at or below ${real.feedAt}`);
    assert.equal(change.actor.via, 'bearer');
    assert.deepStrictEqual(
      { id: change.id, action: change.action, version: change.version, changes: change.changes },
      expected,
      'the change is not the one the model predicts',
    );
  }
  assert.equal(meta.has_more, false);
  real.feedAt = meta.next;
  real.predicted = null;
}

const db = (real: Real): Db => real.server.service.database.db;

async function send(real: Real, method: string, path: string, body?: unknown): Promise<Reply> {
  const reply = await real.server.request(method, path, body === undefined ? {} : { body });
  real.log.push(
    `${method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body)}`}\n    -> ${reply.status} ${reply.text.slice(0, 1500)}`,
  );
  return reply;
}

/** The id a command aims at: a live template, a deleted one, one never created, or not a number. */
function resolveTarget(
  choice: TargetChoice,
  model: Model,
): { path: string; template: ModelTemplate | null } {
  const live = model.live();
  if (choice.kind === 'live' && live.length > 0) {
    const template = live[choice.pick % live.length]!;
    return { path: `${PATH}/${template.id}`, template };
  }
  if (choice.kind === 'gone' && model.gone.length > 0)
    return { path: `${PATH}/${model.gone[choice.pick % model.gone.length]!}`, template: null };
  return { path: `${PATH}/${choice.kind === 'word' ? 'abc' : 987_654_321}`, template: null };
}

function assertRefused(reply: Reply, refusal: Refusal): void {
  assertJson(reply, 422);
  const body = reply.body as { message: unknown; errors: Record<string, unknown> };
  assert.deepEqual(Object.keys(body).sort(), ['errors', 'message']);
  const keys = Object.keys(body.errors);
  const missing = [...refusal.required.keys()].filter((k) => !keys.includes(k));
  for (const group of refusal.anyOf)
    if (!group.some((k) => keys.includes(k))) missing.push(group.join(' or '));
  const extra = keys.filter((k) => !refusal.required.has(k) && !refusal.optional.has(k));
  assert.deepEqual(
    { missing, extra },
    { missing: [], extra: [] },
    `422 error keys: expected ${JSON.stringify([...refusal.required.keys()])} (and one of each of ${JSON.stringify(refusal.anyOf)}; maybe also ${JSON.stringify([...refusal.optional])}), got ${JSON.stringify(keys)}`,
  );
  const messages: string[] = [];
  for (const [key, list] of Object.entries(body.errors)) {
    assert.ok(
      Array.isArray(list) && list.length > 0 && list.every((m) => typeof m === 'string'),
      `errors.${key} is not a list of messages`,
    );
    messages.push(...(list as string[]));
    const expected = refusal.required.get(key);
    if (expected)
      assert.ok(
        (list as string[]).includes(expected),
        `errors.${key}: expected "${expected}" among ${JSON.stringify(list)}`,
      );
  }
  // SPEC.md 7.1: the first message, with " (and N more error[s])" when there are more.
  const more = messages.length - 1;
  assert.equal(
    body.message,
    more === 0
      ? messages[0]
      : `${messages[0]} (and ${more} more ${more === 1 ? 'error' : 'errors'})`,
  );
}

/**
 * Checks a write's 2xx answer against the expectation and returns the template the model now
 * holds: the kept rows must be exactly the expected ones, the others the added values under
 * fresh ids (learned here), and then the whole body must equal the model's record.
 */
function acceptAnswer(
  reply: Reply,
  status: number,
  resolved: Resolved,
  previous: ModelTemplate | null,
  model: Model,
  world: World,
  since: Date,
): ModelTemplate {
  assertJson(reply, status);
  const body = reply.body as Record<string, unknown>;
  const id = body.id;
  if (previous) assert.equal(id, previous.id, 'the answer is another template');
  else {
    assert.ok(
      typeof id === 'number' && Number.isSafeInteger(id) && id > 0,
      `generated id ${String(id)}`,
    );
    assert.ok(!model.seenTemplates.has(id), `generated id ${id} was already used`);
  }
  const templateId = id as number;
  const rows = {} as Record<Relation, DetailRow[]>;
  for (const relation of RELATIONS) {
    const outcome = resolved.details[relation];
    const column = COLUMN[relation];
    if (!outcome) {
      rows[relation] = previous ? previous[relation] : [];
      continue;
    }
    const answered = body[relation];
    assert.ok(Array.isArray(answered), `${relation} is not a list`);
    const list = answered as DetailRow[];
    const knownIds = new Set(outcome.known.map((r) => r.id));
    const fresh = list.filter((r) => !knownIds.has(r.id));
    const freshIds = fresh.map((r) => r.id);
    assert.ok(
      freshIds.every(
        (rowId) => Number.isSafeInteger(rowId) && rowId > 0 && !model.seenRows[relation].has(rowId),
      ),
      `${relation}: new rows must have new ids, got ${JSON.stringify(freshIds)}`,
    );
    assert.deepEqual(
      fresh.map((r) => r[column]).sort((a, b) => (a ?? 0) - (b ?? 0)),
      [...outcome.added].sort((a, b) => a - b),
      `${relation}: the added rows (${column})`,
    );
    rows[relation] = [
      ...outcome.known,
      ...fresh.map((r) => ({ id: r.id, template_id: templateId, [column]: r[column] })),
    ].sort((a, b) => a.id - b.id);
  }
  const createdAt = previous ? previous.created_at : freshTimestamp(body.created_at, since);
  const updatedAt = body.updated_at;
  assert.ok(
    typeof updatedAt === 'string' && ISO_UTC.test(updatedAt),
    `updated_at ${String(updatedAt)}`,
  );
  assert.ok(
    Date.parse(updatedAt) >= Date.parse(createdAt),
    `updated_at ${updatedAt} before created_at ${createdAt}`,
  );
  const next: ModelTemplate = {
    id: templateId,
    master: resolved.master,
    created_at: createdAt,
    updated_at: updatedAt,
    groups: rows.groups,
    users: rows.users,
    logs: previous?.logs ?? 0,
  };
  assert.deepStrictEqual(body, recordOf(next, world), 'the answer is not the expected record');
  return next;
}

function learn(model: Model, template: ModelTemplate): void {
  model.templates.set(template.id, template);
  model.seenTemplates.add(template.id);
  for (const relation of RELATIONS)
    for (const row of template[relation]) model.seenRows[relation].add(row.id);
}

/** The stored state, read back three ways, equals the model. */
async function verify(model: Model, real: Real, shown: number | null): Promise<void> {
  const { world } = real;
  const live = model.live();
  const expected = live.map((t) => recordOf(t, world));
  // 1. The list, in the default order (title asc, ties by id: SPEC.md 2.3, list.ts).
  const listed = await real.server.get(`${PATH}?per_page=200`);
  assertJson(listed, 200, {
    data: sortRows(expected, { column: 'title', direction: 'asc' }, (r, c) =>
      c === 'title' ? r.title : null,
    ),
    meta: { total: live.length, per_page: 200, current_page: 1, last_page: 1 },
  });
  // 2. A show of the command's target.
  if (shown !== null) {
    const template = model.templates.get(shown);
    assertJson(
      await real.server.get(`${PATH}/${shown}`),
      template ? 200 : 404,
      template ? recordOf(template, world) : NOT_FOUND,
    );
  }
  // 3. The tables (timestamps are compared through the API above).
  const masters = await db(real)
    .selectFrom('import_templates')
    .select(['id', ...MASTER_FIELDS])
    .orderBy('id')
    .execute();
  assert.deepEqual(
    masters.map((r: Record<string, unknown>) => ({
      ...r,
      id: Number(r.id),
      created_by: r.created_by === null ? null : Number(r.created_by),
    })),
    live.map((t) => ({ id: t.id, ...t.master })),
    'stored import_templates rows',
  );
  for (const relation of RELATIONS) {
    const column = COLUMN[relation];
    const table = relation === 'groups' ? 'import_template_groups' : 'import_template_users';
    const stored = await db(real)
      .selectFrom(table)
      .select(['id', 'template_id', column])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      stored.map((r: Record<string, unknown>) => ({
        id: Number(r.id),
        template_id: Number(r.template_id),
        [column]: Number(r[column]),
      })),
      model.rowsOf(relation).sort((a, b) => a.id - b.id),
      `stored ${table} rows`,
    );
  }
}

abstract class Step implements fc.AsyncCommand<Model, Real> {
  /** A command aimed at a live template runs only when there is one (fewer accidental 404s). */
  check(model: Readonly<Model>): boolean {
    return !this.needsLive || model.templates.size > 0;
  }
  protected get needsLive(): boolean {
    return false;
  }
  async run(model: Model, real: Real): Promise<void> {
    real.commands++;
    try {
      real.predicted = null;
      const shown = await this.apply(model, real);
      await verify(model, real, shown);
      await verifyFeed(real);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${message}\n--- requests of this run (${this.toString()} failed):\n${real.log.slice(-40).join('\n')}`,
        { cause: error },
      );
    }
  }
  /** Sends the command, checks its answer, updates the model; returns the template id to show. */
  protected abstract apply(model: Model, real: Real): Promise<number | null>;
  abstract toString(): string;
}

class Create extends Step {
  constructor(readonly plan: WritePlan) {
    super();
  }
  protected async apply(model: Model, real: Real): Promise<number | null> {
    const resolved = resolveWrite(this.plan, null, model, real.world);
    const since = new Date();
    const reply = await send(real, 'POST', PATH, resolved.body);
    if (refused(resolved.refusal)) {
      assertRefused(reply, resolved.refusal);
      return null;
    }
    const created = acceptAnswer(reply, 201, resolved, null, model, real.world, since);
    learn(model, created);
    real.predicted = predictChange(null, created, 1, real.world);
    return created.id;
  }
  toString(): string {
    return `create(${JSON.stringify(this.plan)})`;
  }
}

class Update extends Step {
  constructor(
    readonly method: 'PUT' | 'PATCH',
    readonly target: TargetChoice,
    readonly plan: WritePlan,
  ) {
    super();
  }
  protected override get needsLive(): boolean {
    return this.target.kind === 'live';
  }
  protected async apply(model: Model, real: Real): Promise<number | null> {
    const { path, template } = resolveTarget(this.target, model);
    const resolved = resolveWrite(this.plan, template, model, real.world);
    const since = new Date();
    const reply = await send(real, this.method, path, resolved.body);
    if (!template) {
      assertJson(reply, 404, NOT_FOUND);
      return null;
    }
    if (refused(resolved.refusal)) assertRefused(reply, resolved.refusal);
    else {
      const updated = acceptAnswer(reply, 200, resolved, template, model, real.world, since);
      learn(model, updated);
      const version = Number(JSON.parse(reply.headers.get('etag') ?? 'null'));
      real.predicted = predictChange(template, updated, version, real.world);
    }
    return template.id;
  }
  toString(): string {
    return `update(${this.method}, ${JSON.stringify(this.target)}, ${JSON.stringify(this.plan)})`;
  }
}

class Delete extends Step {
  constructor(readonly target: TargetChoice) {
    super();
  }
  protected override get needsLive(): boolean {
    return this.target.kind === 'live';
  }
  protected async apply(model: Model, real: Real): Promise<number | null> {
    const { path, template } = resolveTarget(this.target, model);
    const reply = await send(real, 'DELETE', path);
    if (!template) {
      assertJson(reply, 404, NOT_FOUND);
      return null;
    }
    assertJson(reply, 200, DELETED);
    model.templates.delete(template.id);
    model.gone.push(template.id);
    real.predicted = { id: template.id, action: 'deleted', version: null, changes: {} };
    return template.id;
  }
  toString(): string {
    return `delete(${JSON.stringify(this.target)})`;
  }
}

/** A run log written for a template (set-up straight to the table): its logs_count grows. */
class AddLogs extends Step {
  constructor(
    readonly pick: number,
    readonly count: number,
  ) {
    super();
  }
  protected override get needsLive(): boolean {
    return true;
  }
  protected async apply(model: Model, real: Real): Promise<number | null> {
    const live = model.live();
    if (live.length === 0) return null;
    const template = live[this.pick % live.length]!;
    for (let i = 0; i < this.count; i++) {
      await insertRow(db(real), 'import_template_logs', {
        template_id: template.id,
        unit_id: 1,
        status: 'succeeded',
        created_at: LOG_STAMP,
      });
    }
    real.log.push(`(${this.count} run log(s) written for template ${template.id})`);
    template.logs += this.count;
    return template.id;
  }
  toString(): string {
    return `addLogs(${this.pick}, ${this.count})`;
  }
}

const command: fc.Arbitrary<fc.AsyncCommand<Model, Real>> = weighted<fc.AsyncCommand<Model, Real>>(
  [5, writePlan(true).map((plan) => new Create(plan))],
  [
    7,
    fc
      .tuple(fc.constantFrom('PUT' as const, 'PATCH' as const), target, writePlan(false))
      .map(([method, t, plan]) => new Update(method, t, plan)),
  ],
  [2, target.map((t) => new Delete(t))],
  [1, fc.tuple(fc.nat(1000), fc.integer({ min: 1, max: 3 })).map(([p, n]) => new AddLogs(p, n))],
);

// ---- the test --------------------------------------------------------------------------

describe('model-based writes: random command sequences against a reference model', () => {
  let server: TestServer;
  let world: World;

  before(async () => {
    server = await startTestServer();
    const database = server.service.database.db;
    const [alice, bob] = (await seedUsers(database, ['alice', 'bob'])) as [number, number];
    const groups = await seedGroups(database, ['g1', 'g2', 'g3', 'g4']);
    const admin = 1; // the bootstrap admin: the test token's user, so the default created_by
    const creators = new Map<number, TemplateRecord['creator']>();
    for (const user of [admin, alice, bob]) creators.set(user, await creatorOf(database, user));
    world = { admin, alice, bob, groups, users: [admin, alice, bob], creators };
  });
  after(() => server?.close());

  it('every answer, the stored state and the change feed follow the model (create, PUT/PATCH, delete)', async () => {
    const real: Real = { server, world, log: [], commands: 0, feedAt: 0, predicted: null };
    const database = server.service.database.db;
    /** A clean slate for each run, straight in the tables (not behaviour under test). */
    const setup = async () => {
      for (const table of [
        'import_template_logs',
        'import_template_groups',
        'import_template_users',
        'import_templates',
      ]) {
        await database.deleteFrom(table).execute();
      }
      real.log.length = 0;
      // The feed is read on from its end: the clean slate above is no write of the resource.
      for (let more = true; more; ) {
        const page = await server.get(`${PATH}/changes?after=${real.feedAt}&limit=1000`);
        assertJson(page, 200);
        real.feedAt = page.body.meta.next;
        more = page.body.meta.has_more;
      }
      real.predicted = null;
      return { model: new Model(), real };
    };
    const property = fc.asyncProperty(
      fc.commands([command], {
        maxCommands: MAX_COMMANDS,
        size: 'max',
        ...(REPLAY_COMMANDS ? { replayPath: REPLAY_COMMANDS } : {}),
      }),
      (commands) => fc.asyncModelRun(setup, commands),
    );
    const base = FIXED_SEED ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
    for (
      let round = 0;
      round === 0 || (REPLAY_PATH === undefined && real.commands < MIN_TOTAL);
      round++
    ) {
      const seed = (base + round) | 0;
      try {
        await fc.assert(property, {
          numRuns: RUNS,
          seed,
          includeErrorInReport: true,
          ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(
          `Replay: MODEL_SEED=${seed} (with MODEL_PATH and MODEL_REPLAY from below)\n${message}`,
          { cause: error },
        );
      }
    }
    console.log(`model-writes: ${real.commands} commands`);
  });
});
