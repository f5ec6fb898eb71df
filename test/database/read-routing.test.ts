// DESIGN.md 3.12: a caller who wrote never reads a replica that has not replayed the write, for
// as long as DB_REPLICA_MAX_LAG_MS lets a lagging replica be read, however many others write.
// The routing and the replica monitor are svc's own; the primary's and the replica's answers
// (pg_current_wal_lsn, pg_last_wal_replay_lsn) are given by two stand-in pools, so the replica's
// lag and the clock are exact. Against a real streaming replica: test/replicas/read-replica.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import { readRouting } from '../../src/database/dialects/postgres/read-routing.js';
import { ReplicaMonitor } from '../../src/database/dialects/postgres/replica-monitor.js';
import { readingCaller } from '../../src/database/reading-caller.js';
import { sqlitePassOnly } from '../helpers/engines.js';

/** A pool that answers every query with the position `position()` gives. */
function positions(position: () => string): pg.Pool {
  return { query: async () => ({ rows: [{ position: position() }] }) } as unknown as pg.Pool;
}

describe('read routing (DESIGN.md 3.12)', { skip: sqlitePassOnly('no database') }, () => {
  it('DB_REPLICA_MAX_LAG_MS above a minute: a writer is not sent to a replica that lacks its write, after 10,000 others wrote too', async () => {
    let now = 1_000_000;
    let primary = '0/100';
    const replayed = '0/100';
    const monitor = new ReplicaMonitor(
      positions(() => primary),
      [positions(() => replayed)],
      120_000,
      () => now,
    );
    const routing = readRouting(monitor, () => now);
    const asUser = <T>(user: number, work: () => T): T =>
      readingCaller.run({ user, wrote: false }, work);

    await monitor.sample();
    now += 1_000;
    asUser(1, () => routing.wrote());
    primary = '0/200';
    now += 61_000;
    await monitor.sample();
    // The replica stopped at the write's position: 62 s behind, within the allowed 120 s.
    assert.equal(
      asUser(2, () => routing.replicaNow()),
      0,
      'one who never wrote reads the replica',
    );
    for (let user = 3; user < 10_004; user += 1) asUser(user, () => routing.wrote());
    assert.equal(
      asUser(1, () => routing.replicaNow()),
      undefined,
      'the writer reads the primary until the replica has replayed its write',
    );
  });
});
