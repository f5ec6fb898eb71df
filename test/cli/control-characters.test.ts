// Issue 31, 12: names stored through the API never reach the operator's terminal raw. The real
// CLI prints a table on a terminal (script(1) gives it one) with every control character
// escaped as `\xHH` (C0, ESC sequences, DEL, C1), JSON with DEL and C1 escaped as `\u00HH` too
// (the same value), and messages quoting a stored name with the name's controls escaped.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { cliWorkingDir, runCli, SVC } from '../helpers/cli.js';
import { assertJson } from '../helpers/http.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

// Sets the window title (OSC 0 ... BEL), clears the screen (CSI 2 J), the same through the
// one-byte C1 CSI, and a DEL.
const HOSTILE = 'Evil\u001b]0;pwned\u0007\u001b[2J\u009b2J\u007f';
const ESCAPED = 'Evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b2J\\x7f';
/** Any control character but the line ends a terminal writes (CR LF). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
const RAW_CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

const noScript = spawnSync('script', ['--version']).error
  ? 'needs script(1) for a terminal'
  : false;

describe('the CLI escapes control characters of stored names', () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    server = await startTestServer();
    assertJson(await server.post('/api/groups', { name: HOSTILE }), 201);
    const company = await server.post('/api/companies', { name: `${HOSTILE} Inc` });
    assertJson(company, 201);
    assertJson(
      await server.post('/api/units', { name: 'Plain unit', company_id: company.body.id }),
      201,
    );
    env = { ...process.env, ADMIN_PASSWORD, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    Object.assign(env, server.storageEnv);
  });
  after(() => server.close());

  it('group:list on a terminal prints the table with the name’s control characters escaped', {
    skip: noScript,
  }, () => {
    // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
    const command = [process.execPath, ...SVC, 'group:list'].map((a) => `'${a}'`).join(' ');
    const out = execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: cliWorkingDir(),
      env,
      encoding: 'utf8',
    });
    assert.ok(out.includes(`1   ${ESCAPED}`), out);
    assert.doesNotMatch(out, RAW_CONTROL);
  });

  it('group:list as JSON answers the stored name exactly, DEL and C1 escaped in the text', async () => {
    const run = await runCli(env, ['group:list']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout), [{ id: 1, name: HOSTILE }]);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(run.stdout.includes('\\u009b2J\\u007f'), run.stdout);
  });

  it('a message quoting a stored name escapes its control characters', async () => {
    const run = await runCli(env, ['unit:attach', 'admin', 'Plain unit']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stderr.includes(`(company ${ESCAPED} Inc)`), run.stderr);
    assert.doesNotMatch(run.stderr, RAW_CONTROL);
  });
});
