// One delivery attempt (DESIGN.md 3.10): a signed POST that succeeds on a 2xx within the time
// limit. No redirect is followed (a 3xx is a failure), the answer's body is never read beyond a
// few KiB, and the connection is made only to an address delivery-target.ts accepts, resolved
// and checked again at every attempt.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkedAddress } from './delivery-target.js';
import { webhookSignature } from './webhook-secret.js';

/** A 2xx must come within this long (DESIGN.md 3.10). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * Connections kept open between attempts (a receiver is usually sent many, one at a time). Each
 * attempt connects to the address it has just resolved and checked, and the agents keep
 * connections by that address (the request's host is the address, the name goes in the Host
 * header and TLS's server name), so a kept connection is reused only for the same checked
 * address: a name that now resolves elsewhere gets a new connection there, if allowed. An idle
 * connection is closed after 4 s, before the 5 s a Node.js receiver keeps one.
 */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 }),
};

/** What is read of an answer's body at most. */
const ANSWER_READ_LIMIT = 16 * 1024;

export interface PostOutcome {
  readonly ok: boolean;
  /** The answer's status, or null when none came. */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it failed, short (never the answer's body). */
  readonly error: string | null;
}

export interface WebhookMessage {
  readonly url: string;
  readonly secret: string;
  readonly id: string;
  readonly body: string;
}

export async function postWebhook(
  message: WebhookMessage,
  allowPrivate: boolean,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostOutcome> {
  const started = performance.now();
  let url: URL;
  let address: string;
  try {
    url = new URL(message.url);
    address = await checkedAddress(url.hostname, allowPrivate);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, status: null, durationMs: took(started), error: message.slice(0, 300) };
  }
  const first = await post(message, url, address, started, timeoutMs);
  // The receiver closed a kept connection as the request went out on it: once more, on a new one.
  if (first.reusedSocketClosed) return post(message, url, address, started, timeoutMs);
  return first;
}

const took = (started: number) => Math.round(performance.now() - started);

function post(
  message: WebhookMessage,
  url: URL,
  address: string,
  started: number,
  timeoutMs: number,
): Promise<PostOutcome & { reusedSocketClosed?: boolean }> {
  return new Promise((resolve) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (status: number | null, error: string | null, reusedSocketClosed = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ok = error === null && status !== null && status >= 200 && status < 300;
      resolve({
        ok,
        status,
        durationMs: took(started),
        error: ok ? null : (error ?? `HTTP ${status}`),
        reusedSocketClosed,
      });
    };
    const timestamp = Math.floor(Date.now() / 1000);
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const request = (secure ? https : http).request({
      protocol: url.protocol,
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      // TLS checks the certificate against the name, not the address connected to.
      ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
      headers: {
        host: url.host,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(message.body),
        'user-agent': 'svc-webhooks',
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(message.secret, message.id, timestamp, message.body),
      },
    });
    timer = setTimeout(
      () => {
        finish(null, `No answer within ${timeoutMs} ms`);
        request.destroy();
      },
      Math.max(1, timeoutMs - took(started)),
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const closed =
        request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      finish(null, error.message.slice(0, 300), closed);
    });
    request.on('response', (answer) => {
      let read = 0;
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_READ_LIMIT) {
          finish(answer.statusCode ?? null, null);
          request.destroy();
        }
      });
      answer.on('end', () => finish(answer.statusCode ?? null, null));
      answer.on('error', () => finish(answer.statusCode ?? null, null));
    });
    request.end(message.body);
  });
}
