// Batched eager loading (STYLE.md example 10): one `where in` statement per relation for a whole
// page of parents, never one per row, or, where the engine can (DialectAdapter.childRows), the
// children of each parent as one JSON column of the parent select; counts are correlated
// sub-queries of the parent select.
import { type RawBuilder, sql } from 'kysely';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import {
  listLength,
  paramList,
  paramListValues,
  runStatement,
  statementSite,
} from '../../database/statement-runner.js';
import { compileObjectLiteral } from '../../support/object-literal.js';
import { readCasts } from '../casts.js';
import type { Connections } from '../connections.js';
import type { BelongsTo, HasMany, Row } from '../entity.js';
import { referenceConditions, type Scope, scopeConditions, scopeKey } from '../scope.js';

const BELONGS_TO_ROWS = statementSite('belongs-to rows');
const HAS_MANY_ROWS = statementSite('has-many rows');

/** Keys safe to put in a `where in`, deduplicated, nulls dropped. */
function distinctKeys(values: unknown[]): Array<string | number> {
  const seen = new Set<string | number>();
  for (const value of values) {
    if (typeof value === 'number' || (typeof value === 'string' && value !== '')) seen.add(value);
  }
  return [...seen];
}

/** Target records by owner key (as string), serialised by the target entity. */
export async function loadBelongsTo(
  connections: Connections,
  relation: BelongsTo,
  parents: Row[],
  scope: Scope,
  /** The parents are tenant-bound: their targets are read as references (referenceConditions). */
  reference = false,
): Promise<Map<string, Row>> {
  const target = relation.target();
  const keys = distinctKeys(parents.map((p) => p[relation.foreignKey]));
  const found = new Map<string, Row>();
  if (keys.length === 0) return found;
  const db = connections[target.storage];
  const rows = await runStatement<Row>(
    db,
    [BELONGS_TO_ROWS, relation, listLength(keys.length), scopeKey(target, scope), reference],
    () =>
      (reference
        ? referenceConditions(target, scope)
        : scopeConditions(target, scope).where
      ).reduce(
        (q, w) => q.where(w),
        db
          .selectFrom(target.table)
          .select(belongsToColumns(relation))
          .where(relation.ownerKey, 'in', paramList('k', keys.length)),
      ),
    paramListValues('k', keys),
  );
  const read = belongsToReader(relation, '');
  for (const row of rows) {
    const record = read(row);
    if (record) found.set(String(row[relation.ownerKey]), record);
  }
  return found;
}

const shownColumns = new WeakMap<BelongsTo, readonly string[]>();

/** The target columns a belongs-to relation reads: its key and `columns`, else every visible one. */
export function belongsToColumns(relation: BelongsTo): readonly string[] {
  let columns = shownColumns.get(relation);
  if (!columns) {
    const target = relation.target();
    const shown = relation.columns ?? target.columns.filter((c) => !target.hidden.has(c));
    shownColumns.set(relation, (columns = [...new Set([relation.ownerKey, ...shown])]));
  }
  return columns;
}

type BelongsToReader = (row: Row) => Row | null;

const readers = new WeakMap<BelongsTo, Map<string, BelongsToReader>>();

/**
 * The relation's record out of a row holding the target's columns named `<prefix><column>` (a
 * joined relation's aliases, or the target's own row with ''), or null when its owner key is
 * null (the join matched nothing). Cast as the target serialises them, cut to `columns` (a
 * hidden one shows null); compiled once per relation and prefix.
 */
export function belongsToReader(relation: BelongsTo, prefix: string): BelongsToReader {
  let byPrefix = readers.get(relation);
  if (!byPrefix) readers.set(relation, (byPrefix = new Map()));
  let read = byPrefix.get(prefix);
  if (!read) {
    const target = relation.target();
    const shown = relation.columns ?? target.columns.filter((c) => !target.hidden.has(c));
    const casts = shown.map((c) => (target.casts[c] ? readCasts[target.casts[c]] : null));
    const literal = compileObjectLiteral<Row, Row>(
      shown,
      (i) => {
        const column = shown[i] ?? '';
        if (target.hidden.has(column) || !target.columnSet.has(column)) return 'null';
        const value = `source[${JSON.stringify(prefix + column)}]`;
        return casts[i] ? `helpers[${i}](${value})` : `(${value} ?? null)`;
      },
      casts,
    );
    const key = prefix + relation.ownerKey;
    byPrefix.set(prefix, (read = (row) => (row[key] == null ? null : literal(row))));
  }
  return read;
}

