// Casts: how a column's stored value becomes JSON, and how a payload value is stored.
// Compiled once per entity; each engine's driver differences (bigint strings, Date objects,
// 0/1 booleans) are absorbed here so every engine answers the same JSON.

export type CastType = 'integer' | 'float' | 'string' | 'boolean' | 'json' | 'datetime';

export type ReadCast = (value: unknown) => unknown;

function toIso(value: unknown): unknown {
  if (value == null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') {
    // Stored ISO text is returned as is; other textual forms ("2024-01-01 10:00:00") are UTC.
    if (value.length === 24 && value.endsWith('Z') && value[10] === 'T') return value;
    const parsed = new Date(
      /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`,
    );
    return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString();
  }
  if (typeof value === 'number') return new Date(value).toISOString();
  return value;
}

/** A stored timestamp (Date, ISO or SQL text) as milliseconds since the epoch, or null. */
export function toMillis(value: unknown): number | null {
  if (value == null) return null;
  const time = value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
  return Number.isNaN(time) ? null : time;
}

/** A record id from a payload or a path: a non-negative safe integer, or its digits; else null. */
export function idOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/**
 * A detail row's id as a payload names it (DESIGN.md 3.5): a JSON integer, or its canonical
 * decimal string ("12", never "012", " 12", "+12" or "12.0"); else null. Stricter than `idOf`:
 * a payload id is compared with stored ids, and "01" must not pass for a different row than 1.
 */
export function rowIdOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value !== 'string' || !/^(?:0|[1-9]\d{0,15})$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : null;
}

export const readCasts: Record<CastType, ReadCast> = {
  integer: (v) => (v == null ? null : typeof v === 'number' ? v : Number(v)),
  float: (v) => (v == null ? null : Number(v)),
  string: (v) => (v == null ? null : typeof v === 'string' ? v : String(v)),
  boolean: (v) =>
    v == null ? null : v === true || v === 1 || v === '1' || v === 't' || v === 'true',
  json: (v) => {
    if (typeof v !== 'string') return v ?? null;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  },
  datetime: toIso,
};

/** A payload value in the form the database stores; `toTimestamp` comes from the dialect adapter. */
export function writeCast(
  type: CastType | undefined,
  value: unknown,
  toTimestamp: (d: Date) => unknown,
): unknown {
  if (value == null) return null;
  switch (type) {
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 'true' ? 1 : 0;
    case 'datetime': {
      const date = value instanceof Date ? value : new Date(String(value));
      return Number.isNaN(date.getTime()) ? value : toTimestamp(date);
    }
    case 'integer':
      return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    default:
      return typeof value === 'boolean' ? (value ? 1 : 0) : value;
  }
}

/** The storage type a cast guarantees; used to refuse, with a 422, values a column cannot hold. */
export function storableAs(type: CastType | undefined, value: unknown): boolean {
  if (value == null) return true;
  switch (type) {
    case 'json':
      return true;
    case 'integer':
      return (
        (typeof value === 'number' && Number.isSafeInteger(value)) ||
        (typeof value === 'string' && /^-?\d{1,15}$/.test(value))
      );
    case 'float':
      return (
        (typeof value === 'number' && Number.isFinite(value)) ||
        (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      );
    case 'boolean':
      return [true, false, 0, 1, '0', '1', 'true', 'false'].includes(value as never);
    case 'datetime':
      return (
        (typeof value === 'string' || typeof value === 'number') &&
        !Number.isNaN(new Date(value).getTime())
      );
    default:
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  }
}
