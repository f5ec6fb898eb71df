// /api/import-templates: SPEC.md 2.3's configuration, and the columns its admin list shows.
import { defineResource } from '../../engine/definition/define-resource.js';
import { importTemplate } from '../entities/import-template.js';

export const importTemplates = defineResource({
  model: importTemplate,
  searchable: ['title', 'code', 'database_name', 'active', 'created_by'],
  sortable: ['title', 'code', 'created_at', 'updated_at'],
  with: ['creator'],
  withCount: ['groups', 'users', 'logs'],
  details: ['groups', 'users'],
  defaultOrder: 'title asc',
  listColumns: [
    'title',
    'code',
    'database_name',
    'active',
    'creator',
    'groups_count',
    'users_count',
    'logs_count',
    'updated_at',
  ],
});
