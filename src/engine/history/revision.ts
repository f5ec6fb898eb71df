// A revision (DESIGN.md 3.11): a change of one record with the record as show answered it right
// after that write (null after a delete): the change log's row, its `record` included.
import { type ExpressionBuilder, sql } from 'kysely';
import { CHANGE_STATE_TABLE, HISTORY_PRUNED } from '../../database/change-statements.js';
import type { Row } from '../../model/entity.js';
import { type Actor, type ChangeAction, type ChangeSet, changeOf } from '../changes/change.js';
import type { Resource } from '../definition/define-resource.js';

export interface Revision {
  readonly seq: number;
  readonly version: number | null;
  readonly action: ChangeAction;
  readonly at: string;
  readonly actor: Actor;
  readonly changes: ChangeSet;
  readonly record: Row | null;
}

/** The record a stored revision holds, before projection (null after a delete). */
export function storedRecordOf(row: Row): Row | null {
  return row.record == null ? null : (JSON.parse(String(row.record)) as Row);
}

/** A stored revision as the history answers it: its record projected as show projects it. */
export function revisionOf(resource: Resource, row: Row): Revision {
  const { seq, version, action, at, actor, changes } = changeOf(row, resource.keyIsInteger);
  const record = storedRecordOf(row);
  return {
    seq,
    version,
    action,
    at,
    actor,
    changes,
    record: record === null ? null : resource.show(record),
  };
}

/**
 * The changes of `table` (a name or an alias of svc_changes) the history still keeps: above the
 * `history_pruned` mark (HISTORY_RETENTION_DAYS, engine/changes/retention.ts), or not yet
 * numbered (the newest; PostgreSQL, MySQL).
 */
export function keptInHistory(table: string) {
  // biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
  return (eb: ExpressionBuilder<any, any>) =>
    eb.or([
      eb(`${table}.seq`, 'is', null),
      eb(
        `${table}.seq`,
        '>',
        eb
          .selectFrom(CHANGE_STATE_TABLE)
          .select('value')
          .where('name', '=', sql.lit(HISTORY_PRUNED)),
      ),
    ]);
}
