// pg's errors as operator SQL's refusals on PostgreSQL (raw-sql.ts).
import pg from 'pg';
import { RawSqlError, refusals } from '../../raw-sql.js';

/** PgBouncer's answers when no server connection can be had (it sends them as 08P01). */
const POOLER_UNAVAILABLE =
  /query_wait_timeout|server login has been failing|no more connections allowed|server conn crashed/;

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

/** pg's errors as refusals: the server's SQLSTATE decides; anything without one is the connection. */
export function refusalOf(error: unknown, timeoutMs: number): unknown {
  if (error instanceof RawSqlError || PROGRAMMING_ERRORS.some((type) => error instanceof type))
    return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof pg.DatabaseError)) return new RawSqlError('unavailable', message);
  const code = error.code ?? '';
  if (code === '57014') return new RawSqlError('timeout', refusals.timeout(timeoutMs));
  if (code === '25006') return new RawSqlError('read-only', refusals.readOnly);
  // 42601 is every syntax error; this one is Parse refusing a second command.
  if (code === '42601' && /multiple commands/.test(message))
    return new RawSqlError('multiple-statements', refusals.oneStatement);
  // Connection exceptions, shutdowns, resources, authorization, a database that does not exist;
  // not 08P01, which is also a Bind with the wrong number of parameters (the session goes on).
  // PgBouncer's own refusals are 08P01 too: a server it cannot reach or log in to.
  if (code === '08P01' && POOLER_UNAVAILABLE.test(message))
    return new RawSqlError('unavailable', message);
  if ((/^(08|53|57P|28)/.test(code) && code !== '08P01') || code === '3D000')
    return new RawSqlError('unavailable', message);
  return new RawSqlError('invalid', message);
}
