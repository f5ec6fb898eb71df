// Bearer-mode set-up and assertions: identities written straight to the database (set-up, not
// behaviour under test), tokens issued through the token service, requests from a chosen local
// address (the per-IP limit), and a second server over an existing DATA_DIR.
import assert from 'node:assert/strict';
import { grantableAbilities } from '../../src/app/routes.js';
import type { Clock } from '../../src/auth/failure-limiter.js';
import { createToken } from '../../src/auth/tokens/token-service.js';
import { loadConfig } from '../../src/config/config.js';
import type { Db } from '../../src/database/db.js';
import { type Service, startService } from '../../src/service.js';
import { httpRequest, JSON_TYPE, type Reply, type RequestOptions } from './http.js';
import { insertRow } from './rows.js';
import { ADMIN_PASSWORD, type TestServer } from './test-server.js';

const now = () => new Date().toISOString();

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export async function seedCompany(db: Db, name: string, active: 'Y' | 'N' = 'Y'): Promise<number> {
  const row = await insertRow(db, 'companies', {
    name,
    active,
    created_at: now(),
    updated_at: now(),
  });
  return row;
}

export async function seedUnit(
  db: Db,
  name: string,
  companyId: number | null,
  active: 'Y' | 'N' = 'Y',
): Promise<number> {
  const row = await insertRow(db, 'units', {
    name,
    company_id: companyId,
    active,
    created_at: now(),
    updated_at: now(),
  });
  return row;
}

export async function seedUser(
  db: Db,
  login: string,
  options: { admin?: 'Y' | 'N'; active?: 'Y' | 'N' } = {},
): Promise<number> {
  const row = await insertRow(db, 'users', {
    login,
    name: `User ${login}`,
    email: `${login}@example.test`,
    password_hash: 'x',
    admin: options.admin ?? 'N',
    active: options.active ?? 'Y',
    created_at: now(),
    updated_at: now(),
  });
  return row;
}

export async function linkUnit(db: Db, userId: number, unitId: number): Promise<void> {
  await db.insertInto('user_units').values({ user_id: userId, unit_id: unitId }).execute();
}

export interface IssueOptions {
  readonly userId?: number;
  readonly unitId?: number;
  readonly abilities?: readonly string[];
  readonly expiresAt?: Date | null;
  /** The grantable set; default: the abilities the service's routes declare. */
  readonly grantable?: readonly string[];
}

/** Issues a token through the token service; default: admin (1) in Main (1) with every ability. */
export async function issue(
  server: Pick<TestServer, 'service'>,
  options: IssueOptions = {},
): Promise<{ token: string; id: number }> {
  const grantable = options.grantable ?? grantableAbilities();
  const expiresAt = options.expiresAt ?? null;
  // A token cannot be issued already expired (DESIGN.md 3.6): one that expired since is issued
  // without an expiry and then given its past one.
  const past = expiresAt !== null && expiresAt.getTime() <= Date.now();
  const { database } = server.service;
  const { token, record } = await createToken(database, grantable, {
    userId: options.userId ?? 1,
    unitId: options.unitId ?? 1,
    name: 'test token',
    abilities: options.abilities ?? grantable,
    expiresAt: past ? null : expiresAt,
  });
  if (past)
    await database.db
      .updateTable('api_tokens')
      .set({ expires_at: database.adapter.toTimestamp(expiresAt) })
      .where('id', '=', record.id)
      .execute();
  return { token, id: record.id };
}

/** A user (non-admin unless told) linked to a fresh unit of a fresh company, and a token of theirs. */
export interface Identity {
  readonly userId: number;
  readonly unitId: number;
  readonly companyId: number;
  readonly token: string;
  readonly tokenId: number;
}

export async function seedIdentity(
  server: Pick<TestServer, 'service'>,
  name: string,
  options: { abilities?: readonly string[]; admin?: 'Y' | 'N' } = {},
): Promise<Identity> {
  const { db } = server.service.database;
  const companyId = await seedCompany(db, `${name} company`);
  const unitId = await seedUnit(db, `${name} unit`, companyId);
  const userId = await seedUser(db, name, { admin: options.admin ?? 'N' });
  await linkUnit(db, userId, unitId);
  const { token, id } = await issue(server, {
    userId,
    unitId,
    ...(options.abilities ? { abilities: options.abilities } : {}),
  });
  return { userId, unitId, companyId, token, tokenId: id };
}

/** A reader and writer of templates in a company of its own: the other tenant of isolation tests. */
export const otherCompanyWriter = (server: Pick<TestServer, 'service'>): Promise<Identity> =>
  seedIdentity(server, 'other-co', {
    abilities: ['import-templates.read', 'import-templates.write'],
  });

/** Asserts a bearer-mode 401 exactly: status, JSON type, `{error}` and `WWW-Authenticate: Bearer`. */
export function assertBearer401(reply: Reply, error: string): void {
  assert.equal(reply.status, 401, `status ${reply.status}, body ${reply.text.slice(0, 300)}`);
  assert.equal(reply.headers.get('content-type'), JSON_TYPE);
  assert.equal(reply.headers.get('www-authenticate'), 'Bearer');
  assert.deepStrictEqual(reply.body, { error });
}

/** Asserts the per-IP limit's 429 exactly (SPEC.md 7). */
export function assert429(reply: Reply): void {
  assert.equal(reply.status, 429, `status ${reply.status}, body ${reply.text.slice(0, 300)}`);
  assert.equal(reply.headers.get('content-type'), JSON_TYPE);
  assert.equal(reply.headers.get('retry-after'), '600');
  assert.deepStrictEqual(reply.body, { error: 'Too many requests. Try again later.' });
}

/** One request whose socket is bound to `localAddress` (e.g. 127.0.0.2: another client IP). */
export function requestFrom(
  localAddress: string,
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return httpRequest(baseUrl, method, target, { headers, localAddress });
}

export interface SecondServer {
  readonly url: string;
  readonly service: Service;
  request(method: string, target: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** A server over an existing DATA_DIR (another test server's, or one a CLI run made); leaves the files. */
export async function startServerOn(
  dataDir: string,
  env: Record<string, string> = {},
  clock?: Clock,
): Promise<SecondServer> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD,
    ...env,
  });
  const service = await startService(config, { logger: false, ...(clock ? { clock } : {}) });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const address = service.app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    service,
    request: (method, target, options) => httpRequest(url, method, target, options),
    close: () => service.close(),
  };
}
