// Issue 8: the same requests give byte-identical JSON bodies on SQLite, PostgreSQL and
// MariaDB/MySQL, ids and timestamps normalised. One server per engine, in this one process, each
// over a fresh database; the script covers writes with details, lists with filters, sorting,
// eager loads and counts, shows, validation and constraint errors, and notifications.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createTestDatabase,
  type TestDatabase,
  type TestEngine,
  testEngine,
} from '../helpers/engines.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SERVER_ENGINES: Array<{ engine: TestEngine; variable: string }> = [
  { engine: 'postgres', variable: 'TEST_POSTGRES_URL' },
  { engine: 'mysql', variable: 'TEST_MYSQL_URL' },
];
const missing = SERVER_ENGINES.filter((e) => !process.env[e.variable]).map((e) => e.variable);
// It compares all engines at once, so it runs in the SQLite pass only.
const skip =
  testEngine !== 'sqlite'
    ? 'runs once, in the SQLite pass (it starts a server per engine itself)'
    : missing.length > 0
      ? `${missing.join(' and ')} not set`
      : false;

const ISO = /"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g;

/** The body with every timestamp replaced (they differ by the clock, not by the engine). */
function normalised(text: string): string {
  return text.replace(ISO, '"<time>"');
}

/** Where two bodies part, with some context: bodies are long. */
function firstDifference(expected: string, actual: string): string {
  let i = 0;
  while (i < expected.length && expected[i] === actual[i]) i += 1;
  const from = Math.max(0, i - 120);
  return `sqlite: …${expected.slice(from, i + 120)}\nother:  …${actual.slice(from, i + 120)}`;
}

interface Step {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

const template = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  code: title.slice(0, 3).toUpperCase(),
  description: `About ${title} — ünïcödé`,
  database_name: 'erp',
  mapping_json: JSON.stringify({ columns: [{ source: 'a', target: 'b' }], title }),
  active: 'Y',
  groups: [{ group_id: 1 }, { group_id: 2 }],
  users: [{ user_id: 1 }],
  ...extra,
});

const LIST = '/api/import-templates';
const filters = (value: unknown) => `filters=${encodeURIComponent(JSON.stringify(value))}`;

const SCRIPT: Step[] = [
  { method: 'POST', path: '/api/groups', body: { name: 'Sales' } },
  { method: 'POST', path: '/api/groups', body: { name: 'Finance' } },
  { method: 'POST', path: '/api/groups', body: { name: 'ops' } },
  { method: 'POST', path: LIST, body: template('Bravo') },
  { method: 'POST', path: LIST, body: template('alpha', { active: 'N', code: null }) },
  {
    method: 'POST',
    path: LIST,
    body: template('Charlie', { groups: [], users: [{ user_id: 1 }, { user_id: 1 }] }),
  },
  { method: 'POST', path: LIST, body: template('Ábaco', { description: null }) },
  { method: 'POST', path: LIST, body: { title: '' } },
  { method: 'POST', path: LIST, body: template('Broken', { created_by: 999 }) },
  { method: 'GET', path: LIST },
  { method: 'GET', path: `${LIST}?sort=title&direction=desc&per_page=2&page=2` },
  { method: 'GET', path: `${LIST}?sort=code&direction=asc` },
  { method: 'GET', path: `${LIST}?sort=created_at&direction=desc` },
  { method: 'GET', path: `${LIST}?${filters({ title: { like: '%RAV%' } })}` },
  { method: 'GET', path: `${LIST}?${filters({ title: { like: '%áb%' } })}` },
  { method: 'GET', path: `${LIST}?${filters({ active: { '=': 'Y' }, code: { '!=': 'BRA' } })}` },
  { method: 'GET', path: `${LIST}?${filters({ created_by: { in: [1, 2] } })}&per_page=1&page=3` },
  { method: 'GET', path: `${LIST}?${filters({ code: { null: true } })}` },
  { method: 'GET', path: `${LIST}?${filters({ nope: { '=': 1 } })}` },
  { method: 'GET', path: `${LIST}/1` },
  { method: 'GET', path: `${LIST}/3` },
  { method: 'GET', path: `${LIST}/999` },
  {
    method: 'PATCH',
    path: `${LIST}/1`,
    body: { title: 'Bravo 2', groups: [{ id: 1, group_id: 3 }, { group_id: 1 }], users: [] },
  },
  { method: 'PUT', path: `${LIST}/2`, body: template('alpha again') },
  { method: 'PATCH', path: `${LIST}/1`, body: { groups: [{ id: 99, group_id: 1 }] } },
  {
    method: 'POST',
    path: '/api/import-template-logs',
    body: { template_id: 1, status: 'succeeded', rows_total: 10, rows_failed: 1, message: 'ok' },
  },
  { method: 'GET', path: `${LIST}/1` },
  { method: 'GET', path: '/api/import-template-logs' },
  { method: 'DELETE', path: `${LIST}/3` },
  { method: 'GET', path: `${LIST}/3` },
  {
    method: 'POST',
    path: '/api/notifications',
    body: {
      to: [1],
      title: 'Hi',
      message: 'there',
      level: 'success',
      action: { kind: 'url', url: 'https://example.test' },
    },
  },
  { method: 'GET', path: '/api/users' },
  { method: 'GET', path: '/api/units' },
  { method: 'DELETE', path: '/api/companies/1' },
];

describe('issue 8: the same requests give byte-identical JSON bodies on SQLite, PostgreSQL and MariaDB/MySQL', {
  skip,
}, () => {
  const servers: Array<{ engine: TestEngine; server: TestServer; database: TestDatabase }> = [];

  before(async () => {
    for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
      const database = await createTestDatabase(engine);
      const server = await startTestServer(database.url ? { DATABASE_URL: database.url } : {});
      servers.push({ engine, server, database });
    }
  });
  after(async () => {
    for (const { server, database } of servers) {
      await server.close();
      await database.drop();
    }
  });

  it('answers every step of the script with the same status and the same bytes', async () => {
    let succeeded = 0;
    for (const step of SCRIPT) {
      const replies = [];
      for (const { engine, server } of servers) {
        const reply = await server.request(
          step.method,
          step.path,
          step.body === undefined ? {} : { body: step.body },
        );
        replies.push({ engine, status: reply.status, body: normalised(reply.text) });
      }
      const [reference, ...others] = replies;
      assert.ok(reference);
      assert.ok(
        reference.status < 500,
        `${step.method} ${step.path}: ${reference.status} ${reference.body}`,
      );
      if (reference.status < 300) succeeded += 1;
      for (const other of others) {
        assert.equal(
          other.status,
          reference.status,
          `${step.method} ${step.path} status on ${other.engine}: ${other.body}`,
        );
        if (other.body !== reference.body)
          assert.fail(
            `${step.method} ${step.path}: ${other.engine} differs from sqlite\n${firstDifference(reference.body, other.body)}`,
          );
      }
    }
    // The script is mostly successful requests (the rest are deliberate refusals).
    assert.ok(succeeded >= 25, `only ${succeeded} steps succeeded`);
  });
});
