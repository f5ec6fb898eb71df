// SPEC.md 2.1 checked at boot (STYLE.md example 4): a resource configuration that names
// something its entity lacks fails in defineResource() with a clear message, not at a request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import {
  defineResource,
  ResourceDefinitionError,
} from '../../src/engine/definition/define-resource.js';
import type { ResourceConfig } from '../../src/engine/definition/resource-config.js';
import { registerResourceRoutes } from '../../src/engine/routes.js';
import { defineEntity } from '../../src/model/entity.js';
import { belongsTo, hasMany } from '../../src/model/relations/relation.js';

const fxRow = defineEntity({
  name: 'FxDefinitionGroupRow',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  fillable: ['group_id'],
});
const fxUser = defineEntity({
  name: 'FxDefinitionUser',
  table: 'users',
  columns: ['id', 'login', 'name'],
  fillable: [],
});
// A system table keyed by template: a relation from a data entity into another database.
const fxSystemRow = defineEntity({
  name: 'FxDefinitionSystemRow',
  table: 'user_groups',
  columns: ['id', 'template_id'],
  fillable: [],
});
const fxTemplate = defineEntity({
  name: 'FxDefinitionTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'code', 'created_by', 'created_at'],
  fillable: ['title', 'code'],
  appends: { shout: (record) => String(record.title).toUpperCase() },
  relations: {
    creator: belongsTo(() => fxUser, 'created_by'),
    groups: hasMany(() => fxRow, 'template_id'),
    elsewhere: hasMany(() => fxSystemRow, 'template_id'),
    byCode: hasMany(() => fxRow, 'template_id', 'code'),
  },
});

function refuses(config: Omit<ResourceConfig, 'model'>, message: string): void {
  assert.throws(
    () => defineResource({ model: fxTemplate, ...config }),
    (error: unknown) => {
      assert.ok(
        error instanceof ResourceDefinitionError,
        `not a ResourceDefinitionError: ${String(error)}`,
      );
      assert.equal(error.message, `Resource for FxDefinitionTemplate: ${message}`);
      return true;
    },
  );
}

