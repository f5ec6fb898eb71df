// defineResource(): checks a resource configuration against its entity at boot and compiles
// what every request needs (STYLE.md example 4). A wrong name fails here with a clear message.

import type { BelongsTo, HasMany } from '../../model/entity.js';
import { type Entity, entityNamed } from '../../model/entity.js';
import {
  compileProjection,
  type Projector,
  projectionPicks,
  projectionRoots,
} from '../output/projection.js';
import { COUNT_STRATEGIES, type CountStrategy } from '../query/count.js';
import {
  type Action,
  type AuthorizationRequest,
  DEFAULTS,
  type ProjectionEntry,
  type ResourceConfig,
  type Transformer,
} from './resource-config.js';

export interface Order {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
}

export interface Resource {
  readonly entity: Entity;
  /** ResourceConfig.name: what the resource's changes are filed under. */
  readonly name: string;
  /** The key routes and direct invocations look records up by. */
  readonly primaryKey: string;
  readonly keyIsInteger: boolean;
  readonly searchable: ReadonlySet<string>;
  readonly sortable: ReadonlySet<string>;
  readonly belongsTo: ReadonlyArray<readonly [string, BelongsTo]>;
  /** `with` has-many relations plus the details: all loaded with the record. */
  readonly hasMany: ReadonlyArray<readonly [string, HasMany]>;
  readonly counts: ReadonlyArray<readonly [string, HasMany]>;
  readonly appends: ReadonlyArray<readonly [string, (record: Record<string, unknown>) => unknown]>;
  readonly hidden: ReadonlySet<string>;
  readonly defaultOrder: Order | null;
  readonly perPage: number;
  readonly maxPerPage: number;
  readonly maxDetailRows: number;
  /** ResourceConfig.requireIfMatch. */
  readonly requireIfMatch: boolean;
  /** ResourceConfig.defaultCount and countThreshold (issue 21). */
  readonly defaultCount: CountStrategy;
  readonly countThreshold: number;
  readonly details: ReadonlyMap<string, HasMany>;
  readonly index: Projector;
  readonly show: Projector;
  /** The projection lists as configured (empty: the full record), for the API's description. */
  readonly indexFields: readonly ProjectionEntry[];
  readonly showFields: readonly ProjectionEntry[];
  /** The fields a transformer post-processes (their answered type is the transformer's). */
  transformedFields(): string[];
  readonly label: string | null;
  readonly singularLabel: string | null;
  /** Field labels: the resource's over the entity's (metadata falls back to labels.ts). */
  readonly labels: Readonly<Record<string, string>>;
  readonly authorize:
    | ((action: Action, request: AuthorizationRequest) => boolean | Promise<boolean>)
    | null;
  /** ResourceConfig.answerOnCreate, or null. */
  readonly answerOnCreate: ResourceConfig['answerOnCreate'] | null;
  /** ResourceConfig.adminPanels. */
  readonly adminPanels: NonNullable<ResourceConfig['adminPanels']>;
  /** ResourceConfig.afterUpdate, or null. */
  readonly afterUpdate: ResourceConfig['afterUpdate'] | null;
  /** ResourceConfig.openLookups. */
  readonly openLookups: boolean;
  /** ResourceConfig.listColumns, or null. */
  readonly listColumns: readonly string[] | null;
  /** Adds a transformer after set-up (SPEC.md 2.1 `transformers`). */
  addTransformer(field: string, transformer: Transformer): void;
}

export class ResourceDefinitionError extends Error {}

