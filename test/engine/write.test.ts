// SPEC.md 4.4 (create and update with detail rows) and DESIGN.md 3.5/3.6 (partial updates,
// detail row ids of another master), through the import-template resource of the real server;
// rules 4.4.2 (detail rules with the row's id) and 4.4.3 (no rules) on fixture resources.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity, type Row } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson, freshTimestamp, type Reply } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { creatorOf, insertTemplate, snapshot, storedDetails } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const RESOURCE_NOT_FOUND = { error: 'Resource not found' };

// ---- fixture resources -------------------------------------------------------------------

const fxUniqueGroupRow = defineEntity({
  name: 'FxWriteUniqueGroupRow',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  casts: { id: 'integer', template_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
  // A group may be attached once in the whole table; the row's own id is ignored on update.
  rules: (id) => ({
    group_id: ['required', 'integer', `unique:import_template_groups,group_id,${id ?? 'NULL'}`],
  }),
});
const fxFreeUserRow = defineEntity({
  name: 'FxWriteFreeUserRow',
  table: 'import_template_users',
  storage: 'data',
  columns: ['id', 'template_id', 'user_id'],
  casts: { id: 'integer', template_id: 'integer', user_id: 'integer' },
  fillable: ['user_id'],
});
const fxMissingTable = defineEntity({
  name: 'FxWriteMissingTable',
  table: 'fx_write_no_such_table',
  storage: 'data',
  columns: ['id', 'template_id', 'x'],
  fillable: ['x'],
});
const fxTemplate = defineEntity({
  name: 'FxWriteTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'database_name', 'mapping_json'],
  casts: { id: 'integer' },
  fillable: ['title', 'database_name', 'mapping_json'],
  relations: {
    groups: hasMany(() => fxUniqueGroupRow, 'template_id'),
    users: hasMany(() => fxFreeUserRow, 'template_id'),
    broken: hasMany(() => fxMissingTable, 'template_id'),
  },
});
const uniqueGroups = defineResource({ model: fxTemplate, details: ['groups'] });
const noRules = defineResource({ model: fxTemplate, details: ['users'] });
const brokenDetail = defineResource({
  model: fxTemplate,
  details: ['users', 'broken'],
  showFields: ['title'],
});

// ---- helpers -----------------------------------------------------------------------------

type Master = Record<'title' | 'database_name' | 'mapping_json', string> &
  Record<'code' | 'description' | 'csv_model_path' | 'import_mode' | 'active', string | null> & {
    created_by: number | null;
  };

describe('SPEC 4.4 create and update', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let alice: number, bob: number;
  let g1: number, g2: number, g3: number, g4: number;

  const db = () => server.service.database.db;
  /** The master fields of templatePayload(), owned by alice. */
  const master = (overrides: Partial<Master> = {}): Master => ({
    ...(templatePayload() as Master),
    created_by: alice,
    ...overrides,
  });

  /**
   * Asserts a write answered `status` with the whole record as stored: `fields`, fresh
   * timestamps (or the given created_at), the creator, detail rows equal to the stored ones with
   * these group and user ids, and the counts.
   */
  async function assertRecord(
    reply: Reply,
    status: number,
    expected: {
      fields: Master;
      groups: number[];
      users: number[];
      since: Date;
      createdAt?: string;
    },
  ): Promise<void> {
    assertJson(reply, status);
    const id: number = reply.body.id;
    const stored = await storedDetails(db(), id);
    assert.deepEqual(
      stored.groups.map((r) => r.group_id),
      expected.groups,
      'stored group rows',
    );
    assert.deepEqual(
      stored.users.map((r) => r.user_id),
      expected.users,
      'stored user rows',
    );
    assertJson(reply, status, {
      id,
      ...expected.fields,
      created_at: expected.createdAt ?? freshTimestamp(reply.body.created_at, expected.since),
      updated_at: freshTimestamp(reply.body.updated_at, expected.since),
      creator: await creatorOf(db(), expected.fields.created_by),
      groups: stored.groups,
      users: stored.users,
      groups_count: stored.groups.length,
      users_count: stored.users.length,
      logs_count: 0,
    });
  }

  /** Creates a template through the API and returns its answer body. */
  async function create(
    payload: Row,
  ): Promise<Row & { id: number; groups: Row[]; users: Row[]; created_at: string }> {
    const reply = await server.post(PATH, payload);
    assertJson(reply, 201);
    return reply.body;
  }

  before(async () => {
    server = await startTestServer();
    [alice, bob] = (await seedUsers(db(), ['alice', 'bob'])) as [number, number];
    [g1, g2, g3, g4] = (await seedGroups(db(), ['g1', 'g2', 'g3', 'g4'])) as [
      number,
      number,
      number,
      number,
    ];
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-unique-groups', resource: uniqueGroups },
      { path: '/api/fx-no-rules', resource: noRules },
      { path: '/api/fx-broken-detail', resource: brokenDetail },
    ]);
  });
  after(async () => {
    await fixture.close();
    await server.close();
  });

  it('4.4.1 detail keys are separated from the master and only fillable fields are stored', async () => {
    const since = new Date();
    const reply = await server.post(PATH, {
      ...master(),
      id: 424242,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
      unknown_field: 'dropped',
      groups_count: 99,
      creator: { id: bob },
      groups: [{ group_id: g1, extra: 'dropped' }],
      users: [{ user_id: bob, template_id: 7, note: 'dropped' }],
    });
    await assertRecord(reply, 201, { fields: master(), groups: [g1], users: [bob], since });
    assert.notEqual(reply.body.id, 424242);
    const [stored] = await db()
      .selectFrom('import_templates')
      .selectAll()
      .where('id', '=', reply.body.id)
      .execute();
    assert.deepEqual(Object.keys(stored as Row).sort(), [
      'active',
      'code',
      'company_id',
      'created_at',
      'created_by',
      'csv_model_path',
      'database_name',
      'description',
      'id',
      'import_mode',
      'mapping_json',
      'title',
      'updated_at',
      'version',
    ]);
    assert.equal(
      (await db().selectFrom('import_templates').select('id').where('id', '=', 424242).execute())
        .length,
      0,
    );
  });

  it('4.4.2 validation covers the master and every detail row, and nothing is saved when one fails', async () => {
    const before = await snapshot(db());
    const reply = await server.post(PATH, {
      ...master(),
      groups: [{ group_id: g1 }, { group_id: 999999 }],
      users: [{}],
    });
    assertJson(reply, 422, {
      message: 'The selected groups.1.group_id is invalid. (and 1 more error)',
      errors: {
        'groups.1.group_id': ['The selected groups.1.group_id is invalid.'],
        'users.0.user_id': ['The users.0.user_id field is required.'],
      },
    });
    assert.deepEqual(await snapshot(db()), before);

    const existing = await create({ ...master({ title: 'Kept' }), groups: [{ group_id: g1 }] });
    const beforeUpdate = await snapshot(db());
    const refused = await server.put(`${PATH}/${existing.id}`, {
      title: 'Changed',
      groups: [{ group_id: g2 }, { group_id: 'abc' }],
    });
    assertJson(refused, 422, {
      message: 'The groups.1.group_id field must be an integer.',
      errors: { 'groups.1.group_id': ['The groups.1.group_id field must be an integer.'] },
    });
    assert.deepEqual(await snapshot(db()), beforeUpdate);
  });

  it('4.4.2 a detail row is validated with the detail entity rules, its own id as the id', async () => {
    const created = await fixture.post('/api/fx-unique-groups', {
      title: 'Unique',
      database_name: 'd',
      mapping_json: '{}',
      groups: [{ group_id: g4 }],
    });
    assertJson(created, 201);
    const rowId: number = created.body.groups[0].id;
    const id: number = created.body.id;
    const record = {
      id,
      title: 'Unique',
      database_name: 'd',
      mapping_json: '{}',
      groups: [{ id: rowId, template_id: id, group_id: g4 }],
    };
    assertJson(created, 201, record);
    // The row keeps its group: unique ignores the row's own id.
    assertJson(
      await fixture.put(`/api/fx-unique-groups/${id}`, { groups: [{ id: rowId, group_id: g4 }] }),
      200,
      record,
    );
    // A new row (no id) with the same group is refused.
    const before = await snapshot(db());
    assertJson(
      await fixture.put(`/api/fx-unique-groups/${id}`, {
        groups: [{ id: rowId, group_id: g4 }, { group_id: g4 }],
      }),
      422,
      {
        message: 'The groups.1.group_id has already been taken.',
        errors: { 'groups.1.group_id': ['The groups.1.group_id has already been taken.'] },
      },
    );
    assert.deepEqual(await snapshot(db()), before);
    assertJson(await fixture.delete(`/api/fx-unique-groups/${id}`), 200, {
      message: 'Resource deleted successfully',
    });
  });

  it('4.4.3 when an entity has no rules, its validation is skipped', async () => {
    // Within the column's size: longer text is refused by the engines that enforce sizes.
    const long = 'x'.repeat(200);
    const created = await fixture.post('/api/fx-no-rules', {
      title: long,
      database_name: 'd',
      mapping_json: 'not json',
      users: [{ user_id: 987654 }],
    });
    assertJson(created, 201);
    const id: number = created.body.id;
    assertJson(created, 201, {
      id,
      title: long,
      database_name: 'd',
      mapping_json: 'not json',
      users: [{ id: created.body.users[0].id, template_id: id, user_id: 987654 }],
    });
    assertJson(await fixture.delete(`/api/fx-no-rules/${id}`), 200, {
      message: 'Resource deleted successfully',
    });
  });

  it('4.4.4 details are synchronised as a diff: rows without id created, own ids updated, missing ones deleted', async () => {
    const since = new Date();
    const created = await create({
      ...master({ title: 'Diff' }),
      groups: [{ group_id: g1 }, { group_id: g2 }],
      users: [{ user_id: alice }],
    });
    const [kept, dropped] = created.groups as Array<{ id: number }>;
    const reply = await server.put(`${PATH}/${created.id}`, {
      groups: [{ id: kept!.id, group_id: g3 }, { group_id: g2 }],
    });
    await assertRecord(reply, 200, {
      fields: master({ title: 'Diff' }),
      groups: [g3, g2],
      users: [alice],
      since,
      createdAt: created.created_at,
    });
    assert.equal(reply.body.groups[0].id, kept!.id, 'the row with an id is updated in place');
    assert.ok(reply.body.groups[1].id > dropped!.id, 'the row without id is new');
    assert.equal(
      (
        await db()
          .selectFrom('import_template_groups')
          .select('id')
          .where('id', '=', dropped!.id)
          .execute()
      ).length,
      0,
    );
    // A row sent with its id only is kept as stored.
    const same = await server.patch(`${PATH}/${created.id}`, {
      groups: [{ id: kept!.id }, { id: reply.body.groups[1].id }],
    });
    await assertRecord(same, 200, {
      fields: master({ title: 'Diff' }),
      groups: [g3, g2],
      users: [alice],
      since,
      createdAt: created.created_at,
    });
    assert.deepEqual(same.body.groups, reply.body.groups);
  });

  it('4.4.5 a detail key sent as null deletes every row of that relation; an absent key is not processed', async () => {
    const since = new Date();
    const created = await create({
      ...master({ title: 'Nulls' }),
      groups: [{ group_id: g1 }, { group_id: g2 }],
      users: [{ user_id: alice }],
    });
    const untouched = await server.patch(`${PATH}/${created.id}`, { code: 'ABSENT' });
    await assertRecord(untouched, 200, {
      fields: master({ title: 'Nulls', code: 'ABSENT' }),
      groups: [g1, g2],
      users: [alice],
      since,
      createdAt: created.created_at,
    });
    assert.deepEqual(untouched.body.groups, created.groups);
    const cleared = await server.patch(`${PATH}/${created.id}`, { groups: null });
    await assertRecord(cleared, 200, {
      fields: master({ title: 'Nulls', code: 'ABSENT' }),
      groups: [],
      users: [alice],
      since,
      createdAt: created.created_at,
    });
    const emptied = await server.put(`${PATH}/${created.id}`, { users: [] });
    await assertRecord(emptied, 200, {
      fields: master({ title: 'Nulls', code: 'ABSENT' }),
      groups: [],
      users: [],
      since,
      createdAt: created.created_at,
    });
  });

  it('4.4.6 the foreign key of every detail row is set from the master, whatever the payload says', async () => {
    const since = new Date();
    const other = await create({ ...master({ title: 'Other' }), groups: [{ group_id: g1 }] });
    const otherRows = await storedDetails(db(), other.id);
    const created = await server.post(PATH, {
      ...master({ title: 'Forged' }),
      groups: [{ group_id: g2, template_id: other.id }],
    });
    await assertRecord(created, 201, {
      fields: master({ title: 'Forged' }),
      groups: [g2],
      users: [],
      since,
    });
    const rowId: number = created.body.groups[0].id;
    const updated = await server.put(`${PATH}/${created.body.id}`, {
      groups: [{ id: rowId, group_id: g3, template_id: other.id }],
    });
    await assertRecord(updated, 200, {
      fields: master({ title: 'Forged' }),
      groups: [g3],
      users: [],
      since,
      createdAt: created.body.created_at,
    });
    assert.equal(updated.body.groups[0].template_id, created.body.id);
    assert.deepEqual(
      await storedDetails(db(), other.id),
      otherRows,
      'the other master keeps exactly its rows',
    );
  });

  it('4.4.7 two rows without id are two new rows, even when they are equal', async () => {
    const since = new Date();
    const reply = await server.post(PATH, {
      ...master({ title: 'Twins' }),
      groups: [{ group_id: g1 }, { group_id: g1 }],
      users: [{ user_id: bob }, { user_id: bob }],
    });
    await assertRecord(reply, 201, {
      fields: master({ title: 'Twins' }),
      groups: [g1, g1],
      users: [bob, bob],
      since,
    });
    assert.notEqual(reply.body.groups[0].id, reply.body.groups[1].id);
    const more = await server.patch(`${PATH}/${reply.body.id}`, {
      users: [{ user_id: bob }, { user_id: bob }],
    });
    await assertRecord(more, 200, {
      fields: master({ title: 'Twins' }),
      groups: [g1, g1],
      users: [bob, bob],
      since,
      createdAt: reply.body.created_at,
    });
    assert.ok(
      more.body.users[0].id > reply.body.users[1].id,
      'the old rows were replaced by two new ones',
    );
  });

  it('4.4.8 the answer is the master reloaded from storage with its eager loads, not an echo of the request', async () => {
    const since = new Date();
    const { active: _active, ...withoutActive } = master({ title: 'Reloaded' });
    const reply = await server.post(PATH, {
      ...withoutActive,
      groups: [{ group_id: String(g1) }],
      extra: true,
    });
    // active takes the column default, the string group id comes back as the stored integer, and
    // generated ids, timestamps, the creator and the counts appear.
    await assertRecord(reply, 201, {
      fields: master({ title: 'Reloaded', active: 'Y' }),
      groups: [g1],
      users: [],
      since,
    });
    assert.equal(reply.body.groups[0].group_id, g1);
    assert.deepEqual(await server.get(`${PATH}/${reply.body.id}`).then((r) => r.body), reply.body);
  });

  it('4.4.9 create answers 201, update 200, and an update of a missing id 404 Resource not found', async () => {
    const created = await create(master({ title: 'Statuses' }));
    assertJson(await server.put(`${PATH}/${created.id}`, { code: 'S' }), 200);
    assertJson(await server.patch(`${PATH}/${created.id}`, { code: 'S' }), 200);
    const before = await snapshot(db());
    for (const id of ['999999', 'abc', '1.5', '-1', '0x10', '1e3']) {
      assertJson(await server.put(`${PATH}/${id}`, { code: 'S' }), 404, RESOURCE_NOT_FOUND);
      assertJson(await server.patch(`${PATH}/${id}`, { code: 'S' }), 404, RESOURCE_NOT_FOUND);
    }
    // The missing record is reported before the payload is judged.
    assertJson(await server.put(`${PATH}/999999`, { title: '' }), 404, RESOURCE_NOT_FOUND);
    assert.deepEqual(await snapshot(db()), before);
  });

  describe('DESIGN 3.6 partial updates', () => {
    it('PUT and PATCH are both partial: absent master fields keep their stored values', async () => {
      const since = new Date();
      const created = await create({ ...master({ title: 'Partial' }), groups: [{ group_id: g1 }] });
      const put = await server.put(`${PATH}/${created.id}`, { description: 'by PUT' });
      await assertRecord(put, 200, {
        fields: master({ title: 'Partial', description: 'by PUT' }),
        groups: [g1],
        users: [],
        since,
        createdAt: created.created_at,
      });
      const patch = await server.patch(`${PATH}/${created.id}`, {
        import_mode: 'insert',
        code: null,
      });
      await assertRecord(patch, 200, {
        fields: master({
          title: 'Partial',
          description: 'by PUT',
          import_mode: 'insert',
          code: null,
        }),
        groups: [g1],
        users: [],
        since,
        createdAt: created.created_at,
      });
    });

    it('validation runs on the stored record merged with the payload', async () => {
      const created = await create(master({ title: 'Merged' }));
      const before = await snapshot(db());
      for (const method of ['PUT', 'PATCH']) {
        assertJson(
          await server.request(method, `${PATH}/${created.id}`, { body: { title: '' } }),
          422,
          {
            message: 'The title field is required.',
            errors: { title: ['The title field is required.'] },
          },
        );
        assertJson(
          await server.request(method, `${PATH}/${created.id}`, {
            body: { database_name: null, mapping_json: '{' },
          }),
          422,
          {
            message: 'The database name field is required. (and 1 more error)',
            errors: {
              database_name: ['The database name field is required.'],
              mapping_json: ['The mapping json field must be a valid JSON string.'],
            },
          },
        );
      }
      assert.deepEqual(await snapshot(db()), before);
    });

    it('id, created_at and updated_at are never taken from a master payload', async () => {
      const since = new Date();
      const created = await create(master({ title: 'Stamps' }));
      const reply = await server.put(`${PATH}/${created.id}`, {
        id: 888888,
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
        title: 'Stamps 2',
      });
      await assertRecord(reply, 200, {
        fields: master({ title: 'Stamps 2' }),
        groups: [],
        users: [],
        since,
        createdAt: created.created_at,
      });
      assert.equal(reply.body.id, created.id);
    });
  });

  describe('DESIGN 3.5 detail row ids', () => {
    it('a detail row id of another master is a 422 under groups.0.id and nothing is saved', async () => {
      const mine = await create({ ...master({ title: 'Mine' }), groups: [{ group_id: g1 }] });
      const theirs = await create({ ...master({ title: 'Theirs' }), groups: [{ group_id: g2 }] });
      const before = await snapshot(db());
      const reply = await server.put(`${PATH}/${mine.id}`, {
        title: 'Stolen',
        groups: [{ id: (theirs.groups[0] as { id: number }).id, group_id: g3 }],
      });
      assertJson(reply, 422, {
        message: 'The selected groups.0.id is invalid.',
        errors: { 'groups.0.id': ['The selected groups.0.id is invalid.'] },
      });
      assert.deepEqual(await snapshot(db()), before);
    });

    it('a detail row id that does not exist, or is not an id, is a 422 under <relation>.<index>.id', async () => {
      const mine = await create({
        ...master({ title: 'Ghost rows' }),
        users: [{ user_id: alice }],
      });
      const before = await snapshot(db());
      const reply = await server.patch(`${PATH}/${mine.id}`, {
        users: [
          { id: (mine.users[0] as { id: number }).id },
          { id: 999999, user_id: bob },
          { id: 'x', user_id: bob },
        ],
      });
      assertJson(reply, 422, {
        message: 'The selected users.1.id is invalid. (and 1 more error)',
        errors: {
          'users.1.id': ['The selected users.1.id is invalid.'],
          'users.2.id': ['The selected users.2.id is invalid.'],
        },
      });
      // On create no row can be claimed: the new master owns none yet.
      const claimed = await server.post(PATH, {
        ...master(),
        users: [{ id: (mine.users[0] as { id: number }).id, user_id: bob }],
      });
      assertJson(claimed, 422, {
        message: 'The selected users.0.id is invalid.',
        errors: { 'users.0.id': ['The selected users.0.id is invalid.'] },
      });
      assert.deepEqual(await snapshot(db()), before);
    });

    it('a detail row id is a JSON integer or its canonical decimal string: "01" and every other form is a 422 and no row is lost', async () => {
      const mine = await create({
        ...master({ title: 'Two rows' }),
        groups: [{ group_id: g1 }, { group_id: g2 }],
      });
      const [first, second] = (mine.groups as Array<{ id: number }>).map((row) => row.id) as [
        number,
        number,
      ];
      const before = await snapshot(db());
      for (const id of [
        `0${first}`,
        `00${first}`,
        `${first}.0`,
        ` ${first}`,
        `${first} `,
        `+${first}`,
        `${first}e0`,
        `0x${first}`,
        first + 0.5,
        -Number(first),
        true,
        [first],
        { id: first },
        '',
      ]) {
        for (const method of ['PUT', 'PATCH']) {
          const reply = await server.request(method, `${PATH}/${mine.id}`, {
            body: {
              groups: [
                { id, group_id: g1 },
                { id: second, group_id: g2 },
              ],
            },
          });
          assertJson(reply, 422, {
            message: 'The selected groups.0.id is invalid.',
            errors: { 'groups.0.id': ['The selected groups.0.id is invalid.'] },
          });
        }
      }
      assert.deepEqual(await snapshot(db()), before);
      // The canonical string names the row: both rows kept, the first one changed.
      const kept = await server.put(`${PATH}/${mine.id}`, {
        groups: [
          { id: String(first), group_id: g3 },
          { id: second, group_id: g2 },
        ],
      });
      assertJson(kept, 200);
      assert.deepEqual(kept.body.groups, [
        { id: first, template_id: mine.id, group_id: g3 },
        { id: second, template_id: mine.id, group_id: g2 },
      ]);
      assert.deepEqual((await storedDetails(db(), mine.id as number)).groups, kept.body.groups);
    });

    it('a detail row id named twice in one relation is a 422 on the second row and nothing is saved', async () => {
      const mine = await create({
        ...master({ title: 'Named twice' }),
        groups: [{ group_id: g1 }],
      });
      const first = (mine.groups as Array<{ id: number }>)[0]?.id as number;
      const before = await snapshot(db());
      const reply = await server.put(`${PATH}/${mine.id}`, {
        groups: [
          { id: first, group_id: g2 },
          { id: String(first), group_id: g3 },
        ],
      });
      assertJson(reply, 422, {
        message: 'The groups.1.id field has a duplicate value.',
        errors: { 'groups.1.id': ['The groups.1.id field has a duplicate value.'] },
      });
      assert.deepEqual(await snapshot(db()), before);
    });
  });

  it('DESIGN 4 a write runs in one transaction: a failure after the first statements leaves nothing saved', async () => {
    const before = await snapshot(db());
    const reply = await fixture.post('/api/fx-broken-detail', {
      title: 'Half',
      database_name: 'd',
      mapping_json: '{}',
      users: [{ user_id: alice }],
      broken: [{ x: 1 }],
    });
    assertJson(reply, 500, { message: 'Server Error' });
    assert.deepEqual(await snapshot(db()), before);
    const existing = await insertTemplate(db(), { title: 'Whole', users: [alice] });
    const beforeUpdate = await snapshot(db());
    // The master and its users rows are written, then reloading the record fails.
    const update = await fixture.put(`/api/fx-broken-detail/${existing.id}`, {
      title: 'Half',
      users: [],
    });
    assertJson(update, 500, { message: 'Server Error' });
    assert.deepEqual(await snapshot(db()), beforeUpdate);
    await db().deleteFrom('import_template_users').where('template_id', '=', existing.id).execute();
    await db().deleteFrom('import_templates').where('id', '=', existing.id).execute();
    assert.deepEqual(await snapshot(db()), before);
  });
});
