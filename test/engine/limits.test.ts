// SPEC.md 8: page size default and cap, minimum page, title length, and whitelisted columns
// only for filters and sorting (others are ignored and never become query text).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { insertTemplate, snapshot, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const COUNT = 210;

describe('SPEC 8 limits', () => {
  let server: TestServer;
  const records: TemplateRecord[] = [];
  const db = () => server.service.database.db;

  before(async () => {
    server = await startTestServer();
    for (let i = COUNT; i >= 1; i--) {
      records.unshift(
        await insertTemplate(db(), { title: `T${String(i).padStart(3, '0')}`, code: `C${i}` }),
      );
    }
  });
  after(() => server.close());

  it('8 the default page size (perPage) is 15', async () => {
    assertJson(await server.get(PATH), 200, {
      data: records.slice(0, 15),
      meta: { total: COUNT, per_page: 15, current_page: 1, last_page: 14 },
    });
  });

  it('8 the maximum page size (maxPerPage) is 200; larger per_page values are capped', async () => {
    assertJson(await server.get(`${PATH}?per_page=201`), 200, {
      data: records.slice(0, 200),
      meta: { total: COUNT, per_page: 200, current_page: 1, last_page: 2 },
    });
    assertJson(await server.get(`${PATH}?per_page=100000&page=2`), 200, {
      data: records.slice(200),
      meta: { total: COUNT, per_page: 200, current_page: 2, last_page: 2 },
    });
  });

  it('8 the minimum page is 1; smaller values become 1', async () => {
    for (const page of ['1', '0', '-1', '-99999']) {
      assertJson(await server.get(`${PATH}?per_page=3&page=${page}`), 200, {
        data: records.slice(0, 3),
        meta: { total: COUNT, per_page: 3, current_page: 1, last_page: 70 },
      });
    }
  });

  it('8 a title has at most 200 characters, on create and on update', async () => {
    const longest = 'é'.repeat(199) + '😀'; // 200 characters, more bytes
    const created = await server.post(PATH, templatePayload({ title: longest }));
    assertJson(created, 201);
    assert.equal(created.body.title, longest);
    const tooLong = {
      message: 'The title field must not be greater than 200 characters.',
      errors: { title: ['The title field must not be greater than 200 characters.'] },
    };
    const before = await snapshot(db());
    assertJson(await server.post(PATH, templatePayload({ title: 't'.repeat(201) })), 422, tooLong);
    assertJson(
      await server.put(`${PATH}/${created.body.id}`, { title: longest + 'x' }),
      422,
      tooLong,
    );
    assertJson(
      await server.patch(`${PATH}/${created.body.id}`, { title: 't'.repeat(1000) }),
      422,
      tooLong,
    );
    assert.deepEqual(await snapshot(db()), before);
    const updated = await server.patch(`${PATH}/${created.body.id}`, { title: 't'.repeat(200) });
    assertJson(updated, 200);
    assert.equal(updated.body.title, 't'.repeat(200));
    assertJson(await server.delete(`${PATH}/${created.body.id}`), 200, {
      message: 'Resource deleted successfully',
    });
  });

  it('8 only whitelisted columns are filterable or sortable; others are ignored and never become query text', async () => {
    const firstPage = {
      data: records.slice(0, 15),
      meta: { total: COUNT, per_page: 15, current_page: 1, last_page: 14 },
    };
    const before = await snapshot(db());
    const hostile = [
      `sort=${encodeURIComponent('title; drop table import_templates; --')}`,
      `sort=${encodeURIComponent('(select 1)')}&direction=${encodeURIComponent('desc; drop table import_templates')}`,
      `sort=description&direction=desc`,
      `sort=id&direction=desc`,
      `filters${encodeURIComponent('[title) or (1=1][=]')}=x`,
      `filters=${encodeURIComponent(JSON.stringify({ 'title = title or 1': { '=': 1 }, mapping_json: { like: '%' }, id: { '>': 5 } }))}`,
    ];
    for (const query of hostile) assertJson(await server.get(`${PATH}?${query}`), 200, firstPage);
    // An operand is always a bound value, whatever it contains.
    const noMatch = { data: [], meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 } };
    assertJson(
      await server.get(`${PATH}?filters[title][=]=${encodeURIComponent("x' or '1'='1")}`),
      200,
      noMatch,
    );
    assertJson(
      await server.get(`${PATH}?filters[code][in][]=${encodeURIComponent("C1') or ('1'='1")}`),
      200,
      noMatch,
    );
    assertJson(
      await server.get(`${PATH}?filters[title][like]=${encodeURIComponent("%' or '1'='1")}`),
      200,
      noMatch,
    );
    // An operator is never query text either: anything outside the list is refused.
    assertJson(
      await server.get(`${PATH}?filters[title][${encodeURIComponent('= 1 or 1 =')}]=1`),
      422,
      {
        message: 'The filters.title operator "= 1 or 1 =" is not supported.',
        errors: { 'filters.title': ['The filters.title operator "= 1 or 1 =" is not supported.'] },
      },
    );
    assert.deepEqual(await snapshot(db()), before);
  });
});
