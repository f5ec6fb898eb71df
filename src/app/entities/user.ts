// Users (DESIGN.md 3.3): `password` is write-only and stored hashed; the hash is never serialised.
import { sql } from 'kysely';
import { hashPassword } from '../../auth/passwords.js';
import { defineEntity } from '../../model/entity.js';
import { hasMany } from '../../model/relations/relation.js';
import { userGroup, userUnit } from './user-links.js';

export const user = defineEntity({
  name: 'User',
  table: 'users',
  columns: [
    'id',
    'login',
    'name',
    'email',
    'password_hash',
    'admin',
    'active',
    'created_at',
    'updated_at',
  ],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['login', 'name', 'email', 'admin', 'active'],
  hidden: ['password_hash'],
  titleColumns: ['name', 'login'],
  // A user is a company's when linked to one of its units.
  tenantMember: (tenantId) =>
    sql<boolean>`exists (select 1 from user_units join units on units.id = user_units.unit_id where user_units.user_id = users.id and units.company_id = ${sql.lit(tenantId)})`,
  writeOnly: { password: async (value) => ({ password_hash: await hashPassword(String(value)) }) },
  relations: {
    units: hasMany(() => userUnit, 'user_id'),
    groups: hasMany(() => userGroup, 'user_id'),
  },
  rules: (id) => ({
    login: ['required', 'string', 'max:100', `unique:users,login,${id ?? 'NULL'}`],
    name: ['required', 'string', 'max:200'],
    email: ['nullable', 'email', 'max:255'],
    admin: ['nullable', 'in:Y,N'],
    active: ['nullable', 'in:Y,N'],
    password:
      id === null
        ? ['required', 'string', 'min:8', 'max:200']
        : // On update: left out keeps it; sent, it must be a real one ("" and null are 422s).
          ['sometimes', 'required', 'string', 'min:8', 'max:200'],
  }),
});
