// Users (DESIGN.md 3.3): `password` is write-only and stored hashed; the hash is never serialised.
import { sql } from 'kysely';
import { hashPassword } from '../../auth/passwords.js';
import { entity } from '../../model/declare-entity.js';
import { field, timestamps } from '../../model/fields.js';
import { hasMany } from '../../model/relations/relation.js';
import { userGroup, userUnit } from './user-links.js';

export const user = entity(
  'User',
  'users',
  {
    login: field.string(100).required().unique(),
    name: field.string(200).required(),
    email: field.email(255),
    password_hash: field.string(255).notNull().guarded().hidden(),
    admin: field.flag('N').notNull(),
    active: field.flag('Y').notNull(),
    ...timestamps(),
    password: field
      .writeOnly(async (value) => ({ password_hash: await hashPassword(String(value)) }))
      .rules((id) =>
        id === null
          ? ['required', 'string', 'min:8', 'max:200']
          : // On update: left out keeps it; sent, it must be a real one ("" and null are 422s).
            ['sometimes', 'required', 'string', 'min:8', 'max:200'],
      ),
  },
  {
    storage: 'system',
    titleColumns: ['name', 'login'],
    // A user is a company's when linked to one of its units.
    tenantMember: (tenantId) =>
      sql<boolean>`exists (select 1 from user_units join units on units.id = user_units.unit_id where user_units.user_id = users.id and units.company_id = ${sql.lit(tenantId)})`,
    relations: {
      units: hasMany(() => userUnit, 'user_id'),
      groups: hasMany(() => userGroup, 'user_id'),
    },
  },
);
