// The resource configuration of SPEC.md 2.1: every setting, with its default.

import type { Database } from '../../database/database.js';
import type { Db } from '../../database/db.js';
import type { Entity, Row } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';
import type { CountStrategy } from '../query/count.js';

/** A panel of the admin form beyond the generic ones: `deliveries`, a webhook's (DESIGN.md 3.10). */
export type AdminPanel = 'deliveries';

export type Action = 'list' | 'show' | 'create' | 'update' | 'delete';
export const ACTIONS: readonly Action[] = ['list', 'show', 'create', 'update', 'delete'];

/** A projection entry: a field, `relation.field` (flattened to `relation_field`), or `{alias: path}`. */
export type ProjectionEntry = string | Readonly<Record<string, string>>;

/** Post-processing of an already serialised field (SPEC.md 2.2 rule 6). */
export type Transformer = (value: unknown, record: Row) => unknown;

/** What a resource's own authorization check sees (SPEC.md 5.2.3). */
export interface AuthorizationRequest {
  readonly scope: Scope;
  /** The acting user's stored record (hidden columns included), or null outside a request. */
  readonly user: Row | null;
  readonly mode: 'bearer' | 'session' | 'direct';
}

/** What an update's after-effects may reach (EngineContext has them, where available). */
export interface UpdateEffects {
  /**
   * Ends the user's sessions, but the acting one when it is that user's own (a password change);
   * absent where no sessions are reachable.
   */
  readonly endSessionsOf?: (userId: number) => Promise<void>;
}

export interface ResourceConfig {
  /** The entity, or the name it was declared with. */
  readonly model: Entity | string;
  /**
   * The name its changes carry (DESIGN.md 3.9 `resource`: its path name, `import-templates`);
   * default: the entity's table with dashes for underscores.
   */
  readonly name?: string;
  readonly primaryKey?: string | null;
  readonly searchable?: readonly string[];
  readonly sortable?: readonly string[];
  readonly with?: readonly string[];
  readonly withCount?: readonly string[];
  readonly appends?: readonly string[];
  readonly indexFields?: readonly ProjectionEntry[];
  readonly showFields?: readonly ProjectionEntry[];
  readonly hidden?: readonly string[];
  readonly defaultOrder?: string | null;
  readonly perPage?: number;
  readonly maxPerPage?: number;
  readonly details?: readonly string[];
  /** Rows a detail relation takes at most per write (issue 19): a 422 naming the relation beyond. */
  readonly maxDetailRows?: number;
  /**
   * Updates and deletes must carry `If-Match` (428 without it), so no client overwrites a record
   * it has not read (engine/conditional). Needs the entity's versionColumn.
   */
  readonly requireIfMatch?: boolean;
  readonly transformers?: Readonly<Record<string, Transformer>>;
  /**
   * How a list counts its total when the request names no strategy (issue 21): `exact` (SPEC.md
   * 4.2's meta), `estimated` or `none`.
   */
  readonly defaultCount?: CountStrategy;
  /** count=estimated counts exactly up to this many rows and estimates above (issue 21). */
  readonly countThreshold?: number;
  /** Plural label (`Import templates`); default: from the route's path. */
  readonly label?: string;
  /** Singular label (`Import template`); default: from the route's id parameter. */
  readonly singularLabel?: string;
  /** Field labels for this resource, over the entity's own (`labels`) and the default. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The admin list's columns shown by default, in order (keys of a list item). A presentation
   * setting: no API answer changes. Default: every key but long text, foreign keys whose record
   * the list loads, and detail arrays.
   */
  readonly listColumns?: readonly string[];
  /**
   * Lookups (GET /app/lookups/<resource>: ids and labels) for every session user, not only those
   * `authorize` lets list: for the records other resources' forms name (a template's users and
   * groups, picked by non-admins). Default false: a lookup is a list. Tenant-bound all the same.
   */
  readonly openLookups?: boolean;
  /**
   * Runs once an update has committed, with the stored columns it set (write-only fields as
   * they are stored: `password_hash`): a change's effect outside the record (sessions ended).
   */
  readonly afterUpdate?: (
    id: string | number,
    columns: ReadonlySet<string>,
    context: UpdateEffects,
  ) => Promise<void>;
  /**
   * Runs in a create's transaction after its insert, on the record's database: the fields it
   * answers are added to that create's answer only, never stored answers of show or list (a
   * generated secret, shown once). `system` is the service's main database (not a transaction:
   * what the service keeps for it, such as a key).
   */
  readonly answerOnCreate?: (db: Db, id: string | number, system: Database) => Promise<Row>;
  /** Panels the admin form adds under a saved record (its metadata's `panels`). */
  readonly adminPanels?: readonly AdminPanel[];
  /** Optional authorization check: false answers 403 before the action runs. */
  readonly authorize?: (
    action: Action,
    request: AuthorizationRequest,
  ) => boolean | Promise<boolean>;
}

export const DEFAULTS = Object.freeze({
  primaryKey: null,
  searchable: [],
  sortable: [],
  with: [],
  withCount: [],
  appends: [],
  indexFields: [],
  showFields: [],
  hidden: [],
  defaultOrder: null,
  perPage: 15,
  maxPerPage: 200,
  details: [],
  maxDetailRows: 1000,
  requireIfMatch: false,
  transformers: {},
  defaultCount: 'exact' as CountStrategy,
  countThreshold: 1000,
});
