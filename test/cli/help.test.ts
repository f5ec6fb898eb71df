// A CLI people can discover (issue 20): help for every command and option, clear refusals of
// unknown options, and the commands to change a password and to list users, companies, units and
// groups. Each run is the real CLI in a child process.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/auth/passwords.js';
import { commands } from '../../src/cli/commands/index.js';
import { connectDatabase } from '../../src/database/connect.js';
import { cliWorkingDir, type Run, runCli, SVC } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

// Every run here is on a SQLite file in DATA_DIR (svc() drops DATABASE_URL): the PostgreSQL and
// MariaDB passes would only repeat it.
const skip = sqlitePassOnly(
  'the CLI runs here on a SQLite file whatever the engine: run in the SQLite pass only',
);

function svc(dataDir: string, args: string[], input?: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD };
  for (const name of ['DATABASE_URL', 'DB_CONNECTIONS', 'TENANT_ISOLATION', 'APP_SECRET'])
    delete env[name];
  return runCli(env, args, input === undefined ? {} : { input });
}

function ok(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
}

const NAMES = Object.keys(commands);

describe('svc help', { concurrency: 8, skip }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-help-test-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  for (const args of [['--help'], ['-h'], ['help'], []]) {
    it(`svc ${args.join(' ') || '(nothing)'} lists every command with a one-line description, and examples, on stdout (exit 0)`, async () => {
      const run = await svc(dataDir, args);
      ok(run);
      assert.match(
        run.stdout,
        /^svc: the command line of the svc service\.\n\nUsage: npx svc <command>/,
      );
      for (const name of NAMES) {
        const line = new RegExp(`\\n  ${name} +(\\S.*)\\n`).exec(run.stdout);
        assert.ok(line, `${name} is not listed`);
        assert.equal(line[1], commands[name]?.summary);
        assert.ok(run.stdout.includes(`  ${commands[name]?.examples[0]}\n`), `${name} example`);
      }
      assert.match(run.stdout, /npx svc help <command>/);
    });
  }

  for (const name of NAMES) {
    it(`svc help ${name} and svc ${name} --help print its usage, each option with a description, and an example`, async () => {
      const runs = await Promise.all([
        svc(dataDir, ['help', name]),
        svc(dataDir, [name, '--help']),
      ]);
      for (const run of runs) ok(run);
      assert.equal(runs[1]?.stdout, runs[0]?.stdout);
      const text = runs[0]?.stdout ?? '';
      const command = commands[name];
      assert.ok(command);
      assert.ok(text.startsWith(`Usage: npx svc ${name}`), text);
      for (const [option, spec] of Object.entries(command.options ?? {})) {
        // Every option is in the usage line and has its own line of help.
        assert.ok(text.split('\n')[0]?.includes(`--${option}`), `usage lacks --${option}`);
        assert.match(
          text,
          new RegExp(`\\n  --${option}\\S* +${escapeRegExp(spec.description)}\\n`),
        );
      }
      assert.match(text, /\n {2}-h, --help +show this help\n/);
      assert.match(text, /\nExamples?:\n {2}npx svc /);
    });
  }

  it('svc <command> -h is svc <command> --help', async () => {
    const [short, long] = await Promise.all([
      svc(dataDir, ['token:create', '-h']),
      svc(dataDir, ['token:create', '--help']),
    ]);
    ok(short);
    assert.equal(short.stdout, long.stdout);
    assert.match(short.stdout, /--expires-at=<ISO-8601>/);
  });

  it('svc help of an unknown command exits 2 naming it', async () => {
    const run = await svc(dataDir, ['help', 'token:forge']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^svc: unknown command "token:forge"\./);
  });

  it('an unknown option is refused with exit 2, naming it and the options the command takes', async () => {
    const run = await svc(dataDir, ['unit:create', 'East', '--compnay=Acme']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      'svc: Unknown option --compnay for `svc unit:create`. It takes: --company=<id|name>, --connection=<name>, -h, --help. Run `npx svc unit:create --help` for its options.\n',
    );
  });

  it('an option without its value is refused with exit 2, showing how to write it', async () => {
    const run = await svc(dataDir, ['token:create', 'admin', 'Main', '--name']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^svc: --name needs a value, e.g\. --name=<text>\./);
  });
});

