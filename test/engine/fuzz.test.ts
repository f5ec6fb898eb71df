// Property-based tests against the real server: random list parameters and random write
// payloads (wrong types, huge numbers, SQL fragments, unknown fields, garbage detail rows).
// Every answer is JSON with a 2xx or 4xx status, never a 5xx, and a refused write changes no
// stored row. Set FUZZ_SEED to replay a failing run; FUZZ_RUNS to search longer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import qs from 'qs';
import { assertJson, httpRequest, JSON_TYPE, type Reply } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { type Cells, holds, OPERATORS } from '../helpers/template-model.js';
import { insertTemplate, snapshot } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };

const SQL = [
  "' or '1'='1",
  '1; drop table import_templates; --',
  '") or 1=1 --',
  '%',
  '_',
  '\\',
  '\u0000',
  '/* */',
  'null',
  'NaN',
];

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...SQL),
  fc.string({ maxLength: 300 }),
);
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, 0.5, -0),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const nested = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 5 }),
  fc.dictionary(text, scalar, { maxKeys: 3 }),
  fc.array(fc.dictionary(text, scalar, { maxKeys: 2 }), { maxLength: 2 }),
);
const column = fc.oneof(
  fc.constantFrom(
    'title',
    'code',
    'database_name',
    'active',
    'created_by',
    'description',
    'id',
    'mapping_json',
  ),
  fc.constantFrom(
    'title; drop table import_templates',
    'title) or (1=1',
    'import_templates.title',
    '*',
    'constructor',
    'toString',
  ),
  fc.string({ maxLength: 12 }),
);
const operator = fc.oneof(
  fc.constantFrom(
    ...OPERATORS,
    // Not operators: other cases and spellings, another dialect's, an injection.
    'LIKE',
    'Not In',
    '<>',
    'ilike',
    '= 1 or 1 =',
  ),
  fc.string({ maxLength: 8 }),
);
const operand = fc.oneof(nested, fc.array(fc.oneof(text, fc.integer()), { maxLength: 30 }));
const filters = fc.oneof(
  fc.dictionary(column, fc.oneof(fc.dictionary(operator, operand, { maxKeys: 3 }), nested), {
    maxKeys: 4,
  }),
  nested,
);
const pageValue = fc.oneof(
  number,
  text,
  fc.constantFrom(
    '1',
    '2',
    '200',
    '201',
    '-5',
    '0',
    '1e400',
    '99999999999999999999999',
    ' 3 ',
    '0x10',
  ),
  nested,
);
const listInput = fc.record(
  {
    filters,
    sort: fc.oneof(column, nested),
    direction: fc.oneof(fc.constantFrom('asc', 'desc', 'DESC', 'up', ''), nested),
    page: pageValue,
    per_page: pageValue,
    extra: nested,
  },
  { requiredKeys: [] },
);

/** Query string form of list input: JSON-encoded objects, or qs's bracket notation. */
function asQuery(input: Record<string, unknown>, brackets: boolean): string {
  if (brackets) return qs.stringify(input, { encodeValuesOnly: false });
  const pairs = Object.entries(input).map(([k, v]): [string, string] => [
    k,
    typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
  ]);
  return new URLSearchParams(pairs).toString();
}

// Values for the reference-model property: case variants, LIKE wildcards as data, non-ASCII.
const WORDS = [
  'Alpha',
  'alpha',
  'ALPHA',
  'Beta',
  'beta 2',
  'Gamma',
  '',
  'a_b',
  'a%b',
  'École',
  'école',
  'x',
  'Zeta',
];
const PATTERN_CHARS = ['a', 'A', 'l', 'p', 'h', 'e', 'é', 'É', 'b', ' ', 'c', 'o', 'x', '2', 'Z'];

function assertAnswered(reply: Reply): void {
  assert.ok(
    reply.status >= 200 && reply.status < 500,
    `status ${reply.status}: ${reply.text.slice(0, 300)}`,
  );
  assert.equal(reply.headers.get('content-type'), JSON_TYPE);
  assert.equal(typeof reply.body, 'object', `not a JSON object: ${reply.text.slice(0, 200)}`);
}

