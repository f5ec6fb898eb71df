// Session mode (SPEC.md 5.2, DESIGN.md 3.5): a signed, HttpOnly, SameSite=Lax cookie naming a
// stored session; idle expiry; a new session id at every login (no fixation); CSRF tokens from
// @fastify/csrf checked on every write, sent as X-CSRF-TOKEN or as X-XSRF-TOKEN echoing the
// readable XSRF-TOKEN cookie.
import { randomBytes } from 'node:crypto';
import CsrfTokens from '@fastify/csrf';
import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../database/database.js';
import type { UnknownConnection } from '../../database/unit-databases.js';
import { errors } from '../../errors.js';
import '../../kernel/request-state.js';
import type { Clock } from '../failure-limiter.js';
import { type ScopeFacts, scopeRefusal } from '../scope-check.js';
import { type SessionStore, sessionKey } from './session-store.js';

export const SESSION_COOKIE = 'svc_session';
export const XSRF_COOKIE = 'XSRF-TOKEN';
const TOUCH_EVERY_MS = 60_000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SessionOptions {
  readonly store: SessionStore;
  readonly dataFor: (connection: string | null) => Database | UnknownConnection;
  readonly idleMinutes: number;
  readonly tenantIsolation: boolean;
  readonly clock: Clock;
}

export class SessionAuth {
  private readonly csrf = CsrfTokens();

  constructor(private readonly options: SessionOptions) {}

  /** Loads the session named by the cookie into `request.svc`; false when there is none valid. */
  async authenticate(request: FastifyRequest): Promise<boolean> {
    const key = this.keyOf(request);
    if (!key) return false;
    const found = await this.options.store.find(key);
    if (!found) return false;
    const now = this.options.clock();
    if (this.idle(found.session.lastActivity, now)) {
      await this.options.store.destroy(key);
      return false;
    }
    const { identity, session } = found;
    const refusal = scopeRefusal(identity, this.options.tenantIsolation);
    if (refusal || !identity.user || !identity.unit)
      throw errors.sessionForbidden(refusal ?? 'Forbidden.');
    if (now - session.lastActivity >= TOUCH_EVERY_MS) await this.options.store.touch(key, now);
    request.svc = {
      mode: 'session',
      scope: {
        userId: Number(identity.user.id),
        unitId: identity.unit.id,
        // Tenant-bound entities are filtered by company only in isolation mode (SPEC.md 7).
        tenantId: this.options.tenantIsolation ? identity.unit.companyId : null,
        companyId: identity.unit.companyId,
      },
      user: identity.user,
      data: this.options.dataFor(identity.unit.connection),
      session: { key, csrfSecret: session.csrfSecret },
      unitName: identity.unit.name,
    };
    return true;
  }

  /** 419 unless a write carries a CSRF token of this session. Reads need none. */
  checkCsrf(request: FastifyRequest): void {
    if (!WRITES.has(request.method)) return;
    const secret = request.svc?.session?.csrfSecret;
    const header = request.headers['x-csrf-token'] ?? request.headers['x-xsrf-token'];
    const token = Array.isArray(header) ? header[0] : header;
    if (!secret || !token || !this.csrf.verify(secret, token)) throw errors.csrfMismatch();
  }

  /** A fresh CSRF token of the current session (any number of them verify). */
  csrfToken(request: FastifyRequest): string {
    const secret = request.svc?.session?.csrfSecret;
    return secret ? this.csrf.create(secret) : '';
  }

  /** Starts a new session for the user in the unit; any session the request carried ends. */
  async start(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
    unitId: number,
  ): Promise<string> {
    await this.end(request, reply);
    const sessionId = randomBytes(32).toString('base64url');
    const csrfSecret = this.csrf.secretSync();
    await this.options.store.create({
      key: sessionKey(sessionId),
      userId,
      unitId,
      csrfSecret,
      lastActivity: this.options.clock(),
    });
    const secure = request.protocol === 'https';
    reply.setCookie(SESSION_COOKIE, sessionId, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      signed: true,
    });
    const csrfToken = this.csrf.create(csrfSecret);
    reply.setCookie(XSRF_COOKIE, csrfToken, {
      path: '/',
      httpOnly: false,
      sameSite: 'lax',
      secure,
    });
    return csrfToken;
  }

  /**
   * Whether the request's cookie names a session that has not expired: a read only (no touch,
   * nothing destroyed), for the admin's page to drop a stale XSRF-TOKEN hint.
   */
  async isLive(request: FastifyRequest): Promise<boolean> {
    const key = this.keyOf(request);
    const found = key ? await this.options.store.find(key) : null;
    return found !== null && !this.idle(found.session.lastActivity, this.options.clock());
  }

  /** The store key of the session the signed cookie names, or null. */
  private keyOf(request: FastifyRequest): string | null {
    const raw = request.cookies[SESSION_COOKIE];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? sessionKey(unsigned.value) : null;
  }

  private idle(lastActivity: number, now: number): boolean {
    return now - lastActivity > this.options.idleMinutes * 60_000;
  }

  /** Destroys the request's session (if it names one) and clears the cookies. */
  async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = this.keyOf(request);
    if (key) await this.options.store.destroy(key);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    reply.clearCookie(XSRF_COOKIE, { path: '/' });
  }

  /** True when a session with this user, unit and company would pass `authenticate`'s scope check. */
  canActIn(facts: ScopeFacts): boolean {
    return scopeRefusal(facts, this.options.tenantIsolation) === null;
  }

  async switchUnit(request: FastifyRequest, unitId: number): Promise<void> {
    const key = request.svc?.session?.key;
    if (key) await this.options.store.setUnit(key, unitId);
  }
}
