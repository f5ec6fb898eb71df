// The worked example of docs/rest-driver.md "Signed-request driver", checked against the code that verifies
// requests, and the nonce store's memory: a nonce is refused until its timestamp could no
// longer pass the clock-skew check, then forgotten.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryNonceStore } from '../../src/rest-driver/nonce-store.js';
import { checkSignature, stringToSign } from '../../src/rest-driver/request-signature.js';

// The values of docs/rest-driver.md, verbatim.
const SECRET = '0123456789abcdef0123456789abcdef';
const TIMESTAMP = '1767225600';
const NONCE = '9b1d4c7e2f6a8035c1e4b7d29f0a6e38';
const BODY = '{"sql":"select id, name from companies where id = ?","bindings":[1]}';
const SIGNATURE = 'a535b461d5e8838e3e29037080d674a54f0c9d5c1b99966039deb9c43483f077';
const GET_SIGNATURE = '84076e67a6cd1f9165c2826b369a4910e796fdc4c50a47850ea228b3a97cee46';
const AT = Number(TIMESTAMP) * 1000;

const headers = (signature: string) => ({
  'x-svc-timestamp': TIMESTAMP,
  'x-svc-nonce': NONCE,
  'x-svc-signature': signature,
});

describe('driver: the signing rule', () => {
  it('signs the docs/rest-driver.md example as docs/rest-driver.md says', () => {
    assert.equal(
      stringToSign({
        method: 'post',
        target: '/_mad/rest-driver/query',
        timestamp: TIMESTAMP,
        nonce: NONCE,
        body: BODY,
      }),
      `POST\n/_mad/rest-driver/query\n${TIMESTAMP}\n${NONCE}\nf743783cca7d164510d7ac61c758db77499df22187b550567b3a46e638a08228`,
    );
    const post = {
      method: 'POST',
      target: '/_mad/rest-driver/query',
      body: Buffer.from(BODY),
      headers: headers(SIGNATURE),
    };
    assert.deepStrictEqual(checkSignature(SECRET, post, AT), {
      ok: true,
      nonce: NONCE,
      nonceExpiresAt: AT + 300_000,
    });
    // Upper-case hex is the same signature.
    assert.equal(
      checkSignature(SECRET, { ...post, headers: headers(SIGNATURE.toUpperCase()) }, AT).ok,
      true,
    );
    const get = {
      method: 'GET',
      target: '/_mad/rest-driver/tables?connection=archive',
      body: Buffer.alloc(0),
      headers: headers(GET_SIGNATURE),
    };
    assert.equal(checkSignature(SECRET, get, AT).ok, true);
  });

  it('accepts the timestamp up to 300 s away and refuses it beyond', () => {
    const post = {
      method: 'POST',
      target: '/_mad/rest-driver/query',
      body: Buffer.from(BODY),
      headers: headers(SIGNATURE),
    };
    assert.equal(checkSignature(SECRET, post, AT + 300_000).ok, true);
    assert.equal(checkSignature(SECRET, post, AT - 300_000).ok, true);
    assert.equal(checkSignature(SECRET, post, AT + 300_001).ok, false);
    assert.equal(checkSignature(SECRET, post, AT - 300_001).ok, false);
  });

  it('refuses a signature of the wrong length or alphabet without comparing it', () => {
    const post = { method: 'POST', target: '/_mad/rest-driver/query', body: Buffer.from(BODY) };
    for (const signature of [SIGNATURE.slice(2), `${SIGNATURE}00`, `${SIGNATURE.slice(1)}g`, '']) {
      assert.deepStrictEqual(checkSignature(SECRET, { ...post, headers: headers(signature) }, AT), {
        ok: false,
        reason: 'Invalid signature.',
      });
    }
  });
});

describe('driver: the nonce store', () => {
  it('refuses a nonce until it expires, and forgets expired nonces', async () => {
    let now = 1_000_000;
    const store = new MemoryNonceStore(() => now);
    assert.equal(await store.claim('nonce-a', now + 600_000), true);
    assert.equal(await store.claim('nonce-a', now + 600_000), false);
    now += 600_000;
    assert.equal(await store.claim('nonce-a', now + 1000), false, 'still held at its expiry');
    now += 1001;
    assert.equal(await store.claim('nonce-a', now + 1000), true, 'expired: accepted again');
    // Sweeps run at most once a minute; the next one drops every expired nonce.
    now += 60_000;
    assert.equal(await store.claim('nonce-b', now + 600_000), true);
    assert.equal(store.size, 1);
  });
});
