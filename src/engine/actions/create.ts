// Create (SPEC.md 4.4): validate master and details, insert both, answer the reloaded record
// (201), all in one transaction.
import type { Row } from '../../model/entity.js';
import { scopeStamps } from '../../model/scope.js';
import { adapterFor, type EngineContext, inTransaction } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecord } from '../output/records.js';
import { readPayload } from '../write/payload.js';
import { storedMasterValues, timestampValues } from '../write/stored-values.js';
import { syncDetails } from '../write/sync-details.js';
import { validateWrite } from '../write/validate-write.js';
import { planWrite } from '../write/write-plan.js';

export async function create(
  resource: Resource,
  context: EngineContext,
  body: unknown,
): Promise<Row> {
  const { entity } = resource;
  const payload = readPayload(resource, body);
  const adapter = adapterFor(context, entity.storage);
  // Before the transaction: expanding a write-only field may be slow (a password hash).
  const masterValues = await storedMasterValues(entity, payload.master, adapter);
  return await inTransaction(context, async (connections) => {
    // A new record has no stored rows: every id a payload names is refused.
    const plan = planWrite(payload, new Map(), adapter);
    await validateWrite(connections, context.scope, resource, null, null, plan);
    const now = new Date();
    const values: Row = {
      ...masterValues,
      ...timestampValues(entity, adapter, now, 'create'),
      ...scopeStamps(entity, context.scope),
    };
    if (entity.ownerColumn && values[entity.ownerColumn] == null && context.scope.userId !== null) {
      values[entity.ownerColumn] = context.scope.userId;
    }
    const id = await adapter.insertReturningId(
      connections[entity.storage],
      entity.table,
      values,
      entity.primaryKey,
    );
    await syncDetails(connections, plan, id, context.scope, adapter, now);
    const record = await findRecord(
      connections,
      resource,
      context.scope,
      adapter,
      entity.primaryKey,
      id,
    );
    return resource.show(record ?? {});
  });
}
