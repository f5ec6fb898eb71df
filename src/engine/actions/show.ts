// Show (SPEC.md 4.3): the record projected by showFields, or 404 Resource not found.

import { errors } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecord } from '../output/records.js';
import { parseKey } from './record-key.js';

export async function show(resource: Resource, context: EngineContext, id: unknown): Promise<Row> {
  const key = parseKey(resource, id);
  const record =
    key === null
      ? null
      : await findRecord(
          connectionsOf(context),
          resource,
          context.scope,
          adapterFor(context, resource.entity.storage),
          resource.primaryKey,
          key,
        );
  if (!record) throw errors.resourceNotFound();
  return resource.show(record);
}
