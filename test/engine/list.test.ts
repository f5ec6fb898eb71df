// SPEC.md 4.2 (list) and DESIGN.md 3.5 (filter operators, filter forms, paging, direction),
// through the import-template resource of the real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson, httpRequest } from '../helpers/http.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { insertTemplate, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

/** A query string from flat pairs; keys may be `filters[col][op]`. */
function query(params: Record<string, string | number>): string {
  return (
    '?' +
    new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString()
  );
}

describe('SPEC 4.2 list', () => {
  let server: TestServer;
  // Titles sort the same way on every engine (one initial capital each); inserted out of order.
  let alpha: TemplateRecord,
    beta: TemplateRecord,
    gamma: TemplateRecord,
    delta: TemplateRecord,
    epsilon: TemplateRecord;

  const list = (
    items: TemplateRecord[],
    meta: Partial<{
      total: number;
      per_page: number;
      current_page: number;
      last_page: number;
    }> = {},
  ) => ({
    data: items,
    meta: { total: items.length, per_page: 15, current_page: 1, last_page: 1, ...meta },
  });

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    const [alice, bob] = await seedUsers(db, ['alice', 'bob']);
    const [g1, g2] = await seedGroups(db, ['g1', 'g2']);
    gamma = await insertTemplate(db, {
      title: 'Gamma',
      code: null,
      database_name: 'erp',
      active: 'Y',
      created_by: null,
      created_at: '2024-01-03T00:00:00.000Z',
      groups: [g1!, g2!],
    });
    alpha = await insertTemplate(db, {
      title: 'Alpha',
      code: 'A1',
      database_name: 'erp',
      active: 'Y',
      created_by: alice!,
      created_at: '2024-01-01T00:00:00.000Z',
      groups: [g1!],
      users: [alice!],
      logs: 2,
    });
    delta = await insertTemplate(db, {
      title: 'Delta',
      code: 'D4',
      database_name: 'hr',
      active: null,
      created_by: alice!,
      created_at: '2024-01-04T00:00:00.000Z',
    });
    beta = await insertTemplate(db, {
      title: 'Beta',
      code: 'B2',
      database_name: 'crm',
      active: 'N',
      created_by: bob!,
      created_at: '2024-01-02T00:00:00.000Z',
    });
    epsilon = await insertTemplate(db, {
      title: 'Epsilon',
      code: 'E5',
      database_name: 'crm',
      active: 'N',
      created_by: bob!,
      created_at: '2024-01-05T00:00:00.000Z',
      users: [bob!],
    });
  });
  after(() => server.close());

  it('4.2 answers 200 with data (full records with creator, details and counts) and meta total/per_page/current_page/last_page', async () => {
    assertJson(await server.get(PATH), 200, list([alpha, beta, delta, epsilon, gamma]));
  });

  it('4.2.1 a filter on a column that is not searchable is silently ignored', async () => {
    const reply = await server.get(
      PATH + query({ 'filters[description][=]': 'nothing matches', 'filters[id][bogus]': '1' }),
    );
    assertJson(reply, 200, list([alpha, beta, delta, epsilon, gamma]));
  });

  it('4.2.2 a sort column that is not sortable is silently ignored', async () => {
    const reply = await server.get(PATH + query({ sort: 'database_name', direction: 'desc' }));
    assertJson(reply, 200, list([alpha, beta, delta, epsilon, gamma]));
  });

  it('4.2.3 with no usable sort, defaultOrder (title asc) applies; a sortable column replaces it', async () => {
    assertJson(
      await server.get(PATH + query({ sort: '' })),
      200,
      list([alpha, beta, delta, epsilon, gamma]),
    );
    assertJson(
      await server.get(PATH + query({ sort: 'created_at', direction: 'desc' })),
      200,
      list([epsilon, delta, gamma, beta, alpha]),
    );
    assertJson(
      await server.get(PATH + query({ sort: 'created_at' })),
      200,
      list([alpha, beta, gamma, delta, epsilon]),
    );
  });

  it('4.2.4 each item carries the loaded creator, the detail rows and groups_count/users_count/logs_count', async () => {
    const reply = await server.get(PATH + query({ 'filters[code][=]': 'A1' }));
    assertJson(reply, 200, {
      data: [
        {
          ...alpha,
          creator: { id: alpha.created_by, login: 'alice', name: 'User alice' },
          groups: [
            { id: alpha.groups[0]!.id, template_id: alpha.id, group_id: alpha.groups[0]!.group_id },
          ],
          users: [{ id: alpha.users[0]!.id, template_id: alpha.id, user_id: alpha.created_by }],
          groups_count: 1,
          users_count: 1,
          logs_count: 2,
        },
      ],
      meta: { total: 1, per_page: 15, current_page: 1, last_page: 1 },
    });
  });

  describe('4.2.5 filter operators (DESIGN 3.5)', () => {
    it('= keeps rows equal to the operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[database_name][=]': 'erp' })),
        200,
        list([alpha, gamma]),
      );
    });

    it('!= keeps rows different from the operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[database_name][!=]': 'erp' })),
        200,
        list([beta, delta, epsilon]),
      );
    });

    it('< keeps rows below the operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][<]': 'Delta' })),
        200,
        list([alpha, beta]),
      );
    });

    it('<= keeps rows below or equal to the operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][<=]': 'Delta' })),
        200,
        list([alpha, beta, delta]),
      );
    });

    it('> keeps rows above the operand, numerically on an integer column even from a query string', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][>]': 'Delta' })),
        200,
        list([epsilon, gamma]),
      );
      assertJson(
        await server.get(PATH + query({ 'filters[created_by][>]': String(alpha.created_by) })),
        200,
        list([beta, epsilon]),
      );
    });

    it('>= keeps rows above or equal to the operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][>=]': 'Delta' })),
        200,
        list([delta, epsilon, gamma]),
      );
    });

    it('like matches a pattern with % and _, case-insensitively', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][like]': '%LPH%' })),
        200,
        list([alpha]),
      );
      assertJson(
        await server.get(PATH + query({ 'filters[title][like]': 'g_mma' })),
        200,
        list([gamma]),
      );
      assertJson(
        await server.get(PATH + query({ 'filters[title][LIKE]': 'BETA' })),
        200,
        list([beta]),
      );
    });

    it('like is case-insensitive beyond ASCII too', async () => {
      const db = server.service.database.db;
      const ecole = await insertTemplate(db, { title: 'École' });
      try {
        assertJson(
          await server.get(PATH + query({ 'filters[title][like]': 'éCOLE' })),
          200,
          list([ecole]),
        );
      } finally {
        await db.deleteFrom('import_templates').where('id', '=', ecole.id).execute();
      }
    });

    it('not like drops rows matching the pattern, case-insensitively', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][not like]': '%A' })),
        200,
        list([epsilon]),
      );
    });

    it('in keeps rows whose value is one of the array operand', async () => {
      assertJson(
        await server.get(
          PATH + query({ 'filters[code][in][0]': 'A1', 'filters[code][in][1]': 'E5' }),
        ),
        200,
        list([alpha, epsilon]),
      );
      assertJson(
        await server.get(PATH + query({ filters: JSON.stringify({ code: { in: [] } }) })),
        200,
        list([]),
      );
    });

    it('not in drops rows whose value is one of the array operand', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[database_name][not in][]': 'erp' })),
        200,
        list([beta, delta, epsilon]),
      );
    });

    it('null true keeps rows where the column is null, null false the others', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[code][null]': 'true' })),
        200,
        list([gamma]),
      );
      assertJson(
        await server.get(PATH + query({ filters: JSON.stringify({ active: { null: true } }) })),
        200,
        list([delta]),
      );
      assertJson(
        await server.get(PATH + query({ 'filters[active][null]': 'false' })),
        200,
        list([alpha, beta, epsilon, gamma]),
      );
    });
    it('= null and != null read as null true and false; <, <=, > and >= against null are a 422', async () => {
      assertJson(
        await server.get(PATH + query({ filters: JSON.stringify({ code: { '=': null } }) })),
        200,
        list([gamma]),
      );
      assertJson(
        await server.get(PATH + query({ filters: JSON.stringify({ active: { '!=': null } }) })),
        200,
        list([alpha, beta, epsilon, gamma]),
      );
      for (const op of ['<', '<=', '>', '>=']) {
        const message = `The filters.title value for "${op}" must be a string or a number.`;
        const body = { filters: { title: { [op]: null } } };
        assertJson(
          await httpRequest(server.url, 'GET', PATH, { headers: server.defaultHeaders, body }),
          422,
          { message, errors: { 'filters.title': [message] } },
        );
      }
    });
  });

  describe('filter forms (DESIGN 3.5)', () => {
    it('filters sent as a JSON string in the query', async () => {
      const reply = await server.get(
        PATH +
          query({
            filters: JSON.stringify({ database_name: { '=': 'crm' }, active: { '=': 'N' } }),
          }),
      );
      assertJson(reply, 200, list([beta, epsilon]));
    });

    it('filters sent as filters[col][op]=v in the query', async () => {
      assertJson(
        await server.get(
          PATH +
            query({
              'filters[database_name][=]': 'crm',
              'filters[created_by][=]': String(beta.created_by),
            }),
        ),
        200,
        list([beta, epsilon]),
      );
    });

    it('list input sent as a JSON body on GET, alike the query string', async () => {
      const body = {
        filters: { database_name: { in: ['erp', 'crm'] } },
        sort: 'created_at',
        direction: 'desc',
        per_page: 2,
        page: 2,
      };
      const reply = await httpRequest(server.url, 'GET', PATH, {
        headers: server.defaultHeaders,
        body,
      });
      assertJson(
        reply,
        200,
        list([beta, alpha], { total: 4, per_page: 2, current_page: 2, last_page: 2 }),
      );
    });

    it('several operators on one column are combined with AND', async () => {
      assertJson(
        await server.get(PATH + query({ 'filters[title][>=]': 'B', 'filters[title][<]': 'E' })),
        200,
        list([beta, delta]),
      );
      assertJson(
        await server.get(
          PATH +
            query({
              filters: JSON.stringify({
                title: { like: '%a', '!=': 'Alpha', 'not in': ['Gamma'] },
              }),
            }),
        ),
        200,
        list([beta, delta]),
      );
    });

    it('an unknown operator is a 422 under filters.<column>', async () => {
      assertJson(await server.get(PATH + query({ 'filters[title][~]': 'x' })), 422, {
        message: 'The filters.title operator "~" is not supported.',
        errors: { 'filters.title': ['The filters.title operator "~" is not supported.'] },
      });
    });

    it('a malformed operand is a 422 under filters.<column>', async () => {
      assertJson(await server.get(PATH + query({ 'filters[code][in]': 'A1' })), 422, {
        message: 'The filters.code value for "in" must be an array of at most 1000 values.',
        errors: {
          'filters.code': [
            'The filters.code value for "in" must be an array of at most 1000 values.',
          ],
        },
      });
      assertJson(
        await server.get(
          PATH + query({ 'filters[code][null]': 'maybe', 'filters[code][=][x]': '1' }),
        ),
        422,
        {
          message: 'The filters.code value for "null" must be true or false. (and 1 more error)',
          errors: {
            'filters.code': [
              'The filters.code value for "null" must be true or false.',
              'The filters.code value for "=" must be a string or a number.',
            ],
          },
        },
      );
    });

    it('a like pattern longer than 10000 characters is a 422 under filters.<column>, not a database error', async () => {
      const body = { filters: { title: { like: '%'.repeat(60_000) } } };
      const reply = await httpRequest(server.url, 'GET', PATH, {
        headers: server.defaultHeaders,
        body,
      });
      const message =
        'The filters.title value for "like" must not be greater than 10000 characters.';
      assertJson(reply, 422, { message, errors: { 'filters.title': [message] } });
    });

    it('a column whose conditions are not an object is a 422 under filters.<column>', async () => {
      assertJson(await server.get(PATH + query({ 'filters[title]': 'Alpha' })), 422, {
        message: 'The filters.title field must be an object of operator to operand.',
        errors: {
          'filters.title': ['The filters.title field must be an object of operator to operand.'],
        },
      });
    });

    it('a filters value that is not a JSON object is a 422 under filters', async () => {
      const expected = {
        message: 'The filters field must be a JSON object of column to {operator: operand}.',
        errors: {
          filters: ['The filters field must be a JSON object of column to {operator: operand}.'],
        },
      };
      assertJson(await server.get(PATH + query({ filters: '{"title":' })), 422, expected);
      assertJson(await server.get(PATH + query({ filters: '[1,2]' })), 422, expected);
      assertJson(
        await httpRequest(server.url, 'GET', PATH, {
          headers: server.defaultHeaders,
          body: { filters: 42 },
        }),
        422,
        expected,
      );
    });
  });

  describe('paging and direction (SPEC 4.2, 8; DESIGN 3.5)', () => {
    it('page and per_page select a slice; meta reports total, per_page, current_page and last_page', async () => {
      assertJson(
        await server.get(PATH + query({ per_page: 2, page: 2 })),
        200,
        list([delta, epsilon], { total: 5, per_page: 2, current_page: 2, last_page: 3 }),
      );
      assertJson(
        await server.get(PATH + query({ per_page: 2, page: 3 })),
        200,
        list([gamma], { total: 5, per_page: 2, current_page: 3, last_page: 3 }),
      );
    });

    it('a page past the last one is empty and keeps the requested current_page', async () => {
      assertJson(
        await server.get(PATH + query({ per_page: 2, page: 9 })),
        200,
        list([], { total: 5, per_page: 2, current_page: 9, last_page: 3 }),
      );
    });

    it('a per_page that is not a positive integer falls back to the default (15)', async () => {
      const all = [alpha, beta, delta, epsilon, gamma];
      for (const perPage of ['abc', '0', '-3', '2.5', '']) {
        assertJson(await server.get(PATH + query({ per_page: perPage })), 200, list(all));
      }
      for (const perPage of [0, -3, 2.5, '2x', null, [2], { n: 2 }]) {
        const reply = await httpRequest(server.url, 'GET', PATH, {
          headers: server.defaultHeaders,
          body: { per_page: perPage },
        });
        assertJson(reply, 200, list(all));
      }
    });

    it('a per_page above maxPerPage (200) is capped', async () => {
      assertJson(
        await server.get(PATH + query({ per_page: 1000 })),
        200,
        list([alpha, beta, delta, epsilon, gamma], { per_page: 200 }),
      );
      assertJson(
        await server.get(PATH + query({ per_page: '99999999999999999999999' })),
        200,
        list([alpha, beta, delta, epsilon, gamma], { per_page: 200 }),
      );
    });

    it('a page below 1 becomes 1, a page that is not an integer is 1', async () => {
      for (const page of ['0', '-5', 'abc', '1.5']) {
        assertJson(
          await server.get(PATH + query({ page, per_page: 2 })),
          200,
          list([alpha, beta], { total: 5, per_page: 2, last_page: 3 }),
        );
      }
    });

    it('a direction other than desc is asc', async () => {
      for (const direction of ['asc', 'sideways', 'descending', '']) {
        assertJson(
          await server.get(PATH + query({ sort: 'created_at', direction })),
          200,
          list([alpha, beta, gamma, delta, epsilon]),
        );
      }
    });

    it('HEAD on the list answers 200 with the JSON content type and no body', async () => {
      const reply = await server.request('HEAD', PATH);
      assertJson(reply, 200);
      assert.equal(reply.text, '');
    });
  });
});
