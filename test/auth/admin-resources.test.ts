// DESIGN.md 3.4: /api/users, /api/companies, /api/units and /api/groups also require the acting
// user to be an admin: their authorization check answers 403 `{message: "This action is
// unauthorized."}` (DESIGN.md 3.6) even to a token holding the ability. The users resource keeps
// `password` write-only and stores it hashed; `login` is unique.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/auth/passwords.js';
import { bearer, type Identity, seedIdentity } from '../helpers/bearer.js';
import { assertJson, freshTimestamp, type Reply } from '../helpers/http.js';
import { seedGroups } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const ADMIN_RESOURCES = ['users', 'companies', 'units', 'groups'] as const;
const UNAUTHORIZED = { message: 'This action is unauthorized.' };
const VALID_BODIES: Record<(typeof ADMIN_RESOURCES)[number], Record<string, unknown>> = {
  users: { login: 'mallory', name: 'Mallory', password: 'password-of-mallory' },
  companies: { name: 'Shadow Co' },
  units: { name: 'Shadow unit', company_id: 1 },
  groups: { name: 'Shadow group' },
};

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      found.add(key);
      keysOf(inner, found);
    }
  }
  return found;
}

function assertNoPassword(reply: Reply, plain: string): void {
  const keys = keysOf(reply.body);
  assert.ok(!keys.has('password'), 'password in the response');
  assert.ok(!keys.has('password_hash'), 'password_hash in the response');
  assert.ok(!reply.text.includes(plain), 'the clear password in the response');
  assert.ok(!reply.text.includes('scrypt$'), 'a password hash in the response');
}

describe('admin-only resources', () => {
  let server: TestServer;
  let clerk: Identity;
  before(async () => {
    server = await startTestServer();
    await seedGroups(server.service.database.db, ['Operators']); // group 1
    // A non-admin user whose token holds every grantable ability.
    clerk = await seedIdentity(server, 'clerk');
  });
  after(() => server.close());

  for (const resource of ADMIN_RESOURCES) {
    it(`refuses /api/${resource} with 403 to a non-admin user’s token holding the ability`, async () => {
      const headers = bearer(clerk.token);
      const before = await server.get(`/api/${resource}`);
      assertJson(await server.get(`/api/${resource}`, { headers }), 403, UNAUTHORIZED);
      assertJson(await server.get(`/api/${resource}/1`, { headers }), 403, UNAUTHORIZED);
      assertJson(
        await server.post(`/api/${resource}`, VALID_BODIES[resource], { headers }),
        403,
        UNAUTHORIZED,
      );
      assertJson(
        await server.patch(`/api/${resource}/1`, { name: 'Renamed' }, { headers }),
        403,
        UNAUTHORIZED,
      );
      assertJson(
        await server.put(`/api/${resource}/1`, { name: 'Renamed' }, { headers }),
        403,
        UNAUTHORIZED,
      );
      assertJson(await server.delete(`/api/${resource}/1`, { headers }), 403, UNAUTHORIZED);
      assert.deepStrictEqual(
        (await server.get(`/api/${resource}`)).body,
        before.body,
        'nothing changed',
      );
    });

    it(`allows /api/${resource} to an admin’s token`, async () => {
      const list = await server.get(`/api/${resource}`);
      assertJson(list, 200);
      assert.ok(list.body.data.length >= 1);
      assertJson(await server.get(`/api/${resource}/1`), 200);
    });
  }

  it('allows the same token as soon as its user becomes an admin (checked on every request)', async () => {
    const { db } = server.service.database;
    const promoted = await seedIdentity(server, 'promoted');
    assertJson(
      await server.get('/api/groups', { headers: bearer(promoted.token) }),
      403,
      UNAUTHORIZED,
    );
    await db.updateTable('users').set({ admin: 'Y' }).where('id', '=', promoted.userId).execute();
    assertJson(await server.get('/api/groups', { headers: bearer(promoted.token) }), 200);
  });

  it('answers the missing ability before the admin check for an admin token lacking it', async () => {
    const admin = await seedIdentity(server, 'limited-admin', {
      admin: 'Y',
      abilities: ['groups.read'],
    });
    assertJson(await server.get('/api/users', { headers: bearer(admin.token) }), 403, {
      error: 'Missing ability: users.read',
    });
    assertJson(await server.get('/api/groups', { headers: bearer(admin.token) }), 200);
  });
});

