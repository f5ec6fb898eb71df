// The conformance kit (docs/development.md "Test it"): SPEC.md's rules for any resource, through
// the real server on the engine of the pass (test/run.mjs runs every test file on SQLite, then on
// PostgreSQL and MariaDB when their URLs are set), read off the resource's own definition:
//
//   conformance({ route, sample: (n) => ({ name: `Supplier ${n}`, contacts: [...] }) });
//
// declares one describe() block checking: 4.2 page meta, each searchable column filters and
// every other column is ignored, each sortable column orders both ways and every other column is
// ignored; 2.2 projection (the key always there, `relation.field` flattened to the related
// record's value, aliases); 4.3/4.4/4.5 show, create 201, update 200, delete, and 404 for a
// missing id on each; 4.4 detail rows synchronised as a diff, null deletes them all, an absent
// key keeps them, a forged foreign key is overridden; null clears each nullable field; 7 the 422
// wording of required fields, lengths, choices and ids that name no record.
//
// `sample(n)` answers a valid create payload, different for each n (unique fields), with at
// least two rows of every detail relation. The server serves the service's routes plus `route`
// (startTestServer), or what `start` answers (a worked example built elsewhere).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { serviceRoutes } from '../../src/app/routes.js';
import type { Resource } from '../../src/engine/definition/define-resource.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { declaredTables } from '../../src/model/declare-entity.js';
import type { Row } from '../../src/model/entity.js';
import { describeFields, type FieldDescription } from '../../src/model/field-description.js';
import type { Reply, RequestOptions } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';

/** What the kit needs of a running server: requests with an admin's credentials, and its database. */
export interface KitServer {
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  readonly db: Kysely<any>;
  close(): Promise<void>;
}

export interface ConformanceTarget {
  /** The route as src/app/routes.ts declares it (path and resource). */
  readonly route: ResourceRoute;
  /** A valid create payload, different for each n, with two or more rows per detail relation. */
  readonly sample: (n: number, server: KitServer) => Row | Promise<Row>;
  /** Starts the server (default: startTestServer with the service's routes plus `route`). */
  readonly start?: () => Promise<KitServer>;
}

const MISSING_ID = 987654321;
const NOT_FOUND = { error: 'Resource not found' };

async function defaultServer(route: ResourceRoute): Promise<KitServer> {
  const routes = serviceRoutes.includes(route) ? serviceRoutes : [...serviceRoutes, route];
  const server = await startTestServer({}, { resources: routes });
  return {
    request: (method, path, options) => server.request(method, path, options),
    db: server.service.database.db,
    close: () => server.close(),
  };
}

/** How a 422 names a field (SPEC.md 7.2): underscores read as spaces. */
const attribute = (field: string) => field.replace(/_/g, ' ');

