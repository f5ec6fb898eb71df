// Every CLI command by name (DESIGN.md 3.1).
import type { Command } from '../command.js';
import { driverQuery } from './driver-query.js';
import { migrate } from './migrate.js';
import { notify } from './notify.js';
import { companyCreate, groupCreate, unitCreate } from './organisation-create.js';
import { serve } from './serve.js';
import { abilities, tokenCreate, tokenList, tokenRevoke } from './tokens.js';
import { unitAttach } from './unit-attach.js';
import { userCreate } from './user-create.js';

export const commands: Record<string, Command> = {
  serve,
  migrate,
  'user:create': userCreate,
  'company:create': companyCreate,
  'unit:create': unitCreate,
  'unit:attach': unitAttach,
  'group:create': groupCreate,
  'token:create': tokenCreate,
  'token:list': tokenList,
  'token:revoke': tokenRevoke,
  abilities,
  notify,
  'driver:query': driverQuery,
};
