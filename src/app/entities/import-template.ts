// The import template of SPEC.md 2.3, with its detail rows (groups, users) and its run logs.
// These are data tables (a unit's own database may hold them: DESIGN.md 3.5), so their ids of
// users and groups are checked by rules, not by foreign keys.
import { entity } from '../../model/declare-entity.js';
import { field, timestamps } from '../../model/fields.js';
import { belongsTo, hasMany } from '../../model/relations/relation.js';
import { user } from './user.js';

export const importTemplateGroup = entity(
  'ImportTemplateGroup',
  'import_template_groups',
  {
    template_id: field.parent('import_templates'),
    group_id: field.belongsTo('groups').required().label('Group'),
  },
  { storage: 'data' },
);

export const importTemplateUser = entity(
  'ImportTemplateUser',
  'import_template_users',
  {
    template_id: field.parent('import_templates'),
    user_id: field.belongsTo('users').required().label('User'),
  },
  { storage: 'data' },
);

export const importTemplateLog = entity(
  'ImportTemplateLog',
  'import_template_logs',
  {
    template_id: field
      .belongsTo('import_templates')
      .required()
      .foreignKey('cascade')
      .label('Template'),
    unit_id: field.unit().label('Unit'),
    status: field.enum(['queued', 'running', 'succeeded', 'failed'], 20).required(),
    message: field.text().max(10000),
    rows_total: field.integer().min(0).notNull().default(0),
    rows_failed: field.integer().min(0).notNull().default(0),
    created_at: field.timestamp(),
  },
  {
    storage: 'data',
    indexes: [
      ['template_id', 'unit_id'],
      ['unit_id', 'created_at'],
    ],
  },
);

export const importTemplate = entity(
  'ImportTemplate',
  'import_templates',
  {
    title: field.string(200).required().index(),
    code: field.string(100).index(),
    description: field.text(),
    database_name: field.string(200).required().index(),
    mapping_json: field.jsonText().required(),
    csv_model_path: field.string(500),
    import_mode: field.string(50),
    active: field.flag('Y'),
    created_by: field.belongsTo('users').owner().index(),
    ...timestamps(),
    // TENANT_ISOLATION=true: stamped with the caller's company and filtered by it (DESIGN.md
    // 3.6); the detail rows and the logs are reached through the template. Never answered.
    company_id: field.tenant(),
    // Incremented by every write, details-only ones too: the template's ETag (docs/api.md).
    version: field.version(),
  },
  {
    storage: 'data',
    titleColumns: ['title'],
    indexes: [['active', 'created_at', 'id', 'title'], ['created_at'], ['updated_at']],
    relations: {
      creator: belongsTo(() => user, 'created_by', { columns: ['id', 'login', 'name'] }),
      groups: hasMany(() => importTemplateGroup, 'template_id'),
      users: hasMany(() => importTemplateUser, 'template_id'),
      logs: hasMany(() => importTemplateLog, 'template_id'),
    },
  },
);
