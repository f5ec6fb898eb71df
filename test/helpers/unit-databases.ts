// Servers whose units keep their data in databases of their own (DESIGN.md 3.5, issue 8
// deliverable 2): a main database of a chosen engine, plus a SQLite file that DB_CONNECTIONS
// names `east`; unit East (connection east, in company Default) and its user eve, who holds a
// token with every ability and can log in. The default token stays the admin's, in unit Main.
// These suites choose their engines themselves, so test/run.mjs runs them in its SQLite pass only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../../src/database/database.js';
import type { Db } from '../../src/database/db.js';
import { issue } from './bearer.js';
import { createTestDatabase, type TestDatabase, testEngine } from './engines.js';
import { insertRow } from './rows.js';
import { seedGroups } from './seed.js';
import { seedLoginUser } from './session-seed.js';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

export interface UnitSetup {
  readonly name: string;
  readonly main: 'sqlite' | 'postgres';
  /** Why the set-up cannot run on this machine, or false. */
  readonly skip: string | false;
}

export const UNIT_SETUPS: readonly UnitSetup[] = [
  { name: 'main SQLite + unit SQLite', main: 'sqlite', skip: false },
  {
    name: 'main PostgreSQL + unit SQLite',
    main: 'postgres',
    skip: process.env.TEST_POSTGRES_URL
      ? false
      : 'TEST_POSTGRES_URL is not set: the PostgreSQL + SQLite set-up is skipped',
  },
];

/** false in the SQLite pass of test/run.mjs; the reason to skip in the others. */
export const ONCE: string | false =
  testEngine === 'sqlite'
    ? false
    : 'runs once, in the SQLite pass: the unit-database suites choose their own engines';

export interface UnitServer {
  readonly server: TestServer;
  readonly setup: UnitSetup;
  /** The main database (system tables, and the data of units without a connection). */
  readonly main: Db;
  /** The service's own connection to east's file. */
  readonly east: Database;
  readonly eastFile: string;
  readonly eastUrl: string;
  readonly eastUnitId: number;
  readonly eveId: number;
  /** eve's token in East, every ability. */
  readonly eveToken: string;
  /** A group (a system row) for detail rows. */
  readonly groupId: number;
  /** Rows of `table` in east's file, read on a connection of the test's own, in key order. */
  eastRows(table: string): Array<Record<string, unknown>>;
  /** Rows of `table` in the main database, in key order. */
  mainRows(table: string): Promise<Array<Record<string, unknown>>>;
  /** Statements run so far on the main and east databases together. */
  statements(): { system: number; unit: number };
  close(): Promise<void>;
}

export async function startUnitServer(
  setup: UnitSetup,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<UnitServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-units-'));
  const eastFile = path.join(dir, 'east.sqlite');
  const eastUrl = `sqlite:${eastFile}`;
  // SQLite: startTestServer's own default file in DATA_DIR. PostgreSQL: a fresh database, ours to drop.
  const mainDatabase: TestDatabase | null =
    setup.main === 'sqlite' ? null : await createTestDatabase(setup.main);
  const server = await startTestServer(
    {
      DB_CONNECTIONS: JSON.stringify({ east: eastUrl }),
      ...(mainDatabase?.url ? { DATABASE_URL: mainDatabase.url } : {}),
      ...env,
    },
    options,
  );
  const main = server.service.database.db;
  const east = server.service.unitDatabases.for('east');
  assert.ok(!('unknownConnection' in east), 'the service opened connection east');
  const now = new Date().toISOString();
  const eastUnitId = await insertRow(main, 'units', {
    name: 'East',
    company_id: 1,
    connection: 'east',
    active: 'Y',
    created_at: now,
    updated_at: now,
  });
  const eveId = await seedLoginUser(main, 'eve', [eastUnitId]);
  const { token: eveToken } = await issue(server, { userId: eveId, unitId: eastUnitId });
  const [groupId] = (await seedGroups(main, ['Sales'])) as [number];
  return {
    server,
    setup,
    main,
    east,
    eastFile,
    eastUrl,
    eastUnitId,
    eveId,
    eveToken,
    groupId,
    eastRows(table) {
      const reader = new BetterSqlite3(eastFile, { readonly: true });
      try {
        return reader.prepare(`select * from "${table}" order by id`).all() as Array<
          Record<string, unknown>
        >;
      } finally {
        reader.close();
      }
    },
    mainRows: (table) => main.selectFrom(table).selectAll().orderBy('id').execute(),
    statements: () => ({
      system: server.service.database.statementCount(),
      unit: east.statementCount(),
    }),
    async close() {
      await server.close();
      await mainDatabase?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
