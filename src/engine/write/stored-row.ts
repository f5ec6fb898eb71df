// The stored master row a write is about to change, locked for the rest of its transaction, with
// the stored rows of its detail relations where the engine embeds them in the same statement.
import type { Db } from '../../database/db.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { HasMany, Row } from '../../model/entity.js';
import { embeddedRows, embeddedStoredRows } from '../../model/relations/eager-load.js';
import { type Scope, scopeConditions, scopeKey } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { embeddedColumn } from '../output/record-layout.js';
import { ONE, type Select } from '../output/select-records.js';

const STORED_ROW = statementSite('stored row for a write');

/**
 * The stored master row a write is about to change, locked for the rest of its transaction.
 * With `details` (relations from `embeddedRelations`), the same statement also reads each one's
 * stored rows within the caller's scope, as `storedDetailRows` gives them back.
 */
export async function findStoredRow(
  db: Db,
  resource: Resource,
  scope: Scope,
  id: unknown,
  adapter: DialectAdapter,
  details: ReadonlyArray<readonly [string, HasMany]> = [],
  /** Also read the version column as the statement's sub-queries see it: as SEEN_VERSION. */
  seenVersion = false,
): Promise<Row | undefined> {
  const { entity } = resource;
  const version = seenVersion ? entity.versionColumn : null;
  const [row] = await runStatement(
    db,
    [
      STORED_ROW,
      resource,
      scopeKey([entity, ...details.map(([, relation]) => relation.target())], scope),
      version,
      ...details.flat(),
    ],
    () => {
      let query = scopeConditions(entity, scope).where.reduce(
        (q, w) => q.where(w),
        db.selectFrom(entity.table).select(entity.columns),
      ) as Select;
      for (const [name, relation] of details) {
        if (!adapter.childRows) break;
        query = query.select(
          embeddedRows(relation, entity.table, scope, adapter.childRows).as(embeddedColumn(name)),
        );
      }
      if (version)
        query = query.select((eb) =>
          eb
            .selectFrom(`${entity.table} as snapshot_row`)
            .select(`snapshot_row.${version}`)
            .whereRef(
              `snapshot_row.${entity.primaryKey}`,
              '=',
              `${entity.table}.${entity.primaryKey}`,
            )
            .as(SEEN_VERSION),
        );
      return adapter.lockForUpdate(
        query.where(`${entity.table}.${resource.primaryKey}`, '=', param('id')).limit(ONE),
      );
    },
    { id },
  );
  return row as Row | undefined;
}

/** findStoredRow's column of the version its sub-queries saw (the alias its SQL has always had). */
export const SEEN_VERSION = '$snapshot_version';

/** The stored rows of detail relation `name` that `findStoredRow` read with the master row. */
export function storedDetailRows(
  row: Row,
  name: string,
  relation: HasMany,
  adapter: DialectAdapter,
): Row[] {
  return embeddedStoredRows(relation, adapter)(row[embeddedColumn(name)]);
}
