// Reading records the way every action answers them: the entity's columns, its belongs-to
// relations (joined when they live in the same database), its has-many relations (embedded as
// one JSON column each where the engine can, see DialectAdapter.childRows) and the count
// sub-queries in one statement, then one batched statement per relation read apart, then the
// full serialised record (SPEC.md 2.2 rule 1) ready for a projection.

import { type SelectQueryBuilder, sql } from 'kysely';
import { type CarriedCheck, carriedOn } from '../../database/carried-check.js';
import type { Db } from '../../database/db.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import {
  type KeyPart,
  param,
  runStatement,
  statementSite,
} from '../../database/statement-runner.js';
import type { Connections } from '../../model/connections.js';
import type { BelongsTo, Entity, HasMany, Row } from '../../model/entity.js';
import {
  belongsToColumns,
  belongsToReader,
  countSubquery,
  embeddedRows,
  embeddedRowsReader,
  embeddedStoredRows,
  loadBelongsTo,
  loadHasMany,
} from '../../model/relations/eager-load.js';
import { referenceConditions, type Scope, scopeConditions, scopeKey } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';

// A literal: SQLite re-prepares a statement whose LIMIT is a bound parameter at every execution.
const ONE = sql.lit(1);

// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
export type Select = SelectQueryBuilder<any, any, Row>;

/** Which relations the record's own select reads; the others get a batched statement each. */
interface Layout {
  /** Belongs-to relations read by a left join. */
  readonly joined: ReadonlySet<BelongsTo>;
  /** Has-many relations read as a JSON column (DialectAdapter.childRows). */
  readonly embedded: ReadonlySet<HasMany>;
  /** The entities whose scope conditions the record's own select carries. */
  readonly scoped: readonly Entity[];
}

/**
 * A relation is read in the record's own select when its target is in the same database and
 * its table is not already in the query (the entity's own, or an earlier join's); a has-many one
 * also needs an engine with childRows. Computed once per resource, engine and database layout.
 */
function layoutOf(connections: Connections, resource: Resource, adapter: DialectAdapter): Layout {
  const shared = connections.system === connections.data;
  // All the layout depends on: whether the storages share a database, and the engine's capability.
  const key = (shared ? 1 : 0) + (adapter.childRows ? 2 : 0);
  let cases = layouts.get(resource);
  if (!cases) layouts.set(resource, (cases = new Map()));
  let layout = cases.get(key);
  if (!layout) {
    const { entity } = resource;
    const sameDatabase = (storage: string) => storage === entity.storage || shared;
    const tables = new Set([entity.table]);
    const joined = new Set<BelongsTo>();
    for (const [, relation] of resource.belongsTo) {
      const target = relation.target();
      if (!sameDatabase(target.storage) || tables.has(target.table)) continue;
      tables.add(target.table);
      joined.add(relation);
    }
    const embedded = new Set<HasMany>();
    for (const [, relation] of resource.hasMany) {
      const target = relation.target();
      if (adapter.childRows && sameDatabase(target.storage) && target.table !== entity.table)
        embedded.add(relation);
    }
    const scoped = [
      entity,
      ...[...joined, ...embedded, ...resource.counts.map(([, r]) => r)].map((r) => r.target()),
    ];
    cases.set(key, (layout = { joined, embedded, scoped }));
  }
  return layout;
}

const layouts = new WeakMap<Resource, Map<number, Layout>>();

/** The alias of a joined relation's column: a dot cannot occur in a declared column name. */
const joinedColumn = (name: string, column: string) => `${name}.${column}`;
/** The alias of an embedded relation's JSON column. */
const embeddedColumn = (name: string) => `${name}[]`;

/** A count that is the length of a has-many list loaded anyway needs no sub-query. */
function loadedCount(resource: Resource, relation: HasMany): boolean {
  return resource.hasMany.some(([, loaded]) => loaded === relation);
}

/**
 * What the SQL of `selectRecords` is built from, for a statement key: the resource, its layout
 * (both by identity) and the scope ids its conditions write in.
 */
export function recordsKey(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
): KeyPart[] {
  const layout = layoutOf(connections, resource, adapter);
  return [resource, layout, scopeKey(layout.scoped, scope)];
}

/**
 * The conditions on a record that `entity`'s record names (its belongs-to): within the scope; a
 * tenant-bound record's only within the tenant too, so a template's creator is never another
 * company's user.
 */
