// The `svc` command line (DESIGN.md 3.1, SPEC.md 5.1.7): JSON on stdout (the bare token for
// token:create), messages on stderr, exit 2 with a clear message on bad input. Each run is the
// real CLI in a child process (`node --import tsx src/cli/main.ts`) over a temporary DATA_DIR.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { otherRouteMiddleware, serviceRoutes } from '../../src/app/routes.js';
import { verifyPassword } from '../../src/auth/passwords.js';
import { connectDatabase } from '../../src/database/connect.js';
import { assertBearer401, bearer, type SecondServer, startServerOn } from '../helpers/bearer.js';
import { type Run, runCli } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

// Every run here, and every server (startServerOn), is on a SQLite file in DATA_DIR: the
// PostgreSQL and MariaDB passes would only repeat it.
const skip = sqlitePassOnly(
  'the CLI runs here on a SQLite file whatever the engine: run in the SQLite pass only',
);

const TOKEN_SHAPE = /^svc_api_[0-9A-Za-z]{38}$/;

/** Runs `svc <args>` with DATA_DIR=`dataDir` and the server's other settings at their defaults. */
function svc(dataDir: string, ...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
  };
  for (const name of ['DATABASE_URL', 'DB_CONNECTIONS', 'TENANT_ISOLATION', 'APP_SECRET'])
    delete env[name];
  return runCli(env, args);
}

/** Asserts a successful run and returns its stdout parsed as JSON (typed loosely, like Reply.body). */
function json(run: Run): any {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Asserts bad input: exit 2, nothing on stdout, and a message on stderr matching `message`. */
function refused(run: Run, message: RegExp): void {
  assert.equal(run.code, 2, `exit ${run.code}, stdout ${run.stdout}, stderr ${run.stderr}`);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, message);
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-test-'));
}

/** The abilities named by `svc.api:<a>,<b>` on the service's routes, parsed here independently. */
function abilitiesOnRoutes(): string[] {
  const specs = [
    ...serviceRoutes.flatMap((r) => [
      ...(r.middleware?.read ?? []),
      ...(r.middleware?.write ?? []),
    ]),
    ...otherRouteMiddleware,
  ];
  const found = new Set<string>();
  for (const spec of specs) {
    const [name, parameters] = spec.split(':');
    if (name === 'svc.api' && parameters)
      for (const ability of parameters.split(',')) found.add(ability.trim());
  }
  return [...found].sort();
}

