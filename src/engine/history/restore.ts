// POST /api/<resource>/<id>/history/<seq>/restore (DESIGN.md 3.11): makes the record equal that
// revision's record through the ordinary write path: its master fields and its detail rows, ids
// included, sent as an update whose plan inserts again, with their ids, the rows deleted since
// (write/write-plan.ts `restoring`) and deletes the rows added since; or, for a deleted record,
// as a create that gives the record back its id. Validation, preconditions, the change and the
// new revision are the write's own. A revision that no longer validates answers the write's 422.
import { errors } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { create } from '../actions/create.js';
import { parseKey } from '../actions/record-key.js';
import { update } from '../actions/update.js';
import { wholeOf } from '../changes/change-feed.js';
import type { TaggedRecord } from '../conditional/entity-tag.js';
import { checkWrite, type Preconditions, requireIfMatch } from '../conditional/preconditions.js';
import { adapterFor, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { findStoredRow } from '../write/stored-row.js';
import { storedValues } from '../write/stored-values.js';
import { findRevision, lastVersion } from './history.js';
import { storedRecordOf } from './revision.js';

export interface Restored {
  /** 200: the record was updated; 201: a deleted record came back. */
  readonly status: 200 | 201;
  readonly answer: TaggedRecord;
}

/** The revision's record as a write payload: its fields, and every detail row with its id. */
function payloadOf(resource: Resource, record: Row): Row {
  const body: Row = {};
  for (const [field, value] of Object.entries(record))
    if (!resource.details.has(field)) body[field] = value;
  for (const name of resource.details.keys())
    if (Array.isArray(record[name])) body[name] = record[name];
  return body;
}

export async function restore(
  resource: Resource,
  context: EngineContext,
  id: unknown,
  seq: unknown,
  preconditions: Preconditions,
): Promise<Restored> {
  const { entity } = resource;
  const key = parseKey(resource, id);
  const at = wholeOf(seq);
  const revision =
    key === null || at === null ? null : await findRevision(resource, context, key, at);
  if (key === null || revision === null) throw errors.resourceNotFound();
  const record = storedRecordOf(revision);
  if (record === null)
    throw errors.validation({
      seq: [`Revision ${at} is the record's delete: restore a revision before it.`],
    });
  const body = payloadOf(resource, record);
  const adapter = adapterFor(context, entity.storage);
  const db = (entity.storage === 'data' ? context.data : context.system).db;
  // Which write: the record's update, or its create when it is deleted (the write itself locks).
  const current = await findStoredRow(db, resource, context.scope, key, adapter);
  if (current) {
    if (resource.requireIfMatch) requireIfMatch(preconditions);
    return { status: 200, answer: await update(resource, context, key, body, preconditions, true) };
  }
  // A deleted record has no ETag: an If-Match names none of its versions.
  checkWrite(preconditions, null);
  const { createdAt } = entity.timestamps;
  const values =
    createdAt && record[createdAt] != null
      ? storedValues(entity, { [createdAt]: record[createdAt] }, adapter)
      : {};
  const version = (await lastVersion(resource, context, key)) + 1;
  const answer = await create(resource, context, body, { restoring: { id: key, values, version } });
  return { status: 201, answer };
}
