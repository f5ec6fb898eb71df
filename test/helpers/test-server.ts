// A real svc server on a free port over a fresh SQLite file, and a small JSON client for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyServerOptions } from 'fastify';
import { grantableAbilities } from '../../src/app/routes.js';
import type { Clock } from '../../src/auth/failure-limiter.js';
import { createToken } from '../../src/auth/tokens/token-service.js';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import type { Database } from '../../src/database/database.js';
import { MIGRATION_SETS, migrate } from '../../src/database/migrator.js';
import { numberingSettled } from '../../src/engine/changes/committed.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { type Service, startService } from '../../src/service.js';
import { createTestDatabase, testPoolerUrl } from './engines.js';

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body (undefined when it is not JSON). */
  readonly body: any;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export interface TestServer {
  readonly url: string;
  readonly service: Service;
  readonly dataDir: string;
  /** The server's DATABASE_URL (a fresh database of the engine under test). */
  readonly databaseUrl: string;
  /** DATA_DIR and DATABASE_URL: what a CLI run or a second server needs to share this one's data. */
  readonly storageEnv: Record<string, string>;
  /** Headers every request sends unless overridden (e.g. a bearer token). */
  defaultHeaders: Record<string, string>;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  get(path: string, options?: RequestOptions): Promise<Reply>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  put(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  patch(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  delete(path: string, options?: RequestOptions): Promise<Reply>;
  /** SQL statements executed so far on the database. */
  statements(): number;
  /** What `work` answers, and the SQL statements run meanwhile (its changes' numbering included). */
  counted<T>(work: () => Promise<T>): Promise<{ value: T; statements: number }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Send no default bearer token (the default is an admin token holding every ability). */
  readonly anonymous?: boolean;
  readonly clock?: Clock;
  /** The service's logger (default: none), e.g. `{level: 'error', stream}` to read what it logs. */
  readonly logger?: FastifyServerOptions['logger'];
  /** The resource routes (default: the service's own); a test adds its fixture resources. */
  readonly resources?: readonly ResourceRoute[];
  /**
   * Runs on the migrated database before the service starts: the tables of fixture resources,
   * which the service checks before it serves (issue 36).
   */
  readonly beforeStart?: (database: Database) => Promise<void>;
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const database = env.DATABASE_URL ? null : await createTestDatabase();
  const databaseEnv = database?.url ? { DATABASE_URL: database.url } : {};
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD,
    // The delivery worker's statements would count in every test's statements: on where asked.
    WEBHOOKS_WORKER: 'false',
    ...databaseEnv,
    // The pass through PgBouncer says so (test/run.mjs); elsewhere the pooler is detected.
    ...(testPoolerUrl ? { DB_POOLER: 'transaction' } : {}),
    ...env,
  });
  if (options.beforeStart) {
    const prepared = connectDatabase(config.databaseUrl, config);
    try {
      await migrate(prepared.db, MIGRATION_SETS);
      await options.beforeStart(prepared);
    } finally {
      await prepared.close();
    }
  }
  const service = await startService(config, {
    logger: options.logger ?? false,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.resources ? { resources: options.resources } : {}),
  });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const address = service.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;

  const server: TestServer = {
    url,
    service,
    dataDir,
    databaseUrl: config.databaseUrl,
    storageEnv: { DATA_DIR: dataDir, DATABASE_URL: config.databaseUrl },
    defaultHeaders: {},
    async request(method, target, options = {}) {
      const headers: Record<string, string> = { ...server.defaultHeaders, ...options.headers };
      let payload: string | undefined = options.raw;
      if (payload === undefined && options.body !== undefined)
        payload = JSON.stringify(options.body);
      if (
        payload !== undefined &&
        !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
      ) {
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(url + target, { method, headers, body: payload });
      const text = await response.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, text, body };
    },
    get: (target, options) => server.request('GET', target, options),
    post: (target, body, options) => server.request('POST', target, { ...options, body }),
    put: (target, body, options) => server.request('PUT', target, { ...options, body }),
    patch: (target, body, options) => server.request('PATCH', target, { ...options, body }),
    delete: (target, options) => server.request('DELETE', target, options),
    statements: () => service.database.statementCount(),
    async counted(work) {
      // A write's change is numbered after its answer on PostgreSQL and MySQL: the numbering
      // an earlier write started is not this work's, the one this work starts is.
      await numberingSettled(service.database);
      const start = server.statements();
      const value = await work();
      await numberingSettled(service.database);
      return { value, statements: server.statements() - start };
    },
    async close() {
      await service.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (!options.anonymous) {
    // The bootstrap made user 1 (admin) in unit 1 (Main).
    const { token } = await createToken(service.database, grantableAbilities(), {
      userId: 1,
      unitId: 1,
      name: 'test admin',
      abilities: grantableAbilities(),
      expiresAt: null,
    });
    server.defaultHeaders.authorization = `Bearer ${token}`;
  }
  return server;
}
