// The soak's reference model of the import templates: what the database must hold, built only
// from the answers of accepted writes (a 201/200 create or update, a 200 delete). Writes to one
// template are never in flight together (a template is taken while it is written or shown), so
// the model knows the order they were applied in; reads check against it as they go, and the
// final check compares every template the API answers with it.

export const RELATIONS = { groups: 'group_id', users: 'user_id' };
export const MASTER_FIELDS = [
  'title',
  'code',
  'description',
  'database_name',
  'mapping_json',
  'csv_model_path',
  'import_mode',
  'active',
  'created_by',
];

/** A template as the model keeps it: the master fields and each relation's rows by id. */
export function normalize(answer) {
  const t = {};
  for (const f of MASTER_FIELDS) t[f] = answer[f] ?? null;
  for (const [rel, key] of Object.entries(RELATIONS))
    t[rel] = (answer[rel] ?? [])
      .map((row) => ({ id: Number(row.id), [key]: row[key] === null ? null : Number(row[key]) }))
      .sort((a, b) => a.id - b.id);
  return t;
}

/** Differences between `expected` and `actual` (both normalized), as readable lines; with
 * `rows` false the master fields only. */
export function differences(expected, actual, rows = true) {
  const out = [];
  for (const f of MASTER_FIELDS)
    if (expected[f] !== actual[f])
      out.push(`${f}: expected ${JSON.stringify(expected[f])}, got ${JSON.stringify(actual[f])}`);
  if (!rows) return out;
  for (const rel of Object.keys(RELATIONS)) {
    const e = JSON.stringify(expected[rel]);
    const a = JSON.stringify(actual[rel]);
    if (e !== a) out.push(`${rel}: expected ${e}, got ${a}`);
  }
  return out;
}

export class Model {
  constructor() {
    this.templates = new Map(); // id -> normalized template
    this.ids = []; // the same ids, for a random pick
    this.index = new Map(); // id -> position in ids
    this.busy = new Set(); // ids a write, a show or a failed write's check has taken
    this.versions = new Map(); // id -> writes applied, so a list can tell what changed under it
    this.deleted = []; // recently deleted ids (a show of one must be a 404)
    this.uncertain = new Set(); // ids whose write got no answer: their state is unknown
    this.creating = 0; // creates in flight (a list may already show what they made)
    this.createsStarted = 0;
    this.lostCreates = 0; // creates that got no answer: a template the model may not know
  }

  get size() {
    return this.templates.size;
  }

  set(id, template) {
    if (!this.index.has(id)) {
      this.index.set(id, this.ids.length);
      this.ids.push(id);
    }
    this.templates.set(id, template);
    this.versions.set(id, (this.versions.get(id) ?? 0) + 1);
  }

  remove(id) {
    const at = this.index.get(id);
    if (at === undefined) return;
    const last = this.ids.pop();
    if (last !== id) {
      this.ids[at] = last;
      this.index.set(last, at);
    }
    this.index.delete(id);
    this.templates.delete(id);
    this.versions.delete(id); // a list that began before it still sees a change
    this.deleted.push(id);
    if (this.deleted.length > 1000) this.deleted.shift();
  }

  /** A random template no one else holds, taken; null when a few tries find none. */
  take(random) {
    for (let i = 0; i < 8 && this.ids.length > 0; i++) {
      const id = this.ids[Math.floor(random() * this.ids.length)];
      if (!this.busy.has(id) && !this.uncertain.has(id)) {
        this.busy.add(id);
        return id;
      }
    }
    return null;
  }

  release(id) {
    this.busy.delete(id);
  }
}

// ---- payloads --------------------------------------------------------------------------------
const WORDS = (
  'amber anchor atlas basin beacon birch cedar cipher cobalt coral delta drift ember falcon ' +
  'fern flint frost garnet harbor hazel island jade lagoon ledger lotus maple meadow nova ' +
  'onyx orbit pebble quartz raven ridge sage spruce summit tide topaz tundra willow zephyr ' +
  'café crème façade naïve smørrebrød Ærø łódź straße 東京 データ 🚀'
).split(' ');
const DATABASES = ['erp_main', 'crm', 'warehouse', 'billing', 'hr', 'analytics'];
const MODES = ['insert', 'upsert', 'replace', 'append'];

