// SQLite's WAL checkpoints run in a thread of their own (database/dialects/sqlite/checkpointer.ts,
// docs/database-engines.md "SQLite durability"): committed writes reach the database file itself shortly after the
// commit, without the committing request copying them. Observed from outside: a copy of the
// database file alone, without its WAL, holds what the server wrote.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../../src/config/config.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const skip = sqlitePassOnly('SQLite only: checkpoints are how its WAL reaches the database file');
const WRITES = 5;

/** Templates titled `prefix…` in a copy of the database file without its WAL (null: a torn copy). */
function inFileAlone(server: TestServer, prefix: string): number | null {
  const file = server.databaseUrl.slice('sqlite:'.length);
  const copy = path.join(server.dataDir, 'file-alone.sqlite');
  for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) fs.rmSync(f, { force: true });
  fs.copyFileSync(file, copy);
  try {
    const db = new BetterSqlite3(copy);
    try {
      // Before any checkpoint even the schema is only in the WAL.
      if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'import_templates'").get())
        return 0;
      return (
        db
          .prepare('SELECT count(*) AS n FROM import_templates WHERE title LIKE ?')
          .get(`${prefix}%`) as { n: number }
      ).n;
    } finally {
      db.close();
    }
  } catch {
    return null; // copied while a checkpoint was writing: look again
  }
}

async function writeTemplates(server: TestServer, prefix: string): Promise<void> {
  for (let i = 0; i < WRITES; i += 1) {
    const reply = await server.post(
      '/api/import-templates',
      templatePayload({ title: `${prefix} ${i}` }),
    );
    assert.equal(reply.status, 201, reply.text);
  }
}

/** Polls the file alone for up to `ms`; the last count seen. */
async function countWithin(server: TestServer, prefix: string, ms: number): Promise<number | null> {
  const deadline = Date.now() + ms;
  let seen: number | null = null;
  while (Date.now() < deadline) {
    seen = inFileAlone(server, prefix);
    if (seen === WRITES) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return seen;
}

describe('SQLite background checkpoints', { skip }, () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  it('copies committed writes into the database file in the background, without a checkpoint at commit', async () => {
    const server = await startTestServer();
    servers.push(server);
    await writeTemplates(server, 'Background');
    assert.equal(await countWithin(server, 'Background', 3000), WRITES);
  });

  it('SQLITE_BACKGROUND_CHECKPOINT=false leaves a few writes in the WAL until SQLite checkpoints at commit', async () => {
    const server = await startTestServer({ SQLITE_BACKGROUND_CHECKPOINT: 'false' });
    servers.push(server);
    await writeTemplates(server, 'Inline');
    // SQLite checkpoints at commit once the WAL passes 1,000 pages; five writes stay below that.
    assert.equal(await countWithin(server, 'Inline', 500), 0);
  });

  it('refuses a SQLITE_BACKGROUND_CHECKPOINT that is not true or false', () => {
    assert.throws(
      () => loadConfig({ SQLITE_BACKGROUND_CHECKPOINT: 'sometimes' }),
      /SQLITE_BACKGROUND_CHECKPOINT must be true or false, got "sometimes"/,
    );
  });
});
