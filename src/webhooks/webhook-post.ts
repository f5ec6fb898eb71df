// One delivery attempt (DESIGN.md 3.10): a signed POST that succeeds on a 2xx within the time
// limit. No redirect is followed (a 3xx is a failure), the answer's body is never read beyond a
// few KiB, and the connection is made only to an address delivery-target.ts accepts.
import http from 'node:http';
import https from 'node:https';
import { checkedLookup, checkLiteralHost } from './delivery-target.js';
import { webhookSignature } from './webhook-secret.js';

/** A 2xx must come within this long (DESIGN.md 3.10). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * Connections kept open between attempts (a receiver is usually sent many). A kept connection
 * was made to an address checked when it was opened.
 */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 4 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 4 }),
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

export function postWebhook(
  message: WebhookMessage,
  allowPrivate: boolean,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostOutcome> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  return new Promise<PostOutcome>((resolve) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (status: number | null, error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ok = error === null && status !== null && status >= 200 && status < 300;
      resolve({ ok, status, durationMs: took(), error: ok ? null : (error ?? `HTTP ${status}`) });
    };
    let url: URL;
    try {
      url = new URL(message.url);
      checkLiteralHost(url.hostname, allowPrivate);
    } catch (error) {
      finish(null, error instanceof Error ? error.message : String(error));
      return;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const secure = url.protocol === 'https:';
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      lookup: checkedLookup(allowPrivate),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(message.body),
        'user-agent': 'svc-webhooks',
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(message.secret, message.id, timestamp, message.body),
      },
    });
    timer = setTimeout(() => {
      finish(null, `No answer within ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish(null, error.message.slice(0, 300)));
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
