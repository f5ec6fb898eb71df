// SPEC.md 5.1.1 and DESIGN.md 3.5: tokens are `svc_api_` + random base62 + a checksum, stored as
// a SHA-256 hash only (the clear token is never kept), and `last_used_at` is written at most once
// a minute.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer, issue } from '../helpers/bearer.js';
import { testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SHAPE = /^svc_api_[0-9A-Za-z]{38}$/;

describe('API token storage', () => {
  let server: TestServer;
  let now = Date.parse('2030-06-01T12:00:00.000Z');
  const plains: string[] = [];
  before(async () => {
    server = await startTestServer({}, { clock: () => now });
    // The harness's admin token, plus a few more; each is used once so last_used_at is written too.
    plains.push(server.defaultHeaders.authorization?.replace(/^Bearer /, '') ?? '');
    for (let i = 0; i < 3; i++)
      plains.push((await issue(server, { abilities: ['import-templates.read'] })).token);
    for (const token of plains)
      assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
  });
  after(() => server.close());

  it('issues tokens of the form svc_api_<random><checksum>, all different', () => {
    for (const token of plains) assert.match(token, SHAPE);
    assert.equal(new Set(plains).size, plains.length);
  });

  it('never holds a clear token in any column of any row of api_tokens', async () => {
    const rows = await server.service.database.db.selectFrom('api_tokens').selectAll().execute();
    assert.equal(rows.length, plains.length);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text =
          value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : String(value);
        for (const plain of plains) {
          assert.ok(!text.includes(plain), `api_tokens.${column} holds a clear token`);
          assert.ok(
            !text.includes(plain.slice('svc_api_'.length)),
            `api_tokens.${column} holds a token's secret part`,
          );
        }
      }
    }
  });

  it('stores the SHA-256 hash of each token', async () => {
    const rows = await server.service.database.db
      .selectFrom('api_tokens')
      .select('token_hash')
      .orderBy('id')
      .execute();
    assert.deepStrictEqual(
      rows.map((r) => r.token_hash),
      plains.map((plain) => createHash('sha256').update(plain).digest('hex')),
    );
  });

  const serverEngine =
    testEngine !== 'sqlite' &&
    'the files belong to the database server here; the column check above covers this engine';
  it('never writes a clear token into the database files', { skip: serverEngine }, () => {
    const files = fs.readdirSync(server.dataDir).filter((f) => f.startsWith('svc.sqlite'));
    assert.ok(files.length > 0);
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(server.dataDir, file)).toString('latin1');
      for (const plain of plains)
        assert.ok(!bytes.includes(plain.slice('svc_api_'.length)), `${file} holds a clear token`);
    }
  });

  it('writes last_used_at on use, at most once a minute', async () => {
    const { token, id } = await issue(server, { abilities: ['import-templates.read'] });
    const lastUsed = async () => {
      const row = await server.service.database.db
        .selectFrom('api_tokens')
        .select('last_used_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return row.last_used_at == null ? null : new Date(String(row.last_used_at)).getTime();
    };
    assert.equal(await lastUsed(), null);
    const first = now;
    await server.get('/api/import-templates', { headers: bearer(token) });
    assert.equal(await lastUsed(), first);
    now = first + 59_999;
    await server.get('/api/import-templates', { headers: bearer(token) });
    assert.equal(await lastUsed(), first);
    now = first + 60_000;
    await server.get('/api/import-templates', { headers: bearer(token) });
    assert.equal(await lastUsed(), first + 60_000);
  });
});