function namedConditions(entity: Entity, target: Entity, scope: Scope) {
  return entity.tenantColumn !== null
    ? referenceConditions(target, scope)
    : scopeConditions(target, scope).where;
}

const RECORD = statementSite('one record');
const STORED_ROW = statementSite('stored row for a write');

/**
 * `select <columns>, <joined belongs-to columns>, <embedded has-many columns>, <counts> from
 * <table> left join ... where <scope>`: callers add conditions, order and limits.
 */
export function selectRecords(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
): Select {
  const { entity } = resource;
  const db = connections[entity.storage];
  let query = db
    .selectFrom(entity.table)
    .select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  const { joined, embedded } = layoutOf(connections, resource, adapter);
  for (const [name, relation] of resource.belongsTo) {
    if (!joined.has(relation)) continue;
    const target = relation.target();
    const on = [
      sql<boolean>`${sql.ref(`${target.table}.${relation.ownerKey}`)} = ${sql.ref(`${entity.table}.${relation.foreignKey}`)}`,
      ...namedConditions(entity, target, scope),
    ];
    query = query
      .leftJoin(target.table, (join) => join.on(sql<boolean>`${sql.join(on, sql` and `)}`))
      .select(
        belongsToColumns(relation).map((c) =>
          sql.ref(`${target.table}.${c}`).as(joinedColumn(name, c)),
        ),
      ) as Select;
  }
  for (const [name, relation] of resource.hasMany) {
    if (embedded.has(relation) && adapter.childRows) {
      query = query.select(
        embeddedRows(relation, entity.table, scope, adapter.childRows).as(embeddedColumn(name)),
      );
    }
  }
  for (const [name, relation] of resource.counts) {
    if (loadedCount(resource, relation)) continue;
    query = query.select(countSubquery(relation, entity.table, scope).as(`${name}_count`));
  }
  return scopeConditions(entity, scope).where.reduce((q, w) => q.where(w), query);
}

/** Stored rows (from `selectRecords`) -> full records with relations and appends, hidden fields removed. */
export async function assembleRecords(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
  rows: Row[],
): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { entity } = resource;
  const { joined, embedded } = layoutOf(connections, resource, adapter);
  const [belongs, batched] = await Promise.all([
    Promise.all(
      resource.belongsTo.map(([, r]) =>
        joined.has(r)
          ? null
          : loadBelongsTo(connections, r, rows, scope, entity.tenantColumn !== null),
      ),
    ),
    Promise.all(
      resource.hasMany.map(([, r]) =>
        embedded.has(r)
          ? null
          : loadHasMany(
              connections,
              r,
              rows.map((row) => row[r.localKey]),
              scope,
            ),
      ),
    ),
  ]);
  const joinedReaders = resource.belongsTo.map(([name, r]) =>
    joined.has(r) ? belongsToReader(r, joinedColumn(name, '')) : null,
  );
  const embeddedReaders = resource.hasMany.map(([, r]) =>
    embedded.has(r) ? embeddedRowsReader(r, adapter) : null,
  );
  // A count of a loaded relation is its list's length: the field the list is under.
  const counts = resource.counts.map(
    ([name, relation]) =>
      [`${name}_count`, resource.hasMany.find(([, r]) => r === relation)?.[0] ?? null] as const,
  );
  return rows.map((row) => {
    const record = entity.serialize(row);
    for (const [name, fn] of resource.appends) record[name] = fn(record);
    resource.belongsTo.forEach(([name, relation], i) => {
      const read = joinedReaders[i];
      record[name] = read ? read(row) : (belongs[i]?.get(String(row[relation.foreignKey])) ?? null);
    });
    resource.hasMany.forEach(([name, relation], i) => {
      const read = embeddedReaders[i];
      record[name] = read
        ? read(row[embeddedColumn(name)])
        : (batched[i]?.get(String(row[relation.localKey])) ?? []);
    });
    for (const [field, list] of counts)
      record[field] = list === null ? Number(row[field] ?? 0) : (record[list] as Row[]).length;
    for (const key of resource.hidden) delete record[key];
    return record;
  });
}

/** One record by the value of a key column, within the caller's scope, or null. */
export async function findRecord(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
  column: string,
  id: unknown,
): Promise<Row | null> {
  return (
    (await findRecordAndRow(connections, resource, scope, adapter, column, id))?.record ?? null
  );
}

