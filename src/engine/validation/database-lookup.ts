// The validator's exists/unique lookups against the request's databases: one statement per
// table and column, whatever the number of rows checked. A table declared by an entity is read
// where that entity is stored, by its own primary key and within the caller's scope (a unit- or
// tenant-bound row of another unit or tenant neither exists for this caller nor takes a value
// from it); any other table is a system table, keyed by `id`.

import {
  listLength,
  param,
  paramList,
  paramListValues,
  runCached,
  statementSite,
} from '../../database/query-cache.js';
import type { Connections } from '../../model/connections.js';
import { entityForTable } from '../../model/entity.js';
import type { UniqueWhere } from '../../model/rules.js';
import { NO_SCOPE, type Scope, scopeConditions, scopeKey } from '../../model/scope.js';
import type { Lookup } from './validator.js';

const EXISTS = statementSite('exists lookup');
const TAKEN = statementSite('unique lookup');

/** Integer-looking strings are compared as numbers so '5' finds 5 on every engine. */
function bindable(values: unknown[]): Array<string | number> {
  return values
    .filter(
      (v): v is string | number =>
        typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)),
    )
    .map((v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v));
}

export function databaseLookup(connections: Connections, scope: Scope = NO_SCOPE): Lookup {
  /** `select <columns> from <table> where <column> in (<values>)` and the scope's conditions. */
  const lookup = (
    site: typeof EXISTS,
    table: string,
    column: string,
    keys: Array<string | number>,
    where: UniqueWhere | null = null,
  ) => {
    const entity = entityForTable(table);
    const db = connections[entity?.storage ?? 'system'];
    const key = entity?.primaryKey ?? 'id';
    return runCached<Record<string, unknown>>(
      db,
      [
        site,
        table,
        column,
        key,
        listLength(keys.length),
        entity ? scopeKey(entity, scope) : '',
        where?.column ?? '',
        where ? where.value === null : false,
      ],
      () => {
        const listed = db
          .selectFrom(table)
          .select([...new Set([key, column])])
          .where(column, 'in', paramList('v', keys.length));
        const query =
          where === null
            ? listed
            : where.value === null
              ? listed.where(where.column, 'is', null)
              : listed.where(where.column, '=', param('w'));
        return entity
          ? scopeConditions(entity, scope).where.reduce((q, w) => q.where(w), query)
          : query;
      },
      where?.value != null
        ? { ...paramListValues('v', keys), w: bindable([where.value])[0] }
        : paramListValues('v', keys),
    ).then((rows) => rows.map((row) => ({ value: String(row[column]), key: String(row[key]) })));
  };
  return {
    async exists(table, column, values) {
      const keys = bindable(values);
      if (keys.length === 0) return new Set();
      return new Set((await lookup(EXISTS, table, column, keys)).map((row) => row.value));
    },
    async taken(table, column, values, where = null) {
      const keys = bindable(values);
      const holders = new Map<string, string[]>();
      if (keys.length === 0) return holders;
      for (const { value, key } of await lookup(TAKEN, table, column, keys, where))
        holders.set(value, [...(holders.get(value) ?? []), key]);
      return holders;
    },
  };
}
