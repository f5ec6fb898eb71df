import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import type { Database } from '../../src/database/database.js';
import { testEngine } from '../helpers/engines.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Lists sort NULL lowest on every engine, so on PostgreSQL they say `asc nulls first` / `desc
// nulls last` (migration data/0003): the sort indexes must serve both without sorting the table.
describe('PostgreSQL: list sorts read an index in order', {
  skip: testEngine !== 'postgres' && 'PostgreSQL only',
}, () => {
  let server: TestServer;
  let database: Database;

  before(async () => {
    server = await startTestServer();
    database = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
  });
  after(async () => {
    await database?.close();
    await server?.close();
  });

  // The plan's node types, with the planner told that sorting and scanning the table are dear.
  async function nodeTypes(query: string): Promise<string[]> {
    return database.transaction(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      const { rows } = await sql<{
        'QUERY PLAN': unknown;
      }>`explain (format json) ${sql.raw(query)}`.execute(trx);
      const types: string[] = [];
      const walk = (node: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
        types.push(
          node['Index Name'] ? `${node['Node Type']} ${node['Index Name']}` : node['Node Type'],
        );
        for (const child of node.Plans ?? []) walk(child as typeof node);
      };
      walk((rows[0]!['QUERY PLAN'] as Array<{ Plan: Parameters<typeof walk>[0] }>)[0]!.Plan);
      return types;
    });
  }

  for (const [direction, nulls] of [
    ['asc', 'nulls first'],
    ['desc', 'nulls last'],
  ] as const) {
    it(`order by title ${direction} ${nulls}: the title index, no full sort`, async () => {
      const types = await nodeTypes(
        `select id from import_templates order by title ${direction} ${nulls}, id ${direction} limit 15`,
      );
      assert.ok(
        types.some((t) => t.endsWith('import_templates_title_index')),
        types.join(', '),
      );
      assert.ok(!types.includes('Sort'), types.join(', '));
    });

    it(`active ones by created_at ${direction} ${nulls}: the (active, created_at, id, title) index, no sort`, async () => {
      const types = await nodeTypes(
        `select id from import_templates where active = 'Y' and title ilike '%ab%' order by created_at ${direction} ${nulls}, id ${direction} limit 15`,
      );
      assert.ok(
        types.some((t) => t.endsWith('import_templates_active_created_at_id_title_index')),
        types.join(', '),
      );
      assert.ok(!types.some((t) => t.includes('Sort')), types.join(', '));
    });
  }
});
