// Issue 32 item 2, DESIGN.md 3.9 "Order": changes become visible in seq order, whatever the
// number of concurrent writers and instances. Many writers at once, on two instances sharing one
// database, while a reader walks `after` without pause: the reader never sees a seq at or below
// one it has already passed, and at the end it has every answered write's change exactly once.
// A sequence or AUTO_INCREMENT seq taken before commit fails this on PostgreSQL and MariaDB: a
// writer that took seq N commits after one that took N + 1, and a reader already past N + 1
// never sees N.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Change } from '../../src/engine/changes/change.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const WRITERS = Number(process.env.FEED_WRITERS ?? 12);
const WRITES_PER_WRITER = Number(process.env.FEED_WRITES ?? 25);

/** What an answered write must have left in the feed: `<id> <action> <version>`. */
type Expected = string;
const keyOf = (id: unknown, action: string, version: unknown) => `${id} ${action} ${version}`;

describe('the feed in commit order with concurrent writers on two instances (issue 32)', () => {
  let first: TestServer;
  let second: TestServer;
  let group: number;

  before(async () => {
    first = await startTestServer();
    // The second instance works on the first one's database.
    second = await startTestServer({ ...first.storageEnv, DATA_DIR: first.dataDir });
    [group] = (await seedGroups(first.service.database.db, ['g'])) as [number];
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it('a reader walking after without pause never sees a seq below one it passed, and ends with every answered write exactly once', async () => {
    const start = Number((await first.get(PATH)).headers.get('changes-seq'));
    const expected: Expected[] = [];
    let writing = true;

    /** One writer: creates a template, updates it a few times (details too), deletes it. */
    const writer = async (n: number) => {
      const server = n % 2 === 0 ? first : second;
      let id: number | null = null;
      for (let i = 0; i < WRITES_PER_WRITER; i++) {
        if (id === null) {
          const created = await server.post(
            PATH,
            templatePayload({ title: `W${n}.${i}`, groups: [{ group_id: group }] }),
          );
          assertJson(created, 201);
          id = created.body.id as number;
          expected.push(keyOf(id, 'created', 1));
        } else if (i % 7 === 6) {
          assertJson(await server.delete(`${PATH}/${id}`), 200);
          expected.push(keyOf(id, 'deleted', null));
          id = null;
        } else {
          const updated = await server.patch(`${PATH}/${id}`, {
            title: `W${n}.${i}`,
            groups: i % 2 === 0 ? [] : [{ group_id: group }],
          });
          assertJson(updated, 200);
          expected.push(keyOf(id, 'updated', JSON.parse(updated.headers.get('etag') ?? 'null')));
        }
      }
    };

    const seen: Change[] = [];
    let passed = start;
    let pages = 0;
    /** Reads the pages after `passed` until one ends the feed; answers whether it read any. */
    const readOn = async (): Promise<void> => {
      const reply = await first.get(`${PATH}/changes?after=${passed}&limit=7`);
      assertJson(reply, 200);
      pages++;
      for (const change of reply.body.data as Change[]) {
        assert.ok(
          change.seq > passed,
          `seq ${change.seq} answered after the reader had passed ${passed}`,
        );
        passed = change.seq;
        seen.push(change);
      }
      assert.ok(reply.body.meta.next >= passed, 'next goes back');
      passed = reply.body.meta.next;
    };
    const reader = async () => {
      while (writing) await readOn();
    };

    const reading = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    writing = false;
    await reading;
    // Caught up: the last page of a finished feed.
    for (let more = true; more; ) {
      const before = seen.length;
      await readOn();
      more = seen.length > before;
    }

    const got = seen.map((c) => keyOf(c.id, c.action, c.version));
    assert.equal(new Set(seen.map((c) => c.seq)).size, seen.length, 'a seq answered twice');
    assert.deepEqual(got.slice().sort(), expected.slice().sort());
    assert.ok(pages > 3, `the reader read ${pages} pages while the writers wrote`);
  });
});
