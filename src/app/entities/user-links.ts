// The user's detail rows: the units they may act in and the groups they belong to.
import { defineEntity } from '../../model/entity.js';

export const userUnit = defineEntity({
  name: 'UserUnit',
  table: 'user_units',
  columns: ['id', 'user_id', 'unit_id'],
  casts: { id: 'integer', user_id: 'integer', unit_id: 'integer' },
  fillable: ['unit_id'],
  labels: { unit_id: 'Unit' },
  rules: () => ({ unit_id: ['required', 'integer', 'exists:units,id'] }),
});

export const userGroup = defineEntity({
  name: 'UserGroup',
  table: 'user_groups',
  columns: ['id', 'user_id', 'group_id'],
  casts: { id: 'integer', user_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
  labels: { group_id: 'Group' },
  rules: () => ({ group_id: ['required', 'integer', 'exists:groups,id'] }),
});
