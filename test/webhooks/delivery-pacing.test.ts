// Issue 34: webhook delivery yields to the API. src/webhooks/delivery-pacing.ts holds the
// worker back (its work waits for its turn, a few ms of every period) only while the API has
// requests waiting and keeps the event loop busy, and lets it go at once otherwise. On a real
// node:http server; no database (the same on every engine).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeliveryPacing, PERIOD_MS } from '../../src/webhooks/delivery-pacing.js';

/** Keeps the event loop busy for `ms`, as requests that use its CPU would. */
function spin(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('webhook delivery pacing', () => {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((_request, response) => held.push(response));
  const pacing = new DeliveryPacing(5);
  pacing.watch(server);
  after(async () => {
    pacing.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('lets the worker go while the API is idle, or busy on I/O only', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pacing.start();
    await sleep(PERIOD_MS * 2.5);
    assert.equal(pacing.holding, false);
    assert.equal(pacing.turn(), null);
  });

  it('holds it back to its turns while requests wait on a busy loop, and lets it go after', async () => {
    const { port } = server.address() as AddressInfo;
    const answered: Array<Promise<string>> = [];
    /** One more request, held by the server once it has arrived. */
    const arrive = async () => {
      const count = held.length;
      answered.push(fetch(`http://127.0.0.1:${port}/`).then((r) => r.text()));
      while (held.length === count) await sleep(1);
    };
    // Requests arrive while the loop is held: the period that ends meanwhile counts as busy.
    // Busy is judged on a period's arrivals, so each try has one of its own: in a period that
    // began before the first arrival, idle time can keep the utilisation under the mark.
    let holding = false;
    for (let tries = 0; tries < 10 && !holding; tries++) {
      await arrive();
      spin(PERIOD_MS * 1.5);
      await sleep(1);
      holding = pacing.holding;
    }
    assert.equal(holding, true, 'busy with requests waiting');
    // Past the turn's few ms, work waits for the next turn.
    await sleep(20);
    const waiting = pacing.turn();
    if (pacing.holding) assert.ok(waiting, 'outside its turn, the worker waits');
    // The requests answered, the loop idle: the next period lets everything go.
    for (const response of held.splice(0)) response.end('ok');
    await Promise.all(answered);
    await waiting;
    await sleep(PERIOD_MS * 2.5);
    assert.equal(pacing.holding, false);
    assert.equal(pacing.turn(), null);
  });
});
