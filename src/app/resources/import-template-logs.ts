// /api/import-template-logs: run logs, unit-bound (filtered and stamped by the caller's unit).
import { defineResource } from '../../engine/definition/define-resource.js';
import { importTemplateLog } from '../entities/import-template.js';

export const importTemplateLogs = defineResource({
  model: importTemplateLog,
  searchable: ['template_id', 'status'],
  sortable: ['created_at', 'id'],
  defaultOrder: 'created_at desc',
});
