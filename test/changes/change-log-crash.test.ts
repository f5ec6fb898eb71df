// Issue 32: the change log survives a kill -9 of `svc serve` during a write load. A change is
// written in its write's transaction, so after a restart every write answered 2xx has its
// change, and no change lacks its write: each stored template at version V has exactly the
// changes of versions 1 to V (its create and each update, answered or cut off after its
// commit), and there is no change of a template that was never stored. On PostgreSQL and MySQL a
// change committed by a process killed before it numbered it gets its seq from the next read
// of the feed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Change } from '../../src/engine/changes/change.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { servedDatabase } from '../helpers/served-database.js';

const PATH = '/api/import-templates';
const CLIENTS = 8;
/** Writes answered 2xx before the kill. */
const KILL_AFTER = 60;

const keyOf = (id: unknown, action: string, version: unknown) => `${id} ${action} ${version}`;

describe('the change log across a kill -9 (issue 32)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-feed-crash-'));
  let server: ServeProcess | null = null;
  let dropDatabase = async () => {};

  after(async () => {
    if (server && !server.child.signalCode) await server.dispose();
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('kill -9 during writes: every answered write has its change, no change lacks its write', async () => {
    const served = await servedDatabase(dataDir, {
      name: 'feed crash',
      abilities: ['import-templates.read', 'import-templates.write'],
    });
    dropDatabase = served.drop;
    const { storage, send } = served;

    const live = await ServeProcess.start([], storage);
    server = live;
    const answered = new Set<string>();
    let killing: Promise<void> | null = null;
    const acknowledge = (key: string) => {
      answered.add(key);
      if (answered.size === KILL_AFTER && !killing) {
        live.signal('SIGKILL');
        killing = live.exited.then(() => undefined);
      }
    };
    /** A write's answer, or null once the server is being killed or gone. */
    const write = async (method: string, target: string, body: unknown) => {
      if (killing) return null;
      try {
        return await send(live.url, method, target, body);
      } catch {
        return null;
      }
    };
    const client = async (c: number) => {
      for (let n = 0; !killing; n++) {
        const created = await write('POST', PATH, {
          title: `crash c${c} n${n}`,
          database_name: 'erp',
          mapping_json: '{}',
        });
        if (!created) return;
        assert.equal(created.status, 201, created.text);
        acknowledge(keyOf(created.body.id, 'created', 1));
        for (let v = 2; v <= 3; v++) {
          const updated = await write('PATCH', `${PATH}/${created.body.id}`, {
            title: `crash c${c} n${n} v${v}`,
          });
          if (!updated) return;
          assert.equal(updated.status, 200, updated.text);
          acknowledge(
            keyOf(created.body.id, 'updated', JSON.parse(updated.headers.get('etag') ?? '0')),
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    assert.ok(killing, `the load ended before ${KILL_AFTER} writes were answered`);
    await killing;
    assert.equal(live.child.signalCode, 'SIGKILL');
    await live.dispose();

    server = await ServeProcess.start([], storage);
    const restarted = server;
    const changes: Change[] = [];
    for (let cursor = 0, more = true; more; ) {
      const page = await send(restarted.url, 'GET', `${PATH}/changes?after=${cursor}&limit=1000`);
      assert.equal(page.status, 200, page.text);
      changes.push(...(page.body.data as Change[]));
      cursor = page.body.meta.next;
      more = page.body.meta.has_more;
    }
    const seqs = changes.map((c) => c.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'seqs in order',
    );
    assert.equal(new Set(seqs).size, seqs.length, 'a seq twice');

    const fed = new Set(changes.map((c) => keyOf(c.id, c.action, c.version)));
    const missing = [...answered].filter((key) => !fed.has(key));
    assert.deepEqual(missing, [], 'answered writes without their change');

    // Every stored template at version V has exactly the changes of versions 1 to V.
    const listed = await send(restarted.url, 'GET', `${PATH}?per_page=1000`);
    assert.equal(listed.status, 200, listed.text);
    const stored = new Map<number, number>();
    for (const { id } of listed.body.data as Array<{ id: number }>) {
      const shown = await send(restarted.url, 'GET', `${PATH}/${id}`);
      stored.set(id, Number(JSON.parse(shown.headers.get('etag') ?? '0')));
    }
    const byTemplate = new Map<number, number[]>();
    for (const change of changes) {
      assert.ok(stored.has(Number(change.id)), `a change of template ${change.id}, never stored`);
      const list = byTemplate.get(Number(change.id)) ?? [];
      list.push(Number(change.version));
      byTemplate.set(Number(change.id), list);
    }
    for (const [id, version] of stored)
      assert.deepEqual(
        byTemplate.get(id),
        Array.from({ length: version }, (_, i) => i + 1),
        `template ${id} at version ${version}`,
      );
    assert.ok(changes.length >= KILL_AFTER);
  });
});
