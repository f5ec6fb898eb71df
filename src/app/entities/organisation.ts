// Companies (tenants), their units, and user groups (DESIGN.md 3.3).
import { sql } from 'kysely';
import { defineEntity } from '../../model/entity.js';
import { belongsTo } from '../../model/relations/relation.js';

export const company = defineEntity({
  name: 'Company',
  table: 'companies',
  columns: ['id', 'name', 'active', 'created_at', 'updated_at'],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name', 'active'],
  titleColumns: ['name'],
  tenantMember: (tenantId) => sql<boolean>`companies.id = ${sql.lit(tenantId)}`,
  // Names stay usable: a company is found by its name (svc unit:create --company=Acme).
  rules: (id) => ({
    name: ['required', 'string', 'max:200', `unique:companies,name,${id ?? 'NULL'}`],
    active: ['nullable', 'in:Y,N'],
  }),
});

/** The company a unit is written into, as a rule parameter: its id, or NULL. */
function companyOf(record: Readonly<Record<string, unknown>>): string {
  const id = record.company_id;
  // A value that is no id fails company_id's own rules; the name is then checked among no company.
  return typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))
    ? String(id)
    : 'NULL';
}

export const unit = defineEntity({
  name: 'Unit',
  table: 'units',
  columns: ['id', 'name', 'company_id', 'connection', 'active', 'created_at', 'updated_at'],
  casts: { id: 'integer', company_id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name', 'company_id', 'connection', 'active'],
  labels: { company_id: 'Company' },
  titleColumns: ['name'],
  tenantMember: (tenantId) => sql<boolean>`units.company_id = ${sql.lit(tenantId)}`,
  relations: { company: belongsTo(() => company, 'company_id', { columns: ['id', 'name'] }) },
  // A unit's name is unique within its company (units without a company count as one company).
  rules: (id, record) => ({
    name: [
      'required',
      'string',
      'max:200',
      `unique:units,name,${id ?? 'NULL'},id,company_id,${companyOf(record)}`,
    ],
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
  rules: (id) => ({
    name: ['required', 'string', 'max:200', `unique:groups,name,${id ?? 'NULL'}`],
  }),
});
