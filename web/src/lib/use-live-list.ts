// A list page that follows its resource's changes (DESIGN.md 3.9). Each batch of changes reads the
// page again with the same filters, sort and page (one request, whatever the batch's size, and
// only the records the page really shows count). A person not busy with the table sees the new
// page at once, new and changed rows marked; one whose focus (or pointer) is in it keeps the rows
// where they are, updated in place, and is offered the rest ("n new changes"), so nothing moves
// under them. A 410 reads the list again and follows from its Changes-Seq.
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { announce } from './announce.js';
import { ApiError, exchange, get } from './api.js';
import { type Change, type Follow, followChanges } from './change-feed.js';
import { changesSeqOf, type RecordBody } from './record-read.js';
import { useApp } from './session.js';

export interface ListAnswer {
  readonly data: RecordBody[];
  readonly meta: {
    readonly total: number;
    readonly per_page: number;
    readonly current_page: number;
    readonly last_page: number;
  };
}

export type RowMark = 'new' | 'changed' | 'deleted';
export type RowMarks = ReadonlyMap<string, RowMark>;

/** How long after the pointer last moved over the table the person counts as busy with it. */
const POINTER_MS = 3_000;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function useLiveList(
  meta: ResourceMeta,
  query: string,
  area: RefObject<HTMLElement | null>,
) {
  const { session } = useApp();
  const [answer, setAnswer] = useState<ListAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [marks, setMarks] = useState<RowMarks>(new Map());
  /** The page as it is now, offered while the table shows the rows where they were. */
  const [offer, setOffer] = useState<{ answer: ListAnswer; count: number } | null>(null);
  const [epoch, setEpoch] = useState(0);
  const shown = useRef(answer);
  shown.current = answer;
  const asked = useRef(query);
  asked.current = query;
  const follow = useRef<Follow | null>(null);
  const pointerAt = useRef(0);
  const keyOf = (row: RecordBody) => String(row[meta.key]);

  const busy = () => {
    const element = area.current;
    return (
      !!element &&
      (element.contains(document.activeElement) || Date.now() - pointerAt.current < POINTER_MS)
    );
  };

  useEffect(() => {
    const element = area.current;
    const moved = () => {
      pointerAt.current = Date.now();
    };
    element?.addEventListener('pointermove', moved);
    return () => element?.removeEventListener('pointermove', moved);
  }, []);

  const onChanges = async (changes: readonly Change[]) => {
    const deleted = new Set(changes.filter((c) => c.action === 'deleted').map((c) => String(c.id)));
    const wanted = asked.current;
    const fresh = await get<ListAnswer>(`${meta.path}${wanted}`);
    const before = shown.current;
    if (wanted !== asked.current || !before) return;
    const beforeKeys = before.data.map(keyOf);
    const freshRows = new Map(fresh.data.map((row) => [keyOf(row), row]));
    const appeared = fresh.data.map(keyOf).filter((k) => !beforeKeys.includes(k));
    const vanished = beforeKeys.filter((k) => !freshRows.has(k));
    const changed = before.data
      .filter((row) => {
        const now = freshRows.get(keyOf(row));
        return now !== undefined && JSON.stringify(now) !== JSON.stringify(row);
      })
      .map(keyOf);
    // The rows both show, in each one's order: where they differ, a row would move.
    const common = beforeKeys.filter((k) => freshRows.has(k));
    const freshCommon = fresh.data.map(keyOf).filter((k) => beforeKeys.includes(k));
    const moved = common.filter((k, i) => freshCommon[i] !== k);
    const out = new Set([...appeared, ...vanished, ...moved]);
    const next = new Map(marks);
    for (const k of changed) next.set(k, 'changed');

    if (!busy()) {
      for (const k of appeared) next.set(k, 'new');
      setAnswer(fresh);
      setMarks(next);
      setOffer(null);
      const said = [
        appeared.length > 0 ? `${appeared.length} new` : '',
        changed.length > 0 ? `${changed.length} changed` : '',
        vanished.length > 0 ? `${vanished.length} removed` : '',
      ].filter(Boolean);
      if (said.length > 0) announce(`${meta.label}: ${said.join(', ')}.`);
      return;
    }
    // Busy: every row stays where it is, with its new values; the rest is offered.
    for (const k of vanished)
      next.set(k, deleted.has(k) || marks.get(k) === 'deleted' ? 'deleted' : 'changed');
    setAnswer({
      data: before.data.map((row) => freshRows.get(keyOf(row)) ?? row),
      meta: fresh.meta,
    });
    setMarks(next);
    setOffer(out.size > 0 ? { answer: fresh, count: out.size } : null);
    if (out.size > 0 && out.size !== offer?.count)
      announce(`${meta.label}: ${plural(out.size, 'new change')}. Show changes to see them.`);
    else if (changed.length > 0) announce(`${meta.label}: ${changed.length} changed.`);
  };

  const onGone = () => {
    follow.current = null;
    setEpoch((n) => n + 1);
  };

  useEffect(() => {
    let live = true;
    setLoading(true);
    exchange<ListAnswer>('GET', `${meta.path}${query}`).then(
      ({ data, headers }) => {
        if (!live) return;
        setAnswer(data);
        setMarks(new Map());
        setOffer(null);
        setError(null);
        setLoading(false);
        const seq = changesSeqOf(headers);
        if (seq !== null && !follow.current)
          follow.current = followChanges(meta.path, seq, (c) => onChangesRef.current(c), onGone, {
            resource: meta.name,
            userId: session.user.id,
          });
      },
      (failure: unknown) => {
        if (!live) return;
        setError(failure instanceof ApiError ? failure.message : 'The list could not be read.');
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [meta.path, query, epoch]);

  // The follow outlives renders: it calls the newest onChanges (which sees the newest state).
  const onChangesRef = useRef(onChanges);
  onChangesRef.current = onChanges;
  useEffect(
    () => () => {
      follow.current?.stop();
      follow.current = null;
    },
    [],
  );

  /** Shows the offered page; the focus goes to its first new row, else to the table. */
  const showOffer = () => {
    if (!offer) return;
    const before = new Set((shown.current?.data ?? []).map(keyOf));
    const appeared = offer.answer.data.map(keyOf).filter((k) => !before.has(k));
    const next = new Map([...marks].filter(([, mark]) => mark !== 'deleted'));
    for (const k of appeared) next.set(k, 'new');
    setAnswer(offer.answer);
    setMarks(next);
    setOffer(null);
    announce(`${meta.label}: showing ${plural(offer.count, 'change')}.`);
    requestAnimationFrame(() => {
      const target =
        appeared.length > 0
          ? area.current?.querySelector<HTMLElement>('tr.row-new a')
          : area.current?.querySelector<HTMLElement>('.table-wrap');
      (target ?? area.current?.querySelector<HTMLElement>('.table-wrap'))?.focus();
    });
  };

  return { answer, error, loading, marks, offered: offer?.count ?? 0, showOffer };
}
