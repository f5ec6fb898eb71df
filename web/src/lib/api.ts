// The one way the admin talks to svc: JSON over fetch with the session cookie, the CSRF token on
// every write, and two rules for the whole app: a 401 means the session is gone (sign in again,
// then come back; when the app renews the session in place, the request is sent again), a 419
// means the CSRF token is stale (fetch the session's, retry once).
import { LOGIN, SESSION } from './endpoints.js';

/** A failed answer: its status, its JSON body and the message to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
    readonly headers: Headers = new Headers(),
  ) {
    super(messageOf(status, body));
  }

  /** The 422's errors by path (`title`, `groups.1.group_id`). */
  get errors(): Record<string, string[]> {
    return this.status === 422 && this.body?.errors ? this.body.errors : {};
  }
}

export interface ErrorBody {
  readonly message?: string;
  readonly error?: string;
  readonly errors?: Record<string, string[]>;
}

function messageOf(status: number, body: ErrorBody | null): string {
  return body?.message ?? body?.error ?? `The service answered ${status}.`;
}

let csrfToken: string | null = null;
let unauthenticated: () => Promise<boolean> = async () => false;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function getCsrfToken(): string | null {
  return csrfToken;
}

/**
 * What to do when any request answers 401: the app sends the user to sign in (false), or signs
 * them in again over the screen and resolves true once the session is back, and the request is
 * then sent again (a 401 is answered before anything is done, so sending it again is safe).
 */
export function onUnauthenticated(handler: () => Promise<boolean>): void {
  unauthenticated = handler;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** An answer with its headers (an ETag, a Changes-Seq). */
export interface Answer<T> {
  readonly data: T;
  readonly headers: Headers;
}

type ExtraHeaders = Readonly<Record<string, string>>;

async function send(
  method: string,
  path: string,
  body: unknown,
  extra: ExtraHeaders = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (WRITES.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  return fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function exchange<T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: ExtraHeaders,
): Promise<Answer<T>> {
  let response = await send(method, path, body, headers);
  if (response.status === 419) {
    const session = await send('GET', SESSION, undefined);
    if (session.ok) {
      setCsrfToken(((await parse(session)) as { csrf_token?: string } | null)?.csrf_token ?? null);
      response = await send(method, path, body, headers);
    }
  }
  if (response.status === 401 && path !== LOGIN && (await unauthenticated()))
    response = await send(method, path, body, headers);
  const data = await parse(response);
  if (!response.ok) throw new ApiError(response.status, data as ErrorBody | null, response.headers);
  return { data: data as T, headers: response.headers };
}

export const api = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
  (await exchange<T>(method, path, body)).data;

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** If-Match with a record's ETag as it was read (none when the record keeps no version). */
export const ifMatch = (etag: string | null): ExtraHeaders => (etag ? { 'if-match': etag } : {});
