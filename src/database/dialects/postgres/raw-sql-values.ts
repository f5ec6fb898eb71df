// Values of operator SQL on PostgreSQL (raw-sql.ts): bindings as parameter text, results made
// JSON-safe from PostgreSQL's text by type oid.
import type { RawBinding, RawValue } from '../../raw-sql.js';

// Type oids whose text is turned into another JSON type.
const BOOL = 16;
const BYTEA = 17;
const INT8 = 20;
const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

const ISO_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)(\+00)?$/;

/** `2026-01-02 03:04:05.678+00` (DateStyle ISO, UTC) as ISO-8601; infinity, BC and other zones as sent. */
function isoTimestamp(text: string): string {
  const match = ISO_TEXT.exec(text);
  return match ? `${match[1]}T${match[2]}${match[3] ? 'Z' : ''}` : text;
}

/**
 * JSON-safe values: booleans, integers (past 2^53 as decimal strings), floats (NaN and infinities
 * as text), bytea as base64, timestamps as ISO-8601; everything else as PostgreSQL's own text
 * (numeric exactly, json as written, arrays, intervals, dates).
 */
export function jsonValue(text: string | null, type: number): RawValue {
  if (text === null) return null;
  switch (type) {
    case BOOL:
      return text === 't';
    case INT2:
    case INT4:
    case OID:
      return Number(text);
    case INT8: {
      const value = Number(text);
      return Number.isSafeInteger(value) ? value : text;
    }
    case FLOAT4:
    case FLOAT8: {
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    }
    case BYTEA:
      return Buffer.from(text.slice(2), 'hex').toString('base64');
    case TIMESTAMP:
    case TIMESTAMPTZ:
      return isoTimestamp(text);
    default:
      return text;
  }
}

/** A binding as parameter text; PostgreSQL infers each parameter's type from where it is used. */
export const wireValue = (value: RawBinding): string | null =>
  value === null ? null : String(value);