export function defineResource(config: ResourceConfig): Resource {
  const entity = typeof config.model === 'string' ? entityNamed(config.model) : config.model;
  const fail = (message: string): never => {
    throw new ResourceDefinitionError(`Resource for ${entity.name}: ${message}`);
  };
  const columns = (list: readonly string[], setting: string) => {
    for (const c of list)
      if (!entity.columnSet.has(c))
        fail(`${setting} names "${c}", which is not a column of ${entity.table}`);
    return new Set(list);
  };
  const relation = (name: string, setting: string) =>
    entity.relations[name] ??
    fail(`${setting} names "${name}", which is not a relation of ${entity.name}`);
  const hasManyNamed = (name: string, setting: string): HasMany => {
    const r = relation(name, setting);
    if (r.kind !== 'hasMany')
      fail(`${setting} needs a one-to-many relation, "${name}" is ${r.kind}`);
    return r as HasMany;
  };

  const primaryKey = config.primaryKey ?? entity.primaryKey;
  if (!entity.columnSet.has(primaryKey)) fail(`primaryKey "${primaryKey}" is not a column`);
  const searchable = columns(config.searchable ?? DEFAULTS.searchable, 'searchable');
  const sortable = columns(config.sortable ?? DEFAULTS.sortable, 'sortable');

  const details = new Map<string, HasMany>();
  for (const name of config.details ?? DEFAULTS.details) {
    const r = hasManyNamed(name, 'details');
    // A write is one transaction on the master's database (DESIGN.md 3.5: a unit's own one).
    if (r.target().storage !== entity.storage)
      fail(`details "${name}" crosses databases; a write is one transaction`);
    // Detail rows are written with the master's primary key in their foreign key, and read back
    // by the relation's localKey: the two must be the same column.
    if (r.localKey !== entity.primaryKey)
      fail(
        `details "${name}" must be keyed by ${entity.primaryKey}, the key its rows are written with, not by "${r.localKey}"`,
      );
    details.set(name, r);
  }

  const belongsTo: Array<[string, BelongsTo]> = [];
  const hasMany: Array<[string, HasMany]> = [];
  for (const name of new Set([...(config.with ?? DEFAULTS.with), ...details.keys()])) {
    const r = relation(name, 'with');
    relationKeyProblem(entity, name, r, fail);
    if (r.kind === 'belongsTo') belongsTo.push([name, r]);
    else hasMany.push([name, r]);
  }
  const counts = (config.withCount ?? DEFAULTS.withCount).map((name) => {
    const r = hasManyNamed(name, 'withCount');
    relationKeyProblem(entity, name, r, fail);
    if (r.target().storage !== entity.storage)
      fail(`withCount "${name}" crosses databases; counts are sub-queries`);
    return [name, r] as const;
  });
  const appends = (config.appends ?? DEFAULTS.appends).map((name) => {
    const fn =
      entity.appends[name] ??
      fail(`appends names "${name}", which ${entity.name} does not compute`);
    return [name, fn] as const;
  });

  const settings = listSettings(config, entity, fail);
  const { hidden, indexFields, showFields, transformers, transformable } = checkedProjections(
    config,
    entity,
    primaryKey,
    { appends, belongsTo, hasMany, counts },
    fail,
  );
  const keyCast = entity.casts[primaryKey];

  return Object.freeze({
    entity,
    name: config.name ?? entity.table.replace(/_/g, '-'),
    primaryKey,
    keyIsInteger:
      keyCast === 'integer' || (keyCast === undefined && primaryKey === entity.primaryKey),
    searchable,
    sortable,
    belongsTo,
    hasMany,
    counts,
    appends,
    hidden,
    ...settings,
    details,
    index: compileProjection(indexFields, primaryKey, hidden, transformers),
    show: compileProjection(showFields, primaryKey, hidden, transformers),
    indexFields: [...indexFields],
    showFields: [...showFields],
    transformedFields: () => [...transformers.keys()],
    label: config.label ?? null,
    singularLabel: config.singularLabel ?? null,
    labels: { ...entity.labels, ...(config.labels ?? {}) },
    authorize: config.authorize ?? null,
    openLookups: config.openLookups ?? false,
    afterUpdate: config.afterUpdate ?? null,
    answerOnCreate: config.answerOnCreate ?? null,
    adminPanels: [...(config.adminPanels ?? [])],
    listColumns: config.listColumns ? [...config.listColumns] : null,
    addTransformer(field: string, transformer: Transformer) {
      transformable(field);
      transformers.set(field, transformer);
    },
  });
}

/** The list's and the writes' settings, checked; the defaults where the config gives none. */
function listSettings(config: ResourceConfig, entity: Entity, fail: (message: string) => never) {
  let defaultOrder: Order | null = null;
  if (config.defaultOrder) {
    const match = /^\s*(\w+)\s+(asc|desc)\s*$/i.exec(config.defaultOrder);
    if (!match?.[1] || !match[2])
      return fail(`defaultOrder must read "<column> asc|desc", got "${config.defaultOrder}"`);
    if (!entity.columnSet.has(match[1])) fail(`defaultOrder column "${match[1]}" is not a column`);
    defaultOrder = { column: match[1], direction: match[2].toLowerCase() as 'asc' | 'desc' };
  }
  const perPage = config.perPage ?? DEFAULTS.perPage;
  const maxPerPage = config.maxPerPage ?? DEFAULTS.maxPerPage;
  if (!Number.isInteger(perPage) || perPage < 1) fail('perPage must be a positive integer');
  if (!Number.isInteger(maxPerPage) || maxPerPage < perPage)
    fail('maxPerPage must be an integer of at least perPage');
  const maxDetailRows = config.maxDetailRows ?? DEFAULTS.maxDetailRows;
  if (!Number.isInteger(maxDetailRows) || maxDetailRows < 1)
    fail('maxDetailRows must be a positive integer');
  const requireIfMatch = config.requireIfMatch ?? DEFAULTS.requireIfMatch;
  if (requireIfMatch && !entity.versionColumn)
    fail(`requireIfMatch needs a versionColumn on ${entity.name}: without one no ETag can match`);

  const defaultCount = config.defaultCount ?? DEFAULTS.defaultCount;
  if (!COUNT_STRATEGIES.includes(defaultCount))
    fail(`defaultCount must be one of ${COUNT_STRATEGIES.join(', ')}, got "${defaultCount}"`);
  const countThreshold = config.countThreshold ?? DEFAULTS.countThreshold;
  if (!Number.isInteger(countThreshold) || countThreshold < 1)
    fail('countThreshold must be a positive integer');
  return {
    defaultOrder,
    perPage,
    maxPerPage,
    maxDetailRows,
    requireIfMatch,
    defaultCount,
    countThreshold,
  };
}

