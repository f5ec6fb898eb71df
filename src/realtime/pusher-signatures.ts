// The Pusher signing rules, in one place for both directions (DESIGN.md 3.5 and section 5):
// - private channel auth: `<key>:<hex HMAC-SHA256(secret, socket_id + ':' + channel_name)>`, and
//   with channel data (what the subscriber may see, signed with it as Pusher signs a presence
//   channel's member): `socket_id + ':' + channel_name + ':' + channel_data`;
// - HTTP API requests: `auth_signature` = hex HMAC-SHA256(secret, `METHOD\n<path>\n<query>`),
//   the query being every parameter but auth_signature, keys lower-cased and sorted, values as
//   sent (not URL-encoded), and `body_md5` the hex MD5 of the raw body.
// Every comparison is constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface PusherCredentials {
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

/** Constant time for equal lengths; a length difference is not a secret (hex digests). */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** The `auth` value a client sends with `pusher:subscribe` for a private channel. */
export function channelAuth(
  credentials: Pick<PusherCredentials, 'key' | 'secret'>,
  socketId: string,
  channel: string,
  channelData?: string,
): string {
  const signed =
    channelData === undefined ? `${socketId}:${channel}` : `${socketId}:${channel}:${channelData}`;
  return `${credentials.key}:${hmacHex(credentials.secret, signed)}`;
}

/** Checks a subscription's `auth` value against the socket, the channel and its channel data. */
export function validChannelAuth(
  credentials: Pick<PusherCredentials, 'key' | 'secret'>,
  socketId: string,
  channel: string,
  auth: unknown,
  channelData?: string,
): boolean {
  if (typeof auth !== 'string') return false;
  return sameText(auth, channelAuth(credentials, socketId, channel, channelData));
}

export function bodyMd5(body: string): string {
  return createHash('md5').update(body, 'utf8').digest('hex');
}

/** `k=v&k=v` of the parameters, keys lower-cased and sorted, auth_signature left out. */
export function canonicalQuery(parameters: Iterable<readonly [string, string]>): string {
  return [...parameters]
    .map(([key, value]) => [key.toLowerCase(), value] as const)
    .filter(([key]) => key !== 'auth_signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

export function requestSignature(
  secret: string,
  method: string,
  path: string,
  query: string,
): string {
  return hmacHex(secret, `${method.toUpperCase()}\n${path}\n${query}`);
}

/** The signed query string of an HTTP API request: what a publisher appends to the URL. */
export function signedQuery(
  credentials: PusherCredentials,
  method: string,
  path: string,
  body: string,
  timestampSeconds: number,
): string {
  const query = canonicalQuery([
    ['auth_key', credentials.key],
    ['auth_timestamp', String(timestampSeconds)],
    ['auth_version', '1.0'],
    ['body_md5', bodyMd5(body)],
  ]);
  return `${query}&auth_signature=${requestSignature(credentials.secret, method, path, query)}`;
}

export interface SignedRequest {
  readonly method: string;
  readonly path: string;
  /** The query parameters as received (decoded), repeated keys kept. */
  readonly parameters: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
}

/** Seconds an auth_timestamp may differ from the server's clock. */
export const TIMESTAMP_GRACE_SECONDS = 600;

/** Null when the request is signed by these credentials, else why not (for the 401 body). */
export function signatureRefusal(
  credentials: PusherCredentials,
  request: SignedRequest,
  nowMs: number,
): string | null {
  const values = new Map<string, string>();
  for (const [key, value] of request.parameters) {
    if (values.has(key.toLowerCase())) return `Duplicate query parameter "${key}".`;
    values.set(key.toLowerCase(), value);
  }
  const key = values.get('auth_key');
  const timestamp = values.get('auth_timestamp');
  const signature = values.get('auth_signature');
  if (!key || !timestamp || !signature)
    return 'Missing auth_key, auth_timestamp or auth_signature.';
  if (!sameText(key, credentials.key)) return 'Unknown auth_key.';
  if (values.has('auth_version') && values.get('auth_version') !== '1.0')
    return 'Unsupported auth_version (use 1.0).';
  if (
    !/^\d{1,12}$/.test(timestamp) ||
    Math.abs(nowMs / 1000 - Number(timestamp)) > TIMESTAMP_GRACE_SECONDS
  ) {
    return `The auth_timestamp is more than ${TIMESTAMP_GRACE_SECONDS} seconds away from the server time.`;
  }
  const md5 = values.get('body_md5');
  if (request.body !== '' || md5 !== undefined) {
    if (md5 === undefined || !sameText(md5, bodyMd5(request.body)))
      return 'The body_md5 does not match the body.';
  }
  const expected = requestSignature(
    credentials.secret,
    request.method,
    request.path,
    canonicalQuery(values),
  );
  return sameText(signature, expected) ? null : 'Invalid auth_signature.';
}