describe('SPEC 2.1 resource configuration checked at boot', () => {
  it('accepts a configuration whose every name exists', () => {
    const resource = defineResource({
      model: 'FxDefinitionTemplate',
      searchable: ['title'],
      sortable: ['title', 'created_at'],
      with: ['creator'],
      withCount: ['groups'],
      details: ['groups'],
      appends: ['shout'],
      indexFields: ['title', 'creator.name', { n: 'groups_count' }, 'shout'],
      defaultOrder: 'created_at DESC',
      perPage: 10,
      maxPerPage: 50,
    });
    assert.deepEqual(resource.defaultOrder, { column: 'created_at', direction: 'desc' });
    assert.equal(resource.primaryKey, 'id');
    assert.equal(resource.perPage, 10);
    assert.equal(resource.maxPerPage, 50);
  });

  it('fails for a sortable column that does not exist', () => {
    refuses(
      { sortable: ['title', 'nope'] },
      'sortable names "nope", which is not a column of import_templates',
    );
  });

  it('fails for a searchable column that does not exist', () => {
    refuses(
      { searchable: ['nope'] },
      'searchable names "nope", which is not a column of import_templates',
    );
  });

  it('fails for an unknown relation in with', () => {
    refuses(
      { with: ['ghost'] },
      'with names "ghost", which is not a relation of FxDefinitionTemplate',
    );
  });

  it('fails for an unknown relation in details', () => {
    refuses(
      { details: ['ghost'] },
      'details names "ghost", which is not a relation of FxDefinitionTemplate',
    );
  });

  it('fails for a detail relation that is not one-to-many', () => {
    refuses(
      { details: ['creator'] },
      'details needs a one-to-many relation, "creator" is belongsTo',
    );
  });

  it('fails for an unknown relation in withCount', () => {
    refuses(
      { withCount: ['ghost'] },
      'withCount names "ghost", which is not a relation of FxDefinitionTemplate',
    );
  });

  it('fails for a withCount whose rows live in another database (counts are sub-queries)', () => {
    refuses(
      { withCount: ['elsewhere'] },
      'withCount "elsewhere" crosses databases; counts are sub-queries',
    );
  });

  it('fails for details whose rows live in another database (a write is one transaction)', () => {
    refuses(
      { details: ['elsewhere'] },
      'details "elsewhere" crosses databases; a write is one transaction',
    );
  });

  it('fails for details keyed by another column than the primary key (their rows are written with it)', () => {
    refuses(
      { details: ['byCode'] },
      'details "byCode" must be keyed by id, the key its rows are written with, not by "code"',
    );
  });

  it('fails for a defaultOrder that is not "<column> asc|desc"', () => {
    refuses(
      { defaultOrder: 'title upwards' },
      'defaultOrder must read "<column> asc|desc", got "title upwards"',
    );
    refuses({ defaultOrder: 'title' }, 'defaultOrder must read "<column> asc|desc", got "title"');
  });

  it('fails for a defaultOrder on a column that does not exist', () => {
    refuses({ defaultOrder: 'nope asc' }, 'defaultOrder column "nope" is not a column');
  });

  it('fails for an append the entity does not compute', () => {
    refuses(
      { appends: ['whisper'] },
      'appends names "whisper", which FxDefinitionTemplate does not compute',
    );
  });

  it('fails for a projection naming a field the record does not carry', () => {
    refuses(
      { indexFields: ['title', 'owner.name'] },
      'a projection names "owner", which the record does not carry',
    );
    refuses(
      { showFields: [{ alias: 'nope' }] },
      'a projection names "nope", which the record does not carry',
    );
    // A count is carried only when withCount asks for it.
    refuses(
      { indexFields: ['groups_count'] },
      'a projection names "groups_count", which the record does not carry',
    );
  });

  it('fails for admin listColumns naming a key a list item does not carry', () => {
    refuses(
      { listColumns: ['title', 'owner'] },
      'listColumns names "owner", which a list item does not carry',
    );
    // With a projection, only its keys: `code` is a column, but not in this list.
    refuses(
      { indexFields: ['title'], listColumns: ['code'] },
      'listColumns names "code", which a list item does not carry',
    );
    defineResource({ model: fxTemplate, indexFields: ['title'], listColumns: ['id', 'title'] });
  });

  it('fails for a primaryKey that is not a column', () => {
    refuses({ primaryKey: 'uuid' }, 'primaryKey "uuid" is not a column');
  });

  it('fails for a perPage or maxPerPage that is not a usable page size', () => {
    refuses({ perPage: 0 }, 'perPage must be a positive integer');
    refuses({ perPage: 20, maxPerPage: 10 }, 'maxPerPage must be an integer of at least perPage');
  });

  it('fails for a model name no entity is declared with', () => {
    assert.throws(
      () => defineResource({ model: 'NoSuchEntity' }),
      /^Error: No entity is named "NoSuchEntity"/,
    );
  });

  it('4.1 a route restricted to an unknown action fails when the routes are registered', () => {
    const resource = defineResource({ model: fxTemplate });
    const app = Fastify();
    assert.throws(
      () =>
        registerResourceRoutes(
          app,
          { path: '/api/x', resource, only: ['list', 'archive' as 'list'] },
          {
            context: () => {
              throw new Error('not called');
            },
            middleware: () => {
              throw new Error('not called');
            },
          },
        ),
      { message: '/api/x: unknown action "archive"' },
    );
  });
});

describe('SPEC 2.1 entity rules parsed and checked when the entity is defined', () => {
  const base = {
    table: 'import_templates',
    storage: 'data' as const,
    columns: ['id', 'title', 'code'],
    fillable: ['title', 'code'],
  };
  const refusesEntity = (
    name: string,
    rules: Parameters<typeof defineEntity>[0]['rules'],
    message: string,
  ) =>
    assert.throws(
      () => defineEntity({ ...base, name, rules }),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.equal(error.message, `Entity ${name}: ${message}`);
        return true;
      },
    );

  it('a misspelt rule stops the definition, naming the entity, field and rule', () => {
    refusesEntity(
      'FxRulesMisspelt',
      () => ({ title: ['requird', 'max:200'] }),
      'Invalid validation rule "requird" for field "title": unknown rule "requird"',
    );
  });

  it('a rule given for updates only is checked too', () => {
    refusesEntity(
      'FxRulesUpdateOnly',
      (id) => ({ code: id === null ? ['nullable'] : ['max:ten'] }),
      'Invalid validation rule "max:ten" for field "code": "max" needs a number',
    );
  });

  it('a rule for a field the entity neither stores nor takes is refused', () => {
    refusesEntity(
      'FxRulesUnknownField',
      () => ({ titel: ['required'] }),
      'rules name field "titel", which is neither a column nor a write-only field',
    );
  });

  it('rules for columns and write-only fields are accepted and parsed once per distinct set', () => {
    const entity = defineEntity({
      ...base,
      name: 'FxRulesFine',
      writeOnly: { secret: () => ({}) },
      rules: (id) => ({
        title: ['required', `unique:import_templates,title,${id ?? 'NULL'}`],
        secret: ['nullable', 'string'],
      }),
    });
    assert.ok(entity.rules);
    assert.equal(entity.rules(7), entity.rules(7));
    assert.deepEqual(
      entity.rules(7).map((field) => field.field),
      ['title', 'secret'],
    );
  });
});
