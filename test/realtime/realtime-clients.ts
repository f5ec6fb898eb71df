// Clients for the real-time tests: users who can log in, a session (cookie + CSRF token) got
// through POST /app/login, pusher-js and laravel-echo configured the way DESIGN.md 3.5 tells a
// browser client, and a raw WebSocket speaking the Pusher protocol frame by frame.
import assert from 'node:assert/strict';
import Echo from 'laravel-echo';
import PusherModule from 'pusher-js';
import WebSocket from 'ws';
import { hashPassword } from '../../src/auth/passwords.js';
import type { Db } from '../../src/database/db.js';
import type { Reply } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';

// pusher-js types its CommonJS export as `default`; at run time the module itself is the class.
export const Pusher = PusherModule as unknown as typeof PusherModule.default;
export type Pusher = InstanceType<typeof Pusher>;

export const APP_KEY = 'svc-key';
export const REALTIME_ENV = {
  REALTIME_NOTIFICATIONS: 'true',
  PUSHER_APP_SECRET: 'realtime-test-secret',
} as const;

/** A user of unit 1 (Main) who can log in; returns their id. */
export async function seedLoginUser(
  db: Db,
  login: string,
  password = `password of ${login}`,
): Promise<number> {
  const now = new Date().toISOString();
  const row = await insertRow(db, 'users', {
    login,
    name: `User ${login}`,
    email: `${login}@example.test`,
    password_hash: await hashPassword(password),
    admin: 'N',
    active: 'Y',
    created_at: now,
    updated_at: now,
  });
  await db.insertInto('user_units').values({ user_id: row, unit_id: 1 }).execute();
  return row;
}

export interface Session {
  readonly userId: number;
  /** The Cookie header a browser would send back. */
  readonly cookie: string;
  readonly csrf: string;
}

export async function login(
  baseUrl: string,
  loginName: string,
  password = `password of ${loginName}`,
): Promise<Session> {
  const response = await fetch(`${baseUrl}/app/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: loginName, password }),
  });
  const body = (await response.json()) as { user: { id: number }; csrf_token: string };
  assert.equal(response.status, 200, `login as ${loginName}: ${JSON.stringify(body)}`);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  return { userId: Number(body.user.id), cookie, csrf: body.csrf_token };
}

/** Session requests (cookie, and the CSRF header on writes) with a JSON body. */
export async function sessionRequest(
  baseUrl: string,
  session: Session | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const all: Record<string, string> = { ...headers };
  if (session) {
    all.cookie = session.cookie;
    if (method !== 'GET') all['x-csrf-token'] = session.csrf;
  }
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    all['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers: all, body: payload });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

let cookieHeaderAllowed = false;
/**
 * pusher-js's Node XMLHttpRequest silently drops a `Cookie` header (DESIGN.md 3.5: browsers send
 * the cookie themselves). Lifting its client-side header check lets the real auth request carry
 * the session; the server stays strict.
 */
export function allowCookieHeader(): void {
  if (cookieHeaderAllowed) return;
  cookieHeaderAllowed = true;
  const runtime = Pusher.Runtime;
  const create = runtime.createXHR.bind(runtime);
  runtime.createXHR = () => {
    const xhr = create();
    (xhr as unknown as { setDisableHeaderCheck(state: boolean): void }).setDisableHeaderCheck(true);
    return xhr;
  };
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** pusher-js options for a service at `wsUrl`, authorising through the service at `authUrl`. */
export function pusherOptions(wsUrl: string, session: Session, authUrl = wsUrl) {
  allowCookieHeader();
  return {
    cluster: 'mt1',
    wsHost: '127.0.0.1',
    wsPort: portOf(wsUrl),
    forceTLS: false,
    enabledTransports: ['ws' as const],
    disableStats: true,
    authEndpoint: `${authUrl}/broadcasting/auth-notifications`,
    auth: { headers: { Cookie: session.cookie, 'X-CSRF-TOKEN': session.csrf } },
  };
}

export function pusherClient(wsUrl: string, session: Session, authUrl = wsUrl): Pusher {
  return new Pusher(APP_KEY, pusherOptions(wsUrl, session, authUrl));
}

/** laravel-echo over pusher-js; the CSRF token goes through Echo's own `csrfToken` option. */
export function echoClient(wsUrl: string, session: Session, authUrl = wsUrl): Echo<'pusher'> {
  const options = pusherOptions(wsUrl, session, authUrl);
  return new Echo({
    broadcaster: 'pusher',
    key: APP_KEY,
    ...options,
    auth: { headers: { Cookie: session.cookie } },
    csrfToken: session.csrf,
    // Echo's types see pusher-js the same way as ours; at run time this is the class.
    Pusher: PusherModule,
  });
}

export function waitFor<T>(
  what: string,
  register: (resolve: (value: T) => void, reject: (error: unknown) => void) => void,
  timeoutMs = 5000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
    register(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      },
    );
  });
}

export interface Frame {
  readonly event: string;
  readonly channel?: string;
  readonly data?: unknown;
}

/** A WebSocket that queues every frame it receives, for step-by-step protocol tests. */
export class RawSocket {
  private readonly frames: Frame[] = [];
  private readonly waiters: Array<() => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  /** Opens a socket (`headers` on the upgrade request, e.g. X-Forwarded-For). */
  static open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    const socket = new WebSocket(url, { headers });
    const raw = new RawSocket(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(raw));
      socket.once('error', reject);
    });
  }

  /** The next frame (optionally the next one with this event name), within `timeoutMs`. */
  async next(event?: string, timeoutMs = 3000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex((f) => event === undefined || f.event === event);
      if (index !== -1) return this.frames.splice(index, 1)[0] as Frame;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `No ${event ?? 'frame'} within ${timeoutMs} ms (queued: ${JSON.stringify(this.frames)})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Frames received and not yet taken. */
  pending(): readonly Frame[] {
    return [...this.frames];
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  close(): void {
    this.socket.close();
  }
}

/** The `data` of a frame as an object (the protocol sends some as JSON text). */
export function dataOf(frame: Frame): Record<string, unknown> {
  return (typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data) as Record<
    string,
    unknown
  >;
}
