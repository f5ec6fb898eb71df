// Keyset cursors (issue 21 item 2): next_cursor / prev_cursor and the Link header, through the
// real server on every engine: walks over each sortable column with ties and NULLs give the
// offset pages' rows exactly once, cursors are tied to their filters and sort and signed with
// APP_SECRET, and a deep page by cursor runs what the first page runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const ROWS = 23;
const PER_PAGE = 4;
const SECRET = 'cursor-test-app-secret';

const q = (params: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;
const ids = (body: { data: Array<{ id: number }> }) => body.data.map((r) => r.id);
const filters = (value: unknown) => JSON.stringify(value);

describe('keyset cursors', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ APP_SECRET: SECRET });
    const at = (iso: string) => server.service.database.adapter.toTimestamp(new Date(iso));
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      // Ties: titles repeat every 5 rows; codes are NULL on every third row.
      title: `Title ${String.fromCharCode(65 + (i % 5))}`,
      code: i % 3 === 0 ? null : `C${String(i % 7).padStart(2, '0')}`,
      database_name: i % 2 === 0 ? 'erp' : 'crm',
      mapping_json: '{}',
      active: i % 2 === 0 ? 'Y' : 'N',
      created_at: at(`2024-01-${String(1 + (i % 9)).padStart(2, '0')}T00:00:00.000Z`),
      updated_at: at(`2024-02-${String(1 + (i % 4)).padStart(2, '0')}T00:00:00.000Z`),
    }));
    await server.service.database.db.insertInto('import_templates').values(rows).execute();
  });
  after(() => server.close());

  /** Every row's id in the list's order, read by offset pages. */
  async function byOffset(params: Record<string, string | number>): Promise<number[]> {
    const all: number[] = [];
    for (let page = 1; ; page += 1) {
      const reply = await server.get(q({ ...params, per_page: PER_PAGE, page }));
      assertJson(reply, 200);
      if (reply.body.data.length === 0) return all;
      all.push(...ids(reply.body));
    }
  }

  /** Walks next_cursor from the first page; returns the ids and the last answer. */
  async function walk(params: Record<string, string | number>) {
    const visited: number[] = [];
    let reply = await server.get(q({ ...params, per_page: PER_PAGE, cursor: '' }));
    const pages = [reply];
    for (;;) {
      assertJson(reply, 200);
      visited.push(...ids(reply.body));
      const next = reply.body.meta.next_cursor;
      if (next === null) break;
      reply = await server.get(q({ ...params, per_page: PER_PAGE, cursor: next }));
      pages.push(reply);
      assert.ok(pages.length <= ROWS, 'the walk ends');
    }
    return { visited, pages };
  }

  const orders: Array<Record<string, string>> = [
    {},
    { sort: 'title', direction: 'asc' },
    { sort: 'title', direction: 'desc' },
    { sort: 'code', direction: 'asc' },
    { sort: 'code', direction: 'desc' },
    { sort: 'created_at', direction: 'desc' },
    { sort: 'updated_at', direction: 'asc' },
    { sort: 'code', direction: 'asc', filters: filters({ active: { '=': 'Y' } }) },
    { sort: 'code', direction: 'desc', filters: filters({ title: { like: '%b%' } }) },
  ];

  it('next_cursor walks every sortable column (ties, NULL codes, both directions, filtered) over the rows of the offset pages, each once, in their order', async () => {
    for (const params of orders) {
      const expected = await byOffset(params);
      const { visited } = await walk(params);
      assert.deepEqual(visited, expected, JSON.stringify(params));
    }
  });

  it('prev_cursor walks back from the last page through the same pages in reverse', async () => {
    for (const params of orders) {
      const { pages } = await walk(params);
      const forward = pages.map((p) => ids(p.body)).filter((p) => p.length > 0);
      let reply = pages[pages.length - 1]!;
      const back = [ids(reply.body)];
      while (reply.body.meta.prev_cursor !== null) {
        reply = await server.get(
          q({ ...params, per_page: PER_PAGE, cursor: reply.body.meta.prev_cursor }),
        );
        assertJson(reply, 200);
        back.unshift(ids(reply.body));
      }
      assert.deepEqual(back, forward, JSON.stringify(params));
      assert.equal(reply.body.meta.prev_cursor, null, 'the first page has no previous one');
    }
  });

  it('every list answer carries a Link header with rel="next" and, past the first page, rel="prev"; following it gives the next page', async () => {
    const first = await server.get(q({ sort: 'title', per_page: PER_PAGE }));
    assertJson(first, 200);
    const link = first.headers.get('link') ?? '';
    assert.match(link, /^<\/api\/import-templates\?[^>]*cursor=[^>]+>; rel="next"$/);
    const nextTarget = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
    const second = await server.get(nextTarget);
    assertJson(second, 200);
    const byPage = await server.get(q({ sort: 'title', per_page: PER_PAGE, page: 2 }));
    assert.deepEqual(ids(second.body), ids(byPage.body));
    assert.match(second.headers.get('link') ?? '', /rel="next".*rel="prev"/);
    const last = await server.get(q({ sort: 'title', per_page: PER_PAGE, page: 6 }));
    assert.doesNotMatch(last.headers.get('link') ?? '', /rel="next"/);
    assert.match(last.headers.get('link') ?? '', /rel="prev"/);
  });

  it('the Link header stays within 4 KiB: with a 7 KB filter its links are left out, and the cursors stay in meta', async () => {
    // 7 KB of filter that every row passes.
    const long = { title: { 'not in': Array.from({ length: 550 }, (_, i) => `absent-${i}`) } };
    assert.ok(filters(long).length >= 7000, `${filters(long).length} characters`);
    const first = await server.get(q({ filters: filters(long), per_page: PER_PAGE, cursor: '' }));
    assertJson(first, 200);
    assert.equal(first.headers.get('link'), null);
    assert.equal(first.body.data.length, PER_PAGE);
    const next = first.body.meta.next_cursor;
    assert.equal(typeof next, 'string');
    const second = await server.get(
      q({ filters: filters(long), per_page: PER_PAGE, cursor: next }),
    );
    assertJson(second, 200);
    assert.equal(second.headers.get('link'), null);
    assert.equal(typeof second.body.meta.prev_cursor, 'string');
    // A filter of 1 KB keeps both links, each under the bound.
    const short = { title: { 'not in': Array.from({ length: 60 }, (_, i) => `absent-${i}`) } };
    const kept = await server.get(q({ filters: filters(short), per_page: PER_PAGE, page: 2 }));
    assertJson(kept, 200);
    const link = kept.headers.get('link') ?? '';
    assert.match(link, /rel="next".*rel="prev"/);
    assert.ok(link.length <= 4096, `${link.length} bytes`);
  });

  it('the default answer keeps SPEC.md 4.2 meta exactly; a cursor request adds next_cursor, prev_cursor, has_more and total_estimated, and current_page is null on a cursor page', async () => {
    const plain = await server.get(q({ per_page: PER_PAGE }));
    assert.deepEqual(plain.body.meta, {
      total: ROWS,
      per_page: PER_PAGE,
      current_page: 1,
      last_page: 6,
    });
    const start = await server.get(q({ per_page: PER_PAGE, cursor: '' }));
    assert.deepEqual(Object.keys(start.body.meta).sort(), [
      'current_page',
      'has_more',
      'last_page',
      'next_cursor',
      'per_page',
      'prev_cursor',
      'total',
      'total_estimated',
    ]);
    assert.equal(start.body.meta.prev_cursor, null);
    assert.equal(start.body.meta.has_more, true);
    const second = await server.get(q({ per_page: PER_PAGE, cursor: start.body.meta.next_cursor }));
    assert.equal(second.body.meta.current_page, null);
    assert.equal(second.body.meta.total, ROWS);
    assert.equal(typeof second.body.meta.prev_cursor, 'string');
  });

  it('a cursor sent with other filters or another sort is a 422 under cursor', async () => {
    const start = await server.get(
      q({
        sort: 'title',
        per_page: PER_PAGE,
        cursor: '',
        filters: filters({ active: { '=': 'Y' } }),
      }),
    );
    const cursor = start.body.meta.next_cursor as string;
    const reused: Array<Record<string, string>> = [
      { sort: 'title', filters: filters({ active: { '=': 'N' } }) },
      { sort: 'title' },
      { sort: 'code', filters: filters({ active: { '=': 'Y' } }) },
      { sort: 'title', direction: 'desc', filters: filters({ active: { '=': 'Y' } }) },
    ];
    for (const params of reused) {
      const reply = await server.get(q({ ...params, cursor }));
      assertJson(reply, 422, {
        message:
          'The cursor was made for other filters or another sort: send the ones it was made with.',
        errors: {
          cursor: [
            'The cursor was made for other filters or another sort: send the ones it was made with.',
          ],
        },
      });
    }
    // The same filters sent in the other form are the same list.
    const same = await server.get(
      `${PATH}?sort=title&filters[active][=]=Y&cursor=${encodeURIComponent(cursor)}`,
    );
    assertJson(same, 200);
  });

  it('a forged or altered cursor is a 422 under cursor', async () => {
    const start = await server.get(q({ per_page: PER_PAGE, cursor: '' }));
    const cursor = start.body.meta.next_cursor as string;
    const [body, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    decoded[4] = 1; // another key, same signature
    const altered = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    for (const forged of [altered, `${body}.AAAA${mac.slice(4)}`, 'not-a-cursor', `${body}`]) {
      const reply = await server.get(q({ per_page: PER_PAGE, cursor: forged }));
      assertJson(reply, 422, {
        message: 'The cursor is invalid: use a next_cursor or prev_cursor as answered.',
        errors: {
          cursor: ['The cursor is invalid: use a next_cursor or prev_cursor as answered.'],
        },
      });
    }
  });

  it('page and cursor together are a 422', async () => {
    const start = await server.get(q({ per_page: PER_PAGE, cursor: '' }));
    const reply = await server.get(
      q({ per_page: PER_PAGE, page: 2, cursor: start.body.meta.next_cursor }),
    );
    assertJson(reply, 422, {
      message: 'The cursor and page parameters cannot be sent together.',
      errors: { cursor: ['The cursor and page parameters cannot be sent together.'] },
    });
  });

  it('a cursor made by one instance is accepted by another sharing APP_SECRET and refused by one with another secret', async () => {
    const start = await server.get(q({ sort: 'code', per_page: PER_PAGE, cursor: '' }));
    const cursor = start.body.meta.next_cursor as string;
    const expected = await server.get(q({ sort: 'code', per_page: PER_PAGE, cursor }));
    for (const [secret, status] of [
      [SECRET, 200],
      ['another-secret', 422],
    ] as const) {
      const other = await startTestServer({ APP_SECRET: secret, DATABASE_URL: server.databaseUrl });
      try {
        const reply = await other.get(q({ sort: 'code', per_page: PER_PAGE, cursor }));
        assertJson(reply, status);
        if (status === 200) assert.deepEqual(ids(reply.body), ids(expected.body));
      } finally {
        await other.close();
      }
    }
  });

  it('a page read by cursor runs as many statements as the first page, however deep', async () => {
    const params = {
      sort: 'created_at',
      direction: 'desc',
      filters: filters({ active: { '=': 'Y' } }),
    };
    const statementsOf = async (target: string) => {
      await server.get(target); // compiled and prepared once
      const before = server.statements();
      assertJson(await server.get(target), 200);
      return server.statements() - before;
    };
    const first = await statementsOf(q({ ...params, per_page: 2, cursor: '' }));
    const { pages } = await walk(params);
    const deep = pages[pages.length - 2]!.body.meta.next_cursor as string;
    assert.equal(await statementsOf(q({ ...params, per_page: 2, cursor: deep })), first);
  });

  it('rows written before the cursor position do not shift the next page', async () => {
    const start = await server.get(q({ sort: 'title', per_page: PER_PAGE, cursor: '' }));
    const cursor = start.body.meta.next_cursor as string;
    const before = await server.get(q({ sort: 'title', per_page: PER_PAGE, cursor }));
    // Sorts before every row read so far: an OFFSET page would shift by one.
    const created = await server.post(PATH, {
      title: 'Title 0',
      database_name: 'erp',
      mapping_json: '{}',
    });
    assertJson(created, 201);
    const reply = await server.get(q({ sort: 'title', per_page: PER_PAGE, cursor }));
    assert.deepEqual(ids(reply.body), ids(before.body));
    await server.delete(`${PATH}/${created.body.id}`);
  });
});
