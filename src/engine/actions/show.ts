// Show (SPEC.md 4.3): the record projected by showFields, or 404 Resource not found. Its ETag
// comes from the version column read by the same statement (engine/conditional).

import { errors } from '../../errors.js';
import { rowTag, type TaggedRecord } from '../conditional/entity-tag.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecordAndRow } from '../output/find-record.js';
import { parseKey } from './record-key.js';

export async function show(
  resource: Resource,
  context: EngineContext,
  id: unknown,
): Promise<TaggedRecord> {
  const key = parseKey(resource, id);
  const found =
    key === null
      ? null
      : await findRecordAndRow(
          connectionsOf(context),
          resource,
          context.scope,
          adapterFor(context, resource.entity.storage),
          resource.primaryKey,
          key,
          context.check,
        );
  if (!found) throw errors.resourceNotFound();
  return { body: resource.show(found.record), etag: rowTag(resource.entity, found.row) };
}
