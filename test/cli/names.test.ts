// Names that stay usable (issue 20): company and group names are unique, a unit's name unique
// within its company (422 from the API, exit 2 from the CLI naming the record that holds it);
// lookups by name say which record they chose and list the candidates when names repeat (left
// from before); a token gets no abilities only when asked for; revoking twice says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Run, runCli } from '../helpers/cli.js';
import { assertJson } from '../helpers/http.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

const TAKEN = {
  message: 'The name has already been taken.',
  errors: { name: ['The name has already been taken.'] },
};

describe('names that stay usable', { concurrency: 1 }, () => {
  let server: TestServer;
  const svc = (...args: string[]): Promise<Run> => {
    const env: NodeJS.ProcessEnv = { ...process.env, ADMIN_PASSWORD, LOG_LEVEL: 'silent' };
    for (const name of ['DATABASE_URL', 'DB_CONNECTIONS', 'TENANT_ISOLATION', 'APP_SECRET'])
      delete env[name];
    return runCli({ ...env, ...server.storageEnv }, args);
  };
  const refused = (run: Run, message: string) => {
    assert.equal(run.code, 2, `exit ${run.code}: ${run.stderr}`);
    assert.equal(run.stdout, '');
    // After the database line and the lookups the command said it made, if any: the message.
    assert.equal(run.stderr.split('\n').at(-2), `svc: ${message}`, run.stderr);
  };
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('POST /api/companies with a name already taken is a 422 on name', async () => {
    assertJson(await server.post('/api/companies', { name: 'Acme' }), 201, undefined);
    assertJson(await server.post('/api/companies', { name: 'Acme' }), 422, TAKEN);
  });

  it('POST /api/groups with a name already taken is a 422 on name', async () => {
    assertJson(await server.post('/api/groups', { name: 'Operators' }), 201, undefined);
    assertJson(await server.post('/api/groups', { name: 'Operators' }), 422, TAKEN);
  });

  it('a unit name is unique within its company: the same name in another company or none is accepted, a second in one company is a 422', async () => {
    assertJson(await server.post('/api/units', { name: 'East', company_id: 1 }), 201, undefined);
    assertJson(await server.post('/api/units', { name: 'East', company_id: 1 }), 422, TAKEN);
    assertJson(await server.post('/api/units', { name: 'East', company_id: 2 }), 201, undefined);
    assertJson(await server.post('/api/units', { name: 'Lone' }), 201, undefined);
    assertJson(await server.post('/api/units', { name: 'Lone', company_id: null }), 422, TAKEN);
  });

  it('moving a unit into a company that has a unit of its name is a 422; saving a unit under its own name is not', async () => {
    const lone = (await server.get('/api/units?filters[name][=]=Lone')).body as {
      data: Array<{ id: number }>;
    };
    const id = lone.data[0]?.id;
    assertJson(await server.patch(`/api/units/${id}`, { active: 'N' }), 200, undefined);
    assertJson(await server.patch(`/api/units/${id}`, { name: 'East', company_id: 2 }), 422, TAKEN);
  });

  it('company:create and group:create of a taken name exit 2 naming the record that holds it', async () => {
    refused(
      await svc('company:create', 'Acme'),
      'A company named "Acme" already exists: #2. Choose another name.',
    );
    refused(
      await svc('group:create', 'Operators'),
      'A group named "Operators" already exists: #1. Choose another name.',
    );
  });

  it('unit:create of a name taken in that company exits 2; in another company it is created', async () => {
    refused(
      await svc('unit:create', 'East', '--company=Acme'),
      'A unit named "East" already exists in that company: #3. Choose another name.',
    );
    const run = await svc('unit:create', 'North', '--company=Acme');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Using company "Acme": #2\./);
  });

  it('a lookup by name says which record it chose', async () => {
    const run = await svc('unit:attach', 'admin', 'North');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Using user "admin": #1\.\n/);
    assert.match(run.stderr, /Using unit "North": #\d+ \(company Acme\)\.\n/);
  });

  it('a lookup of a unit name that several companies use lists them and asks for an id (exit 2)', async () => {
    refused(
      await svc('unit:attach', 'admin', 'East'),
      'More than one unit is named "East": #2 (company Default), #3 (company Acme). Give its id.',
    );
  });

  it('token:create without --abilities or --no-abilities is refused (exit 2) saying how to choose', async () => {
    refused(
      await svc('token:create', 'admin', 'Main', '--name=nothing'),
      'Give --abilities=<a,b,...> (the list: `npx svc abilities`), or --no-abilities for a token that may do nothing.',
    );
    refused(
      await svc(
        'token:create',
        'admin',
        'Main',
        '--name=both',
        '--no-abilities',
        '--abilities=units.read',
      ),
      'Give --abilities or --no-abilities, not both.',
    );
  });

  it('token:create --no-abilities issues a token with none; revoking it twice says it was already revoked (exit 0, unchanged)', async () => {
    const issued = await svc('token:create', 'admin', 'Main', '--name=none', '--no-abilities');
    assert.equal(issued.code, 0, issued.stderr);
    const id = /Token #(\d+)/.exec(issued.stderr)?.[1];
    const first = await svc('token:revoke', String(id));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`Token #${id} revoked\\.\\n$`));
    const again = await svc('token:revoke', String(id));
    assert.equal(again.code, 0, again.stderr);
    const record = JSON.parse(again.stdout) as { revoked_at: string; abilities: string[] };
    assert.deepStrictEqual(record, JSON.parse(first.stdout));
    assert.deepStrictEqual(record.abilities, []);
    assert.match(
      again.stderr,
      new RegExp(
        `Token #${id} was already revoked \\(at ${record.revoked_at.replace(/[.+]/g, '\\$&')}\\); unchanged\\.\\n$`,
      ),
    );
  });
});
