// Payload fields as the database stores them, and the timestamps the service maintains.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { writeCast } from '../../model/casts.js';
import type { Entity, Row } from '../../model/entity.js';

/** `fields` as stored, write-only ones and `skip` (a detail row's key) left out. */
export function storedValues(
  entity: Entity,
  fields: Row,
  adapter: DialectAdapter,
  skip?: string,
): Row {
  const out: Row = {};
  for (const field in fields) {
    if (field !== skip && !(field in entity.writeOnly))
      out[field] = writeCast(entity.casts[field], fields[field], adapter.toTimestamp);
  }
  return out;
}

/** Master fields as stored, write-only fields (a password) expanded into their columns. */
export async function storedMasterValues(
  entity: Entity,
  fields: Row,
  adapter: DialectAdapter,
): Promise<Row> {
  const out = storedValues(entity, fields, adapter);
  for (const [field, expand] of Object.entries(entity.writeOnly)) {
    if (fields[field] != null) Object.assign(out, await expand(fields[field]));
  }
  return out;
}

export function timestampValues(
  entity: Entity,
  adapter: DialectAdapter,
  now: Date,
  on: 'create' | 'update',
): Row {
  const out: Row = {};
  const { createdAt, updatedAt } = entity.timestamps;
  // Most detail tables keep no timestamps: no date formatted for them.
  if (!(on === 'create' && createdAt) && !updatedAt) return out;
  const stamp = adapter.toTimestamp(now);
  if (on === 'create' && createdAt) out[createdAt] = stamp;
  if (updatedAt) out[updatedAt] = stamp;
  return out;
}
