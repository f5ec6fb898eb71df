// Model-based test of the list action (SPEC.md 4.2, 8; DESIGN.md 3.5) through the real HTTP
// server: a random set of import templates is written straight to the tables (titles and codes
// in case variants, with trailing spaces, LIKE wildcards as data, non-ASCII and astral
// characters, nulls, tied timestamps), then random list requests are answered and compared,
// whole, with a reference model: which rows the filters select (every operator of DESIGN.md
// 3.5 on the searchable columns; filters on other columns are ignored, SPEC.md 4.2 rule 1),
// their order (sortable columns only, else the default `title asc`; nulls sort low; the id
// breaks ties in the sort's direction), the page (per_page capped at 200, a per_page that is
// not a positive integer is 15, a page below 1 is 1) and `meta`. Requests travel as a JSON
// `filters` query parameter, as `filters[col][op]=v` brackets, or as a JSON body on the GET.
// Text compares by code point (binary collations; see test/helpers/template-model.ts).
//
// Size and replay (environment):
//   MODEL_LIST_RUNS=50     data sets of 3 to 40 templates (fc.assert numRuns), 1 to 20 requests each
//   MODEL_SEED=<n>         replays from that seed (printed on failure)
//   MODEL_PATH=<path>      with MODEL_SEED: only the failing run (fast-check's `path`)
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import qs from 'qs';
import { assertJson, httpRequest, type Reply } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { type Cell, holds, OPERATORS, type Operator, sortRows } from '../helpers/template-model.js';
import { creatorOf, type DetailRow, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RUNS = Number(process.env.MODEL_LIST_RUNS ?? 50);
const FIXED_SEED =
  process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
const REPLAY_PATH = process.env.MODEL_PATH;

const SEARCHABLE = ['title', 'code', 'database_name', 'active', 'created_by'] as const;
const SORTABLE = ['title', 'code', 'created_at', 'updated_at'] as const;

// Values: case variants, trailing spaces (PAD SPACE on MariaDB), wildcards as data, digits
// (compared as text), non-ASCII, U+FB00 and U+1F642 (code point order differs from UTF-16's).
const WORDS = [
  'Alpha',
  'alpha',
  'ALPHA',
  'Alpha ',
  'alpha  ',
  'Beta',
  'beta 2',
  'Gamma',
  '',
  'a_b',
  'a%b',
  'aXb',
  'École',
  'école',
  'ÉCOLE',
  'Ünïcödé',
  'ünïcödé',
  'Ω',
  'ω',
  '\u{1F642} smile',
  '\uFB00',
  'x',
  'Zeta',
  'zeta',
  '100',
  '20',
  '2',
];
const PATTERN_CHARS = [
  'a',
  'A',
  'l',
  'p',
  'h',
  'e',
  'é',
  'É',
  'b',
  ' ',
  'c',
  'o',
  'x',
  '2',
  'Z',
  'ω',
  'Ü',
  '\u{1F642}',
];
const STAMPS = [
  '2024-01-01T00:00:00.000Z',
  '2024-01-01T00:00:00.001Z',
  '2023-12-31T23:59:59.999Z',
  '2024-06-15T12:30:00.500Z',
  '1999-01-01T00:00:00.000Z',
];

interface TemplateSeed {
  title: string;
  code: string | null;
  database_name: string;
  active: string | null;
  creator: number | null;
  created_at: string | null;
  updated_at: string | null;
  groups: number[];
  users: number[];
  logs: number;
}

/** A list item; timestamps written straight to the table may be null. */
type ListedRecord = Omit<TemplateRecord, 'created_at' | 'updated_at'> & {
  created_at: string | null;
  updated_at: string | null;
};

type Conditions = Record<string, unknown>;
interface ListRequest {
  filters?: Record<string, Conditions>;
  /** Filters on columns outside searchable: ignored (SPEC.md 4.2 rule 1), whatever they hold. */
  ignored?: Record<string, unknown>;
  sort?: string;
  direction?: string;
  page?: number | string;
  per_page?: number | string;
  form: 'json-query' | 'bracket-query' | 'body';
}

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const weighted = <T>(...choices: Array<[number, fc.Arbitrary<T>]>): fc.Arbitrary<T> =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const word = fc.oneof(pick(WORDS), fc.string({ unit: pick(PATTERN_CHARS), maxLength: 5 }));

describe('model-based lists: random data and requests against a reference model', () => {
  let server: TestServer;
  let users: number[];
  let groups: number[];
  const creators = new Map<number, TemplateRecord['creator']>();
  const db = () => server.service.database.db;

  before(async () => {
    server = await startTestServer();
    users = [1, ...(await seedUsers(db(), ['alice', 'bob']))];
    groups = await seedGroups(db(), ['g1', 'g2', 'g3']);
    for (const user of users) creators.set(user, await creatorOf(db(), user));
  });
  after(() => server?.close());

  /** Writes the data set straight to the tables and returns each template as the list must answer it. */
  async function seed(templates: TemplateSeed[]): Promise<ListedRecord[]> {
    for (const table of [
      'import_template_logs',
      'import_template_groups',
      'import_template_users',
      'import_templates',
    ]) {
      await db().deleteFrom(table).execute();
    }
    const records: ListedRecord[] = [];
    for (const t of templates) {
      const master = {
        title: t.title,
        code: t.code,
        description: null,
        database_name: t.database_name,
        mapping_json: '{"columns":[]}',
        csv_model_path: null,
        import_mode: null,
        active: t.active,
        created_by: t.creator,
        created_at: t.created_at,
        updated_at: t.updated_at,
      };
      const id = await insertRow(db(), 'import_templates', master);
      const detail = async (
        table: string,
        column: 'group_id' | 'user_id',
        values: number[],
      ): Promise<DetailRow[]> => {
        const rows: DetailRow[] = [];
        for (const value of values)
          rows.push({
            id: await insertRow(db(), table, { template_id: id, [column]: value }),
            template_id: id,
            [column]: value,
          });
        return rows;
      };
      const groupRows = await detail('import_template_groups', 'group_id', t.groups);
      const userRows = await detail('import_template_users', 'user_id', t.users);
      for (let i = 0; i < t.logs; i++)
        await insertRow(db(), 'import_template_logs', {
          template_id: id,
          unit_id: 1,
          status: 'queued',
          created_at: STAMPS[0],
        });
      records.push({
        id,
        ...master,
        creator: t.creator === null ? null : (creators.get(t.creator) ?? null),
        groups: groupRows,
        users: userRows,
        groups_count: groupRows.length,
        users_count: userRows.length,
        logs_count: t.logs,
      });
    }
    return records;
  }

  /** What the list must answer for `request` over `records`. */
  function expectedAnswer(records: ListedRecord[], request: ListRequest): unknown {
    const cell = (record: ListedRecord, column: string): Cell => {
      const value = (record as unknown as Record<string, unknown>)[column];
      return typeof value === 'string' || typeof value === 'number' ? value : null;
    };
    const filters = Object.entries(request.filters ?? {});
    const selected = records.filter((r) =>
      filters.every(([column, ops]) =>
        Object.entries(ops).every(([op, operand]) => holds(cell(r, column), op, operand)),
      ),
    );
    const sortable = (SORTABLE as readonly string[]).includes(request.sort ?? '');
    const order = sortable
      ? {
          column: request.sort!,
          direction: request.direction === 'desc' ? ('desc' as const) : ('asc' as const),
        }
      : { column: 'title', direction: 'asc' as const };
    const sorted = sortRows(selected, order, cell);
    const integer = (v: unknown) =>
      typeof v === 'number' && Number.isInteger(v)
        ? v
        : typeof v === 'string' && /^-?\d+$/.test(v)
          ? Number(v)
          : null;
    const requested = integer(request.per_page);
    const perPage = requested !== null && requested >= 1 ? Math.min(requested, 200) : 15;
    const page = Math.max(integer(request.page) ?? 1, 1);
    return {
      data: sorted.slice((page - 1) * perPage, page * perPage),
      meta: {
        total: sorted.length,
        per_page: perPage,
        current_page: page,
        last_page: Math.max(1, Math.ceil(sorted.length / perPage)),
      },
    };
  }

  /** Sends the request in its form; returns the answer and what was sent (for the failure report). */
  async function list(request: ListRequest): Promise<{ reply: Reply; sent: string }> {
    const { form, ignored, ...rest } = request;
    const input: Record<string, unknown> = { ...rest };
    if (request.filters !== undefined || ignored !== undefined)
      input.filters = { ...ignored, ...request.filters };
    if (form === 'body') {
      return {
        reply: await httpRequest(server.url, 'GET', PATH, {
          headers: server.defaultHeaders,
          body: input,
        }),
        sent: `GET ${PATH} ${JSON.stringify(input)}`,
      };
    }
    const query =
      form === 'bracket-query'
        ? qs.stringify(input)
        : new URLSearchParams(
            Object.entries(input).map(([k, v]): [string, string] => [
              k,
              typeof v === 'string' ? v : JSON.stringify(v),
            ]),
          ).toString();
    const target = `${PATH}${query === '' ? '' : `?${query}`}`;
    return { reply: await server.get(target), sent: `GET ${decodeURIComponent(target)}` };
  }

  it('filters, sort, direction, page and per_page answer exactly what the model selects, orders and pages', async () => {
    const templateSeed: fc.Arbitrary<TemplateSeed> = fc.record({
      title: word,
      code: weighted<string | null>([1, fc.constant(null)], [3, word]),
      database_name: word,
      active: pick([null, 'Y', 'N']),
      creator: weighted<number | null>([1, fc.constant(null)], [3, pick(users)]),
      created_at: weighted<string | null>([1, fc.constant(null)], [8, pick(STAMPS)]),
      updated_at: weighted<string | null>([1, fc.constant(null)], [8, pick(STAMPS)]),
      groups: fc.array(pick(groups), { maxLength: 2 }),
      users: fc.array(pick(users), { maxLength: 2 }),
      logs: fc.nat(2),
    });

    const pattern = fc.string({ unit: pick([...PATTERN_CHARS, '%', '%', '_']), maxLength: 6 });
    const digits = fc.string({ unit: pick(['1', '2', '3', '%', '_']), maxLength: 3 });
    const operand = (column: string, op: Operator): fc.Arbitrary<unknown> => {
      const value: fc.Arbitrary<unknown> =
        column === 'created_by'
          ? fc.integer({ min: -1, max: Math.max(...users) + 1 })
          : column === 'active'
            ? pick(['Y', 'N', 'y', 'X', ''])
            : word;
      if (op === 'like' || op === 'not like') return column === 'created_by' ? digits : pattern;
      if (op === 'in' || op === 'not in') return fc.array(value, { maxLength: 4 });
      if (op === 'null') return fc.boolean();
      return value;
    };
    const conditions = (column: string): fc.Arbitrary<Conditions> =>
      fc
        .array(
          pick(OPERATORS).chain((op) => operand(column, op).map((o) => [op, o] as const)),
          { minLength: 1, maxLength: 2 },
        )
        .map((pairs) => Object.fromEntries(pairs));
    // One or two columns: more would select nothing most of the time.
    const filters = fc
      .uniqueArray(pick(SEARCHABLE), { minLength: 1, maxLength: 2 })
      .chain((columns) =>
        fc
          .tuple(...columns.map(conditions))
          .map((all) => Object.fromEntries(columns.map((c, i) => [c, all[i]!]))),
      );
    const garbage = fc.oneof(
      conditions('title'),
      fc.constant({ bogus: 1 }),
      fc.constant({ '=': { nested: true } }),
      fc.constant('not an object'),
      fc.constant({ '>': null }),
    );
    const ignored = fc.dictionary(
      pick([
        'description',
        'id',
        'mapping_json',
        'import_mode',
        'csv_model_path',
        'created_at',
        'updated_at',
        'creator',
        'bogus',
      ]),
      garbage,
      { minKeys: 1, maxKeys: 2 },
    );
    const request: fc.Arbitrary<ListRequest> = fc.record(
      {
        filters: weighted<Record<string, Conditions>>([1, fc.constant({})], [3, filters]),
        ignored,
        sort: pick([
          ...SORTABLE,
          ...SORTABLE,
          'id',
          'database_name',
          'active',
          'created_by',
          'description',
          'bogus',
          '',
        ]),
        direction: pick(['asc', 'desc', 'desc', 'up', '']),
        page: weighted<number | string>(
          [3, fc.constant(1)],
          [4, fc.integer({ min: 1, max: 5 })],
          [1, pick([0, -2, '2', '3'])],
        ),
        per_page: weighted<number | string>(
          [6, fc.integer({ min: 1, max: 20 })],
          [2, pick([0, -1, 200, 201, 1000, '4', 2.5, 'abc', '15'])],
        ),
        form: pick(['json-query', 'bracket-query', 'body'] as const),
      },
      { requiredKeys: ['form'] },
    );

    const property = fc.asyncProperty(
      fc.array(templateSeed, { minLength: 3, maxLength: 40, size: 'max' }),
      fc.array(request, { minLength: 1, maxLength: 20, size: 'max' }),
      async (templates, requests) => {
        const records = await seed(templates);
        for (const original of requests) {
          // The query-string brackets cannot carry an empty list: qs leaves such an operator out.
          const request =
            original.form === 'bracket-query' ? withoutEmptyLists(original) : original;
          const { reply, sent } = await list(request);
          const expected = expectedAnswer(records, request);
          try {
            assertJson(reply, 200, expected);
          } catch (error) {
            const got = reply.body as { data?: Array<{ id: number }>; meta?: unknown } | undefined;
            const want = expected as { data: Array<{ id: number }>; meta: unknown };
            const ids = (d?: Array<{ id: number }>) => JSON.stringify(d?.map((r) => r.id));
            throw new Error(
              `${sent}\n  expected ids ${ids(want.data)} meta ${JSON.stringify(want.meta)}\n  answered ids ${ids(got?.data)} meta ${JSON.stringify(got?.meta)}\n` +
                `  (status ${reply.status}${reply.status === 200 ? '' : `: ${reply.text.slice(0, 500)}`})\n  data set: ${JSON.stringify(records.map(({ id, title, code, database_name, active, created_by, created_at, updated_at }) => ({ id, title, code, database_name, active, created_by, created_at, updated_at })))}\n` +
                (error instanceof Error ? error.message.slice(0, 3000) : String(error)),
              { cause: error },
            );
          }
        }
      },
    );
    const seed0 = FIXED_SEED ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
    try {
      await fc.assert(property, {
        numRuns: RUNS,
        seed: seed0,
        includeErrorInReport: true,
        ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
      });
    } catch (error) {
      throw new Error(
        `Replay: MODEL_SEED=${seed0} MODEL_PATH=<path below>\n${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  });
});

function withoutEmptyLists(request: ListRequest): ListRequest {
  if (!request.filters) return request;
  const filters: Record<string, Conditions> = {};
  for (const [column, ops] of Object.entries(request.filters)) {
    const kept = Object.fromEntries(
      Object.entries(ops).filter(
        ([, operand]) => !(Array.isArray(operand) && operand.length === 0),
      ),
    );
    if (Object.keys(kept).length > 0) filters[column] = kept;
  }
  return { ...request, filters };
}
