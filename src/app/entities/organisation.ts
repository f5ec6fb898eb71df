// Companies (tenants), their units, and user groups (DESIGN.md 3.3).
import { sql } from 'kysely';
import { entity } from '../../model/declare-entity.js';
import { field, timestamps } from '../../model/fields.js';
import { belongsTo } from '../../model/relations/relation.js';

export const company = entity(
  'Company',
  'companies',
  {
    // Names stay usable: a company is found by its name (svc unit:create --company=Acme).
    name: field.string(200).required().unique({ index: false }),
    active: field.flag('Y').notNull(),
    ...timestamps(),
  },
  {
    storage: 'system',
    titleColumns: ['name'],
    tenantMember: (tenantId) => sql<boolean>`companies.id = ${sql.lit(tenantId)}`,
  },
);

/** The company a unit is written into, as a rule parameter: its id, or NULL. */
function companyOf(record: Readonly<Record<string, unknown>>): string {
  const id = record.company_id;
  // A value that is no id fails company_id's own rules; the name is then checked among no company.
  return typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))
    ? String(id)
    : 'NULL';
}

export const unit = entity(
  'Unit',
  'units',
  {
    // A unit's name is unique within its company (units without a company count as one company).
    name: field
      .string(200)
      .required()
      .rule((id, record) => `unique:units,name,${id ?? 'NULL'},id,company_id,${companyOf(record)}`),
    // A company with units cannot be deleted: its units' tokens would silently lose their tenant.
    company_id: field.belongsTo('companies').foreignKey('restrict').label('Company'),
    connection: field.string(64),
    active: field.flag('Y').notNull(),
    ...timestamps(),
  },
  {
    storage: 'system',
    titleColumns: ['name'],
    tenantMember: (tenantId) => sql<boolean>`units.company_id = ${sql.lit(tenantId)}`,
    relations: { company: belongsTo(() => company, 'company_id', { columns: ['id', 'name'] }) },
  },
);

export const group = entity(
  'Group',
  'groups',
  { name: field.string(200).required().unique({ index: false }), ...timestamps() },
  { storage: 'system', titleColumns: ['name'] },
);
