// mysql2's errors as operator SQL's refusals on MariaDB/MySQL (raw-sql.ts).
import type { QueryError } from 'mysql2';
import { RawSqlError, type RawSqlLimits, refusals } from '../../raw-sql.js';

/**
 * True when `sql` has text after a top-level `;`: used only to word a syntax error the server
 * has already raised (MySQL reports a second statement as ER_PARSE_ERROR like any other).
 * Skips quoted strings and identifiers and comments; `/*!...*\/` comments are code to MySQL.
 */
function hasSecondStatement(sql: string): boolean {
  let i = 0;
  let afterSemicolon = false;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1] ?? '';
    if (/\s/.test(c)) i += 1;
    else if (c === '#' || (c === '-' && next === '-' && /[\s]|^$/.test(sql[i + 2] ?? ''))) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && next === '*' && sql[i + 2] !== '!' && !sql.startsWith('/*M!', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (afterSemicolon) return true;
    else if (c === ';') {
      afterSemicolon = true;
      i += 1;
    } else if (c === "'" || c === '"' || c === '`') {
      i += 1;
      while (i < sql.length) {
        if (sql[i] === '\\' && c !== '`') i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i += 1;
      }
      i += 1;
    } else i += 1;
  }
  return false;
}

/** Server errors carry an SQL message; errors without one are the network's. */
const serverError = (error: unknown): error is QueryError & { sqlMessage: string } =>
  error instanceof Error && typeof (error as { sqlMessage?: unknown }).sqlMessage === 'string';

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

/** The statement's own refusals; `sql` words a parse error (see hasSecondStatement). */
export function refusalOf(error: unknown, limits: RawSqlLimits, sql = ''): unknown {
  if (error instanceof RawSqlError || PROGRAMMING_ERRORS.some((type) => error instanceof type))
    return error;
  const message = error instanceof Error ? error.message : String(error);
  // Lost connections, refused logins, an unknown database: the server is not there for us.
  if (!serverError(error) || error.fatal) return new RawSqlError('unavailable', message);
  switch (error.errno) {
    case 1792: // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
      return new RawSqlError('read-only', refusals.readOnly);
    case 1399: // ER_XAER_RMFAIL: a statement that would commit the XA transaction (DDL, LOCK, COMMIT)
      return limits.allowWrite
        ? new RawSqlError('invalid', error.sqlMessage)
        : new RawSqlError('read-only', refusals.readOnly);
    case 1969: // ER_STATEMENT_TIMEOUT (MariaDB's max_statement_time)
    case 3024: // ER_QUERY_TIMEOUT (MySQL's max_execution_time)
      return new RawSqlError('timeout', refusals.timeout(Math.trunc(limits.timeoutMs)));
    case 1064: // ER_PARSE_ERROR
      return hasSecondStatement(sql)
        ? new RawSqlError('multiple-statements', refusals.oneStatement)
        : new RawSqlError('invalid', error.sqlMessage);
    case 1065: // ER_EMPTY_QUERY
      return new RawSqlError('invalid', refusals.empty);
    default:
      return new RawSqlError('invalid', error.sqlMessage);
  }
}
