// Entity tags (RFC 9110 section 8.8.3) and the conditions of If-Match and If-None-Match (section
// 13.1.1-2): `*`, or a comma-separated list of tags, strong (`"3"`) or weak (`W/"3"`).
import type { Entity, Row } from '../../model/entity.js';

export interface EntityTag {
  readonly weak: boolean;
  /** The quoted part, quotes included: what two tags compare. */
  readonly opaque: string;
}

/** A header's condition: `*` (any current record), a list of tags, or null when absent. */
export type TagCondition = '*' | readonly EntityTag[] | null;

// etagc = %x21 / %x23-7E / obs-text: anything visible but a double quote.
const TAG = /(W\/)?("[\x21\x23-\x7E\x80-\xFF]*")/g;

/**
 * A header's value as a condition. Tags are read wherever they stand in the list; a value with
 * none (malformed) is an empty list, which no record matches.
 */
export function parseCondition(header: string | readonly string[] | undefined): TagCondition {
  if (header === undefined) return null;
  const value = typeof header === 'string' ? header : header.join(',');
  if (value.trim() === '*') return '*';
  return [...value.matchAll(TAG)].map((m) => ({ weak: m[1] !== undefined, opaque: m[2] ?? '' }));
}

function parseTag(tag: string): EntityTag {
  const weak = tag.startsWith('W/');
  return { weak, opaque: weak ? tag.slice(2) : tag };
}

/**
 * Whether `condition` holds for a current record whose tag is `current` (null: the record has
 * no version, so no listed tag can name it). Strong comparison (If-Match) needs both tags strong.
 */
export function conditionMatches(
  condition: '*' | readonly EntityTag[],
  current: string | null,
  comparison: 'strong' | 'weak',
): boolean {
  if (condition === '*') return true;
  if (current === null) return false;
  const tag = parseTag(current);
  return condition.some(
    (c) => c.opaque === tag.opaque && (comparison === 'weak' || (!c.weak && !tag.weak)),
  );
}

/** The strong ETag of a stored version: `"<version>"`. */
export function versionTag(version: unknown): string {
  return `"${String(version)}"`;
}

/** The strong ETag of a stored row of `entity`, or null when the entity keeps no version. */
export function rowTag(entity: Entity, row: Row): string | null {
  const column = entity.versionColumn;
  return column === null || row[column] == null ? null : versionTag(row[column]);
}

/** An action's answer with the ETag of the record it carries (null: the entity keeps no version). */
export interface TaggedRecord {
  readonly body: Row;
  readonly etag: string | null;
}
