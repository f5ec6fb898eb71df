// A cookie-aware client for session mode (SPEC.md 5.2, DESIGN.md 3.5): logs in through
// POST /app/login, keeps the cookies each Set-Cookie gives (a cleared or expired one is dropped),
// sends them back on every request, and sends the session's CSRF token on writes unless told
// otherwise. Built on node:http so every Set-Cookie line arrives separately.
import assert from 'node:assert/strict';
import http from 'node:http';
import { type Reply, readReply } from './http.js';
import { ADMIN_PASSWORD } from './test-server.js';

export const SESSION_COOKIE = 'svc_session';
export const XSRF_COOKIE = 'XSRF-TOKEN';

export interface SessionRequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /**
   * The X-CSRF-TOKEN header of a write: default the token of the last login or session answer;
   * a string sends that value; `false` sends none.
   */
  readonly csrf?: string | false;
}

/** One Set-Cookie line: the name, the value and the attributes (lower-cased names). */
export interface SetCookie {
  readonly name: string;
  readonly value: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly raw: string;
}

export function parseSetCookie(line: string): SetCookie {
  const [pair = '', ...rest] = line.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const key = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    attributes.set(key, at === -1 ? '' : part.slice(at + 1).trim());
  }
  return {
    name: pair.slice(0, eq).trim(),
    value: pair.slice(eq + 1).trim(),
    attributes,
    raw: line,
  };
}

/** True when a Set-Cookie line removes the cookie (empty value, Max-Age<=0, or Expires past). */
function clears(cookie: SetCookie): boolean {
  const maxAge = cookie.attributes.get('max-age');
  const expires = cookie.attributes.get('expires');
  return (
    cookie.value === '' ||
    (maxAge !== undefined && Number(maxAge) <= 0) ||
    (expires !== undefined && Date.parse(expires) <= Date.now())
  );
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class SessionClient {
  /** The cookie jar: name -> value, as a browser would send them back. */
  readonly cookies = new Map<string, string>();
  /** The Set-Cookie lines of the last response. */
  lastSetCookies: SetCookie[] = [];
  /** The CSRF token of the last login or session answer. */
  csrfToken: string | null = null;

  constructor(readonly baseUrl: string) {}

  /** POST /app/login; on success the jar holds the new cookies and `csrfToken` the token. */
  async login(login = 'admin', password = ADMIN_PASSWORD): Promise<Reply> {
    const reply = await this.post('/app/login', { login, password }, { csrf: false });
    if (reply.status === 200) this.csrfToken = (reply.body as { csrf_token: string }).csrf_token;
    return reply;
  }

  /** Logs in and asserts it worked (set-up, not the behaviour under test). */
  async signIn(login = 'admin', password = ADMIN_PASSWORD): Promise<this> {
    const reply = await this.login(login, password);
    assert.equal(
      reply.status,
      200,
      `login as ${login}: ${reply.status} ${reply.text.slice(0, 300)}`,
    );
    return this;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** The session id the cookie carries: its signed value without the signature. */
  sessionId(): string {
    const value = decodeURIComponent(this.cookie(SESSION_COOKIE) ?? '');
    const dot = value.lastIndexOf('.');
    assert.ok(dot > 0, `no signed session cookie in the jar (${value})`);
    return value.slice(0, dot);
  }

  /** A copy of this client's cookies and token: the same browser session seen by another tab. */
  clone(): SessionClient {
    const other = new SessionClient(this.baseUrl);
    for (const [name, value] of this.cookies) other.cookies.set(name, value);
    other.csrfToken = this.csrfToken;
    return other;
  }

  request(method: string, target: string, options: SessionRequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0)
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const csrf = options.csrf === undefined ? this.csrfToken : options.csrf;
    if (WRITES.has(method) && typeof csrf === 'string') headers['x-csrf-token'] = csrf;
    Object.assign(headers, options.headers);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(target, this.baseUrl),
        { method, headers, agent: false },
        (response) => {
          this.keep(response.headers['set-cookie'] ?? []);
          readReply(response).then(resolve, reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  get(target: string, options?: SessionRequestOptions): Promise<Reply> {
    return this.request('GET', target, options);
  }
  post(target: string, body?: unknown, options?: SessionRequestOptions): Promise<Reply> {
    return this.request('POST', target, { ...options, body });
  }
  put(target: string, body?: unknown, options?: SessionRequestOptions): Promise<Reply> {
    return this.request('PUT', target, { ...options, body });
  }
  patch(target: string, body?: unknown, options?: SessionRequestOptions): Promise<Reply> {
    return this.request('PATCH', target, { ...options, body });
  }
  delete(target: string, options?: SessionRequestOptions): Promise<Reply> {
    return this.request('DELETE', target, options);
  }

  private keep(lines: readonly string[]): void {
    this.lastSetCookies = lines.map(parseSetCookie);
    for (const cookie of this.lastSetCookies) {
      if (clears(cookie)) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
}

/** A new client logged in as `login` (default: the bootstrap admin). */
export async function signedIn(
  baseUrl: string,
  login = 'admin',
  password = ADMIN_PASSWORD,
): Promise<SessionClient> {
  return new SessionClient(baseUrl).signIn(login, password);
}