// The three groups use separate DATA_DIRs, so they run side by side (each spawn is mostly start-up).
describe('svc CLI', { concurrency: true, skip }, () => {
  describe('svc CLI: migrate and abilities', { concurrency: 1 }, () => {
    const dataDir = tempDir();
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

    it('migrate applies every migration on an empty database, then reports none pending', async () => {
      const first = await svc(dataDir, 'migrate');
      const report = json(first);
      assert.deepStrictEqual(
        report.migrations.map((r: { set: string }) => r.set),
        ['system', 'data'],
      );
      assert.ok(report.migrations[0].applied.includes('0001-identities'));
      assert.ok(report.migrations[1].applied.includes('0001-import-templates'));
      assert.match(first.stderr, /Migrations current/);
      assert.deepStrictEqual(json(await svc(dataDir, 'migrate')), {
        migrations: [
          { set: 'system', applied: [] },
          { set: 'data', applied: [] },
        ],
      });
    });

    it('abilities prints the grantable set: exactly the abilities declared on routes', async () => {
      const printed = json(await svc(dataDir, 'abilities'));
      assert.deepStrictEqual(printed, abilitiesOnRoutes());
      for (const resource of [
        'import-templates',
        'import-template-logs',
        'users',
        'companies',
        'units',
        'groups',
      ]) {
        assert.ok(
          printed.includes(`${resource}.read`) && printed.includes(`${resource}.write`),
          resource,
        );
      }
    });

    it('refuses an unknown command with exit 2 and the usage listing every command', async () => {
      const run = await svc(dataDir, 'token:forge');
      refused(run, /unknown command "token:forge"/);
      for (const command of [
        'migrate',
        'user:create',
        'company:create',
        'unit:create',
        'unit:attach',
        'group:create',
        'token:create',
        'token:list',
        'token:revoke',
        'abilities',
      ]) {
        assert.match(run.stderr, new RegExp(`\\n  ${command} `));
      }
    });
  });

  describe('svc CLI: identities, then a token that works against the server', {
    concurrency: 1,
  }, () => {
    const dataDir = tempDir();
    let server: SecondServer | null = null;
    let token = '';
    let tokenId = 0;
    after(async () => {
      await server?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('user:create prints the user as JSON, without the password, and stores it hashed', async () => {
      const run = await svc(
        dataDir,
        'user:create',
        'bob',
        '--name=Bob',
        '--password=bob-password-1',
        '--email=bob@example.test',
      );
      const user = json(run);
      assert.deepStrictEqual(
        { ...user, created_at: typeof user.created_at, updated_at: typeof user.updated_at },
        {
          id: 2,
          login: 'bob',
          name: 'Bob',
          email: 'bob@example.test',
          admin: 'N',
          active: 'Y',
          created_at: 'string',
          updated_at: 'string',
          units: [],
          groups: [],
        },
      );
      assert.ok(!run.stdout.includes('bob-password-1') && !run.stdout.includes('password'));
      assert.match(run.stderr, /User "bob" created/);
    });

    it('user:create --admin makes an admin', async () => {
      assert.equal(
        json(
          await svc(
            dataDir,
            'user:create',
            'root2',
            '--name=Root',
            '--password=root-password-1',
            '--admin',
          ),
        ).admin,
        'Y',
      );
    });

    it('company:create prints the company', async () => {
      const company = json(await svc(dataDir, 'company:create', 'Acme'));
      assert.deepStrictEqual([company.id, company.name, company.active], [2, 'Acme', 'Y']);
    });

    it('unit:create --company=<name> prints the unit in that company', async () => {
      const unit = json(await svc(dataDir, 'unit:create', 'Sales', '--company=Acme'));
      assert.deepStrictEqual(
        [unit.id, unit.name, unit.company_id, unit.connection, unit.company],
        [2, 'Sales', 2, null, { id: 2, name: 'Acme' }],
      );
    });

    it('group:create prints the group', async () => {
      const group = json(await svc(dataDir, 'group:create', 'Operators'));
      assert.deepStrictEqual([group.id, group.name], [1, 'Operators']);
    });

    it('unit:attach links the user to the unit, once', async () => {
      assert.deepStrictEqual(json(await svc(dataDir, 'unit:attach', 'bob', 'Sales')), {
        user_id: 2,
        unit_id: 2,
        attached: true,
      });
      assert.deepStrictEqual(json(await svc(dataDir, 'unit:attach', '2', '2')), {
        user_id: 2,
        unit_id: 2,
        attached: false,
      });
    });

    it('token:create prints the bare token alone on stdout', async () => {
      const run = await svc(
        dataDir,
        'token:create',
        'bob',
        'Sales',
        '--name=ci job',
        '--abilities=import-templates.read,import-template-logs.read',
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^svc_api_[0-9A-Za-z]{38}\n$/);
      token = run.stdout.trim();
      assert.match(token, TOKEN_SHAPE);
      assert.match(run.stderr, /shown only this once/);
      const id = /Token #(\d+)/.exec(run.stderr)?.[1];
      tokenId = Number(id);
      assert.ok(tokenId > 0);
    });

    it('the printed token works against a server started on the same DATA_DIR, within its abilities', async () => {
      server = await startServerOn(dataDir);
      assertJson(
        await server.request('GET', '/api/import-templates', { headers: bearer(token) }),
        200,
        {
          data: [],
          meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
        },
      );
      assertJson(
        await server.request('POST', '/api/import-templates', {
          body: { title: 'x' },
          headers: bearer(token),
        }),
        403,
        {
          error: 'Missing ability: import-templates.write',
        },
      );
    });

    it('token:list prints the tokens as JSON without their secrets', async () => {
      const run = await svc(dataDir, 'token:list');
      const tokens = json(run);
      assert.ok(
        !run.stdout.includes(token) && !run.stdout.includes(token.slice('svc_api_'.length)),
      );
      const mine = tokens.find((t: { id: number }) => t.id === tokenId);
      assert.deepStrictEqual(
        { ...mine, created_at: typeof mine.created_at, last_used_at: typeof mine.last_used_at },
        {
          id: tokenId,
          user_id: 2,
          unit_id: 2,
          name: 'ci job',
          abilities: ['import-templates.read', 'import-template-logs.read'],
          expires_at: null,
          last_used_at: 'string',
          revoked_at: null,
          created_at: 'string',
        },
      );
      for (const listed of tokens) assert.ok(!('token' in listed) && !('token_hash' in listed));
    });

    it('token:create --expires-in-days sets the expiry that many days ahead', async () => {
      const before = Date.now();
      const run = await svc(
        dataDir,
        'token:create',
        '2',
        '2',
        '--name=short lived',
        '--expires-in-days=30',
        '--no-abilities',
      );
      assert.equal(run.code, 0, run.stderr);
      const stored = await server!.service.database.db
        .selectFrom('api_tokens')
        .select(['expires_at', 'abilities'])
        .where('name', '=', 'short lived')
        .executeTakeFirstOrThrow();
      const expires = Date.parse(String(stored.expires_at));
      assert.ok(
        expires >= before + 30 * 86_400_000 && expires <= Date.now() + 30 * 86_400_000,
        String(stored.expires_at),
      );
      assert.deepStrictEqual(JSON.parse(String(stored.abilities)), []);
      // No abilities: it passes no route that names one.
      assertJson(
        await server!.request('GET', '/api/import-templates', {
          headers: bearer(run.stdout.trim()),
        }),
        403,
        {
          error: 'Missing ability: import-templates.read',
        },
      );
    });

    it('token:revoke prints the revoked token and the server refuses it from then on', async () => {
      const revoked = json(await svc(dataDir, 'token:revoke', String(tokenId)));
      assert.equal(revoked.id, tokenId);
      assert.equal(typeof revoked.revoked_at, 'string');
      assertBearer401(
        await server!.request('GET', '/api/import-templates', { headers: bearer(token) }),
        'Token revoked.',
      );
    });

    it('stores the CLI-made user’s password hashed', async () => {
      const row = await server!.service.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('login', '=', 'bob')
        .executeTakeFirstOrThrow();
      assert.match(String(row.password_hash), /^scrypt\$/);
      assert.equal(await verifyPassword('bob-password-1', String(row.password_hash)), true);
    });
  });

  describe('svc CLI: bad input exits 2 with a clear message', { concurrency: 1 }, () => {
    const dataDir = tempDir();
    before(async () => {
      // One sequential first use (migrations, bootstrap), then the refusals can run side by side.
      json(await svc(dataDir, 'unit:create', 'Elsewhere'));
      // Two companies of one name (set-up straight in the database).
      const database = connectDatabase(`sqlite:${path.join(dataDir, 'svc.sqlite')}`, {
        sqlite: { synchronous: 'NORMAL', cacheSizeKib: 2048, backgroundCheckpoint: true },
        pool: { size: 1, statementTimeoutMs: 5000, connectTimeoutMs: 2000, pooler: null },
      });
      await database.db
        .insertInto('companies')
        .values([
          { name: 'Twin', active: 'Y' },
          { name: 'Twin', active: 'Y' },
        ])
        .execute();
      await database.close();
    });
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

    const cases: Array<[string, string[], RegExp]> = [
      [
        'token:create with an ability no route declares',
        [
          'token:create',
          'admin',
          'Main',
          '--name=x',
          '--abilities=import-templates.read,reports.export',
        ],
        /Ability "reports\.export" is not declared on any route/,
      ],
      [
        'token:create for an unknown user',
        ['token:create', 'ghost', 'Main', '--name=x', '--no-abilities'],
        /No user "ghost"/,
      ],
      [
        'token:create for an unknown unit',
        ['token:create', 'admin', 'Nowhere', '--name=x', '--no-abilities'],
        /No unit "Nowhere"/,
      ],
      [
        'token:create for a unit the user does not belong to',
        ['token:create', 'admin', 'Elsewhere', '--name=x', '--no-abilities'],
        /the unit does not belong to the user/,
      ],
      [
        'token:create without --name',
        ['token:create', 'admin', 'Main'],
        /--name=<value> is required/,
      ],
      [
        'token:create with a non-numeric --expires-in-days',
        ['token:create', 'admin', 'Main', '--name=x', '--no-abilities', '--expires-in-days=abc'],
        /--expires-in-days must be a positive whole number, got "abc"/,
      ],
      [
        'token:create with a bad --expires-at',
        ['token:create', 'admin', 'Main', '--name=x', '--no-abilities', '--expires-at=someday'],
        /--expires-at must be an ISO-8601 date/,
      ],
      [
        'token:create with an --expires-at already past',
        [
          'token:create',
          'admin',
          'Main',
          '--name=x',
          '--no-abilities',
          '--expires-at=2020-01-01T00:00:00Z',
        ],
        /--expires-at must be in the future, got "2020-01-01T00:00:00Z"/,
      ],
      [
        'token:create without the unit',
        ['token:create', 'admin', '--name=x', '--no-abilities'],
        /Usage: svc token:create <user> <unit>/,
      ],
      [
        'token:create with an unknown option',
        ['token:create', 'admin', 'Main', '--name=x', '--no-abilities', '--scope=all'],
        /Unknown option --scope for `svc token:create`\. It takes: --name=<text>, --abilities=/,
      ],
      ['token:revoke of an unknown token', ['token:revoke', '999'], /No token #999/],
      [
        'user:create without --password',
        ['user:create', 'kim', '--name=Kim'],
        /--password=<value> is required/,
      ],
      [
        'user:create with a taken login',
        ['user:create', 'admin', '--name=A', '--password=admin-password-2'],
        /The login has already been taken/,
      ],
      ['company:create without a name', ['company:create'], /Usage: svc company:create <name>/],
      [
        'unit:create in an unknown company',
        ['unit:create', 'Ghost unit', '--company=Nope'],
        /No company "Nope"/,
      ],
      [
        'unit:create in a company whose name is ambiguous',
        ['unit:create', 'Ghost unit', '--company=Twin'],
        /More than one company is named "Twin": #2, #3\. Give its id\./,
      ],
      [
        'unit:create on an unknown connection',
        ['unit:create', 'Remote', '--connection=east'],
        /Unknown connection "east"/,
      ],
      ['unit:attach of an unknown user', ['unit:attach', 'ghost', 'Main'], /No user "ghost"/],
    ];
    describe('each refusal', { concurrency: 4 }, () => {
      for (const [name, args, message] of cases) {
        it(`refuses ${name}`, async () => {
          refused(await svc(dataDir, ...args), message);
        });
      }
    });

    it('leaves no token, user, company, unit or group behind', async () => {
      assert.deepStrictEqual(json(await svc(dataDir, 'token:list')), []);
      const server = await startServerOn(dataDir);
      try {
        const { db } = server.service.database;
        const names = async (table: string, column: string) =>
          (await db.selectFrom(table).select(column).orderBy('id').execute()).map((r) => r[column]);
        assert.deepStrictEqual(await names('users', 'login'), ['admin']);
        assert.deepStrictEqual(await names('companies', 'name'), ['Default', 'Twin', 'Twin']);
        assert.deepStrictEqual(await names('units', 'name'), ['Main', 'Elsewhere']);
        assert.deepStrictEqual(await names('groups', 'name'), []);
        assert.deepStrictEqual(await names('user_units', 'unit_id'), [1]);
      } finally {
        await server.close();
      }
    });
  });
});
