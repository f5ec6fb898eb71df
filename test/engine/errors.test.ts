// SPEC.md 7 (the rows that do not depend on authentication: 404s, 422 format, 500) and the
// bodies DESIGN.md 3.5 decides (400 malformed JSON, 413 too large, 415 media type, unmatched
// route). Every error body is JSON, never an HTML page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { insertTemplate, snapshot, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RESOURCE_NOT_FOUND = { error: 'Resource not found' };
const NOT_FOUND = { error: 'Not found' };
const BODY_LIMIT = 2048;

// A resource whose transformer throws: the one way to reach an unhandled exception on purpose.
const fxTemplate = defineEntity({
  name: 'FxErrorsTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'database_name', 'mapping_json'],
  fillable: ['title', 'database_name', 'mapping_json'],
});
const throwing = defineResource({
  model: fxTemplate,
  transformers: {
    title: () => {
      throw new TypeError('transformer exploded');
    },
  },
});

describe('SPEC 7 errors', () => {
  let server: TestServer;
  let plain: FixtureApp;
  let debug: FixtureApp;
  let existing: TemplateRecord;

  before(async () => {
    server = await startTestServer({ BODY_LIMIT: String(BODY_LIMIT) });
    existing = await insertTemplate(server.service.database.db, { title: 'Existing' });
    plain = await startFixtureApp(server.service.database, [
      { path: '/api/fx-throwing', resource: throwing },
    ]);
    debug = await startFixtureApp(
      server.service.database,
      [{ path: '/api/fx-throwing', resource: throwing }],
      { APP_DEBUG: 'true' },
    );
  });
  after(async () => {
    await debug.close();
    await plain.close();
    await server.close();
  });

  describe('404', () => {
    it('7 show, update or delete of a primary key that does not exist answers 404 {error: Resource not found}', async () => {
      assertJson(await server.get(`${PATH}/999999`), 404, RESOURCE_NOT_FOUND);
      assertJson(await server.put(`${PATH}/999999`, { title: 'x' }), 404, RESOURCE_NOT_FOUND);
      assertJson(await server.patch(`${PATH}/999999`, { title: 'x' }), 404, RESOURCE_NOT_FOUND);
      assertJson(await server.delete(`${PATH}/999999`), 404, RESOURCE_NOT_FOUND);
    });

    it('7 (DESIGN 3.5) a non-numeric id is a 404 Resource not found', async () => {
      for (const id of [
        'abc',
        '1abc',
        '1.5',
        '-1',
        '1e2',
        '0x1',
        '9999999999999999999999',
        encodeURIComponent("1' or '1'='1"),
      ]) {
        assertJson(await server.get(`${PATH}/${id}`), 404, RESOURCE_NOT_FOUND);
        assertJson(await server.delete(`${PATH}/${id}`), 404, RESOURCE_NOT_FOUND);
      }
      assertJson(await server.get(`${PATH}/${existing.id}`), 200, existing);
    });

    it('7 any unmatched route under /api/* answers 404 JSON {error: Not found}, never an HTML page', async () => {
      const html = { headers: { accept: 'text/html' } };
      assertJson(await server.get('/api/no-such-resource'), 404, NOT_FOUND);
      assertJson(await server.get('/api/no-such-resource', html), 404, NOT_FOUND);
      assertJson(await server.post('/api/no-such-resource', { a: 1 }), 404, NOT_FOUND);
      assertJson(await server.get('/api'), 404, NOT_FOUND);
      assertJson(await server.get(`${PATH}/${existing.id}/extra/segments`), 404, NOT_FOUND);
      assertJson(await server.patch(PATH, { title: 'x' }), 404, NOT_FOUND);
      assertJson(await server.delete(PATH), 404, NOT_FOUND);
      assertJson(await server.request('OPTIONS', PATH), 404, NOT_FOUND);
    });
  });

  describe('422', () => {
    it('7 a failed validation answers 422 {message, errors}', async () => {
      const reply = await server.post(PATH, templatePayload({ title: 'x'.repeat(201) }));
      assertJson(reply, 422, {
        message: 'The title field must not be greater than 200 characters.',
        errors: { title: ['The title field must not be greater than 200 characters.'] },
      });
    });

    it('7.1 message is the first error, with the suffix " (and N more errors)" when more follow', async () => {
      assertJson(await server.post(PATH, templatePayload({ database_name: '' })), 422, {
        message: 'The database name field is required.',
        errors: { database_name: ['The database name field is required.'] },
      });
      assertJson(
        await server.post(PATH, templatePayload({ database_name: '', mapping_json: '{' })),
        422,
        {
          message: 'The database name field is required. (and 1 more error)',
          errors: {
            database_name: ['The database name field is required.'],
            mapping_json: ['The mapping json field must be a valid JSON string.'],
          },
        },
      );
      assertJson(
        await server.post(
          PATH,
          templatePayload({
            code: 'c'.repeat(101),
            database_name: '',
            mapping_json: '{',
            active: 'maybe',
          }),
        ),
        422,
        {
          message: 'The code field must not be greater than 100 characters. (and 3 more errors)',
          errors: {
            code: ['The code field must not be greater than 100 characters.'],
            database_name: ['The database name field is required.'],
            mapping_json: ['The mapping json field must be a valid JSON string.'],
            active: ['The selected active is invalid.'],
          },
        },
      );
    });

    it('7.2 errors maps every failing field to its messages, field names written with spaces', async () => {
      const reply = await server.post(
        PATH,
        templatePayload({
          csv_model_path: 'p'.repeat(501),
          import_mode: 'm'.repeat(51),
          mapping_json: '',
        }),
      );
      assertJson(reply, 422, {
        message: 'The mapping json field is required. (and 2 more errors)',
        errors: {
          mapping_json: ['The mapping json field is required.'],
          csv_model_path: ['The csv model path field must not be greater than 500 characters.'],
          import_mode: ['The import mode field must not be greater than 50 characters.'],
        },
      });
    });

    it('7.3 a body with an empty title yields errors for title, database_name and mapping_json', async () => {
      const before = await snapshot(server.service.database.db);
      assertJson(await server.post(PATH, { title: '' }), 422, {
        message: 'The title field is required. (and 2 more errors)',
        errors: {
          title: ['The title field is required.'],
          database_name: ['The database name field is required.'],
          mapping_json: ['The mapping json field is required.'],
        },
      });
      assert.deepEqual(await snapshot(server.service.database.db), before);
    });
  });

  describe('500', () => {
    it('7 an unhandled exception answers 500 {message: Server Error}, never an HTML page', async () => {
      const serverError = { message: 'Server Error' };
      assertJson(await plain.get('/api/fx-throwing'), 500, serverError);
      assertJson(
        await plain.get(`/api/fx-throwing/${existing.id}`, { headers: { accept: 'text/html' } }),
        500,
        serverError,
      );
      // The answer is built inside the write's transaction, so the failed create stored nothing.
      const before = await snapshot(server.service.database.db);
      assertJson(
        await plain.post('/api/fx-throwing', {
          title: 'boom',
          database_name: 'd',
          mapping_json: '{}',
        }),
        500,
        serverError,
      );
      assert.deepEqual(await snapshot(server.service.database.db), before);
    });

    it('7 with APP_DEBUG=true the 500 body adds the exception and its stack trace', async () => {
      const reply = await debug.get(`/api/fx-throwing/${existing.id}`);
      assertJson(reply, 500);
      assert.deepEqual(Object.keys(reply.body).sort(), ['exception', 'message', 'trace']);
      assert.equal(reply.body.message, 'transformer exploded');
      assert.equal(reply.body.exception, 'TypeError');
      assert.ok(Array.isArray(reply.body.trace) && reply.body.trace.length > 0);
      for (const line of reply.body.trace) assert.match(line, /^at /);
      assert.ok(
        reply.body.trace.some((line: string) => line.includes('errors.test.ts')),
        'the trace reaches the throwing transformer',
      );
    });
  });

  describe('DESIGN 3.5 bodies the spec leaves open', () => {
    it('malformed JSON answers 400 {message}', async () => {
      const expected = { message: 'The request body is not valid JSON.' };
      assertJson(await server.request('POST', PATH, { raw: '{"title": ' }), 400, expected);
      assertJson(
        await server.request('PUT', `${PATH}/${existing.id}`, { raw: "{'title': 'x'}" }),
        400,
        expected,
      );
      // An empty body is not malformed JSON but no body (DESIGN 3.5): test/http/empty-body.test.ts.
      assertJson(await server.get(`${PATH}/${existing.id}`), 200, existing);
    });

    it('a JSON body with a __proto__ or constructor.prototype key is data, not malformed JSON (test/http/edges.test.ts)', async () => {
      for (const raw of [
        '{"__proto__": {"admin": "Y"}}',
        '{"title": "", "constructor": {"prototype": {"admin": "Y"}}}',
      ]) {
        const reply = await server.request('POST', PATH, { raw });
        assertJson(reply, 422);
        assert.ok('title' in reply.body.errors, reply.text);
      }
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });

    it('a JSON body that is not an object answers 400 {message}', async () => {
      for (const body of [[templatePayload()], 'text', 42, null]) {
        assertJson(await server.request('POST', PATH, { raw: JSON.stringify(body) }), 400, {
          message: 'The request body must be a JSON object.',
        });
      }
    });

    it('a body larger than BODY_LIMIT answers 413 {message}', async () => {
      const before = await snapshot(server.service.database.db);
      const reply = await server.post(
        PATH,
        templatePayload({ description: 'd'.repeat(BODY_LIMIT) }),
      );
      assertJson(reply, 413, { message: `The request body is larger than ${BODY_LIMIT} bytes.` });
      assert.deepEqual(await snapshot(server.service.database.db), before);
    });

    it('a body that is not JSON answers 415 {message}', async () => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'text/html; charset=utf-8',
      ]) {
        const reply = await server.request('POST', PATH, {
          raw: 'title=x',
          headers: { 'content-type': type },
        });
        assertJson(reply, 415, {
          message: `Unsupported media type "${type.split(';')[0]}": send application/json.`,
        });
      }
    });
  });
});
