// npm run soak (issue 19 item 4) kept from rotting: bench/soak.mjs runs for a few seconds on the
// engine under test (the server from src/ through tsx, so no build is needed) and must pass: no
// 5xx, no unexpected answer, every notification received, the database equal to the soak's
// model. The RSS check is loosened (--rss-margin 100): seconds of load say nothing about a leak.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { createTestDatabase, testEngine } from '../helpers/engines.js';

interface SoakReport {
  ok: boolean;
  failures: string[];
  totals: { requests: number; five_xx: number; unexpected: number; no_answer: number };
  types: Record<string, { requests: number; statuses: Record<string, number> }>;
  notifications: { sent_to_clients: number; received: number; missing: number };
  consistency: { ok: boolean; listed: number; model: { templates: number } };
  rss_mib: { start: number | null; middle: number | null; end: number | null };
  event_loop_ms: { p99: number; max: number } | null;
}

describe('npm run soak', { concurrency: 1 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-soak-test-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a short soak on the engine under test has no 5xx, a consistent database and every notification received', async () => {
    const database = await createTestDatabase();
    const out = path.join(dir, 'soak.json');
    const args = ['bench/soak.mjs', '--from-source', '--engine', testEngine, '--duration', '6s'];
    args.push('--warmup', '1s', '--templates', '40', '--rss-margin', '100', '--out', out);
    if (database.url) args.push('--database-url', database.url);
    let output = '';
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, args, {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        child.once('error', reject);
        child.once('exit', resolve);
      });
      assert.equal(code, 0, `the soak failed:\n${output}`);
    } finally {
      await database.drop();
    }
    const report = JSON.parse(fs.readFileSync(out, 'utf8')) as SoakReport;
    assert.equal(report.ok, true, report.failures.join('; '));
    assert.equal(report.totals.five_xx, 0);
    assert.equal(report.totals.unexpected, 0);
    assert.equal(report.totals.no_answer, 0);
    // every kind of request ran, the refused ones refused as they must be
    for (const [type, status] of Object.entries({
      list: '200',
      show: '200',
      create: '201',
      update: '200',
      delete: '200',
      invalid: '422',
      wrong_token: '401',
      no_csrf: '419',
      login: '200',
      session_ended: '401',
      notify: '201',
    }))
      assert.ok(
        (report.types[type]?.statuses[status] ?? 0) > 0,
        `${type}: no ${status} in ${output}`,
      );
    assert.ok(report.notifications.sent_to_clients > 0, 'no notification was sent');
    assert.equal(report.notifications.received, report.notifications.sent_to_clients);
    assert.equal(report.notifications.missing, 0);
    assert.equal(report.consistency.ok, true);
    assert.equal(report.consistency.listed, report.consistency.model.templates);
    assert.ok(report.rss_mib.end !== null && report.rss_mib.end > 0, 'no RSS measured');
    assert.ok(
      report.event_loop_ms !== null && report.event_loop_ms.max >= report.event_loop_ms.p99,
    );
  });
});