describe('fuzz: random input never breaks the server', () => {
  let server: TestServer;
  let alice: number;
  let groupIds: number[];
  let templateIds: number[];
  let rowIds: number[];
  let users: number[];
  const db = () => server.service.database.db;

  before(async () => {
    server = await startTestServer();
    [alice] = (await seedUsers(db(), ['alice'])) as [number];
    groupIds = await seedGroups(db(), ['g1', 'g2']);
    const first = await insertTemplate(db(), {
      title: 'First',
      code: 'F',
      created_by: alice,
      groups: groupIds,
      users: [alice],
    });
    const second = await insertTemplate(db(), {
      title: 'Second',
      code: 'S',
      created_by: null,
      groups: [groupIds[0]!],
    });
    templateIds = [first.id, second.id];
    rowIds = [...first.groups, ...first.users, ...second.groups].map((r) => r.id);
    // Rows for the reference-model property: repeated, case-varied and null values.
    const [bob] = (await seedUsers(db(), ['bob'])) as [number];
    users = [alice, bob];
    for (let i = 0; i < 16; i++) {
      await insertTemplate(db(), {
        title: WORDS[i % WORDS.length]!,
        code: i % 4 === 0 ? null : WORDS[(i * 3) % WORDS.length]!,
        database_name: WORDS[(i * 5) % WORDS.length]!,
        active: [null, 'Y', 'N'][i % 3]!,
        created_by: [null, alice, bob][i % 3]!,
      });
    }
  });
  after(() => server.close());

  it('random list parameters, in the query string or a JSON body, answer JSON 2xx or 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        listInput,
        fc.constantFrom('body', 'json-query', 'bracket-query'),
        async (input, form) => {
          const reply =
            form === 'body'
              ? await httpRequest(server.url, 'GET', PATH, {
                  headers: server.defaultHeaders,
                  body: input,
                })
              : await server.get(`${PATH}?${asQuery(input, form === 'bracket-query')}`);
          assertAnswered(reply);
          if (reply.status === 200) {
            assert.ok(Array.isArray(reply.body.data));
            assert.deepEqual(Object.keys(reply.body.meta).sort(), [
              'current_page',
              'last_page',
              'per_page',
              'total',
            ]);
            assert.ok(reply.body.meta.per_page >= 1 && reply.body.meta.per_page <= 200);
            assert.ok(reply.body.meta.current_page >= 1);
          } else {
            assert.equal(reply.status, 422, reply.text);
          }
        },
      ),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('random valid filters select exactly the rows a reference model of the operators selects', async () => {
    const TEXT = ['title', 'code', 'database_name', 'active'] as const;
    const word = fc.oneof(
      fc.constantFrom(...WORDS, 'Y', 'N', 'e', 'É'),
      fc.string({ unit: fc.constantFrom(...PATTERN_CHARS), maxLength: 5 }),
    );
    const pattern = fc.string({
      unit: fc.constantFrom(...PATTERN_CHARS, '%', '%', '_'),
      maxLength: 6,
    });
    const operandFor = (column: string, op: string): fc.Arbitrary<unknown> => {
      const value: fc.Arbitrary<unknown> =
        column === 'created_by'
          ? fc.oneof(fc.constantFrom(...users), fc.integer({ min: -1, max: 9 }))
          : word;
      if (op === 'like' || op === 'not like') return pattern;
      if (op === 'in' || op === 'not in') return fc.array(value, { maxLength: 4 });
      if (op === 'null') return fc.boolean();
      return value;
    };
    const conditions = (column: string) =>
      fc
        .array(
          fc
            .constantFrom(...OPERATORS)
            .chain((op) => operandFor(column, op).map((operand) => [op, operand] as const)),
          { minLength: 1, maxLength: 3 },
        )
        .map((pairs) => Object.fromEntries(pairs));
    const filtersArb = fc.record(
      Object.fromEntries([...TEXT, 'created_by'].map((c) => [c, conditions(c)])) as Record<
        string,
        fc.Arbitrary<Record<string, unknown>>
      >,
      { requiredKeys: [] },
    );

    await fc.assert(
      fc.asyncProperty(filtersArb, fc.boolean(), async (filters, inBody) => {
        const stored = (await db().selectFrom('import_templates').selectAll().execute()) as Cells[];
        const expected = stored.filter((row) =>
          Object.entries(filters).every(([column, ops]) =>
            Object.entries(ops ?? {}).every(([op, operand]) =>
              holds(row[column] ?? null, op, operand),
            ),
          ),
        );
        const input = { filters, per_page: 200 };
        const reply = inBody
          ? await httpRequest(server.url, 'GET', PATH, {
              headers: server.defaultHeaders,
              body: input,
            })
          : await server.get(`${PATH}?${asQuery(input, false)}`);
        assertJson(reply, 200);
        const ids = (reply.body.data as Array<{ id: number }>)
          .map((r) => r.id)
          .sort((a, b) => a - b);
        assert.deepEqual(
          ids,
          expected.map((r) => Number(r.id)).sort((a, b) => a - b),
          JSON.stringify(filters),
        );
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('random write payloads answer JSON 2xx or 4xx, and a refused write changes no stored row', async () => {
    const often = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
      fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: bad, weight: 1 });
    const id = fc.oneof(fc.constantFrom(...rowIds), fc.integer({ min: -2, max: 100_000 }), nested);
    const row = (key: 'group_id' | 'user_id', values: number[]) =>
      fc.oneof(
        { arbitrary: fc.record({ [key]: fc.constantFrom(...values) }), weight: 4 },
        {
          arbitrary: fc.record(
            {
              id,
              [key]: often(fc.constantFrom(...values), nested),
              template_id: fc.oneof(fc.constantFrom(...templateIds), nested),
              junk: nested,
            },
            { requiredKeys: [] },
          ),
          weight: 2,
        },
        { arbitrary: nested, weight: 1 },
      );
    const details = (key: 'group_id' | 'user_id', values: number[]) =>
      fc.oneof(fc.constant(null), fc.array(row(key, values), { maxLength: 4 }), nested);
    const valid = templatePayload({ created_by: alice });
    const fields: Record<string, fc.Arbitrary<unknown>> = {
      ...Object.fromEntries(
        Object.entries(valid).map(([k, v]) => [k, often(fc.constant(v), nested)]),
      ),
      id: nested,
      created_at: nested,
      groups: details('group_id', groupIds),
      users: details('user_id', [alice]),
      unknown: nested,
    };
    const payload = fc.record(fields, { requiredKeys: ['title', 'database_name', 'mapping_json'] });
    const target = fc.oneof(
      { arbitrary: fc.constant({ method: 'POST', path: PATH }), weight: 2 },
      {
        arbitrary: fc.record({
          method: fc.constantFrom('PUT', 'PATCH'),
          path: fc.constantFrom(...templateIds).map((i) => `${PATH}/${i}`),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          method: fc.constantFrom('PUT', 'PATCH'),
          path: fc.constantFrom('999999', 'abc', '-1').map((i) => `${PATH}/${i}`),
        }),
        weight: 1,
      },
    );
    const body = often(payload, nested);

    await fc.assert(
      fc.asyncProperty(target, body, async ({ method, path }, sent) => {
        const before = await snapshot(db());
        const reply = await server.request(method, path, { body: sent });
        assertAnswered(reply);
        if (reply.status >= 400) {
          assert.deepEqual(
            await snapshot(db()),
            before,
            `${method} ${path} answered ${reply.status} but changed rows`,
          );
        } else {
          assert.equal(typeof reply.body.id, 'number');
        }
      }),
      { numRuns: RUNS, ...SEED },
    );
    // The seeded templates are still readable afterwards.
    for (const templateId of templateIds)
      assertJson(await server.get(`${PATH}/${templateId}`), 200);
  });
});
