// The projection rules of SPEC.md 2.2, compiled once per resource and view:
// 1 empty list = the full record; 2 a plain field; 3 `relation.field` -> `relation_field`;
// 4 `{alias: path}`; 5 the primary key always present unless hidden; 6 transformers last.
import type { Row } from '../../model/entity.js';
import type { ProjectionEntry, Transformer } from '../definition/resource-config.js';

export type Projector = (record: Row) => Row;

/** One key of a projected record: the response key and the path it reads in the full record. */
export interface Pick {
  readonly key: string;
  readonly path: readonly string[];
}

function valueAt(record: Row, path: readonly string[]): unknown {
  let value: unknown = record;
  for (const step of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Row)[step];
  }
  return value ?? null;
}

function picksOf(entries: readonly ProjectionEntry[]): Pick[] {
  const picks: Pick[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      const path = entry.split('.');
      picks.push({ key: path.join('_'), path });
    } else {
      for (const [alias, path] of Object.entries(entry))
        picks.push({ key: alias, path: path.split('.') });
    }
  }
  return picks;
}

/** The field names a projection reads at its first step, for boot-time checks. */
export function projectionRoots(entries: readonly ProjectionEntry[]): string[] {
  return picksOf(entries).map((p) => p.path[0] ?? '');
}

/**
 * The keys a non-empty projection answers, in order (SPEC.md 2.2 rules 2-5): hidden keys left
 * out, the primary key first when the list does not name it. The OpenAPI document reads these.
 */
export function projectionPicks(
  entries: readonly ProjectionEntry[],
  primaryKey: string,
  hidden: ReadonlySet<string>,
): Pick[] {
  const picks = picksOf(entries).filter((p) => !hidden.has(p.key));
  if (!hidden.has(primaryKey) && !picks.some((p) => p.key === primaryKey)) {
    picks.unshift({ key: primaryKey, path: [primaryKey] });
  }
  return picks;
}

export function compileProjection(
  entries: readonly ProjectionEntry[],
  primaryKey: string,
  hidden: ReadonlySet<string>,
  transformers: ReadonlyMap<string, Transformer>,
): Projector {
  const transform = (out: Row, record: Row): Row => {
    for (const [field, fn] of transformers) if (field in out) out[field] = fn(out[field], record);
    return out;
  };
  if (entries.length === 0) {
    // Hidden fields are already left out of the full record; transformers still apply. The
    // size is read per call: addTransformer() may fill an empty map after set-up.
    return (record) => (transformers.size === 0 ? record : transform({ ...record }, record));
  }
  const picks = projectionPicks(entries, primaryKey, hidden);
  return (record) => {
    const out: Row = {};
    for (const pick of picks) out[pick.key] = valueAt(record, pick.path);
    return transformers.size === 0 ? out : transform(out, record);
  };
}