/** Child records grouped by the parent key (as string), in primary key order. */
export async function loadHasMany(
  connections: Connections,
  relation: HasMany,
  parentKeys: unknown[],
  scope: Scope,
): Promise<Map<string, Row[]>> {
  const target = relation.target();
  const keys = distinctKeys(parentKeys);
  const grouped = new Map<string, Row[]>();
  if (keys.length === 0) return grouped;
  const db = connections[target.storage];
  const rows = await runStatement<Row>(
    db,
    [HAS_MANY_ROWS, relation, listLength(keys.length), scopeKey(target, scope)],
    () =>
      scopeConditions(target, scope)
        .where.reduce(
          (q, w) => q.where(w),
          db
            .selectFrom(target.table)
            .select(target.columns)
            .where(relation.foreignKey, 'in', paramList('k', keys.length)),
        )
        // Parent by parent as the index on the foreign key gives them, each parent's rows in key order.
        .orderBy(relation.foreignKey)
        .orderBy(target.primaryKey),
    paramListValues('k', keys),
  );
  for (const row of rows) {
    const key = String(row[relation.foreignKey]);
    let list = grouped.get(key);
    if (!list) grouped.set(key, (list = []));
    list.push(target.serialize(row));
  }
  return grouped;
}

/** The condition tying a child row to its parent row, then the child's scope. */
function childConditions(relation: HasMany, parentTable: string, scope: Scope) {
  const target = relation.target();
  return [
    sql<boolean>`${sql.ref(`${target.table}.${relation.foreignKey}`)} = ${sql.ref(`${parentTable}.${relation.localKey}`)}`,
    ...scopeConditions(target, scope).where,
  ];
}

/** A has-many relation's rows within the caller's scope as one column of the parent select (DialectAdapter.childRows). */
export function embeddedRows(
  relation: HasMany,
  parentTable: string,
  scope: Scope,
  childRows: NonNullable<DialectAdapter['childRows']>,
): RawBuilder<unknown> {
  const target = relation.target();
  return childRows(
    target.table,
    target.columns,
    childConditions(relation, parentTable, scope),
    target.primaryKey,
  );
}

type RowsReader = (json: unknown) => Row[];

/** A reader per engine (its childValue) and relation, compiled once. */
function readerOf(
  cache: WeakMap<DialectAdapter, WeakMap<HasMany, RowsReader>>,
  adapter: DialectAdapter,
  relation: HasMany,
  make: () => RowsReader,
): RowsReader {
  let byRelation = cache.get(adapter);
  if (!byRelation) cache.set(adapter, (byRelation = new WeakMap()));
  let read = byRelation.get(relation);
  if (!read) byRelation.set(relation, (read = make()));
  return read;
}

const storedReaders = new WeakMap<DialectAdapter, WeakMap<HasMany, RowsReader>>();

/** `embeddedRows`' JSON -> the children's rows as stored (as a select reads them), in key order. */
export function embeddedStoredRows(relation: HasMany, adapter: DialectAdapter): RowsReader {
  return readerOf(storedReaders, adapter, relation, () => {
    const value = adapter.childValue ?? ((v: unknown) => v);
    const row = compileObjectLiteral<unknown[], Row>(
      relation.target().columns,
      (i) => `helpers(source[${i}])`,
      value,
    );
    // JSON text (SQLite), or already parsed by the driver (pg reads a json column itself).
    return (json) => ((typeof json === 'string' ? JSON.parse(json) : json) as unknown[][]).map(row);
  });
}

const embeddedReaders = new WeakMap<DialectAdapter, WeakMap<HasMany, RowsReader>>();

/** `embeddedRows`' JSON -> the children's serialised records, in key order. */
export function embeddedRowsReader(relation: HasMany, adapter: DialectAdapter): RowsReader {
  return readerOf(embeddedReaders, adapter, relation, () => {
    const target = relation.target();
    const stored = embeddedStoredRows(relation, adapter);
    return (json) => stored(json).map((row) => target.serialize(row));
  });
}

/**
 * `(select count(*) from child where child.fk = parent.key)` for a has-many relation; a unit- or
 * tenant-bound child counts only the caller's rows.
 */
export function countSubquery(
  relation: HasMany,
  parentTable: string,
  scope: Scope,
): RawBuilder<number> {
  const target = relation.target();
  return sql<number>`(select count(*) from ${sql.table(target.table)} where ${sql.join(childConditions(relation, parentTable, scope), sql` and `)})`;
}
