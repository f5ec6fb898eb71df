// List (SPEC.md 4.2): filters, sort, page; a fixed number of statements whatever the page size:
// the total, the page with its counts, then one statement per eager-loaded relation.
import { sql } from 'kysely';
import type { Row } from '../../model/entity.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { assembleRecords, selectRecords } from '../output/records.js';
import { filterExpression, parseFilters } from '../query/filters.js';
import type { Input } from '../query/input.js';
import { parsePage } from '../query/paginate.js';
import { parseSort } from '../query/sort.js';
import { scopeExpressions } from '../query/scope.js';

export interface ListResult {
  readonly data: Row[];
  readonly meta: { total: number; per_page: number; current_page: number; last_page: number };
}

export async function list(resource: Resource, context: EngineContext, input: Input): Promise<ListResult> {
  const { entity } = resource;
  const filters = parseFilters(input, resource.searchable);
  const order = parseSort(input, resource.sortable, resource.defaultOrder);
  const { page, perPage, offset } = parsePage(input, resource.perPage, resource.maxPerPage);
  const connections = connectionsOf(context);
  const adapter = adapterFor(context, entity.storage);
  const where = [...scopeExpressions(entity, context.scope), ...filters.map((f) => filterExpression(entity.table, f, adapter))];

  let count = connections[entity.storage].selectFrom(entity.table).select(sql<number>`count(*)`.as('total'));
  for (const w of where) count = count.where(w);
  const total = Number((await count.executeTakeFirst())?.total ?? 0);

  let rows: Row[] = [];
  if (offset < total) {
    let query = selectRecords(connections, resource, context.scope);
    for (const f of filters) query = query.where(filterExpression(entity.table, f, adapter));
    if (order) query = query.orderBy(`${entity.table}.${order.column}`, order.direction);
    // The key breaks ties so pages never overlap or skip a row.
    query = query.orderBy(`${entity.table}.${entity.primaryKey}`, order?.direction ?? 'asc');
    rows = await query.limit(perPage).offset(offset).execute();
  }
  const records = await assembleRecords(connections, resource, rows);
  return {
    data: records.map(resource.index),
    meta: { total, per_page: perPage, current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}
