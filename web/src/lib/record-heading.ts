// A form's heading: New <resource> for a new record, else the resource's name with the record's
// title fields (or its id when they are empty).
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import type { RecordBody } from './record-read.js';

export function headingOf(
  meta: ResourceMeta,
  record: RecordBody | null,
  id: string | null,
): string {
  if (id === null) return `New ${meta.singular_label.toLowerCase()}`;
  const named = meta.title_fields
    .map((f) => record?.[f])
    .filter((v) => v !== null && v !== undefined && v !== '');
  return named.length > 0
    ? `${meta.singular_label}: ${named.join(' · ')}`
    : `${meta.singular_label} #${id}`;
}
