// Payload fields as the database stores them, and the timestamps the service maintains.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { writeCast } from '../../model/casts.js';
import type { Entity, Row } from '../../model/entity.js';

export function storedValues(entity: Entity, fields: Row, adapter: DialectAdapter): Row {
  const out: Row = {};
  for (const [field, value] of Object.entries(fields)) {
    if (!(field in entity.writeOnly)) out[field] = writeCast(entity.casts[field], value, adapter.toTimestamp);
  }
  return out;
}

/** Master fields as stored, write-only fields (a password) expanded into their columns. */
export async function storedMasterValues(entity: Entity, fields: Row, adapter: DialectAdapter): Promise<Row> {
  const out = storedValues(entity, fields, adapter);
  for (const [field, expand] of Object.entries(entity.writeOnly)) {
    if (fields[field] != null) Object.assign(out, await expand(fields[field]));
  }
  return out;
}

export function timestampValues(entity: Entity, adapter: DialectAdapter, now: Date, on: 'create' | 'update'): Row {
  const out: Row = {};
  const stamp = adapter.toTimestamp(now);
  if (on === 'create' && entity.timestamps.createdAt) out[entity.timestamps.createdAt] = stamp;
  if (entity.timestamps.updatedAt) out[entity.timestamps.updatedAt] = stamp;
  return out;
}
