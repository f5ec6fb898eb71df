// Sessions of the admin front end, stored in the sessions table (Redis comes with the scale-out
// work behind the same interface). The row key is the SHA-256 of the session id, so the table
// never holds a usable credential; the lookup joins the acting user, unit and company.

import type { Database } from '../../database/database.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import { toMillis } from '../../model/casts.js';
import type { Row } from '../../model/entity.js';
import { sha256Hex } from '../../support/sha256.js';
import { type Identity, identityOf, withIdentity } from '../identity-query.js';

export interface SessionRecord {
  /** SHA-256 hex of the session id carried by the cookie. */
  readonly key: string;
  readonly userId: number;
  readonly unitId: number;
  /** The @fastify/csrf secret CSRF tokens of this session derive from. */
  readonly csrfSecret: string;
  readonly lastActivity: number;
}

export interface SessionStore {
  create(record: SessionRecord): Promise<void>;
  /** The session with its identity, or null. */
  find(key: string): Promise<{ session: SessionRecord; identity: Identity } | null>;
  touch(key: string, now: number): Promise<void>;
  setUnit(key: string, unitId: number): Promise<void>;
  destroy(key: string): Promise<void>;
  /** Ends every session of the user but `keep` (a password change; the acting session stays). */
  endUserSessions(userId: number, keep: string | null): Promise<void>;
}

export function sessionKey(sessionId: string): string {
  return sha256Hex(sessionId);
}

const SESSION_IDENTITY = statementSite('session identity');

export function databaseSessionStore(database: Database): SessionStore {
  const { db, adapter } = database;
  const stamp = (ms: number) => adapter.toTimestamp(new Date(ms));
  return {
    async create(record) {
      await db
        .insertInto('sessions')
        .values({
          id: record.key,
          user_id: record.userId,
          unit_id: record.unitId,
          csrf_token: record.csrfSecret,
          last_activity: stamp(record.lastActivity),
          created_at: stamp(record.lastActivity),
        })
        .execute();
    },
    async find(key) {
      const [row] = await runStatement<Row>(
        db,
        [SESSION_IDENTITY],
        () =>
          withIdentity(
            db
              .selectFrom('sessions as c')
              .select([
                'c.user_id as session_user_id',
                'c.unit_id as session_unit_id',
                'c.csrf_token',
                'c.last_activity',
              ])
              .where('c.id', '=', param('key')),
            adapter,
          ),
        { key },
      );
      if (!row) return null;
      return {
        session: {
          key,
          userId: Number(row.session_user_id),
          unitId: Number(row.session_unit_id),
          csrfSecret: String(row.csrf_token),
          lastActivity: toMillis(row.last_activity) ?? 0,
        },
        identity: identityOf(row),
      };
    },
    async touch(key, now) {
      await db
        .updateTable('sessions')
        .set({ last_activity: stamp(now) })
        .where('id', '=', key)
        .execute();
    },
    async setUnit(key, unitId) {
      await db.updateTable('sessions').set({ unit_id: unitId }).where('id', '=', key).execute();
    },
    async destroy(key) {
      await db.deleteFrom('sessions').where('id', '=', key).execute();
    },
    async endUserSessions(userId, keep) {
      let ended = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keep !== null) ended = ended.where('id', '<>', keep);
      await ended.execute();
    },
  };
}
