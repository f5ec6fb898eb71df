// Signing per the Standard Webhooks specification (DESIGN.md 3.10): a secret is `whsec_` and the
// base64 of 32 random bytes; a delivery's `webhook-signature` is `v1,` and the base64 HMAC-SHA256,
// keyed by the secret's decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The `webhook-signature` header of a delivery. */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}
