// Issue 31, finding 6: the driver's answers are bounded in bytes (REST_DRIVER_MAX_ANSWER_MB): a
// larger one is a 422 and is never built on the event loop, so /health keeps answering while
// it runs; a statement past REST_DRIVER_TIMEOUT_MS has its worker thread ended (SQLite).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { testEngine } from '../helpers/engines.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { driverEnv, driverQuery, refusedStatement } from '../helpers/rest-driver-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MAX_MB = 16;
/** About 50 MB of answer: one value where the engine makes one that large, else 50 of 1 MB. */
const FIFTY_MB = {
  sqlite: 'select hex(zeroblob(25000000)) as big',
  postgres: `select repeat('0', 50000000) as big`,
  // max_allowed_packet (16 MiB by default) bounds one value.
  mysql: `with recursive c(x) as (select 1 union all select x + 1 from c where x < 50) select repeat('0', 1000000) as big from c`,
}[testEngine];
/** Just under the bound: answered. */
const TEN_MB = {
  sqlite: 'select hex(zeroblob(5000000)) as big',
  postgres: `select repeat('0', 10000000) as big`,
  mysql: `with recursive c(x) as (select 1 union all select x + 1 from c where x < 10) select repeat('0', 1000000) as big from c`,
}[testEngine];

/** Runs `work` while asking /health every 10 ms; the slowest /health answer, in ms. */
async function slowestHealthDuring(server: TestServer, work: Promise<Reply[]>) {
  let done = false;
  const result = work.finally(() => {
    done = true;
  });
  let slowest = 0;
  let probes = 0;
  while (!done) {
    const started = performance.now();
    const reply = await fetch(`${server.url}/health`);
    await reply.text();
    assert.equal(reply.status, 200);
    slowest = Math.max(slowest, performance.now() - started);
    probes += 1;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { replies: await result, slowest, probes };
}

describe('driver: answers bounded in bytes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(driverEnv({ REST_DRIVER_MAX_ANSWER_MB: String(MAX_MB) }));
  });
  after(() => server?.close());

  it(`REST_DRIVER_MAX_ANSWER_MB: four 50 MB answers at once are each a 422 past ${MAX_MB} MiB, and on SQLite /health answers within 500 ms meanwhile`, async () => {
    const { replies, slowest, probes } = await slowestHealthDuring(
      server,
      Promise.all(Array.from({ length: 4 }, () => driverQuery(server.url, FIFTY_MB))),
    );
    for (const reply of replies)
      assertJson(
        reply,
        422,
        refusedStatement(
          `The answer is larger than ${MAX_MB} MiB (REST_DRIVER_MAX_ANSWER_MB): select fewer rows or shorter values.`,
        ),
      );
    assert.ok(probes >= 1);
    // On SQLite the value never leaves the statement's thread. PostgreSQL's and MariaDB's
    // drivers read every value on the event loop (their protocol parsers): only the 422 holds.
    // 500 ms: under the 0.7 s it was held for when the event loop built these answers, and
    // five times the 0.09 s measured with the bound (docs/rest-driver.md), for a busy 2-core machine.
    if (testEngine === 'sqlite') assert.ok(slowest < 500, `/health took ${Math.round(slowest)} ms`);
  });

  it('REST_DRIVER_MAX_ANSWER_MB: an answer under the bound is answered whole', async () => {
    const reply = await driverQuery(server.url, TEN_MB);
    assertJson(reply, 200);
    const rows = reply.body.rows as string[][];
    assert.equal(
      rows.map((row) => row[0]?.length ?? 0).reduce((a, b) => a + b, 0),
      10_000_000,
    );
  });
});

describe('driver: a statement past its time limit stops (SQLite)', {
  skip:
    testEngine !== 'sqlite' &&
    "SQLite's statements run in worker threads of the server's process; a server cancels its own",
}, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(driverEnv({ REST_DRIVER_TIMEOUT_MS: '200' }));
  });
  after(() => server?.close());

  /** The threads of this process (the server runs in it): its worker threads among them. */
  const threads = () => fs.readdirSync('/proc/self/task').length;

  it('REST_DRIVER_TIMEOUT_MS: the worker thread of a statement answered 422 for its time ends within 5 s', async () => {
    // A statement that ends in time first: the thread pool and the like are there from now on.
    assertJson(await driverQuery(server.url, 'select 1 as one'), 200);
    const before = threads();
    // Rows of 1 MB: each takes the thread a while to turn into its answer's values.
    const reply = await driverQuery(
      server.url,
      'with recursive c(x) as (select 1 union all select x + 1 from c) select hex(zeroblob(1000000)) from c',
    );
    assert.equal(reply.status, 422, reply.text);
    // Polled: it ends at once where the machine is idle; a busy one may take longer to reap it.
    const until = Date.now() + 5_000;
    while (threads() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.ok(threads() <= before, `${threads() - before} more threads than before the statement`);
  });
});