export function generators(random, people) {
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  let serial = 0;
  const master = () => {
    serial += 1;
    const code = random() < 0.1 ? null : `SOAK-${process.pid}-${serial}`;
    return {
      title: words(int(1, 4)),
      code,
      description: random() < 0.2 ? null : words(int(0, 60)),
      database_name: pick(DATABASES),
      mapping_json: JSON.stringify({
        version: 1,
        columns: Array.from({ length: int(1, 5) }, (_, k) => ({ source: `c${k}`, target: pick(WORDS) })),
      }),
      csv_model_path: random() < 0.3 ? null : `/models/${serial}.csv`,
      import_mode: random() < 0.2 ? null : pick(MODES),
      active: pick(['Y', 'N']),
      created_by: pick(people.users),
    };
  };
  const value = (rel) => (rel === 'groups' ? pick(people.groups) : pick(people.users));
  const newRows = (rel, n) => Array.from({ length: n }, () => ({ [RELATIONS[rel]]: value(rel) }));
  return {
    int,
    pick,
    words,
    /** A create's body. */
    create() {
      const body = master();
      for (const rel of Object.keys(RELATIONS)) if (random() < 0.8) body[rel] = newRows(rel, int(0, 4));
      return body;
    },
    /**
     * An update's body on `before`: some master fields (all of them for PUT), and per relation
     * (most of the time) a diff: rows kept as {id} or with their value, changed, dropped, added.
     * Returns the body and what the template must be after it, the added rows' ids aside.
     */
    update(before, put) {
      const all = master();
      const body = {};
      for (const f of MASTER_FIELDS) if (put || random() < 0.3) body[f] = all[f];
      if (!put && Object.keys(body).length === 0) body.description = all.description;
      const expected = { ...before, ...body };
      const added = {};
      for (const [rel, key] of Object.entries(RELATIONS)) {
        expected[rel] = before[rel];
        added[rel] = [];
        if (random() < 0.3) continue; // not sent: not processed
        if (random() < 0.05) {
          body[rel] = random() < 0.5 ? null : []; // null is an empty array: every row goes
          expected[rel] = [];
          continue;
        }
        const rows = [];
        const kept = [];
        for (const row of before[rel]) {
          const r = random();
          if (r < 0.35) {
            rows.push({ id: row.id });
            kept.push(row);
          } else if (r < 0.55) {
            rows.push({ id: row.id, [key]: row[key] });
            kept.push(row);
          } else if (r < 0.8) {
            const v = value(rel);
            rows.push({ id: row.id, [key]: v });
            kept.push({ id: row.id, [key]: v });
          } // else dropped
        }
        const fresh = newRows(rel, int(0, Math.max(0, 5 - kept.length)));
        rows.push(...fresh);
        // the rows go in any order: the engine matches them by id
        rows.sort(() => random() - 0.5);
        body[rel] = rows;
        expected[rel] = kept;
        added[rel] = fresh.map((r) => r[key]);
      }
      return { body, expected, added };
    },
    /** A body that must be refused with 422 and change nothing. */
    invalid(forUpdate) {
      const body = forUpdate ? { title: words(2) } : master();
      const r = random();
      if (r < 0.25) body.title = forUpdate ? '' : undefined;
      else if (r < 0.5) body.mapping_json = '{not json';
      else if (r < 0.75) body.groups = [{ group_id: people.groups[0] }, { group_id: 999999999 }];
      else body.users = [{ user_id: 'nobody' }];
      if (body.title === undefined) delete body.title;
      return body;
    },
    /** Random list parameters: a filter of 0-2 conditions, a sort, a page. */
    listQuery() {
      const filters = {};
      const conditions = [
        () => (filters.active = { '=': pick(['Y', 'N']) }),
        () => (filters.title = { like: `%${pick(WORDS).slice(0, 2)}%` }),
        () => (filters.database_name = { in: [pick(DATABASES), pick(DATABASES)] }),
        () => (filters.created_by = { '=': pick(people.users) }),
        () => (filters.code = { null: random() < 0.5 }),
        () => (filters.title = { '>=': pick(WORDS) }),
      ];
      for (let i = int(0, 2); i > 0; i--) pick(conditions)();
      const params = new URLSearchParams();
      if (Object.keys(filters).length > 0) params.set('filters', JSON.stringify(filters));
      if (random() < 0.8) {
        params.set('sort', pick(['title', 'code', 'created_at', 'updated_at']));
        params.set('direction', pick(['asc', 'desc']));
      }
      const perPage = pick([5, 15, 15, 50, 200]);
      params.set('per_page', String(perPage));
      params.set('page', String(int(1, 3)));
      return { query: params.toString(), filters, perPage };
    },
  };
}

/** Does a listed template satisfy `filters` (DESIGN 3.5 operators, as the generator uses them)? */
export function satisfies(t, filters) {
  for (const [field, condition] of Object.entries(filters)) {
    const [op, operand] = Object.entries(condition)[0];
    const v = t[field];
    if (op === 'null') {
      if ((v === null) !== operand) return false;
    } else if (v === null) return false;
    else if (op === '=' && String(v) !== String(operand)) return false;
    else if (op === 'in' && !operand.map(String).includes(String(v))) return false;
    else if (op === 'like' && !String(v).toLowerCase().includes(operand.slice(1, -1).toLowerCase()))
      return false;
  }
  return true;
}
