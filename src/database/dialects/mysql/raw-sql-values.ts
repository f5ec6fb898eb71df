// Result values of operator SQL on MariaDB/MySQL (raw-sql.ts), made JSON-safe by column type.
import type { FieldPacket } from 'mysql2';
import type { RawValue } from '../../raw-sql.js';

// Column types (mysql2's numbering, the protocol's) whose values are converted.
const FLOAT = 4;
const TIMESTAMP = 7;
const DATETIME = 12;

const DATETIME_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)$/;

/** A FLOAT as the shortest decimal that is the same single-precision number (0.1, not 0.10000000149011612). */
function float32(value: number): number {
  for (let precision = 1; precision <= 9; precision += 1) {
    const shorter = Number(value.toPrecision(precision));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

/**
 * JSON-safe values: integers (past 2^53 as decimal strings), DECIMAL exactly as text, FLOAT as its
 * shortest text, DATETIME as ISO-8601 (TIMESTAMP with Z: the session runs in UTC), binary strings
 * and BIT as base64, JSON as written; zero dates as the server writes them.
 */
export function jsonValue(value: unknown, field: FieldPacket | undefined): RawValue {
  if (value === null || value === undefined) return null;
  const type = field?.columnType;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    return type === FLOAT ? float32(value) : value;
  }
  if (typeof value === 'bigint')
    return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
      ? Number(value)
      : value.toString();
  if (typeof value === 'string') {
    const match = type === DATETIME || type === TIMESTAMP ? DATETIME_TEXT.exec(value) : null;
    if (!match || value.startsWith('0000-')) return value;
    return `${match[1]}T${match[2]}${type === TIMESTAMP ? 'Z' : ''}`;
  }
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value;
  return JSON.stringify(value);
}
