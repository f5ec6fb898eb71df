// The validator's exists/unique lookups against the request's databases: one statement per
// table and column, whatever the number of rows checked. A table declared by an entity is read
// where that entity is stored; any other table is a system table.
import type { Connections } from '../../model/connections.js';
import { entityForTable } from '../../model/entity.js';
import { paramList, paramListValues, runCached } from '../../database/query-cache.js';
import type { Lookup } from './validator.js';

/** Integer-looking strings are compared as numbers so '5' finds 5 on every engine. */
function bindable(values: unknown[]): Array<string | number> {
  return values
    .filter((v): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
    .map((v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v));
}

export function databaseLookup(connections: Connections): Lookup {
  const dbFor = (table: string) => connections[entityForTable(table)?.storage ?? 'system'];
  return {
    async exists(table, column, values) {
      const keys = bindable(values);
      if (keys.length === 0) return new Set();
      const db = dbFor(table);
      const rows = await runCached<Record<string, unknown>>(
        db,
        `exists:${table}:${column}:${keys.length}`,
        () => db.selectFrom(table).select(column).where(column, 'in', paramList('v', keys.length)),
        paramListValues('v', keys),
      );
      return new Set(rows.map((r: Record<string, unknown>) => String(r[column])));
    },
    async taken(table, column, values) {
      const keys = bindable(values);
      const holders = new Map<string, string[]>();
      if (keys.length === 0) return holders;
      const db = dbFor(table);
      const rows = await runCached<Record<string, unknown>>(
        db,
        `taken:${table}:${column}:${keys.length}`,
        () => db.selectFrom(table).select(['id', column]).where(column, 'in', paramList('v', keys.length)),
        paramListValues('v', keys),
      );
      for (const row of rows as Array<Record<string, unknown>>) {
        const key = String(row[column]);
        holders.set(key, [...(holders.get(key) ?? []), String(row.id)]);
      }
      return holders;
    },
  };
}
