// The user's detail rows: the units they may act in and the groups they belong to.
import { entity } from '../../model/declare-entity.js';
import { field } from '../../model/fields.js';

export const userUnit = entity(
  'UserUnit',
  'user_units',
  {
    user_id: field.parent('users'),
    unit_id: field.belongsTo('units').required().foreignKey('cascade').index().label('Unit'),
  },
  { storage: 'system' },
);

export const userGroup = entity(
  'UserGroup',
  'user_groups',
  {
    user_id: field.parent('users'),
    group_id: field.belongsTo('groups').required().foreignKey('cascade').index().label('Group'),
  },
  { storage: 'system' },
);
