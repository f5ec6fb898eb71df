// What a revision costs (issue 35, docs/api.md "History"): one import template with 3 groups
// and 2 users written --writes times through the real server (each write a new title and one
// group row replaced), then the stored size of its revisions (the record snapshot and the
// changes, in bytes of JSON text) and the time of GET .../history?before=<seq>&limit=1 that
// answers its oldest revision (the --writes-th back), against the newest, median of --reads.
//   npx tsx bench/history-depth.ts [--writes 1000] [--reads 200]
// The engine is the tests' (SVC_TEST_ENGINE with TEST_POSTGRES_URL / TEST_MYSQL_URL).
import { performance } from 'node:perf_hooks';
import { seedGroups, seedUsers, templatePayload } from '../test/helpers/seed.js';
import { startTestServer } from '../test/helpers/test-server.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return Number(i >= 0 ? (argv[i + 1] ?? fallback) : fallback);
};
const writes = arg('writes', '1000');
const reads = arg('reads', '200');

const server = await startTestServer();
try {
  const { db } = server.service.database;
  const groups = await seedGroups(db, ['g1', 'g2', 'g3', 'g4']);
  const users = await seedUsers(db, ['u1', 'u2']);
  const created = await server.post(
    '/api/import-templates',
    templatePayload({
      groups: groups.slice(0, 3).map((group_id) => ({ group_id })),
      users: users.map((user_id) => ({ user_id })),
    }),
  );
  const id = created.body.id as number;
  let rows = created.body.groups as Array<{ id: number; group_id: number }>;
  for (let i = 1; i < writes; i++) {
    const [first, ...rest] = rows;
    const reply = await server.patch(`/api/import-templates/${id}`, {
      title: `Title ${i}`,
      groups: [...rest, { group_id: first?.group_id === groups[3] ? groups[0] : groups[3] }],
    });
    rows = reply.body.groups;
  }
  const sizes = await db
    .selectFrom('svc_changes')
    .select(['seq', 'record', 'changes'])
    .where('record_id', '=', String(id))
    .orderBy('seq')
    .execute();
  const bytes = sizes.map(
    (r) => Buffer.byteLength(String(r.record ?? '')) + Buffer.byteLength(String(r.changes)),
  );
  const record = sizes.map((r) => Buffer.byteLength(String(r.record ?? '')));
  const oldest = Number(sizes[0]?.seq);
  const median = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < reads; i++) {
      const start = performance.now();
      const reply = await server.get(path);
      times.push(performance.now() - start);
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status}`);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]?.toFixed(2);
  };
  const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify({
      engine: process.env.SVC_TEST_ENGINE ?? 'sqlite',
      revisions: sizes.length,
      bytes_per_revision: Math.round(sum(bytes) / bytes.length),
      record_bytes_per_revision: Math.round(sum(record) / record.length),
      ms_newest: await median(`/api/import-templates/${id}/history?limit=1`),
      ms_oldest: await median(`/api/import-templates/${id}/history?limit=1&before=${oldest + 1}`),
    }),
  );
} finally {
  await server.close();
}