/**
 * `findRecord`, with the stored row it was assembled from: its hidden columns (the version an
 * ETag is made of) come with the same statement.
 */
export async function findRecordAndRow(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
  column: string,
  id: unknown,
  /** A credential check the record's statement carries (database/carried-check.ts). */
  carry?: CarriedCheck,
): Promise<{ readonly record: Row; readonly row: Row } | null> {
  const { entity } = resource;
  const db = connections[entity.storage];
  const check = carriedOn(carry, db);
  const rows = await runStatement(
    db,
    [RECORD, ...recordsKey(connections, resource, scope, adapter), column, check?.key ?? null],
    () => {
      const query = selectRecords(connections, resource, scope, adapter)
        .where(`${entity.table}.${column}`, '=', param('id'))
        .limit(ONE);
      return check ? query.select(check.column()) : query;
    },
    check ? { id, ...check.values } : { id },
  );
  check?.read(rows);
  const [record] = await assembleRecords(connections, resource, scope, adapter, rows);
  const [row] = rows;
  return record && row ? { record, row } : null;
}

/** The has-many relations the record's own select carries (DialectAdapter.childRows). */
export function embeddedRelations(
  connections: Connections,
  resource: Resource,
  adapter: DialectAdapter,
): ReadonlySet<HasMany> {
  return layoutOf(connections, resource, adapter).embedded;
}

/**
 * The stored master row a write is about to change, locked for the rest of its transaction.
 * With `details` (relations from `embeddedRelations`), the same statement also reads each one's
 * stored rows within the caller's scope, as `storedDetailRows` gives them back.
 */
export async function findStoredRow(
  db: Db,
  resource: Resource,
  scope: Scope,
  id: unknown,
  adapter: DialectAdapter,
  details: ReadonlyArray<readonly [string, HasMany]> = [],
  /** Also read the version column as the statement's sub-queries see it: as SNAPSHOT_VERSION. */
  snapshotVersion = false,
): Promise<Row | undefined> {
  const { entity } = resource;
  const version = snapshotVersion ? entity.versionColumn : null;
  const [row] = await runStatement(
    db,
    [
      STORED_ROW,
      resource,
      scopeKey([entity, ...details.map(([, relation]) => relation.target())], scope),
      version,
      ...details.flat(),
    ],
    () => {
      let query = scopeConditions(entity, scope).where.reduce(
        (q, w) => q.where(w),
        db.selectFrom(entity.table).select(entity.columns),
      ) as Select;
      for (const [name, relation] of details) {
        if (!adapter.childRows) break;
        query = query.select(
          embeddedRows(relation, entity.table, scope, adapter.childRows).as(embeddedColumn(name)),
        );
      }
      if (version)
        query = query.select((eb) =>
          eb
            .selectFrom(`${entity.table} as snapshot_row`)
            .select(`snapshot_row.${version}`)
            .whereRef(
              `snapshot_row.${entity.primaryKey}`,
              '=',
              `${entity.table}.${entity.primaryKey}`,
            )
            .as(SNAPSHOT_VERSION),
        );
      return adapter.lockForUpdate(
        query.where(`${entity.table}.${resource.primaryKey}`, '=', param('id')).limit(ONE),
      );
    },
    { id },
  );
  return row as Row | undefined;
}

/** findStoredRow's column of the version its sub-queries saw. */
export const SNAPSHOT_VERSION = '$snapshot_version';

/** The stored rows of detail relation `name` that `findStoredRow` read with the master row. */
export function storedDetailRows(
  row: Row,
  name: string,
  relation: HasMany,
  adapter: DialectAdapter,
): Row[] {
  return embeddedStoredRows(relation, adapter)(row[embeddedColumn(name)]);
}

/**
 * Whether selectRecords' one statement holds all a record is made of: every belongs-to relation
 * joined, every has-many relation embedded, none loaded by a statement of its own.
 */
export function readInOne(
  connections: Connections,
  resource: Resource,
  adapter: DialectAdapter,
): boolean {
  const { joined, embedded } = layoutOf(connections, resource, adapter);
  return (
    resource.belongsTo.every(([, r]) => joined.has(r)) &&
    resource.hasMany.every(([, r]) => embedded.has(r))
  );
}