/**
 * The answers' projections (indexFields, showFields), hidden fields and transformers, checked
 * against what the record carries (`fields`: its relations, counts and appends).
 */
function checkedProjections(
  config: ResourceConfig,
  entity: Entity,
  primaryKey: string,
  fields: Pick<Resource, 'appends' | 'belongsTo' | 'hasMany' | 'counts'>,
  fail: (message: string) => never,
) {
  const { appends, belongsTo, hasMany, counts } = fields;
  const hidden = new Set(config.hidden ?? DEFAULTS.hidden);
  const known = new Set([
    ...entity.columns,
    ...appends.map(([n]) => n),
    ...belongsTo.map(([n]) => n),
    ...hasMany.map(([n]) => n),
    ...counts.map(([n]) => `${n}_count`),
  ]);
  const indexFields = config.indexFields ?? DEFAULTS.indexFields;
  const showFields = config.showFields ?? DEFAULTS.showFields;
  for (const root of [...projectionRoots(indexFields), ...projectionRoots(showFields)]) {
    if (!known.has(root)) fail(`a projection names "${root}", which the record does not carry`);
  }
  for (const { path } of [
    ...projectionPicks(indexFields, primaryKey, hidden),
    ...projectionPicks(showFields, primaryKey, hidden),
  ])
    projectionPathProblem(entity, path, belongsTo, hasMany, fail);
  // The admin list's columns: keys the list answers (its projection's, or the full record's).
  const listKeys = new Set(
    indexFields.length > 0
      ? projectionPicks(indexFields, primaryKey, hidden).map((p) => p.key)
      : [...known].filter((key) => !hidden.has(key) && !entity.hidden.has(key)),
  );
  for (const key of config.listColumns ?? [])
    if (!listKeys.has(key)) fail(`listColumns names "${key}", which a list item does not carry`);
  // A transformer post-processes a key of the answer: one the answer never carries is a mistake.
  const answered = new Set([
    ...known,
    ...projectionPicks(indexFields, primaryKey, hidden).map((p) => p.key),
    ...projectionPicks(showFields, primaryKey, hidden).map((p) => p.key),
  ]);
  const transformable = (field: string) => {
    if (!answered.has(field))
      fail(
        `transformers name "${field}", which no answer carries: name a field of the record or a key of its projection (${[...answered].join(', ')})`,
      );
  };
  const transformers = new Map<string, Transformer>(
    Object.entries(config.transformers ?? DEFAULTS.transformers),
  );
  for (const field of transformers.keys()) transformable(field);
  return { hidden, indexFields, showFields, transformers, transformable };
}

/** A relation's keys and loaded columns must be columns of the entities on each side. */
function relationKeyProblem(
  entity: Entity,
  name: string,
  r: BelongsTo | HasMany,
  fail: (message: string) => never,
): void {
  const target = r.target();
  const missing = (owner: Entity, column: string, what: string) => {
    if (!owner.columnSet.has(column))
      fail(
        `relation "${name}": ${what} "${column}" is not a column of ${owner.name} (${owner.table}): name one of ${owner.columns.join(', ')} in ${entity.name}'s relations`,
      );
  };
  if (r.kind === 'belongsTo') {
    missing(entity, r.foreignKey, 'foreign key');
    missing(target, r.ownerKey, 'owner key');
    for (const column of r.columns ?? []) missing(target, column, 'loaded column');
  } else {
    missing(target, r.foreignKey, 'foreign key');
    missing(entity, r.localKey, 'local key');
  }
}

/**
 * A projection path must end at one value: `relation.field` through a loaded belongs-to
 * relation to one of the columns it loads, never through a has-many one (a list of rows).
 */
function projectionPathProblem(
  entity: Entity,
  path: readonly string[],
  belongsTo: ReadonlyArray<readonly [string, BelongsTo]>,
  hasMany: ReadonlyArray<readonly [string, HasMany]>,
  fail: (message: string) => never,
): void {
  const [root = '', field, ...deeper] = path;
  const entry = path.join('.');
  if (field === undefined) return;
  const one = belongsTo.find(([name]) => name === root)?.[1];
  if (one) {
    const target = one.target();
    const loaded = (one.columns ?? target.columns).filter((c) => !target.hidden.has(c));
    if (!loaded.includes(field) || deeper.length > 0)
      fail(
        `a projection names "${entry}", but relation "${root}" loads only ${loaded.join(', ')}: name one of them${one.columns ? `, or add "${field}" to the relation's columns` : ''}`,
      );
    return;
  }
  if (hasMany.some(([name]) => name === root))
    fail(
      `a projection names "${entry}", which goes through has-many relation "${root}" (a list of rows, not one value): project "${root}" whole, or count it with withCount`,
    );
  if (entity.casts[root] !== 'json')
    fail(
      `a projection names "${entry}", but "${root}" is not a belongs-to relation the resource loads (with) nor a JSON column: name "${root}" alone, or load the relation`,
    );
}