describe('svc user:password and the list commands', { concurrency: 1, skip }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lists-test-'));
  const hashOf = async (login: string) => {
    const database = connectDatabase(`sqlite:${path.join(dataDir, 'svc.sqlite')}`, {
      sqlite: { synchronous: 'NORMAL', cacheSizeKib: 2048, backgroundCheckpoint: true },
      pool: { size: 1, statementTimeoutMs: 5000, connectTimeoutMs: 2000, pooler: null },
    });
    try {
      const row = await database.db
        .selectFrom('users')
        .select('password_hash')
        .where('login', '=', login)
        .executeTakeFirstOrThrow();
      return String(row.password_hash);
    } finally {
      await database.close();
    }
  };
  before(async () => {
    ok(await svc(dataDir, ['company:create', 'Acme']));
    ok(await svc(dataDir, ['unit:create', 'East', '--company=Acme']));
    ok(await svc(dataDir, ['group:create', 'Operators']));
    ok(await svc(dataDir, ['user:create', 'eve', '--name=Eve', '--password=eve-password-1']));
    ok(await svc(dataDir, ['unit:attach', 'eve', 'East']));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('user:password --password sets the password (stored hashed) and says whose', async () => {
    const run = await svc(dataDir, ['user:password', 'eve', '--password=new-password-2']);
    ok(run);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /Password of user "eve" \(#2\) changed\./);
    assert.equal(await verifyPassword('new-password-2', await hashOf('eve')), true);
  });

  it('user:password reads the password from stdin when it is not a terminal', async () => {
    ok(await svc(dataDir, ['user:password', 'admin'], 'from-stdin-pw-3\n'));
    assert.equal(await verifyPassword('from-stdin-pw-3', await hashOf('admin')), true);
  });

  it('user:password refuses a password the users resource refuses (exit 2) and changes nothing', async () => {
    const before = await hashOf('eve');
    const run = await svc(dataDir, ['user:password', 'eve', '--password=short']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /password: The password field must be at least 8 characters\./);
    assert.equal(await hashOf('eve'), before);
  });

  it('user:password with nothing on stdin says how to give one (exit 2)', async () => {
    const run = await svc(dataDir, ['user:password', 'eve'], '');
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /No password: give --password=<text>, type it at the prompt, or pipe it on stdin\./,
    );
  });

  it('user:list prints the users as JSON without any password, with their units', async () => {
    const run = await svc(dataDir, ['user:list']);
    ok(run);
    assert.deepStrictEqual(JSON.parse(run.stdout), [
      {
        id: 1,
        login: 'admin',
        name: 'Administrator',
        email: null,
        admin: 'Y',
        active: 'Y',
        units: ['Main'],
      },
      { id: 2, login: 'eve', name: 'Eve', email: null, admin: 'N', active: 'Y', units: ['East'] },
    ]);
    assert.ok(!run.stdout.includes('scrypt') && !run.stdout.includes('password'));
  });

  it('user:password on a terminal asks twice for the password and sets it', {
    skip: spawnSync('script', ['--version']).error ? 'needs script(1) for a terminal' : false,
  }, async () => {
    const command = [process.execPath, ...SVC, 'user:password', 'eve']
      .map((a) => `'${a}'`)
      .join(' ');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD };
    delete env.DATABASE_URL;
    // What is typed reaches the terminal before the command turns echo off, so only the
    // prompts and the result are checked here, not the absence of an echo.
    const out = execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: cliWorkingDir(),
      env,
      encoding: 'utf8',
      input: 'typed-at-prompt-4\ntyped-at-prompt-4\n',
    });
    assert.match(out, /New password for "eve": /);
    assert.match(out, /Again: /);
    assert.match(out, /Password of user "eve" \(#2\) changed\./);
    assert.equal(await verifyPassword('typed-at-prompt-4', await hashOf('eve')), true);
  });

  it('unit:list prints a table when stdout is a terminal', {
    skip: spawnSync('script', ['--version']).error ? 'needs script(1) for a terminal' : false,
  }, () => {
    // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
    const command = [process.execPath, ...SVC, 'unit:list'].map((a) => `'${a}'`).join(' ');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD };
    delete env.DATABASE_URL;
    const out = execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: cliWorkingDir(),
      env,
      encoding: 'utf8',
    }).replace(/\r\n/g, '\n');
    assert.match(
      out,
      /\nid {2}name {2}company {2}connection {2}active\n-- {2}---- {2}------- {2}---------- {2}------\n1 {3}Main {2}Default {2}- {11}Y\n2 {3}East {2}Acme {5}- {11}Y\n/,
    );
  });

  it('company:list, unit:list and group:list print their records as JSON', async () => {
    const [companies, units, groups] = await Promise.all([
      svc(dataDir, ['company:list']),
      svc(dataDir, ['unit:list']),
      svc(dataDir, ['group:list']),
    ]);
    for (const run of [companies, units, groups]) ok(run);
    assert.deepStrictEqual(JSON.parse(companies.stdout), [
      { id: 1, name: 'Default', active: 'Y' },
      { id: 2, name: 'Acme', active: 'Y' },
    ]);
    assert.deepStrictEqual(JSON.parse(units.stdout), [
      { id: 1, name: 'Main', company_id: 1, company: 'Default', connection: null, active: 'Y' },
      { id: 2, name: 'East', company_id: 2, company: 'Acme', connection: null, active: 'Y' },
    ]);
    assert.deepStrictEqual(JSON.parse(groups.stdout), [{ id: 1, name: 'Operators' }]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
