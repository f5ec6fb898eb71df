// sort and direction (SPEC.md 4.2 rules 2 and 3): a column outside sortable is ignored, then
// defaultOrder applies; any direction other than desc is asc.
import type { Order } from '../definition/define-resource.js';
import type { Input } from './input.js';

export function parseSort(
  input: Input,
  sortable: ReadonlySet<string>,
  defaultOrder: Order | null,
): Order | null {
  const column = input.sort;
  if (typeof column === 'string' && sortable.has(column)) {
    const direction =
      typeof input.direction === 'string' && input.direction.toLowerCase() === 'desc'
        ? 'desc'
        : 'asc';
    return { column, direction };
  }
  return defaultOrder;
}
