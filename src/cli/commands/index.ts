// Every CLI command by name (DESIGN.md 3.1).
import type { Command } from '../command.js';
import { check } from './check.js';
import { driverQuery } from './driver-query.js';
import { companyList, groupList, unitList, userList } from './lists.js';
import { makeMigration } from './make-migration.js';
import { makeResource } from './make-resource.js';
import { migrate } from './migrate.js';
import { notify } from './notify.js';
import { companyCreate, groupCreate, unitCreate } from './organisation-create.js';
import { serve } from './serve.js';
import { abilities, tokenCreate, tokenList, tokenRevoke } from './tokens.js';
import { unitAttach } from './unit-attach.js';
import { userCreate } from './user-create.js';
import { userPassword } from './user-password.js';

export const commands: Record<string, Command> = {
  serve,
  migrate,
  'make:migration': makeMigration,
  'make:resource': makeResource,
  check,
  'user:create': userCreate,
  'user:password': userPassword,
  'user:list': userList,
  'company:create': companyCreate,
  'company:list': companyList,
  'unit:create': unitCreate,
  'unit:list': unitList,
  'unit:attach': unitAttach,
  'group:create': groupCreate,
  'group:list': groupList,
  'token:create': tokenCreate,
  'token:list': tokenList,
  'token:revoke': tokenRevoke,
  abilities,
  notify,
  'driver:query': driverQuery,
};
