// What a write starts from: the stored master row and the stored rows of the detail relations
// its payload touches, within the caller's scope (a unit-bound detail row of another unit is
// neither this write's to change nor to delete). They decide which payload ids belong to this
// master and what a partial row update merges with. On an engine with DialectAdapter.childRows
// the detail rows come with the master row in one statement (childRowsUnderLock, or checked by
// the master's version), or all in a second one after the lock; otherwise one more per relation.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { Connections } from '../../model/connections.js';
import type { HasMany, Row } from '../../model/entity.js';
import { type Scope, scopeConditions, scopeKey } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { embeddedRelations } from '../output/record-layout.js';
import type { DetailPayload } from './payload.js';
import { findStoredRow, SEEN_VERSION, storedDetailRows } from './stored-row.js';
import type { StoredDetails } from './write-plan.js';

export interface StoredRecord {
  /** The master row's stored columns. */
  readonly existing: Row;
  readonly stored: StoredDetails;
}

const STORED_DETAILS = statementSite('stored detail rows');

/** The stored record a write of `details` changes, or null when `key` is not the caller's. */
export async function loadStoredRecord(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  key: unknown,
  adapter: DialectAdapter,
  details: readonly DetailPayload[],
): Promise<StoredRecord | null> {
  const { entity } = resource;
  const embedded = embeddedRelations(connections, resource, adapter);
  const embeddable = details
    .filter(({ relation }) => embedded.has(relation))
    .map(({ name, relation }) => [name, relation] as const);
  const db = connections[entity.storage];
  const underLock = adapter.childRowsUnderLock || embeddable.length === 0;
  // Where the locking statement's sub-queries may not see the rows as of the lock, they still
  // come with it when the entity has a version: every write of this master's detail rows raises
  // it under this lock (update.ts), so the version the sub-queries saw is the locked row's when
  // no such write committed while this one waited, and the rows they read are the current ones.
  const versioned = !underLock && entity.versionColumn !== null;
  let row = await findStoredRow(
    db,
    resource,
    scope,
    key,
    adapter,
    underLock || versioned ? embeddable : [],
    versioned,
  );
  const current =
    underLock ||
    (versioned && row && String(row[SEEN_VERSION]) === String(row[entity.versionColumn ?? '']));
  // Otherwise the detail rows come by one more statement, run once the lock is held (taking it
  // again costs nothing).
  if (row && !current) row = await findStoredRow(db, resource, scope, key, adapter, embeddable);
  if (!row) return null;
  const existing: Row = {};
  for (const column of entity.columns) existing[column] = row[column];
  const masterKey = existing[entity.primaryKey];
  const stored = new Map<HasMany, Map<number, Row>>();
  for (const { name, relation } of details) {
    const pk = relation.target().primaryKey;
    const rows = embedded.has(relation)
      ? storedDetailRows(row, name, relation, adapter)
      : await readStoredRows(connections, relation, scope, masterKey);
    stored.set(relation, new Map(rows.map((detail) => [Number(detail[pk]), detail])));
  }
  return { existing, stored };
}

/** A relation's stored rows by a statement of their own. */
function readStoredRows(
  connections: Connections,
  relation: HasMany,
  scope: Scope,
  masterKey: unknown,
): Promise<Row[]> {
  const target = relation.target();
  const db = connections[target.storage];
  return runStatement<Row>(
    db,
    [STORED_DETAILS, relation, scopeKey(target, scope)],
    () =>
      scopeConditions(target, scope).where.reduce(
        (q, w) => q.where(w),
        db
          .selectFrom(target.table)
          .select(target.columns)
          .where(relation.foreignKey, '=', param('key')),
      ),
    { key: masterKey },
  );
}
