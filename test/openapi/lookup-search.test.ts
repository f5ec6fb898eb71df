// GET /app/lookups/<resource>?search=<text> matches its text literally, case-insensitively, on
// every engine: `%` and `_` are characters a title may hold, not wildcards, and a backslash (the
// default LIKE escape of PostgreSQL and MariaDB) or `!` (the escape lookup uses) is itself. The
// list's `like` filter keeps its wildcards (test/engine/list.test.ts).
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { seedGroups } from '../helpers/seed.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TITLES = [
  '50% off',
  '500 items',
  'a_b',
  'axb',
  'back\\slash',
  'backslash',
  'a!b',
  'ab',
  'Ä_Ö',
  'äxö',
];

describe('lookup search matches its text literally', () => {
  let server: TestServer;
  let admin: SessionClient;
  const id = new Map<string, number>();
  /** The lookup's answer for `search`: the groups titled `titles`, in title order. */
  const finds = async (search: string, titles: string[]) =>
    assertJson(await admin.get(`/app/lookups/groups?search=${encodeURIComponent(search)}`), 200, {
      data: titles.map((label) => ({ id: id.get(label), label })),
    });

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const ids = await seedGroups(server.service.database.db, TITLES);
    for (const [i, title] of TITLES.entries()) id.set(title, ids[i] as number);
    admin = await new SessionClient(server.url).signIn();
  });
  after(() => server?.close());

  it('takes % as a percent sign, not any text', async () => {
    await finds('50%', ['50% off']);
    await finds('%', ['50% off']);
    await finds('0% O', ['50% off']);
  });

  it('takes _ as an underscore, not any character', async () => {
    await finds('a_b', ['a_b']);
    await finds('_', ['a_b', 'Ä_Ö']);
  });

  it('takes a backslash and ! as themselves', async () => {
    await finds('k\\s', ['back\\slash']);
    await finds('\\', ['back\\slash']);
    await finds('a!b', ['a!b']);
    await finds('!', ['a!b']);
  });

  it('matches literally beyond ASCII too, folding case', async () => {
    await finds('ä_ö', ['Ä_Ö']);
    await finds('ÄX', ['äxö']);
  });

  it('still finds text without those characters anywhere in a title', async () => {
    await finds('SLASH', ['back\\slash', 'backslash']);
    await finds('50', ['50% off', '500 items']);
  });
});
