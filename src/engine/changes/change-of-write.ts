// The change a write appends (DESIGN.md 3.9), made from what the write has at hand: the stored
// row it locked, the row and record its reload read, and its write plan. Never a read of its
// own, never a trigger. Values are those a show answers before projection: the entity's
// serialisation, so hidden fields (password_hash, the version) never appear, names included.

import type { StoredChange } from '../../database/change-statements.js';
import type { Db } from '../../database/db.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { Row } from '../../model/entity.js';
import type { EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import type { WritePlan } from '../write/write-plan.js';
import type { Actor, AppendedChange, ChangeAction, ChangeSet, DetailChanges } from './change.js';

/** Who a change is recorded as made by: the context's actor, or svc itself. */
export function actorOf(context: EngineContext): Actor {
  return context.actor ?? { user_id: context.scope.userId, token_id: null, via: 'system' };
}

/** The record's fields a show answers, serialised: hidden ones, the resource's too, left out. */
function shownFields(resource: Resource, row: Row): Row {
  const fields = resource.entity.serialize(row);
  for (const key of resource.hidden) delete fields[key];
  return fields;
}

/** A create's changes: every stored field, and the rows of each detail relation it wrote. */
export function createdChanges(resource: Resource, row: Row, record: Row | null): ChangeSet {
  const out: Record<string, Row | DetailChanges> = { fields: shownFields(resource, row) };
  for (const name of resource.details.keys()) {
    const rows = record?.[name];
    if (Array.isArray(rows) && rows.length > 0)
      out[name] = { created: rows as Row[], updated: [], deleted: [] };
  }
  return out;
}

/**
 * An update's changes: the fields whose shown value differs between the locked row and the
 * reloaded one, and per detail relation the rows the plan inserted (those of the reloaded
 * record it did not name), the rows it changed, and the ids it deleted.
 */
export function updatedChanges(
  resource: Resource,
  before: Row,
  after: Row,
  record: Row | null,
  plan: WritePlan,
): ChangeSet {
  const old = shownFields(resource, before);
  const now = shownFields(resource, after);
  const fields: Row = {};
  for (const field in now)
    if (JSON.stringify(old[field]) !== JSON.stringify(now[field])) fields[field] = now[field];
  const out: Record<string, Row | DetailChanges> = { fields };
  for (const { name, target, rows, deletes } of plan.details) {
    const named = new Set<unknown>(deletes);
    const changed = new Set<unknown>();
    for (const row of rows) {
      if (row.op !== 'update') continue;
      named.add(row.id);
      if (row.changes !== null) changed.add(row.id);
    }
    const shown = (Array.isArray(record?.[name]) ? record[name] : []) as Row[];
    const idOf = (row: Row) => Number(row[target.primaryKey]);
    const created = shown.filter((row) => !named.has(idOf(row)));
    const updated = shown.filter((row) => changed.has(idOf(row)));
    if (created.length > 0 || updated.length > 0 || deletes.length > 0)
      out[name] = { created, updated, deleted: deletes };
  }
  return out;
}

/**
 * Appends the change of a write of `row` (the record after the write; for a delete, before it)
 * and answers it as the feed will, its seq null where the engine numbers changes once
 * committed (database/change-statements.ts). The change is its revision too (DESIGN.md 3.11):
 * it holds `record`, the record the write's reload read (before projection; null for a delete).
 */
export async function appendChange(
  db: Db,
  adapter: DialectAdapter,
  resource: Resource,
  context: EngineContext,
  action: ChangeAction,
  row: Row,
  changes: ChangeSet,
  record: Row | null,
): Promise<AppendedChange> {
  const { entity } = resource;
  const at = Date.now();
  const actor = actorOf(context);
  const key = row[resource.primaryKey];
  const current = row[entity.versionColumn ?? ''];
  const version = action !== 'deleted' && current != null ? Number(current) : null;
  const scope = (column: string | null) =>
    column !== null && row[column] != null ? Number(row[column]) : null;
  const stored: StoredChange = {
    resource: resource.name,
    record_id: String(key),
    action,
    version,
    at,
    user_id: actor.user_id,
    token_id: actor.token_id,
    via: actor.via,
    unit_id: scope(entity.unitColumn),
    company_id: scope(entity.tenantColumn),
    changes: JSON.stringify(changes),
    record: record === null ? null : JSON.stringify(record),
  };
  const seq = await adapter.appendChange(db, stored);
  return {
    seq,
    resource: resource.name,
    id: resource.keyIsInteger ? Number(key) : key,
    action,
    version,
    at: new Date(at).toISOString(),
    actor,
    changes,
  };
}
