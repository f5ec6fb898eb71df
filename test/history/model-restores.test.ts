// Issue 35, DESIGN.md 3.11, model-based through the real server on every engine: random
// sequences of creates, updates (master fields, detail rows kept, changed, dropped and added)
// and deletes of import templates, and restores of random earlier revisions of any template
// ever created (a live one or a deleted one). The model is the list of every accepted write of
// each template with the record it answered (null for a delete). After each restore a show
// equals that revision's record exactly, detail row ids included (updated_at aside: the
// restore's own time); and after every command the template's history lists every write of it
// in order, newest first, each with the record its write answered.
//
// Size and replay (environment):
//   HISTORY_RESTORES=300  rounds (seeds HISTORY_SEED, + 1, ...) run until this many restores ran
//   HISTORY_COMMANDS=40   commands per sequence (about a third of them restores)
//   HISTORY_SEED=<n>      replays from that seed (printed on failure)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RESTORES = Number(process.env.HISTORY_RESTORES ?? 300);
const COMMANDS = Number(process.env.HISTORY_COMMANDS ?? 40);
const FIXED_SEED =
  process.env.HISTORY_SEED === undefined ? undefined : Number(process.env.HISTORY_SEED);

type Row = Record<string, unknown>;
type DetailRow = { id: number; template_id: number } & Row;

/** Every accepted write of one template, oldest first, with the record it answered. */
interface Written {
  readonly id: number;
  live: boolean;
  readonly writes: Array<{ action: string; record: Row | null }>;
}

type Command =
  | { kind: 'create'; title: string; groups: number[]; users: number[] }
  | {
      kind: 'update';
      pick: number;
      title: string | null;
      keep: boolean[];
      change: number[];
      add: number[];
    }
  | { kind: 'delete'; pick: number }
  | { kind: 'restore'; pick: number; revision: number };

const picks = fc.array(fc.nat(3), { maxLength: 3 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      title: fc.string({ minLength: 1, maxLength: 12 }).filter((t) => t.trim() !== ''),
      groups: picks,
      users: picks,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      pick: fc.nat(),
      title: fc.option(fc.string({ minLength: 1, maxLength: 12 }).filter((t) => t.trim() !== '')),
      keep: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      change: fc.array(fc.nat(3), { minLength: 6, maxLength: 6 }),
      add: picks,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('restore' as const),
      pick: fc.nat(),
      revision: fc.nat(),
    }),
  },
);

/** A record without what a restore sets to its own time. */
function restorable(record: Row | null): Row | null {
  if (record === null) return null;
  const { updated_at: _at, ...rest } = record;
  return rest;
}

describe('history and restore, model-based (issue 35, DESIGN.md 3.11)', () => {
  let server: TestServer;
  let groups: number[];
  let users: number[];

  before(async () => {
    server = await startTestServer();
    const { db } = server.service.database;
    groups = await seedGroups(db, ['h1', 'h2', 'h3', 'h4']);
    users = await seedUsers(db, ['hu1', 'hu2', 'hu3', 'hu4']);
  });
  after(() => server?.close());

  /** The template's whole history, page by page (oldest first). */
  async function historyOf(
    id: number,
  ): Promise<Array<{ seq: number; action: string; record: Row | null }>> {
    const all: Array<{ seq: number; action: string; record: Row | null }> = [];
    for (let before: number | null = null; ; ) {
      const reply = await server.get(
        `${PATH}/${id}/history?limit=100${before === null ? '' : `&before=${before}`}`,
      );
      assertJson(reply, 200);
      all.push(...reply.body.data);
      before = reply.body.meta.next;
      if (!reply.body.meta.has_more) return all.reverse();
    }
  }

  async function run(commands: readonly Command[]): Promise<number> {
    const written: Written[] = [];
    const live = () => written.filter((w) => w.live);
    let restores = 0;
    for (const c of commands) {
      let target: Written | undefined;
      if (c.kind === 'create') {
        const reply = await server.post(
          PATH,
          templatePayload({
            title: c.title,
            groups: c.groups.map((i) => ({ group_id: groups[i] })),
            users: c.users.map((i) => ({ user_id: users[i] })),
          }),
        );
        assertJson(reply, 201);
        target = {
          id: reply.body.id,
          live: true,
          writes: [{ action: 'created', record: reply.body }],
        };
        written.push(target);
      } else if (c.kind === 'update') {
        target = live()[c.pick % Math.max(1, live().length)];
        if (!target) continue;
        const current = target.writes[target.writes.length - 1]?.record as Row;
        const rows = [...(current.groups as DetailRow[]), ...(current.users as DetailRow[])];
        const kept = (relation: 'groups' | 'users', column: string, pool: number[]) =>
          (current[relation] as DetailRow[])
            .filter((row) => c.keep[rows.indexOf(row) % 6])
            .map((row) => ({ id: row.id, [column]: pool[c.change[rows.indexOf(row) % 6] ?? 0] }));
        const reply = await server.patch(`${PATH}/${target.id}`, {
          ...(c.title === null ? {} : { title: c.title }),
          groups: [
            ...kept('groups', 'group_id', groups),
            ...c.add.map((i) => ({ group_id: groups[i] })),
          ],
          users: kept('users', 'user_id', users),
        });
        assertJson(reply, 200);
        target.writes.push({ action: 'updated', record: reply.body });
      } else if (c.kind === 'delete') {
        target = live()[c.pick % Math.max(1, live().length)];
        if (!target) continue;
        assertJson(await server.delete(`${PATH}/${target.id}`), 200);
        target.live = false;
        target.writes.push({ action: 'deleted', record: null });
      } else {
        target = written[c.pick % Math.max(1, written.length)];
        if (!target) continue;
        const revisions = await historyOf(target.id);
        const candidates = revisions.filter((r) => r.record !== null);
        const chosen = candidates[c.revision % candidates.length];
        assert.ok(chosen, 'a template has a revision with a record');
        const reply = await server.post(`${PATH}/${target.id}/history/${chosen.seq}/restore`, {});
        assertJson(reply, target.live ? 200 : 201);
        const shown = await server.get(`${PATH}/${target.id}`);
        assertJson(shown, 200);
        assert.deepStrictEqual(
          restorable(shown.body),
          restorable(chosen.record),
          `a show after the restore of revision ${chosen.seq} equals its record`,
        );
        assert.deepStrictEqual(reply.body, shown.body);
        target.writes.push({ action: target.live ? 'updated' : 'created', record: reply.body });
        target.live = true;
        restores++;
      }
      const revisions = await historyOf(target.id);
      assert.deepStrictEqual(
        revisions.map(({ action, record }) => ({ action, record })),
        target.writes,
        `the history of template ${target.id} lists every write in order`,
      );
      for (let i = 1; i < revisions.length; i++)
        assert.ok((revisions[i - 1]?.seq ?? 0) < (revisions[i]?.seq ?? 0), 'seqs increase');
    }
    return restores;
  }

  it('after each restore of a random earlier revision a show equals its record (ids included), and the history lists every write in order', async () => {
    let total = 0;
    for (let seed = FIXED_SEED ?? Date.now() % 1_000_000; total < RESTORES; seed++) {
      let restores = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(command, { minLength: COMMANDS, maxLength: COMMANDS }),
            async (commands) => {
              restores += await run(commands);
            },
          ),
          { numRuns: 1, seed, endOnFailure: true, includeErrorInReport: true },
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`Replay: HISTORY_SEED=${seed}\n${message}`, { cause: error });
      }
      total += restores;
      if (FIXED_SEED !== undefined && restores === 0) break;
    }
    assert.ok(total >= RESTORES, `${total} restores ran`);
  });
});
