// Create (SPEC.md 4.4): validate master and details, insert both, answer the reloaded record
// (201) with its ETag, and its change (DESIGN.md 3.9), all in one transaction. A new record's
// version is 1.
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { scopeStamps } from '../../model/scope.js';
import { appendChange, createdChanges } from '../changes/change-of-write.js';
import { rowTag, type TaggedRecord } from '../conditional/entity-tag.js';
import { adapterFor, type EngineContext, inTransaction } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findRecordAndRow } from '../output/find-record.js';
import { readPayload } from '../write/payload.js';
import { storedMasterValues, timestampValues } from '../write/stored-values.js';
import { detailWrites, runAggregateWrites } from '../write/sync-details.js';
import { validateWrite } from '../write/validate-write.js';
import { planWrite } from '../write/write-plan.js';

export interface CreateOptions {
  /**
   * Runs in the create's transaction once the answer is known, before the commit: what it
   * writes commits or rolls back with the record (an idempotency key's stored answer).
   */
  readonly beforeCommit?: (connections: Connections, answer: TaggedRecord) => Promise<void>;
  /**
   * A deleted record restored (engine/history/restore.ts): it comes back with its id, its
   * stored values (`values`: its creation time), a version above every one it had, and its
   * detail rows with their ids.
   */
  readonly restoring?: { readonly id: unknown; readonly values: Row; readonly version: number };
}

export async function create(
  resource: Resource,
  context: EngineContext,
  body: unknown,
  options: CreateOptions = {},
): Promise<TaggedRecord> {
  const { entity } = resource;
  const payload = readPayload(resource, body);
  const adapter = adapterFor(context, entity.storage);
  // Before the transaction: expanding a write-only field may be slow (a password hash).
  const masterValues = await storedMasterValues(entity, payload.master, adapter);
  return await inTransaction(context, entity.storage, async (connections, check, appended) => {
    // A new record has no stored rows: every id a payload names is refused.
    const { restoring } = options;
    const plan = planWrite(payload, new Map(), adapter, restoring !== undefined);
    await validateWrite(connections, context.scope, resource, null, null, plan);
    const now = new Date();
    const values: Row = {
      ...masterValues,
      ...timestampValues(entity, adapter, now, 'create'),
      ...scopeStamps(entity, context.scope),
    };
    if (entity.versionColumn) values[entity.versionColumn] = restoring?.version ?? 1;
    if (restoring) Object.assign(values, restoring.values, { [entity.primaryKey]: restoring.id });
    if (entity.ownerColumn && values[entity.ownerColumn] == null && context.scope.userId !== null) {
      values[entity.ownerColumn] = context.scope.userId;
    }
    const inserted = await adapter.insertReturningId(
      connections[entity.storage],
      entity.table,
      values,
      entity.primaryKey,
    );
    const id = restoring ? restoring.id : inserted;
    await runAggregateWrites(
      connections,
      detailWrites(plan, id, context.scope, adapter, now),
      context,
    );
    const found = await findRecordAndRow(
      connections,
      resource,
      context.scope,
      adapter,
      entity.primaryKey,
      id,
      check,
    );
    const shown = resource.show(found?.record ?? {});
    const once = await resource.answerOnCreate?.(
      connections[entity.storage],
      id as string | number,
      context.system,
    );
    const answer = {
      body: once ? { ...shown, ...once } : shown,
      etag: found ? rowTag(entity, found.row) : null,
    };
    await options.beforeCommit?.(connections, answer);
    const row = found?.row ?? { ...values, [entity.primaryKey]: id };
    const changes = createdChanges(resource, row, found?.record ?? null);
    appended.push(
      await appendChange(
        connections[entity.storage],
        adapter,
        resource,
        context,
        'created',
        row,
        changes,
        found?.record ?? null,
      ),
    );
    return answer;
  });
}
