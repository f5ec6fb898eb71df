// The id of show, update and delete: the route's last parameter, or on direct invocation the
// input field named like the primary key (SPEC.md 4.1). A malformed id is simply not found.

import { idOf } from '../../model/casts.js';
import type { Resource } from '../definition/define-resource.js';

export function parseKey(resource: Resource, raw: unknown): string | number | null {
  if (resource.keyIsInteger) return idOf(raw);
  if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
  return typeof raw === 'string' && raw.length > 0 && raw.length <= 255 ? raw : null;
}
