// Update (SPEC.md 4.4, DESIGN.md 3.6): partial for PUT and PATCH alike; rules run on the stored
// record merged with the payload; details synchronised as a diff; the reloaded record (200);
// all in one transaction. A missing id is 404.

import { updateWhere } from '../../database/write-statements.js';
import { errors } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { adapterFor, type EngineContext, inTransaction } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecord } from '../output/records.js';
import { readPayload } from '../write/payload.js';
import { loadStoredRecord } from '../write/stored-details.js';
import { storedMasterValues, timestampValues } from '../write/stored-values.js';
import { syncDetails } from '../write/sync-details.js';
import { validateWrite } from '../write/validate-write.js';
import { planWrite } from '../write/write-plan.js';
import { parseKey } from './record-key.js';

export async function update(
  resource: Resource,
  context: EngineContext,
  id: unknown,
  body: unknown,
): Promise<Row> {
  const { entity } = resource;
  const key = parseKey(resource, id);
  if (key === null) throw errors.resourceNotFound();
  const payload = readPayload(resource, body);
  const adapter = adapterFor(context, entity.storage);
  // Before the transaction: expanding a write-only field may be slow (a password hash).
  const changes = await storedMasterValues(entity, payload.master, adapter);
  return await inTransaction(context, async (connections) => {
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
    const masterKey = existing[entity.primaryKey];
    const plan = planWrite(payload, stored, adapter);
    await validateWrite(connections, context.scope, resource, Number(masterKey), existing, plan);
    const now = new Date();
    const touched = Object.keys(changes).length > 0 || payload.details.length > 0;
    const master = touched
      ? { ...changes, ...timestampValues(entity, adapter, now, 'update') }
      : {};
    // A details-only write on an entity without updated_at has nothing to set on the master.
    if (Object.keys(master).length > 0) {
      await updateWhere(db, entity.table, master, { [entity.primaryKey]: masterKey });
    }
    await syncDetails(connections, plan, masterKey, context.scope, adapter, now);
    const record = await findRecord(
      connections,
      resource,
      context.scope,
      adapter,
      entity.primaryKey,
      masterKey,
    );
    return resource.show(record ?? {});
  });
}
