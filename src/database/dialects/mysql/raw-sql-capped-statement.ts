// One operator statement on MariaDB/MySQL (raw-sql.ts), its first result set's rows kept up to the
// row cap and the answer's byte bound; read-only, a statement past either is cut off.
import type { FieldPacket, PoolConnection } from 'mysql2';
import { rowBytes } from '../../../support/answer-budget.js';
import type { RawBinding, RawSqlLimits } from '../../raw-sql.js';

export interface CappedOutcome {
  readonly error: unknown;
  readonly fields: readonly FieldPacket[];
  readonly rows: unknown[][];
  readonly truncated: boolean;
  /** The rows passed the answer's byte bound: none are kept. */
  readonly tooLarge: boolean;
  /** Read-only and cut at the row after the cap: the statement is still running on the server. */
  readonly cut: boolean;
}

/** Runs the statement, keeping the first result set's rows up to the cap. */
export const cappedStatement = (
  connection: PoolConnection,
  sql: string,
  values: readonly RawBinding[],
  limits: RawSqlLimits,
): Promise<CappedOutcome> =>
  new Promise((resolve) => {
    let fields: FieldPacket[] | null = null;
    let firstSet: unknown;
    const rows: unknown[][] = [];
    let truncated = false;
    let tooLarge = false;
    let bytes = 0;
    const finish = (error: unknown, cut = false) =>
      resolve({ error, fields: fields ?? [], rows, truncated, tooLarge, cut });
    const query = connection.execute({ sql, values: [...values], rowsAsArray: true });
    query.on('fields', (received: FieldPacket[], index: unknown) => {
      if (fields !== null) return;
      fields = received;
      firstSet = index;
    });
    query.on('result', (row: unknown, index: unknown) => {
      // An OK packet (a statement without rows) or a later result set (CALL) is not kept.
      if (fields === null || index !== firstSet || !Array.isArray(row) || tooLarge) return;
      if (rows.length < limits.maxRows) {
        bytes += rowBytes(row);
        if (bytes <= limits.maxAnswerBytes) rows.push(row);
        else {
          tooLarge = true;
          rows.length = 0;
          if (!limits.allowWrite) finish(null, true);
        }
      } else if (!truncated) {
        truncated = true;
        if (!limits.allowWrite) finish(null, true);
      }
    });
    query.on('error', (error: unknown) => finish(error));
    query.on('end', () => finish(null));
  });
