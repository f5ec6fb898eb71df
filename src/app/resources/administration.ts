// /api/users, /api/companies, /api/units, /api/groups: admin users only.
import { defineResource } from '../../engine/definition/define-resource.js';
import { company, group, unit } from '../entities/organisation.js';
import { user } from '../entities/user.js';
import { adminOnly } from './admin-only.js';

export const users = defineResource({
  model: user,
  searchable: ['login', 'name', 'email', 'admin', 'active'],
  sortable: ['login', 'name', 'created_at', 'updated_at'],
  details: ['units', 'groups'],
  defaultOrder: 'login asc',
  authorize: adminOnly,
  // A template's creator and users are picked by its non-admin writers.
  openLookups: true,
  // A new password ends the user's other sessions (the acting one, if the user's own, stays).
  afterUpdate: async (id, columns, effects) => {
    if (columns.has('password_hash')) await effects.endSessionsOf?.(Number(id));
  },
});

export const companies = defineResource({
  model: company,
  searchable: ['name', 'active'],
  sortable: ['name', 'created_at'],
  defaultOrder: 'name asc',
  authorize: adminOnly,
});

export const units = defineResource({
  model: unit,
  searchable: ['name', 'company_id', 'active'],
  sortable: ['name', 'created_at'],
  with: ['company'],
  defaultOrder: 'name asc',
  authorize: adminOnly,
});

export const groups = defineResource({
  model: group,
  searchable: ['name'],
  sortable: ['name', 'created_at'],
  defaultOrder: 'name asc',
  authorize: adminOnly,
  // A template's groups are picked by its non-admin writers.
  openLookups: true,
});
