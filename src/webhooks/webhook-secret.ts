// Signing per the Standard Webhooks specification (DESIGN.md 3.10): a secret is `whsec_` and the
// base64 of 32 random bytes; a delivery's `webhook-signature` is `v1,` and the base64 HMAC-SHA256,
// keyed by the secret's decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`. HMAC needs
// the secret itself, so it cannot be stored hashed: it is stored encrypted (AES-256-GCM) under a
// key derived from the app's secret (APP_SECRET, or DATA_DIR/app.secret), bound to its endpoint's
// id, so a database dump or backup alone does not give it away.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Database } from '../database/database.js';

const PREFIX = 'whsec_';
/** How a sealed secret begins (a stored value without it is a secret stored before sealing). */
const SEALED = 'v1.';

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

/** The key webhook secrets are sealed with, from the app's secret. */
export function sealingKey(appSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', appSecret, '', 'svc webhook secrets', 32));
}

/** `secret` as stored for endpoint `webhookId`: `v1.<iv>.<ciphertext and tag>`, base64url. */
export function sealSecret(secret: string, key: Buffer, webhookId: number | string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`webhooks:${webhookId}`));
  const sealed = Buffer.concat([
    cipher.update(secret, 'utf8'),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return `${SEALED}${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The secret of endpoint `webhookId` from its stored value; throws if `key` does not open it. */
export function openSecret(stored: string, key: Buffer, webhookId: number | string): string {
  if (stored.startsWith(PREFIX)) return stored;
  const [iv = '', sealed = ''] = stored.slice(SEALED.length).split('.');
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    if (!stored.startsWith(SEALED) || bytes.length < 16) throw new Error('not sealed');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`webhooks:${webhookId}`));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([
      decipher.update(bytes.subarray(0, bytes.length - 16)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new Error(
      "The endpoint's signing secret does not decrypt with this APP_SECRET (changed since it was issued?): rotate the secret.",
    );
  }
}

/** The sealing key of each service's main database (installWebhooks sets it). */
const keys = new WeakMap<Database, Buffer>();

export function useSealingKey(system: Database, appSecret: string): Buffer {
  const key = sealingKey(appSecret);
  keys.set(system, key);
  return key;
}

/** The sealing key of the service whose main database is `system`. */
export function sealingKeyOf(system: Database): Buffer {
  const key = keys.get(system);
  if (!key) throw new Error('Webhook secrets need the app secret: installWebhooks sets it.');
  return key;
}

/**
 * Seals the secrets stored before they were sealed (an upgrade from a version that kept them
 * in plaintext); answers how many. Each is its own small update: there are few endpoints.
 */
export async function sealStoredSecrets(system: Database, key: Buffer): Promise<number> {
  const plain = await system.db
    .selectFrom('webhooks')
    .select(['id', 'secret'])
    .where('secret', 'like', `${PREFIX}%`)
    .execute();
  for (const row of plain)
    await system.db
      .updateTable('webhooks')
      .set({ secret: sealSecret(String(row.secret), key, Number(row.id)) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .execute();
  return plain.length;
}
