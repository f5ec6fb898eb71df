// The labels of lookups' ids (`{data: [{id, label}]}`, issue 18), kept once seen: a form of 50
// rows naming 3 groups asks for 3 labels once. The pickers, the list's foreign-key columns and
// the names of who made a change read them here.
import type { LookupItem } from '../../../src/engine/description/metadata-types.js';
import { get } from './api.js';

/** Labels already seen, per lookup. */
const labels = new Map<string, Map<string, string>>();
const known = (lookup: string) => {
  let map = labels.get(lookup);
  if (!map) labels.set(lookup, (map = new Map()));
  return map;
};

/** The label of `id` if it was seen already. */
export function knownLabel(lookup: string, id: string): string | undefined {
  return labels.get(lookup)?.get(id);
}

/** Keeps the labels of `items`, answered by `lookup`. */
export function rememberLabels(lookup: string, items: readonly LookupItem[]): void {
  for (const item of items) known(lookup).set(String(item.id), item.label);
}

/** The labels of many ids (a list page's foreign keys), asked for in batches of the lookup's 20. */
export async function labelsOf(
  lookup: string,
  ids: readonly string[],
): Promise<ReadonlyMap<string, string>> {
  const missing = [...new Set(ids)].filter((id) => id !== '' && !known(lookup).has(id));
  const batches: string[][] = [];
  for (let i = 0; i < missing.length; i += 20) batches.push(missing.slice(i, i + 20));
  await Promise.all(
    batches.map(async (batch) => {
      const query = batch.map(encodeURIComponent).join(',');
      const answer = await get<{ data: LookupItem[] }>(`${lookup}?ids=${query}`);
      rememberLabels(lookup, answer.data);
    }),
  );
  return known(lookup);
}

export async function labelOf(lookup: string, id: string): Promise<string | null> {
  const cached = knownLabel(lookup, id);
  if (cached !== undefined) return cached;
  const answer = await get<{ data: LookupItem[] }>(`${lookup}?ids=${encodeURIComponent(id)}`);
  rememberLabels(lookup, answer.data);
  return known(lookup).get(id) ?? null;
}
