// Issue 19 item 2: no request holds the others hostage. A list at the largest sizes the limits
// allow (1 MiB descriptions, 1,000 detail rows per relation, per_page 200) is read in slices and
// its answer streamed past STREAM_ANSWERS_ABOVE, so /health answers while it runs; the streamed
// bytes are exactly those of the answer built whole.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { testEngine } from '../helpers/engines.js';
import { seedGroups, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const DIGEST_LISTS = new URL('../helpers/digest-lists.mjs', import.meta.url).pathname;

type Digest = { status: number; sha256: string; bytes: number };
// A description as large as the body limit allows; MariaDB/MySQL's TEXT column holds 64 KiB.
const DESCRIPTION = testEngine === 'mysql' ? 65_000 : 1024 * 1024 - 1024;

/** Text that JSON escapes or encodes in several bytes, so the pieces must agree on every escape. */
const awkward = 'Ünïcödé "quoted" \\ back\nslash\t\u2028 €𝄞 \u0001 </script>';

async function create(server: TestServer, body: Record<string, unknown>): Promise<void> {
  const reply = await server.post(PATH, templatePayload(body));
  assert.equal(reply.status, 201, reply.text);
}

/** GET `target`: status, the headers, the body's SHA-256 and length, read chunk by chunk. */
async function digest(server: TestServer, target: string) {
  const response = await fetch(server.url + target, { headers: server.defaultHeaders });
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { status: response.status, headers: response.headers, sha256: hash.digest('hex'), bytes };
}

describe('issue 19 item 2: large answers are streamed, byte for byte the same', () => {
  let whole: TestServer;
  let streamed: TestServer;

  before(async () => {
    // Two servers on one database: one builds every answer whole, one streams every answer.
    whole = await startTestServer({ STREAM_ANSWERS_ABOVE: String(1024 * 1024 * 1024) });
    streamed = await startTestServer(
      { ...whole.storageEnv, STREAM_ANSWERS_ABOVE: '0' },
      { anonymous: true },
    );
    streamed.defaultHeaders = { ...whole.defaultHeaders };
    const [group] = (await seedGroups(whole.service.database.db, ['Streamed'])) as [number];
    await create(whole, { title: `A ${awkward}`, code: 'A', description: awkward });
    await create(whole, {
      title: 'B rows',
      code: 'B',
      groups: Array.from({ length: 1_000 }, () => ({ group_id: group })),
      users: Array.from({ length: 1_000 }, () => ({ user_id: 1 })),
    });
    for (let i = 0; i < 3; i += 1)
      await create(whole, { title: `C big ${i}`, code: `C${i}`, description: 'é'.repeat(30_000) });
    // Large enough to be written as it is (json-answer.ts), were there nothing in it to escape.
    await create(whole, {
      title: 'D escaped',
      code: 'D',
      description: awkward.repeat(Math.floor(DESCRIPTION / 128)),
    });
  });
  after(async () => {
    await streamed?.close();
    await whole?.close();
  });

  for (const target of [
    `${PATH}?per_page=200`,
    `${PATH}?per_page=2&page=2&sort=title&direction=desc`,
    `${PATH}?filters=${encodeURIComponent('{"title":{"like":"C%"}}')}`,
    `${PATH}?per_page=200&page=9`,
    `${PATH}/2`,
  ]) {
    it(`STREAM_ANSWERS_ABOVE: GET ${target} streamed is byte-identical to the answer built whole`, async () => {
      const [a, b] = [await digest(whole, target), await digest(streamed, target)];
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(b.sha256, a.sha256, `${b.bytes} bytes streamed, ${a.bytes} whole`);
      assert.equal(b.bytes, a.bytes);
      assert.equal(b.headers.get('content-type'), a.headers.get('content-type'));
      // The whole answer says its length; the streamed one is sent in chunks as it is made.
      assert.equal(a.headers.get('content-length'), String(a.bytes));
      assert.equal(b.headers.get('content-length'), null);
      assert.equal(b.headers.get('transfer-encoding'), 'chunked');
    });
  }

  it('STREAM_ANSWERS_ABOVE: large descriptions come back as they were sent, escaped or written as they are', async () => {
    const reply = await streamed.get(`${PATH}?per_page=200&sort=code`);
    assert.equal(reply.status, 200);
    const byCode = new Map(
      (reply.body.data as Array<{ code: string; description: string }>).map((r) => [r.code, r]),
    );
    assert.equal(byCode.get('D')?.description, awkward.repeat(Math.floor(DESCRIPTION / 128)));
    assert.equal(byCode.get('C0')?.description, 'é'.repeat(30_000));
  });

  it('STREAM_ANSWERS_ABOVE: a small answer under the default (1 MiB) is sent whole, with its length', async () => {
    const reply = await streamed.get(`${PATH}?per_page=1`);
    assert.equal(reply.status, 200);
    const normal = await startTestServer({ ...whole.storageEnv }, { anonymous: true });
    try {
      const answer = await fetch(`${normal.url}${PATH}?per_page=1`, {
        headers: whole.defaultHeaders,
      });
      const text = await answer.text();
      assert.equal(text, reply.text);
      assert.equal(answer.headers.get('content-length'), String(Buffer.byteLength(text)));
    } finally {
      await normal.close();
    }
  });
});

describe('issue 19 item 2: a list at the largest sizes does not hold the others hostage', () => {
  let server: TestServer;
  const BIG = 40;

  before(async () => {
    server = await startTestServer();
    const [group] = (await seedGroups(server.service.database.db, ['Hostage'])) as [number];
    const description = 'd'.repeat(DESCRIPTION);
    for (let i = 0; i < BIG; i += 1)
      await create(server, { title: `Big ${i}`, code: `BIG${i}`, description });
    for (let i = 0; i < 2; i += 1)
      await create(server, {
        title: `Rows ${i}`,
        code: `ROWS${i}`,
        groups: Array.from({ length: 1_000 }, () => ({ group_id: group })),
        users: Array.from({ length: 1_000 }, () => ({ user_id: 1 })),
      });
  });
  after(async () => {
    await server?.close();
  });

  /**
   * Lists `targets` at once while asking /health one request after another: the lists' answers,
   * the /health answers that came while they ran, and how long the event loop was held at most.
   * The lists are read by another process (helpers/digest-lists.mjs), so that what is measured is
   * the server's work alone: read in this process, 16 answers of 20 MB held the loop as long
   * again for the client's parsing and hashing. Between two turns of a 5 ms timer, how long the
   * loop was held is the wall time, capped by the CPU time this process used meanwhile. Wall time
   * alone adds what other processes take on a shared machine; CPU time alone adds what the
   * garbage collector's helper threads use beside the loop. A stall counts only when both say so.
   */
  async function listWhileProbing(targets: string[], warm = 0) {
    let busiest = 0;
    let busiestCpu = 0;
    let busiestGap = 0;
    const reader = spawn(process.execPath, [DIGEST_LISTS], { stdio: ['pipe', 'pipe', 'inherit'] });
    reader.stdin.end(
      JSON.stringify({ base: server.url, headers: server.defaultHeaders, targets, warm }),
    );
    const lists = text(reader.stdout).then((line) => JSON.parse(line) as Digest[]);
    let listed = false;
    void lists.finally(() => {
      listed = true;
    });
    let cpu = process.cpuUsage();
    let last = performance.now();
    const ticks = setInterval(() => {
      const used = process.cpuUsage(cpu);
      const now = performance.now();
      const cpuMs = (used.user + used.system) / 1000;
      const held = Math.min(cpuMs, now - last);
      if (held > busiest) [busiest, busiestCpu, busiestGap] = [held, cpuMs, now - last];
      cpu = process.cpuUsage();
      last = now;
    }, 5);
    let answeredMidList = 0;
    try {
      while (!listed) {
        const reply = await fetch(`${server.url}/health`);
        assert.equal(reply.status, 200);
        await reply.text();
        if (!listed) answeredMidList += 1;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      clearInterval(ticks);
    }
    const held = `the event loop was held for up to ${busiest.toFixed(0)} ms at once (${busiestCpu.toFixed(0)} ms of CPU in ${busiestGap.toFixed(0)} ms of wall time)`;
    return { answers: await lists, answeredMidList, busiest, held };
  }

  it('/health is answered while two lists of 40 descriptions at the body limit are read and streamed, the event loop never held for 100 ms, and the lists arrive whole', async () => {
    const { answers, answeredMidList, busiest, held } = await listWhileProbing([
      `${PATH}?per_page=200`,
      `${PATH}?per_page=200`,
    ]);
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.ok(answer.bytes > BIG * DESCRIPTION, `${answer.bytes} bytes`);
    }
    assert.equal(answers[1]?.sha256, answers[0]?.sha256);
    // How many fit in depends on how fast the lists go (MariaDB's descriptions are 64 KiB): at
    // least one, and the loop never held for long (below), is what the rule asks.
    assert.ok(answeredMidList >= 1, `${answeredMidList} /health answers while the lists ran`);
    assert.ok(busiest < 100, held);
  });

  it('sixteen lists of large descriptions that arrive together do not hold the event loop for 100 ms between them', async () => {
    // Each list's read starts with a slice of up to 8 ms on SQLite: run back to back in one turn
    // of the loop, sixteen of them held it for 128 ms. The reader opens sixteen connections
    // first, idle, so the lists arrive together rather than as each connection is made.
    // Three rounds at most: a hold that the code makes comes back in every round, one that
    // another process's burst on a busy 2-core machine made (CI's database servers) does not.
    // On PostgreSQL, where the rows of 1 MiB arrive on sixteen sockets at once, the longest hold
    // on a quiet 2-core machine was 38-64 ms (51-73 ms before the reader paused its socket after
    // each MiB of rows and the answers took a turn per 64 KiB of a large value).
    const rounds: string[] = [];
    let busiest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 3 && busiest >= 100; round += 1) {
      const probed = await listWhileProbing(
        Array.from({ length: 16 }, () => `${PATH}?per_page=20&sort=code`),
        16,
      );
      for (const answer of probed.answers) {
        assert.equal(answer.status, 200);
        assert.equal(answer.sha256, probed.answers[0]?.sha256);
      }
      busiest = probed.busiest;
      rounds.push(probed.held);
    }
    assert.ok(busiest < 100, rounds.join('; then '));
  });
});

