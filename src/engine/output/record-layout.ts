// Which of a resource's relations a record's own statement reads (belongs-to joined, has-many
// embedded as a JSON column) and which get a batched statement each, per engine and database
// layout, with the column aliases they are read under.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { Connections } from '../../model/connections.js';
import type { BelongsTo, Entity, HasMany } from '../../model/entity.js';
import type { Resource } from '../definition/define-resource.js';

/** Which relations the record's own select reads; the others get a batched statement each. */
export interface Layout {
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
export function layoutOf(
  connections: Connections,
  resource: Resource,
  adapter: DialectAdapter,
): Layout {
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
export const joinedColumn = (name: string, column: string) => `${name}.${column}`;
/** The alias of an embedded relation's JSON column. */
export const embeddedColumn = (name: string) => `${name}[]`;

/** The has-many relations the record's own select carries (DialectAdapter.childRows). */
export function embeddedRelations(
  connections: Connections,
  resource: Resource,
  adapter: DialectAdapter,
): ReadonlySet<HasMany> {
  return layoutOf(connections, resource, adapter).embedded;
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
