// Direct invocation of a resource action outside a route (SPEC.md 4.1): the id is read from the
// input field named like the primary key.

import { create } from './actions/create.js';
import { destroy } from './actions/delete.js';
import { list } from './actions/list.js';
import { show } from './actions/show.js';
import { update } from './actions/update.js';
import type { EngineContext } from './context.js';
import type { Resource } from './definition/define-resource.js';
import type { Action } from './definition/resource-config.js';
import { asInput } from './query/input.js';

export async function invoke(
  resource: Resource,
  action: Action,
  context: EngineContext,
  input: unknown,
): Promise<unknown> {
  const fields = asInput(input);
  const id = fields[resource.primaryKey];
  switch (action) {
    case 'list':
      return list(resource, context, fields);
    case 'show':
      return (await show(resource, context, id)).body;
    case 'create':
      return (await create(resource, context, fields)).body;
    case 'update': {
      const { [resource.primaryKey]: _id, ...rest } = fields;
      return (await update(resource, context, id, rest)).body;
    }
    case 'delete':
      return destroy(resource, context, id);
  }
}