describe('users resource: password and login', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const storedHash = async (id: number): Promise<string> => {
    const row = await server.service.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return String(row.password_hash);
  };

  it('creates a user without ever answering the password, and stores it hashed (scrypt$...)', async () => {
    const since = new Date();
    const plain = 'correct horse battery';
    const created = await server.post('/api/users', {
      login: 'frank',
      name: 'Frank',
      email: 'frank@example.test',
      password: plain,
      units: [{ unit_id: 1 }],
    });
    assertJson(created, 201);
    assertNoPassword(created, plain);
    const id = created.body.id;
    assert.deepStrictEqual(created.body, {
      id,
      login: 'frank',
      name: 'Frank',
      email: 'frank@example.test',
      admin: 'N',
      active: 'Y',
      created_at: freshTimestamp(created.body.created_at, since),
      updated_at: freshTimestamp(created.body.updated_at, since),
      units: [{ id: created.body.units[0]?.id, user_id: id, unit_id: 1 }],
      groups: [],
    });
    const hash = await storedHash(id);
    assert.match(hash, /^scrypt\$/);
    assert.ok(!hash.includes(plain));
    assert.equal(await verifyPassword(plain, hash), true);
    assert.equal(await verifyPassword('wrong password', hash), false);
  });

  it('never answers the password or its hash in list and show', async () => {
    const plain = 'another secret pass';
    const created = await server.post('/api/users', {
      login: 'grace',
      name: 'Grace',
      password: plain,
    });
    assertJson(created, 201);
    assertNoPassword(await server.get(`/api/users/${created.body.id}`), plain);
    assertNoPassword(await server.get('/api/users'), plain);
    assertNoPassword(await server.get('/api/users?fields=password,password_hash'), plain);
  });

  it('offers no filter or sort on the password hash (no oracle on its value)', async () => {
    const all = await server.get('/api/users');
    assertJson(all, 200);
    const probe = await server.get(
      '/api/users?sort=password_hash&filters[password_hash][like]=no-such-hash%25',
    );
    assertJson(probe, 200, all.body);
  });

  it('re-hashes a changed password and keeps the hash when the password is absent', async () => {
    const created = await server.post('/api/users', {
      login: 'heidi',
      name: 'Heidi',
      password: 'first password',
    });
    const id = created.body.id;
    const first = await storedHash(id);
    const renamed = await server.patch(`/api/users/${id}`, { name: 'Heidi K.' });
    assertJson(renamed, 200);
    assert.equal(await storedHash(id), first);
    const changed = await server.patch(`/api/users/${id}`, { password: 'second password' });
    assertJson(changed, 200);
    assertNoPassword(changed, 'second password');
    const second = await storedHash(id);
    assert.notEqual(second, first);
    assert.match(second, /^scrypt\$/);
    assert.equal(await verifyPassword('second password', second), true);
  });

  it('refuses an empty or null password on update with 422 and keeps the stored hash', async () => {
    const created = await server.post('/api/users', {
      login: 'judith',
      name: 'Judith',
      password: 'first password',
    });
    const id = created.body.id;
    const first = await storedHash(id);
    for (const password of ['', null]) {
      assertJson(await server.patch(`/api/users/${id}`, { password }), 422, {
        message: 'The password field is required.',
        errors: { password: ['The password field is required.'] },
      });
      assert.equal(await storedHash(id), first);
    }
    assertJson(await server.put(`/api/users/${id}`, { password: 'short' }), 422, {
      message: 'The password field must be at least 8 characters.',
      errors: { password: ['The password field must be at least 8 characters.'] },
    });
    assert.equal(await storedHash(id), first);
  });

  it('ignores a password_hash sent in the payload: only password is written, hashed', async () => {
    const created = await server.post('/api/users', {
      login: 'oscar',
      name: 'Oscar',
      password: 'oscar password',
      password_hash: 'scrypt$forged',
    });
    assertJson(created, 201);
    const hash = await storedHash(created.body.id);
    assert.notEqual(hash, 'scrypt$forged');
    assert.equal(await verifyPassword('oscar password', hash), true);
  });

  it('returns 422 when the login is already taken, on create', async () => {
    const message = 'The login has already been taken.';
    assertJson(
      await server.post('/api/users', {
        login: 'admin',
        name: 'Second admin',
        password: 'password-123',
      }),
      422,
      {
        message,
        errors: { login: [message] },
      },
    );
  });

  it('returns 422 when an update takes another user’s login, and accepts the user’s own', async () => {
    const created = await server.post('/api/users', {
      login: 'ivan',
      name: 'Ivan',
      password: 'password-123',
    });
    const message = 'The login has already been taken.';
    assertJson(await server.patch(`/api/users/${created.body.id}`, { login: 'admin' }), 422, {
      message,
      errors: { login: [message] },
    });
    assertJson(
      await server.patch(`/api/users/${created.body.id}`, { login: 'ivan', name: 'Ivan I.' }),
      200,
    );
  });

  it('requires a password on create', async () => {
    const reply = await server.post('/api/users', { login: 'judy', name: 'Judy' });
    assertJson(reply, 422, {
      message: 'The password field is required.',
      errors: { password: ['The password field is required.'] },
    });
  });
});
