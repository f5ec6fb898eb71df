// One record as every action answers it, by the value of a key column within the caller's
// scope: one statement (selectRecords), then assembleRecords.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { type RidingCheck, ridingOn } from '../../database/riding-check.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { assembleRecords } from './assemble-records.js';
import { ONE, recordsKey, selectRecords } from './select-records.js';

const RECORD = statementSite('one record');

/**
 * One record by the value of a key column, within the caller's scope, or null; with the stored
 * row it was assembled from: its hidden columns (the version an ETag is made of) come with the
 * same statement.
 */
export async function findRecordAndRow(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
  column: string,
  id: unknown,
  /** A check the record's statement carries (database/riding-check.ts). */
  riding?: RidingCheck,
): Promise<{ readonly record: Row; readonly row: Row } | null> {
  const { entity } = resource;
  const db = connections[entity.storage];
  const check = ridingOn(riding, db);
  const rows = await runStatement(
    db,
    [RECORD, ...recordsKey(connections, resource, scope, adapter), column, check?.key ?? null],
    () => {
      const query = selectRecords(connections, resource, scope, adapter)
        .where(`${entity.table}.${column}`, '=', param('id'))
        .limit(ONE);
      return check ? query.select(check.column()) : query;
    },
    check ? { id, ...check.values } : { id },
  );
  check?.read(rows);
  const [record] = await assembleRecords(connections, resource, scope, adapter, rows);
  const [row] = rows;
  return record && row ? { record, row } : null;
}
