// The validator's exists/unique lookups against the request's databases: one statement per
// database, whatever the number of rows checked. A table declared by an entity is read where that
// entity is stored, by its own primary key and within the caller's scope (a unit- or
// tenant-bound row of another unit or tenant neither exists for this caller nor takes a value
// from it); any other table is a system table, keyed by `id`. The validator asks every lookup of
// a write at once; those asked in one turn of the event loop are sent together: one per
// database, as a single select, or a `union all` of them where there are several (each lookup
// its own pair of columns, null in the others' rows, so each keeps its columns' types).

import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../../database/db.js';
import {
  type KeyPart,
  listLength,
  param,
  paramList,
  paramListValues,
  runStatement,
  statementSite,
} from '../../database/statement-runner.js';
import type { Connections } from '../../model/connections.js';
import { type Entity, entityForTable } from '../../model/entity.js';
import type { UniqueWhere } from '../../model/rules.js';
import {
  NO_SCOPE,
  referenceConditions,
  type Scope,
  scopeConditions,
  scopeKey,
} from '../../model/scope.js';
import type { Lookup } from './validator.js';

const LOOKUPS = statementSite('exists and unique lookups');

/** Integer-looking strings are compared as numbers so '5' finds 5 on every engine. */
function bindable(values: unknown[]): Array<string | number> {
  return values
    .filter(
      (v): v is string | number =>
        typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)),
    )
    .map((v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v));
}

/** A row a lookup found: the looked-up column's value and the row's key, as text. */
interface Found {
  readonly value: string;
  readonly key: string;
}

/** `select <key>, <column> from <table> where <column> in (<keys>)`, with `where` and the scope's conditions. */
interface Asked {
  readonly table: string;
  /** The entity declared for the table, the database it is read on, and its key column. */
  readonly entity: Entity | undefined;
  readonly db: Db;
  readonly key: string;
  readonly column: string;
  readonly keys: Array<string | number>;
  readonly where: UniqueWhere | null;
  /** An `exists` of a tenant-bound record's write: read as a reference (referenceConditions). */
  readonly reference: boolean;
  readonly found: (rows: Found[]) => void;
  readonly failed: (error: unknown) => void;
}

export interface LookupOptions {
  /**
   * The write is of a tenant-bound record (and its detail rows): in isolation mode an `exists`
   * rule finds only the caller's tenant's records (a template's creator and users).
   */
  readonly tenantReferences?: boolean;
}

/**
 * Lookup `i` of the batch: its key and column as `k<i>`, `v<i>`; null in the others' columns.
 * From three lookups on, the first select's nulls are typed, each a sub-select of its lookup's
 * column that finds no row: PostgreSQL resolves a union's column types pair by pair from the
 * left, and two untyped nulls would make a text column that an integer one then fails to
 * match. With two, one null meets the typed column at once and takes its type.
 */
function lookupBranch(db: Db, batch: readonly Asked[], i: number, scope: Scope): Select {
  const one = batch[i] as Asked;
  const none = (other: Asked, column: string) =>
    i === 0 && batch.length > 2
      ? db.selectFrom(other.table).select(sql.ref(column).as('none')).where(sql<boolean>`1 = 0`)
      : sql`null`;
  const columns = [];
  for (let j = 0; j < batch.length; j++) {
    const other = batch[j] as Asked;
    columns.push(
      (j === i ? sql.ref(one.key) : none(other, other.key)).as(`k${j}`),
      (j === i ? sql.ref(one.column) : none(other, other.column)).as(`v${j}`),
    );
  }
  const listed = db
    .selectFrom(one.table)
    .select(columns)
    .where(one.column, 'in', paramList(`l${i}v`, one.keys.length));
  const { where } = one;
  const query =
    where === null
      ? listed
      : where.value === null
        ? listed.where(where.column, 'is', null)
        : listed.where(where.column, '=', param(`l${i}w`));
  const { entity } = one;
  if (!entity) return query as Select;
  const conditions = one.reference
    ? referenceConditions(entity, scope)
    : scopeConditions(entity, scope).where;
  return conditions.reduce((q, w) => q.where(w), query) as Select;
}

export function databaseLookup(
  connections: Connections,
  scope: Scope = NO_SCOPE,
  options: LookupOptions = {},
): Lookup {
  const tenantReferences = options.tenantReferences ?? false;
  let waiting: Asked[] = [];
  /** The lookups asked this turn, one statement per database. */
  const send = () => {
    const asked = waiting;
    waiting = [];
    const byDb = new Map<Db, Asked[]>();
    for (const one of asked) {
      const batch = byDb.get(one.db);
      if (batch) batch.push(one);
      else byDb.set(one.db, [one]);
    }
    for (const [db, batch] of byDb)
      runBatch(db, batch).catch((error: unknown) => {
        for (const one of batch) one.failed(error);
      });
  };
  const runBatch = async (db: Db, batch: readonly Asked[]) => {
    const key: KeyPart[] = [batch.length];
    const values: Record<string, unknown> = {};
    batch.forEach((one, i) => {
      key.push(
        one.table,
        one.column,
        one.key,
        listLength(one.keys.length),
        one.entity ? scopeKey(one.entity, scope) : '',
        one.where?.column ?? '',
        one.where ? one.where.value === null : false,
        one.reference,
      );
      Object.assign(values, paramListValues(`l${i}v`, one.keys));
      if (one.where?.value != null) values[`l${i}w`] = bindable([one.where.value])[0];
    });
    const rows = await runStatement<Record<string, unknown>>(
      db,
      [LOOKUPS, ...key],
      () => {
        const selects = batch.map((_, i) => lookupBranch(db, batch, i, scope));
        return selects.slice(1).reduce((union, next) => union.unionAll(next), selects[0] as Select);
      },
      values,
    );
    const found: Found[][] = batch.map(() => []);
    for (const row of rows)
      for (let i = 0; i < batch.length; i++)
        if (row[`k${i}`] != null) {
          found[i]?.push({ value: String(row[`v${i}`]), key: String(row[`k${i}`]) });
          break;
        }
    batch.forEach((one, i) => {
      one.found(found[i] ?? []);
    });
  };
  const lookup = (
    table: string,
    column: string,
    keys: Array<string | number>,
    where: UniqueWhere | null,
    reference = false,
  ) =>
    new Promise<Found[]>((found, failed) => {
      if (waiting.length === 0) queueMicrotask(send);
      const entity = entityForTable(table);
      const db = connections[entity?.storage ?? 'system'];
      waiting.push({
        table,
        entity,
        db,
        key: entity?.primaryKey ?? 'id',
        column,
        keys,
        where,
        reference,
        found,
        failed,
      });
    });
  return {
    async exists(table, column, values) {
      const keys = bindable(values);
      if (keys.length === 0) return new Set();
      const found = await lookup(table, column, keys, null, tenantReferences);
      return new Set(found.map((row) => row.value));
    },
    async taken(table, column, values, where = null) {
      const keys = bindable(values);
      const holders = new Map<string, string[]>();
      if (keys.length === 0) return holders;
      for (const { value, key } of await lookup(table, column, keys, where))
        holders.set(value, [...(holders.get(value) ?? []), key]);
      return holders;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: one lookup's select, whatever its table
type Select = SelectQueryBuilder<any, any, Record<string, unknown>>;
