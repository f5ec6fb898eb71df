// DESIGN.md section 5: the test vectors of the public Pusher documentation, and the refusals of
// the HTTP API signature check (DESIGN.md 3.5) as pure functions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bodyMd5,
  canonicalQuery,
  channelAuth,
  requestSignature,
  type SignedRequest,
  sameText,
  signatureRefusal,
  signedQuery,
  validChannelAuth,
} from '../../src/realtime/pusher-signatures.js';

const KEY = '278d425bdf160c739803';
const SECRET = '7ad3773142a6692b25b8';
const BODY = '{"name":"foo","channels":["project-3"],"data":"{\\"some\\":\\"data\\"}"}';

describe('Pusher signatures: the documented test vectors', () => {
  it('signs a private channel: key:HMAC-SHA256(secret, "1234.1234:private-foobar")', () => {
    assert.equal(
      channelAuth({ key: KEY, secret: SECRET }, '1234.1234', 'private-foobar'),
      '278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4',
    );
  });

  it('computes the HTTP API body_md5', () => {
    assert.equal(BODY, `{"name":"foo","channels":["project-3"],"data":"{\\"some\\":\\"data\\"}"}`);
    assert.equal(bodyMd5(BODY), 'ec365a775a4cd0599faeb73354201b6f');
  });

  it('signs an HTTP API request', () => {
    const query =
      'auth_key=278d425bdf160c739803&auth_timestamp=1353088179&auth_version=1.0&body_md5=ec365a775a4cd0599faeb73354201b6f';
    assert.equal(
      requestSignature(SECRET, 'POST', '/apps/3/events', query),
      'da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c',
    );
    assert.equal(
      signedQuery(
        { appId: '3', key: KEY, secret: SECRET },
        'POST',
        '/apps/3/events',
        BODY,
        1353088179,
      ),
      `${query}&auth_signature=da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c`,
    );
  });
});

describe('Pusher signatures: checks', () => {
  const credentials = { appId: '3', key: KEY, secret: SECRET };
  const now = 1353088179 * 1000;
  const request = (
    overrides: Partial<SignedRequest> = {},
    query = signedQuery(credentials, 'POST', '/apps/3/events', BODY, 1353088179),
  ): SignedRequest => ({
    method: 'POST',
    path: '/apps/3/events',
    parameters: [...new URLSearchParams(query)],
    body: BODY,
    ...overrides,
  });

  it('accepts the documented request, in any parameter order and within 600 s', () => {
    assert.equal(signatureRefusal(credentials, request(), now), null);
    assert.equal(
      signatureRefusal(
        credentials,
        request({ parameters: [...request().parameters].reverse() }),
        now,
      ),
      null,
    );
    assert.equal(signatureRefusal(credentials, request(), now + 600_000), null);
    assert.equal(signatureRefusal(credentials, request(), now - 600_000), null);
  });

  it('sorts lower-cased keys and leaves auth_signature out of the signed query', () => {
    assert.equal(
      canonicalQuery([
        ['b', '2'],
        ['A', '1'],
        ['auth_signature', 'x'],
      ]),
      'a=1&b=2',
    );
  });

  const cases: Array<[string, SignedRequest, string]> = [
    [
      'a changed body',
      request({ body: BODY.replace('foo', 'bar') }),
      'The body_md5 does not match the body.',
    ],
    ['another path', request({ path: '/apps/4/events' }), 'Invalid auth_signature.'],
    ['another method', request({ method: 'PUT' }), 'Invalid auth_signature.'],
    [
      'a tampered signature',
      request(
        {},
        signedQuery(credentials, 'POST', '/apps/3/events', BODY, 1353088179).replace(/.$/, '0'),
      ),
      'Invalid auth_signature.',
    ],
    [
      'another secret',
      request(
        {},
        signedQuery(
          { ...credentials, secret: 'other' },
          'POST',
          '/apps/3/events',
          BODY,
          1353088179,
        ),
      ),
      'Invalid auth_signature.',
    ],
    [
      'another key',
      request(
        {},
        signedQuery({ ...credentials, key: 'other' }, 'POST', '/apps/3/events', BODY, 1353088179),
      ),
      'Unknown auth_key.',
    ],
    [
      'a timestamp 601 s old',
      request({}, signedQuery(credentials, 'POST', '/apps/3/events', BODY, 1353088179 - 601)),
      'The auth_timestamp is more than 600 seconds away from the server time.',
    ],
    [
      'no signature',
      request({ parameters: request().parameters.filter(([k]) => k !== 'auth_signature') }),
      'Missing auth_key, auth_timestamp or auth_signature.',
    ],
    [
      'no body_md5 with a body',
      request({ parameters: request().parameters.filter(([k]) => k !== 'body_md5') }),
      'The body_md5 does not match the body.',
    ],
    [
      'a repeated parameter',
      request({ parameters: [...request().parameters, ['auth_key', KEY]] }),
      'Duplicate query parameter "auth_key".',
    ],
    [
      'auth_version 2.0',
      request({
        parameters: request().parameters.map(
          ([k, v]) => [k, k === 'auth_version' ? '2.0' : v] as const,
        ),
      }),
      'Unsupported auth_version (use 1.0).',
    ],
  ];
  for (const [label, signed, reason] of cases) {
    it(`refuses ${label}`, () => assert.equal(signatureRefusal(credentials, signed, now), reason));
  }

  it('checks a channel auth value exactly', () => {
    const auth = channelAuth({ key: KEY, secret: SECRET }, '1234.1234', 'private-foobar');
    assert.equal(
      validChannelAuth({ key: KEY, secret: SECRET }, '1234.1234', 'private-foobar', auth),
      true,
    );
    assert.equal(
      validChannelAuth({ key: KEY, secret: SECRET }, '1234.1235', 'private-foobar', auth),
      false,
    );
    assert.equal(
      validChannelAuth({ key: KEY, secret: SECRET }, '1234.1234', 'private-foobar', `${auth}0`),
      false,
    );
    assert.equal(
      validChannelAuth({ key: KEY, secret: SECRET }, '1234.1234', 'private-foobar', undefined),
      false,
    );
  });

  it('compares texts of different lengths as unequal', () => {
    assert.equal(sameText('abc', 'abc'), true);
    assert.equal(sameText('abc', 'abcd'), false);
    assert.equal(sameText('abc', 'abd'), false);
  });
});
