// Companies (tenants), their units, and user groups (DESIGN.md 3.3).
import { defineEntity } from '../../model/entity.js';
import { belongsTo } from '../../model/relations/relation.js';

export const company = defineEntity({
  name: 'Company',
  table: 'companies',
  columns: ['id', 'name', 'active', 'created_at', 'updated_at'],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name', 'active'],
  titleColumns: ['name'],
  rules: () => ({ name: ['required', 'string', 'max:200'], active: ['nullable', 'in:Y,N'] }),
});

export const unit = defineEntity({
  name: 'Unit',
  table: 'units',
  columns: ['id', 'name', 'company_id', 'connection', 'active', 'created_at', 'updated_at'],
  casts: { id: 'integer', company_id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name', 'company_id', 'connection', 'active'],
  labels: { company_id: 'Company' },
  titleColumns: ['name'],
  relations: { company: belongsTo(() => company, 'company_id', { columns: ['id', 'name'] }) },
  rules: () => ({
    name: ['required', 'string', 'max:200'],
    company_id: ['nullable', 'integer', 'exists:companies,id'],
    connection: ['nullable', 'string', 'max:64'],
    active: ['nullable', 'in:Y,N'],
  }),
});

export const group = defineEntity({
  name: 'Group',
  table: 'groups',
  columns: ['id', 'name', 'created_at', 'updated_at'],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name'],
  titleColumns: ['name'],
  rules: () => ({ name: ['required', 'string', 'max:200'] }),
});