describe('issue 19 item 2: the memory held by large answers in flight is bounded', () => {
  // A small budget (ANSWER_MEMORY_LIMIT_MB) and threshold (STREAM_ANSWERS_ABOVE), pages of PAGE
  // records larger than the budget, SIX lists at once: unbounded, they would hold six pages.
  const PAGE = 12;
  const LIMIT_MB = testEngine === 'mysql' ? 1 : 8;
  const threshold = testEngine === 'mysql' ? 64 * 1024 : 1024 * 1024;
  // A record's values beside its description (title, code, timestamps, ids) in bytes, at most.
  const SLACK = 4 * 1024;
  const page = PAGE * (DESCRIPTION + SLACK);
  const SIX = 6;
  let whole: TestServer;
  let bounded: TestServer;

  before(async () => {
    whole = await startTestServer({ STREAM_ANSWERS_ABOVE: String(1024 * 1024 * 1024) });
    bounded = await startTestServer(
      {
        ...whole.storageEnv,
        ANSWER_MEMORY_LIMIT_MB: String(LIMIT_MB),
        STREAM_ANSWERS_ABOVE: String(threshold),
      },
      { anonymous: true },
    );
    bounded.defaultHeaders = { ...whole.defaultHeaders };
    for (let i = 0; i < PAGE * 2; i += 1)
      await create(whole, {
        title: `Held ${i}`,
        code: `HELD${i}`,
        description: (i % 2 ? 'h' : 'é').repeat(DESCRIPTION / (i % 2 ? 1 : 2)),
      });
  });
  after(async () => {
    await bounded?.close();
    await whole?.close();
  });

  it(`ANSWER_MEMORY_LIMIT_MB: six lists of ${PAGE} large records at once answer byte for byte as built whole, while what they hold stays within the budget and one page, and what they read within that and a record per list`, async () => {
    const targets = Array.from(
      { length: SIX },
      (_, i) => `${PATH}?per_page=${PAGE}&page=${(i % 2) + 1}&sort=code`,
    );
    const expected = new Map<string, string>();
    for (const target of new Set(targets))
      expected.set(target, (await digest(whole, target)).sha256);
    const budget = bounded.service.app.answerBudget;
    const answers = await Promise.all(targets.map((target) => digest(bounded, target)));
    answers.forEach((answer, i) => {
      assert.equal(answer.status, 200);
      assert.equal(answer.sha256, expected.get(targets[i] as string), targets[i]);
    });
    // Six pages were held at some point, or the test proves nothing.
    assert.ok(answers.every((a) => a.bytes > PAGE * DESCRIPTION * 0.9));
    const limit = LIMIT_MB * 1024 * 1024;
    assert.ok(budget.peak > limit / 2, `the budget was barely used: ${budget.peak} bytes at most`);
    assert.ok(
      budget.peak <= limit + page,
      `${budget.peak} bytes held at once, beyond ${limit} + one page (${page})`,
    );
    // What they had read, charged or waiting to be: a read waits with a row, never a page.
    assert.ok(
      budget.peakRead <= limit + page + SIX * (DESCRIPTION + SLACK),
      `${budget.peakRead} bytes read at once, beyond ${limit} + one page (${page}) + a record per list`,
    );
    // Everything given back once the answers are written.
    assert.equal(budget.charged, 0);
  });

  it('ANSWER_MEMORY_LIMIT_MB: a client that goes away mid-answer gives its share of the budget back', async () => {
    const budget = bounded.service.app.answerBudget;
    const aborted = new AbortController();
    const response = await fetch(`${bounded.url}${PATH}?per_page=${PAGE}`, {
      headers: bounded.defaultHeaders,
      signal: aborted.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    assert.ok(budget.charged > 0, 'the answer holds a charge while it is written');
    aborted.abort();
    await reader.cancel().catch(() => {});
    const until = Date.now() + 5_000;
    while (budget.charged > 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(budget.charged, 0);
    // And the budget still serves the next list.
    assert.equal((await digest(bounded, `${PATH}?per_page=${PAGE}`)).status, 200);
  });
});
