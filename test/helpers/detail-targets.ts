// The set-up the change feed's and the history's tests share: a test server with the rows a
// template's detail rows name.
import { seedGroups, seedUsers } from './seed.js';
import { startTestServer, type TestServer } from './test-server.js';

export interface DetailTargets {
  readonly server: TestServer;
  /** Two groups, for `groups` rows. */
  readonly g1: number;
  readonly g2: number;
  /** A user, for `users` rows. */
  readonly alice: number;
}

/** Starts a test server (close it after) and seeds groups g1 and g2 and the user alice. */
export async function serverWithDetailTargets(): Promise<DetailTargets> {
  const server = await startTestServer();
  const { db } = server.service.database;
  const [g1, g2] = (await seedGroups(db, ['g1', 'g2'])) as [number, number];
  const [alice] = (await seedUsers(db, ['alice'])) as [number];
  return { server, g1, g2, alice };
}
