// The soak's mixed load: each of the --connections workers runs one operation after another,
// picked by weight, until the end. Creates and deletes are weighted to keep the number of
// templates near --templates, so the database (and its page cache) stays the same size and RSS
// can be compared across the run.
import { differences, normalize, RELATIONS, satisfies } from './model.mjs';
import { cookieOf, send } from './recorder.mjs';

const WEIGHTS = {
  list: 26,
  show: 18,
  create: 10,
  update: 16,
  delete: 10,
  invalid: 4,
  wrong_token: 4,
  no_csrf: 2,
  login: 2,
  notify: 8,
};

/**
 * The operations, over `ctx`: {base, recorder, model, gen, random, token, admin (a session),
 * people: {users, groups, logins: [{login, password, userId}]}, listeners, target}.
 */
export function operations(ctx) {
  const { base, recorder, model, gen, random } = ctx;
  const bearer = { authorization: `Bearer ${ctx.token}` };
  const sessionHeaders = (s) => ({ cookie: s.cookie, 'x-csrf-token': s.csrf });
  let notifications = 0;
  let wrongTokens = 0;

  /** Checks a write's or show's answer against the model's `expected`; the model follows the answer. */
  function check(type, id, expected, answer, added = { groups: [], users: [] }) {
    const actual = normalize(answer);
    const problems = differences(expected, actual, false);
    for (const [rel, key] of Object.entries(RELATIONS)) {
      const known = new Set(expected[rel].map((r) => r.id));
      const old = actual[rel].filter((r) => known.has(r.id));
      const fresh = actual[rel].filter((r) => !known.has(r.id));
      if (JSON.stringify(old) !== JSON.stringify(expected[rel]))
        problems.push(`${rel}: expected ${JSON.stringify(expected[rel])}, got ${JSON.stringify(old)} (new rows aside)`);
      const want = [...added[rel]].sort((a, b) => a - b);
      const got = fresh.map((r) => r[key]).sort((a, b) => a - b);
      if (JSON.stringify(want) !== JSON.stringify(got))
        problems.push(`${rel}: expected new rows ${JSON.stringify(want)}, got ${JSON.stringify(fresh)}`);
    }
    if (problems.length > 0) recorder.wrong(type, `template ${id}: ${problems.join('; ')}`);
    return actual;
  }

  const ops = {
    async list() {
      const { query, filters, perPage } = gen.listQuery();
      const before = new Map(model.versions);
      const busyBefore = new Set(model.busy);
      const creates = model.createsStarted;
      const reply = await send(recorder, 'list', base, { path: `/api/import-templates?${query}`, headers: bearer });
      if (reply?.status !== 200) return;
      const { data, meta } = reply.body;
      if (!Array.isArray(data) || data.length > perPage || !Number.isInteger(meta?.total))
        return recorder.wrong('list', `${query}: ${JSON.stringify(reply.body).slice(0, 500)}`);
      for (const item of data) {
        const id = Number(item.id);
        if (!satisfies(item, filters)) recorder.wrong('list', `${query}: item ${id} does not match`);
        // a template no write touched while the list ran must be listed as the model has it
        if (busyBefore.has(id) || model.busy.has(id) || model.uncertain.has(id)) continue;
        if (before.get(id) !== model.versions.get(id)) continue;
        const expected = model.templates.get(id);
        if (!expected) {
          // a create that committed before its answer came back, or one that started since
          if (model.creating > 0 || model.createsStarted !== creates) continue;
          recorder.wrong('list', `${query}: template ${id} is listed but the model has none`);
          continue;
        }
        const problems = differences(expected, normalize(item));
        if (problems.length > 0) recorder.wrong('list', `template ${id}: ${problems.join('; ')}`);
      }
    },

    async show() {
      if (random() < 0.05 && model.deleted.length > 0) {
        const id = model.deleted[Math.floor(random() * model.deleted.length)];
        await send(recorder, 'show_deleted', base, { path: `/api/import-templates/${id}`, headers: bearer, expect: [404] });
        return;
      }
      const id = model.take(random);
      if (id === null) return ops.list();
      try {
        const reply = await send(recorder, 'show', base, { path: `/api/import-templates/${id}`, headers: bearer });
        if (reply?.status === 200) check('show', id, model.templates.get(id), reply.body);
      } finally {
        model.release(id);
      }
    },

    async create(type = 'create', headers = bearer) {
      const body = gen.create();
      model.creating += 1;
      model.createsStarted += 1;
      let reply;
      try {
        reply = await send(recorder, type, base, { method: 'POST', path: '/api/import-templates', headers, body, expect: [201] });
      } finally {
        model.creating -= 1;
      }
      if (reply === null) model.lostCreates += 1;
      if (reply?.status !== 201) return;
      const id = Number(reply.body.id);
      const expected = { ...normalize(body), groups: [], users: [] };
      const added = Object.fromEntries(
        Object.entries(RELATIONS).map(([rel, key]) => [rel, (body[rel] ?? []).map((r) => r[key])]),
      );
      model.set(id, check(type, id, expected, reply.body, added));
    },

    async update(type = 'update', headers = bearer) {
      const id = model.take(random);
      if (id === null) return ops.create();
      try {
        const put = random() < 0.25;
        const { body, expected, added } = gen.update(model.templates.get(id), put);
        const reply = await send(recorder, type, base, {
          method: put ? 'PUT' : 'PATCH',
          path: `/api/import-templates/${id}`,
          headers,
          body,
        });
        if (reply === null) model.uncertain.add(id);
        if (reply?.status === 200) model.set(id, check(type, id, expected, reply.body, added));
      } finally {
        model.release(id);
      }
    },

    async delete() {
      const id = model.take(random);
      if (id === null) return ops.list();
      try {
        const reply = await send(recorder, 'delete', base, { method: 'DELETE', path: `/api/import-templates/${id}`, headers: bearer });
        if (reply === null) model.uncertain.add(id);
        if (reply?.status === 200) model.remove(id);
      } finally {
        model.release(id);
      }
    },

    /** A write refused with 422 on purpose; a refused update must leave the template as it was. */
    async invalid() {
      const id = random() < 0.5 ? model.take(random) : null;
      if (id === null) {
        await send(recorder, 'invalid', base, { method: 'POST', path: '/api/import-templates', headers: bearer, body: gen.invalid(false), expect: [422] });
        return;
      }
      try {
        const reply = await send(recorder, 'invalid', base, {
          method: 'PATCH',
          path: `/api/import-templates/${id}`,
          headers: bearer,
          body: gen.invalid(true),
          expect: [422],
        });
        if (reply === null) return model.uncertain.add(id);
        const after = await send(recorder, 'show', base, { path: `/api/import-templates/${id}`, headers: bearer });
        if (after?.status === 200) check('invalid', id, model.templates.get(id), after.body);
      } finally {
        model.release(id);
      }
    },

    /** A made-up token: 401. From an address of its own every 10 (TRUST_PROXY=loopback), so the
     * per-address failure limit (20 in 600 s) is never reached and the 401 is what is measured. */
    async wrong_token() {
      const k = Math.floor(wrongTokens++ / 10);
      await send(recorder, 'wrong_token', base, {
        path: '/api/import-templates?per_page=5',
        headers: {
          authorization: `Bearer soak-${Math.floor(random() * 1e12).toString(36)}`,
          'x-forwarded-for': `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
        },
        expect: [401],
      });
    },

    /** A session write without its CSRF token: 419. */
    async no_csrf() {
      await send(recorder, 'no_csrf', base, {
        method: 'POST',
        path: '/app/notifications/mark-all-read',
        headers: { cookie: ctx.admin.cookie },
        expect: [419],
      });
    },

    /** A user's whole session: log in, read it, a write with the CSRF token, an update of a
     * template through the session, log out; the ended session is a 401. */
    async login() {
      const who = gen.pick(ctx.people.logins);
      const reply = await send(recorder, 'login', base, {
        method: 'POST',
        path: '/app/login',
        body: { login: who.login, password: who.password },
      });
      if (reply?.status !== 200) return;
      const session = {
        cookie: cookieOf(reply.headers),
        csrf: reply.body.csrf_token,
      };
      await send(recorder, 'session', base, { path: '/app/session', headers: { cookie: session.cookie } });
      await send(recorder, 'mark_all_read', base, {
        method: 'POST',
        path: '/app/notifications/mark-all-read',
        headers: sessionHeaders(session),
      });
      await ops.update('session_update', sessionHeaders(session));
      await send(recorder, 'logout', base, { method: 'POST', path: '/app/logout', headers: sessionHeaders(session) });
      await send(recorder, 'session_ended', base, { path: '/app/session', headers: { cookie: session.cookie }, expect: [401] });
    },

    /** A notification to one or two listening users: each of their clients must receive it. */
    async notify() {
      const to = random() < 0.8 ? [gen.pick(ctx.people.listeners)] : [...new Set([gen.pick(ctx.people.listeners), gen.pick(ctx.people.listeners)])];
      const title = `soak ${process.pid} ${++notifications}`;
      const clients = ctx.listeners.expect(title, to);
      const reply = await send(recorder, 'notify', base, {
        method: 'POST',
        path: '/api/notifications',
        headers: bearer,
        body: { to: to.length === 1 ? to[0] : to, title, message: gen.words(8), level: gen.pick(['info', 'success', 'warning', 'danger']) },
        expect: [201],
      });
      ctx.listeners.settle(title, reply?.status === 201, clients);
    },
  };

  /** One operation, picked by weight; creates and deletes keep the population near the target. */
  function next() {
    const w = { ...WEIGHTS };
    const ratio = model.size / ctx.target;
    w.create = ratio < 1 ? WEIGHTS.create * 1.5 : WEIGHTS.create * 0.5;
    w.delete = ratio > 1 ? WEIGHTS.delete * 1.5 : WEIGHTS.delete * 0.5;
    let r = random() * Object.values(w).reduce((a, b) => a + b, 0);
    for (const [name, weight] of Object.entries(w)) {
      r -= weight;
      if (r < 0) return ops[name]();
    }
    return ops.list();
  }

  return { ops, next };
}
