// What records went through, newest first, as the History panel and the deleted records read it
// (DESIGN.md 3.11): 20 at a time, older pages by `before`, who did each (a user's name, looked
// up), and Restore after a confirmation, its failure shown like a failed read.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { actorName, type Change } from './change-feed.js';
import { query } from './endpoints.js';

interface PastPage<T> {
  readonly data: readonly T[];
  readonly meta: { readonly next: number | null; readonly has_more: boolean };
}

/** A revision or a deleted record: its change's seq and who made it. */
export interface Past {
  readonly seq: number;
  readonly actor: Change['actor'];
}

export interface PastPages<T extends Past> {
  /** Null until the first page is read. */
  readonly items: readonly T[] | null;
  /** Who made each item's change, by seq, once looked up. */
  readonly names: Readonly<Record<number, string>>;
  readonly error: string | null;
  /** Reads the next older page; null when there is none. */
  readonly older: (() => void) | null;
  /** The item whose restore awaits confirmation. */
  readonly confirming: T | null;
  confirm(item: T | null): void;
  /** Runs the confirmed restore; a failure shows as `error` (`failure` when the answer says none). */
  restore(work: (item: T) => Promise<void>, failure: string): Promise<void>;
}

/** The pages of `path` (read again when `path` or `version` moves); `failure` if unreadable. */
export function usePastPages<T extends Past>(
  path: string,
  failure: string,
  version: unknown = null,
): PastPages<T> {
  const [items, setItems] = useState<readonly T[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [names, setNames] = useState<Record<number, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [confirming, confirm] = useState<T | null>(null);
  const shown = (fallback: string) => (e: unknown) =>
    setError(e instanceof ApiError ? e.message : fallback);

  const load = async (before: number | null) => {
    const page = await get<PastPage<T>>(`${path}${query({ limit: 20, before })}`);
    setItems((known) => (before === null ? page.data : [...(known ?? []), ...page.data]));
    setNext(page.meta.has_more ? page.meta.next : null);
    for (const item of page.data) {
      const name = await actorName(item);
      setNames((known) => ({ ...known, [item.seq]: name }));
    }
  };
  useEffect(() => {
    load(null).catch(shown(failure));
  }, [path, version]);

  return {
    items,
    names,
    error,
    older: next === null ? null : () => load(next).catch(shown(failure)),
    confirming,
    confirm,
    async restore(work, restoreFailure) {
      if (!confirming) return;
      confirm(null);
      setError(null);
      await work(confirming).catch(shown(restoreFailure));
    },
  };
}
