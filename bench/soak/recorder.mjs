// What the soak saw: per request type the count, the answers by status (expected ones apart from
// unexpected ones) and a latency histogram (perf_hooks, microseconds: fixed memory however long
// the run), plus transport failures (no answer at all).
import { createHistogram, performance } from 'node:perf_hooks';

export class Recorder {
  constructor() {
    this.types = new Map();
    /** Unexpected answers, the first few of each type/status kept whole for the report. */
    this.samples = [];
  }

  type(name) {
    let t = this.types.get(name);
    if (!t) {
      t = { requests: 0, statuses: {}, expected4xx: 0, unexpected: 0, failures: 0, latency: createHistogram() };
      this.types.set(name, t);
    }
    return t;
  }

  /** A request of `name` answered `status` after `ms`; `expected` lists the statuses it may get. */
  answer(name, status, ms, expected, detail) {
    const t = this.type(name);
    t.requests += 1;
    t.statuses[status] = (t.statuses[status] ?? 0) + 1;
    t.latency.record(Math.max(1, Math.round(ms * 1000)));
    if (!expected.includes(status)) {
      t.unexpected += 1;
      this.note(name, `HTTP ${status}`, detail);
    } else if (status >= 400) t.expected4xx += 1;
  }

  /** No answer: a refused or reset connection, or no answer within the timeout. */
  failure(name, error) {
    const t = this.type(name);
    t.requests += 1;
    t.failures += 1;
    this.note(name, 'no answer', String(error?.cause?.code ?? error?.name ?? error));
  }

  /** An answer with the right status but the wrong content (a lost or partial write). */
  wrong(name, detail) {
    this.type(name).unexpected += 1;
    this.note(name, 'wrong content', detail);
  }

  note(name, what, detail) {
    const same = this.samples.filter((s) => s.type === name && s.what === what).length;
    if (same < 5 && this.samples.length < 100)
      this.samples.push({ at: new Date().toISOString(), type: name, what, detail: String(detail ?? '').slice(0, 2000) });
  }

  /** Per type: requests, statuses, p50/p99/max in ms. */
  summary() {
    const ms = (us) => Math.round(us / 10) / 100;
    const out = {};
    for (const [name, t] of [...this.types].sort(([a], [b]) => a.localeCompare(b)))
      out[name] = {
        requests: t.requests,
        statuses: t.statuses,
        expected_4xx: t.expected4xx,
        unexpected: t.unexpected,
        no_answer: t.failures,
        p50_ms: t.latency.count ? ms(t.latency.percentile(50)) : null,
        p99_ms: t.latency.count ? ms(t.latency.percentile(99)) : null,
        max_ms: t.latency.count ? ms(t.latency.max) : null,
      };
    return out;
  }
}

/**
 * One HTTP request through fetch (undici's keep-alive pool), recorded under `name`. Resolves to
 * {status, body (parsed JSON or text), headers}, or null when no answer came (recorded).
 */
export async function send(recorder, name, base, { method = 'GET', path, headers = {}, body, expect = [200] }) {
  const started = performance.now();
  let response;
  let text;
  try {
    response = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    text = await response.text();
  } catch (error) {
    recorder.failure(name, error);
    return null;
  }
  const ms = performance.now() - started;
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  recorder.answer(name, response.status, ms, expect, `${method} ${path.slice(0, 300)} -> ${text.slice(0, 1000)}`);
  return { status: response.status, body: parsed, headers: response.headers };
}

/** The Cookie header a browser would send back after `headers` (a login's answer). */
export const cookieOf = (headers) =>
  headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
