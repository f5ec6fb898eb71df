// A change (DESIGN.md 3.9): what one committed write did to one record, as the feed answers it.
import type { StoredChange } from '../../database/change-statements.js';
import type { Row } from '../../model/entity.js';

export type ChangeAction = StoredChange['action'];

/** Who wrote: `via` is how the write came in (a token, a session, a CLI command, svc itself). */
export interface Actor {
  readonly user_id: number | null;
  readonly token_id: number | null;
  readonly via: 'bearer' | 'session' | 'cli' | 'system';
}

/** A detail relation's rows written by one change: new and changed rows as shown, deleted ids. */
export interface DetailChanges {
  readonly created: readonly Row[];
  readonly updated: readonly Row[];
  readonly deleted: readonly unknown[];
}

/** `{fields: {<field>: <new value>}, <relation>: DetailChanges}`; `{}` for a delete. */
export type ChangeSet = Readonly<Record<string, Row | DetailChanges>>;

export interface Change {
  readonly seq: number;
  readonly resource: string;
  readonly id: unknown;
  readonly action: ChangeAction;
  readonly version: number | null;
  readonly at: string;
  readonly actor: Actor;
  readonly changes: ChangeSet;
}

/** A change appended in a write's transaction: its seq is null until it is numbered. */
export type AppendedChange = Omit<Change, 'seq'> & { readonly seq: number | null };

const integer = (value: unknown) => (value == null ? null : Number(value));

/** A stored change's record id, a number where the resource's keys are integers. */
export function recordIdOf(row: Row, keyIsInteger: boolean): unknown {
  const id = String(row.record_id);
  return keyIsInteger && /^-?\d+$/.test(id) ? Number(id) : id;
}

/** Who wrote a stored change. */
export function actorOfRow(row: Row): Actor {
  return {
    user_id: integer(row.user_id),
    token_id: integer(row.token_id),
    via: row.via as Actor['via'],
  };
}

/** A stored change row (its seq included) as the feed answers it. */
export function changeOf(row: Row, keyIsInteger: boolean): Change {
  return {
    seq: Number(row.seq),
    resource: String(row.resource),
    id: recordIdOf(row, keyIsInteger),
    action: row.action as ChangeAction,
    version: integer(row.version),
    at: new Date(Number(row.at)).toISOString(),
    actor: actorOfRow(row),
    changes: JSON.parse(String(row.changes)) as ChangeSet,
  };
}
