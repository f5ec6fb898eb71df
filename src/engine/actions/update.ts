// Update (SPEC.md 4.4, DESIGN.md 3.6): partial for PUT and PATCH alike; rules run on the stored
// record merged with the payload; details synchronised as a diff; the reloaded record (200)
// and its change (DESIGN.md 3.9); all in one transaction. A missing id is 404. If-Match / If-None-Match are checked on the
// stored row once it is locked, so of two writers sending one ETag only the first wins; the
// version (the ETag) goes up with every write that changes something, details-only ones too.
// Once committed, the resource's afterUpdate sees the columns set (a new password ends sessions).

import { errors } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { appendChange, updatedChanges } from '../changes/change-of-write.js';
import { rowTag, type TaggedRecord } from '../conditional/entity-tag.js';
import { checkWrite, NO_PRECONDITIONS, type Preconditions } from '../conditional/preconditions.js';
import { adapterFor, type EngineContext, inTransaction } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecordAndRow } from '../output/find-record.js';
import { readPayload } from '../write/payload.js';
import { loadStoredRecord } from '../write/stored-details.js';
import { storedMasterValues, timestampValues } from '../write/stored-values.js';
import { detailWrites, runAggregateWrites, type StoredWrite } from '../write/sync-details.js';
import { validateWrite } from '../write/validate-write.js';
import { planWrite } from '../write/write-plan.js';
import { parseKey } from './record-key.js';

export async function update(
  resource: Resource,
  context: EngineContext,
  id: unknown,
  body: unknown,
  preconditions: Preconditions = NO_PRECONDITIONS,
  /** A restore (engine/history/restore.ts): detail rows deleted since come back with their ids. */
  restoring = false,
): Promise<TaggedRecord> {
  const { entity } = resource;
  const key = parseKey(resource, id);
  if (key === null) throw errors.resourceNotFound();
  const payload = readPayload(resource, body);
  const adapter = adapterFor(context, entity.storage);
  // Before the transaction: expanding a write-only field may be slow (a password hash).
  const changes = await storedMasterValues(entity, payload.master, adapter);
  const answer = await inTransaction(
    context,
    entity.storage,
    async (connections, check, appended) => {
      const db = connections[entity.storage];
      const found = await loadStoredRecord(
        connections,
        resource,
        context.scope,
        key,
        adapter,
        payload.details,
      );
      if (!found) throw errors.resourceNotFound();
      const { existing, stored } = found;
      checkWrite(preconditions, rowTag(entity, existing));
      const masterKey = existing[entity.primaryKey];
      const plan = planWrite(payload, stored, adapter, restoring);
      await validateWrite(connections, context.scope, resource, Number(masterKey), existing, plan);
      const now = new Date();
      const touched = Object.keys(changes).length > 0 || payload.details.length > 0;
      const master: Row = touched
        ? { ...changes, ...timestampValues(entity, adapter, now, 'update') }
        : {};
      // Read and written under the row's lock: no other write of this record runs in between.
      if (touched && entity.versionColumn)
        master[entity.versionColumn] = Number(existing[entity.versionColumn] ?? 0) + 1;
      // A details-only write on an entity without updated_at has nothing to set on the master.
      const writes: StoredWrite[] =
        Object.keys(master).length > 0
          ? [
              {
                storage: entity.storage,
                write: {
                  update: entity.table,
                  set: master,
                  where: { [entity.primaryKey]: masterKey },
                },
              },
            ]
          : [];
      writes.push(...detailWrites(plan, masterKey, context.scope, adapter, now));
      await runAggregateWrites(connections, writes, context);
      const reloaded = await findRecordAndRow(
        connections,
        resource,
        context.scope,
        adapter,
        entity.primaryKey,
        masterKey,
        check,
      );
      const after = reloaded?.row ?? { ...existing, ...master };
      const record = reloaded?.record ?? null;
      const written = updatedChanges(resource, existing, after, record, plan);
      appended.push(
        await appendChange(db, adapter, resource, context, 'updated', after, written, record),
      );
      return {
        body: resource.show(reloaded?.record ?? {}),
        etag: reloaded ? rowTag(entity, reloaded.row) : null,
      };
    },
  );
  await resource.afterUpdate?.(key, new Set(Object.keys(changes)), context);
  return answer;
}