export function conformance(target: ConformanceTarget): void {
  const { route } = target;
  const resource: Resource = route.resource;
  const path = route.path;
  const only = new Set(route.only ?? ['list', 'show', 'create', 'update', 'delete']);
  const entity = resource.entity;
  const key = resource.primaryKey;
  const fields = describeFields(entity, resource.labels);
  const described = new Map(fields.map((f) => [f.name, f] as const));
  const declared = declaredTables().find((t) => t.entity === entity.name);
  const nullableColumn = (name: string) => !declared?.columns.find((c) => c.name === name)?.notNull;

  describe(`conformance of ${path} (SPEC.md 2.2, 4.2 to 4.5, 7)`, () => {
    let server: KitServer;
    let payloads: Row[] = [];
    /** The kit's three records as created (show answers). */
    let made: Row[] = [];
    const call = (method: string, target: string, body?: unknown) =>
      server.request(method, target, body === undefined ? {} : { body });
    const list = async (query: string): Promise<Row[]> => {
      const reply = await call('GET', `${path}?per_page=${resource.maxPerPage}&${query}`);
      assert.equal(reply.status, 200, `${query}: ${reply.text}`);
      return reply.body.data as Row[];
    };
    const ownIds = (items: Row[]) => {
      const own = new Set(made.map((r) => String(r[key])));
      return items.map((i) => String(i[key])).filter((id) => own.has(id));
    };
    /** What the kit knows of a record's field: what it sent, else what the show answered. */
    const known = (n: number, field: string): unknown =>
      field in (payloads[n] ?? {}) ? payloads[n]?.[field] : made[n]?.[field];

    before(async () => {
      server = await (target.start ?? (() => defaultServer(route)))();
      payloads = [];
      made = [];
      for (let n = 0; n < 3; n += 1) payloads.push(await target.sample(n, server));
      if (!only.has('create')) return;
      for (const payload of payloads) {
        const created = await call('POST', path, payload);
        assert.equal(created.status, 201, `create: ${created.text}`);
        const shown = only.has('show')
          ? await call('GET', `${path}/${created.body[key]}`)
          : created;
        made.push(shown.body as Row);
      }
    });
    after(() => server?.close());

    it('4.2 page meta: total, per_page (capped at maxPerPage), current_page (at least 1), last_page', async () => {
      const all = await call('GET', path);
      assert.equal(all.status, 200);
      const total = all.body.meta.total as number;
      assert.ok(total >= made.length);
      const two = await call('GET', `${path}?per_page=2&page=0`);
      assert.deepEqual(two.body.meta, {
        total,
        per_page: 2,
        current_page: 1,
        last_page: Math.max(1, Math.ceil(total / 2)),
      });
      assert.equal(two.body.data.length, Math.min(2, total));
      const capped = await call('GET', `${path}?per_page=${resource.maxPerPage + 1000}`);
      assert.equal(capped.body.meta.per_page, resource.maxPerPage);
      assert.equal(all.body.meta.per_page, resource.perPage);
    });

    it('4.2 each searchable column filters; every other column and an unknown one is ignored', async () => {
      const everything = ownIds(await list(''));
      for (const column of resource.searchable) {
        const value = known(0, column);
        if (value === undefined || value === null || typeof value === 'object') continue;
        const expected = made
          .map((_, n) => n)
          .filter((n) => String(known(n, column)) === String(value))
          .map((n) => String(made[n]?.[key]));
        const query = `filters[${column}][=]=${encodeURIComponent(String(value))}`;
        assert.deepEqual(ownIds(await list(query)).sort(), expected.sort(), `filter ${column}`);
      }
      const ignored = [...entity.columns, 'no_such_column'].filter(
        (c) => !resource.searchable.has(c),
      );
      for (const column of ignored) {
        const query = `filters[${column}][=]=${encodeURIComponent('no such value')}`;
        assert.deepEqual(ownIds(await list(query)), everything, `filter ${column} is ignored`);
      }
    });

    it('4.2 each sortable column orders both ways; every other column and an unknown one is ignored', async () => {
      for (const column of resource.sortable) {
        const values = made.map((_, n) => known(n, column));
        if (new Set(values.map(String)).size !== values.length) continue;
        const up = ownIds(await list(`sort=${column}`));
        const down = ownIds(await list(`sort=${column}&direction=desc`));
        assert.deepEqual(down, [...up].reverse(), `sort ${column}`);
      }
      const unsorted = await call('GET', `${path}?per_page=${resource.maxPerPage}`);
      for (const column of [...entity.columns, 'no_such_column'].filter(
        (c) => !resource.sortable.has(c),
      )) {
        const reply = await call('GET', `${path}?per_page=${resource.maxPerPage}&sort=${column}`);
        assert.deepEqual(reply.body, unsorted.body, `sort ${column} is ignored`);
      }
    });

    it('2.2 projection: the key always, `relation.field` flattened to the related value, aliases', async () => {
      if (!only.has('show')) return;
      const item = (await list('')).find((i) => String(i[key]) === String(made[0]?.[key]));
      const transformed = new Set(resource.transformedFields());
      for (const [entries, answer] of [
        [resource.showFields, made[0]],
        [resource.indexFields, item ?? null],
      ] as const) {
        if (!answer) continue;
        assert.ok(key in answer, `the key ${key} is answered`);
        if (entries.length === 0) {
          for (const column of entity.columns.filter((c) => !entity.hidden.has(c)))
            if (!resource.hidden.has(column)) assert.ok(column in answer, `${column} is answered`);
          continue;
        }
        for (const entry of entries) {
          const [alias, entryPath] =
            typeof entry === 'string'
              ? [entry.replace('.', '_'), entry]
              : (Object.entries(entry)[0] as [string, string]);
          assert.ok(alias in answer, `${alias} is answered`);
          const [relationName, relatedField] = entryPath.split('.');
          const relation = relationName ? entity.relations[relationName] : undefined;
          if (!relatedField || relation?.kind !== 'belongsTo') continue;
          const related = relation.target();
          const id = (await server.db
            .selectFrom(entity.table)
            .select(relation.foreignKey)
            .where(key, '=', made[0]?.[key])
            .executeTakeFirst()) as Row | undefined;
          const row = (await server.db
            .selectFrom(related.table)
            .selectAll()
            .where(relation.ownerKey, '=', id?.[relation.foreignKey] ?? null)
            .executeTakeFirst()) as Row | undefined;
          const expected = row ? (related.serialize(row)[relatedField] ?? null) : null;
          if (!transformed.has(alias))
            assert.deepEqual(answer[alias], expected, `${alias} is ${entryPath}`);
        }
      }
    });

    it('4.3 4.4 4.5 a missing id: 404 Resource not found on show, update and delete', async () => {
      const target = `${path}/${MISSING_ID}`;
      if (only.has('show')) assertNotFound(await call('GET', target));
      if (only.has('update')) assertNotFound(await call('PATCH', target, {}));
      if (only.has('delete')) assertNotFound(await call('DELETE', target));
      // Details have no routes of their own (SPEC.md 4.1).
      for (const detail of resource.details.keys()) {
        const reply = await call('GET', `${path}/${made[0]?.[key] ?? 1}/${detail}`);
        assert.equal(reply.status, 404);
        assert.ok(reply.body && typeof reply.body === 'object', 'a JSON 404');
      }
    });

    it('7 a create without its required fields: 422, each named with the SPEC wording', async () => {
      if (!only.has('create')) return;
      const required = fields.filter((f) => f.required);
      if (required.length === 0) return;
      const reply = await call('POST', path, {});
      assert.equal(reply.status, 422, reply.text);
      for (const f of required)
        assert.equal(
          reply.body.errors[f.name]?.[0],
          `The ${attribute(f.name)} field is required.`,
          f.name,
        );
      const count = Object.values(reply.body.errors as Record<string, string[]>).flat().length;
      const first = Object.values(reply.body.errors as Record<string, string[]>)[0]?.[0];
      assert.equal(
        reply.body.message,
        count > 1 ? `${first} (and ${count - 1} more error${count > 2 ? 's' : ''})` : first,
      );
    });

    it('7 too long, not among the choices, naming no record: 422 on the field, nothing saved', async () => {
      if (!only.has('create')) return;
      const before = (await call('GET', path)).body.meta.total;
      const cases: Array<[FieldDescription, unknown, string]> = [];
      for (const f of fields.filter((f) => f.writable && !f.writeOnly)) {
        if (f.maxLength !== null && f.type === 'string' && !f.choices && !f.email)
          cases.push([
            f,
            'x'.repeat(f.maxLength + 1),
            `The ${attribute(f.name)} field must not be greater than ${f.maxLength} characters.`,
          ]);
        if (f.choices)
          cases.push([f, 'not-a-choice', `The selected ${attribute(f.name)} is invalid.`]);
        if (f.references)
          cases.push([f, MISSING_ID, `The selected ${attribute(f.name)} is invalid.`]);
      }
      for (const [f, value, message] of cases) {
        const reply = await call('POST', path, {
          ...payloads[0],
          ...freshUnique(),
          [f.name]: value,
        });
        assert.equal(reply.status, 422, `${f.name}: ${reply.text}`);
        assert.deepEqual(reply.body.errors[f.name], [message], f.name);
      }
      assert.equal((await call('GET', path)).body.meta.total, before, 'nothing saved');
    });

    it('4.4 null clears each nullable field', async () => {
      if (!only.has('update') || !only.has('show')) return;
      const id = made[2]?.[key];
      for (const f of fields) {
        if (!f.writable || f.writeOnly || f.required || !nullableColumn(f.name)) continue;
        if (!(f.name in (made[2] ?? {}))) continue;
        const reply = await call('PATCH', `${path}/${id}`, { [f.name]: null });
        assert.equal(reply.status, 200, `${f.name}: ${reply.text}`);
        assert.equal((await call('GET', `${path}/${id}`)).body[f.name], null, f.name);
      }
    });

    it('4.4 detail rows: a diff (new, kept, left out deleted), absent key kept, null empties, forged key overridden', async () => {
      if (!only.has('update') || resource.details.size === 0) return;
      const [first, second] = made as [Row, Row];
      const url = `${path}/${first[key]}`;
      for (const [name, relation] of resource.details) {
        const rows = (first[name] ?? (await call('GET', url)).body[name]) as Row[];
        const sent = payloads[0]?.[name] as Row[] | undefined;
        assert.ok(rows.length >= 2 && sent && sent.length >= 2, `sample(n) gives two ${name}`);
        const [kept, dropped] = rows as [Row, Row];
        const rowKey = relation.target().primaryKey;
        // Kept by id, one new row (whose foreign key names the other record), one left out.
        const forged = { ...sent[1], [relation.foreignKey]: second[key] };
        const diffed = await call('PATCH', url, {
          [name]: [{ ...sent[0], id: kept[rowKey] }, forged],
        });
        assert.equal(diffed.status, 200, diffed.text);
        const now = (await call('GET', url)).body[name] as Row[];
        assert.equal(now.length, 2, name);
        assert.ok(
          now.some((r) => r[rowKey] === kept[rowKey]),
          `${name}: the kept row stays`,
        );
        assert.ok(
          !now.some((r) => r[rowKey] === dropped[rowKey]),
          `${name}: the left-out row goes`,
        );
        const stored = await server.db
          .selectFrom(relation.target().table)
          .select(relation.foreignKey)
          .where(relation.foreignKey, '=', second[key])
          .execute();
        assert.equal(stored.length, (second[name] as Row[] | undefined)?.length ?? stored.length);
        for (const row of now)
          if (relation.foreignKey in row)
            assert.equal(
              String(row[relation.foreignKey]),
              String(first[key]),
              'forged key overridden',
            );
        const absent = await call('PATCH', url, {});
        assert.equal(absent.status, 200);
        assert.equal(
          ((await call('GET', url)).body[name] as Row[]).length,
          2,
          `${name} absent: kept`,
        );
        const emptied = await call('PATCH', url, { [name]: null });
        assert.equal(emptied.status, 200, emptied.text);
        assert.deepEqual((await call('GET', url)).body[name], [], `${name}: null deletes all`);
      }
    });

    it('4.5 delete: 200 Resource deleted successfully, then 404, with its detail rows', async () => {
      if (!only.has('delete')) return;
      const id = made[1]?.[key];
      const reply = await call('DELETE', `${path}/${id}`);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.body, { message: 'Resource deleted successfully' });
      if (only.has('show')) assertNotFound(await call('GET', `${path}/${id}`));
      for (const relation of resource.details.values()) {
        const rows = await server.db
          .selectFrom(relation.target().table)
          .select(relation.foreignKey)
          .where(relation.foreignKey, '=', id)
          .execute();
        assert.equal(rows.length, 0, `${relation.target().table} rows deleted`);
      }
    });
  });

  /** A unique field's value no record holds, so only the field under test fails. */
  function freshUnique(): Row {
    return Object.fromEntries(
      fields
        .filter((d) => described.get(d.name)?.type === 'string' && isUnique(d.name))
        .map((d) => [d.name, `u${Math.random().toString(36).slice(2, 8)}`]),
    );
  }

  function isUnique(name: string): boolean {
    return (entity.rules?.(null) ?? []).some(
      (r) => r.field === name && r.checks.some((c) => c.name === 'unique'),
    );
  }
}

function assertNotFound(reply: Reply): void {
  assert.equal(reply.status, 404, reply.text);
  assert.deepEqual(reply.body, NOT_FOUND);
}
