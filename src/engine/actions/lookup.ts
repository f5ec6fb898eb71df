// Lookup: records of a resource as a picker shows them, `{id, label}` from the entity's title
// columns, found by text or by ids, within the caller's scope and, in isolation mode, tenant. The
// route lets look up those who may list the resource, or every session user where the resource
// opens its lookups (a non-admin picks a template's users and groups): title columns only.
import { sql } from 'kysely';
import { escapeLike } from '../../database/dialects/dialect-adapter.js';
import { idOf } from '../../model/casts.js';
import type { Row } from '../../model/entity.js';
import { referenceConditions } from '../../model/scope.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import type { LookupItem } from '../description/metadata-types.js';
import { NON_ASCII } from '../query/filters.js';
import type { Input } from '../query/input.js';

export const LOOKUP_LIMIT = 20;
const MAX_SEARCH_LENGTH = 200;

/** `Administrator (admin)`: the first title column, the others in parentheses. */
function recordLabel(row: Row, columns: readonly string[]): string {
  const [first, ...rest] = columns.map((c) => row[c]).filter((v) => v != null && v !== '');
  const others = rest.length > 0 ? ` (${rest.join(', ')})` : '';
  return `${String(first ?? '')}${others}`;
}

function idsOf(value: unknown): number[] | null {
  if (typeof value !== 'string' && !Array.isArray(value)) return null;
  const list = Array.isArray(value) ? value : value.split(',');
  const ids = list.map(idOf).filter((id): id is number => id !== null);
  return ids.slice(0, LOOKUP_LIMIT);
}

export async function lookup(
  resource: Resource,
  context: EngineContext,
  input: Input,
): Promise<LookupItem[]> {
  const { entity, primaryKey } = resource;
  const db = connectionsOf(context)[entity.storage];
  const adapter = adapterFor(context, entity.storage);
  const columns = [...new Set([primaryKey, ...entity.titleColumns])];
  // Isolation mode: the caller's tenant's records only (users by their units, units by company).
  const where = referenceConditions(entity, context.scope);
  const ids = idsOf(input.ids);
  if (ids !== null) {
    if (ids.length === 0) return [];
    where.push(sql<boolean>`${sql.ref(`${entity.table}.${primaryKey}`)} in (${sql.join(ids)})`);
  } else {
    const search = typeof input.search === 'string' ? input.search.slice(0, MAX_SEARCH_LENGTH) : '';
    // PostgreSQL refuses a NUL character in text: such a search finds nothing, on every engine.
    if (search.includes('\u0000')) return [];
    if (search.trim() !== '') {
      // The text matches literally: `%`, `_` in it are characters, not the wildcards the list's
      // `like` filter reads them as.
      const pattern = sql.val(`%${escapeLike(search.trim())}%`);
      const unicode = NON_ASCII.test(search);
      const matches = entity.titleColumns.map((c) =>
        adapter.likeInsensitive(`${entity.table}.${c}`, pattern, false, unicode, true),
      );
      where.push(sql<boolean>`(${sql.join(matches, sql` or `)})`);
    }
  }
  const rows = (await where
    .reduce((q, w) => q.where(w), db.selectFrom(entity.table).select(columns))
    .orderBy(`${entity.table}.${entity.titleColumns[0] ?? primaryKey}`)
    .orderBy(`${entity.table}.${primaryKey}`)
    .limit(LOOKUP_LIMIT)
    .execute()) as Row[];
  return rows.map((row) => {
    const record = entity.serialize(row);
    return { id: record[primaryKey] as number, label: recordLabel(record, entity.titleColumns) };
  });
}
