// Delete (SPEC.md 4.5): the master and, in cascade, the rows of every detail relation, in one
// transaction, with its change (DESIGN.md 3.9). A missing id is 404; If-Match / If-None-Match are checked on the locked row.
import { errors } from '../../errors.js';
import { appendChange } from '../changes/change-of-write.js';
import { rowTag } from '../conditional/entity-tag.js';
import { checkWrite, NO_PRECONDITIONS, type Preconditions } from '../conditional/preconditions.js';
import { adapterFor, type EngineContext, inTransaction } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findStoredRow } from '../write/stored-row.js';
import { runAggregateWrites, type StoredWrite } from '../write/sync-details.js';
import { parseKey } from './record-key.js';

export const DELETED = Object.freeze({ message: 'Resource deleted successfully' });

export async function destroy(
  resource: Resource,
  context: EngineContext,
  id: unknown,
  preconditions: Preconditions = NO_PRECONDITIONS,
): Promise<typeof DELETED> {
  const { entity } = resource;
  const key = parseKey(resource, id);
  if (key === null) throw errors.resourceNotFound();
  const adapter = adapterFor(context, entity.storage);
  await inTransaction(context, entity.storage, async (connections, _check, appended) => {
    const db = connections[entity.storage];
    const existing = await findStoredRow(db, resource, context.scope, key, adapter);
    if (!existing) throw errors.resourceNotFound();
    checkWrite(preconditions, rowTag(entity, existing));
    const masterKey = existing[entity.primaryKey];
    const writes: StoredWrite[] = [...resource.details.values()].map((relation) => {
      const { storage, table } = relation.target();
      return { storage, write: { delete: table, where: { [relation.foreignKey]: masterKey } } };
    });
    writes.push({
      storage: entity.storage,
      write: { delete: entity.table, where: { [entity.primaryKey]: masterKey } },
    });
    await runAggregateWrites(connections, writes, context);
    // The change keeps the record's scope (unit, company): scoped readers are told of it too.
    appended.push(
      await appendChange(db, adapter, resource, context, 'deleted', existing, {}, null),
    );
  });
  return DELETED;
}
