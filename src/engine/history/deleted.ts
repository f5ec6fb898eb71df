// GET /api/<resource>/deleted (DESIGN.md 3.11 "a deleted record is restored"): the records of
// the resource deleted and not restored since, newest delete first, within the list's scope,
// each with the record as it was before its delete and the seq of that revision (what
// .../history/<seq>/restore takes). One statement per page whatever its size: the revision
// before each delete and whether a later one exists are sub-queries on the record's index.
import { sql } from 'kysely';
import { CHANGES_TABLE, changeOrder } from '../../database/change-statements.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { type Actor, actorOfRow, recordIdOf } from '../changes/change.js';
import { feedScopeOf } from '../changes/change-feed.js';
import { numberCommitted } from '../changes/committed.js';
import type { EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { databaseOf, type HistoryQuery, pageOf } from './history.js';
import { keptInHistory, storedRecordOf } from './revision.js';

export interface DeletedRecord {
  readonly id: unknown;
  /** The delete's seq. */
  readonly seq: number;
  readonly at: string;
  readonly actor: Actor;
  /** The revision before the delete: restore it to bring the record back. */
  readonly restore_seq: number | null;
  /** The record as show answered it before the delete. */
  readonly record: Row | null;
}

const PAGE = statementSite('deleted records page');

function readPage(
  resource: Resource,
  context: EngineContext,
  before: number | null,
  read: number,
): Promise<Row[]> {
  const { db, adapter } = databaseOf(resource, context);
  const { unit, company } = feedScopeOf(resource, context.scope);
  const order = changeOrder(adapter.name);
  // The record's revisions beside the delete `d`, by the record's index.
  const others = () =>
    db
      .selectFrom(`${CHANGES_TABLE} as p`)
      .whereRef('p.resource', '=', 'd.resource')
      .whereRef('p.record_id', '=', 'd.record_id')
      .where(keptInHistory('p'));
  const previous = () =>
    others()
      .whereRef(`p.${order}`, '<', `d.${order}`)
      .orderBy(`p.${order}`, 'desc')
      .limit(sql.lit(1));
  return runStatement<Row>(
    db,
    [PAGE, unit, company, before !== null, read],
    () => {
      const q = db
        .selectFrom(`${CHANGES_TABLE} as d`)
        .select(['d.record_id', 'd.seq', 'd.at', 'd.user_id', 'd.token_id', 'd.via'])
        .select([
          previous().select('p.seq').as('restore_seq'),
          previous().select('p.record').as('record'),
        ])
        .where('d.resource', '=', param('resource'))
        // A literal: the deletes' own (partial) index is chosen for it.
        .where('d.action', '=', sql.lit('deleted'))
        // Not restored since: no later revision of the record.
        .where((eb) =>
          eb.not(eb.exists(others().select('p.seq').whereRef(`p.${order}`, '>', `d.${order}`))),
        );
      return pageOf(q, resource, context, 'd', before).limit(sql.lit(read));
    },
    before !== null ? { resource: resource.name, before } : { resource: resource.name },
  );
}

export async function readDeleted(
  resource: Resource,
  context: EngineContext,
  query: HistoryQuery,
): Promise<{
  data: DeletedRecord[];
  meta: { before: number | null; next: number | null; has_more: boolean };
}> {
  let read = 2;
  while (read < query.limit + 1) read *= 2;
  let rows = await readPage(resource, context, query.before, read);
  if (rows.some((row) => row.seq == null || (row.record != null && row.restore_seq == null))) {
    await numberCommitted(databaseOf(resource, context));
    rows = await readPage(resource, context, query.before, read);
  }
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const data = page.map((row): DeletedRecord => {
    const record = storedRecordOf(row);
    return {
      id: recordIdOf(row, resource.keyIsInteger),
      seq: Number(row.seq),
      at: new Date(Number(row.at)).toISOString(),
      actor: actorOfRow(row),
      restore_seq: row.restore_seq == null ? null : Number(row.restore_seq),
      record: record === null ? null : resource.show(record),
    };
  });
  const last = page[page.length - 1];
  return {
    data,
    meta: {
      before: query.before,
      next: hasMore && last ? Number(last.seq) : null,
      has_more: hasMore,
    },
  };
}
