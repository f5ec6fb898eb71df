// A form's record saved by someone else (DESIGN.md 3.9): learnt from the resource's change feed
// (followed from the show's Changes-Seq) or from a refused save (412). Their version is read
// once, what they changed is named with who and when, and the person chooses: keep their own
// changes on top of it (the next save then names its ETag) or load it. Nothing the person
// typed changes before they choose.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { announce } from './announce.js';
import { ApiError } from './api.js';
import { actorName, type Change, type Follow, followChanges } from './change-feed.js';
import { changedLabels, mergeForms } from './form-merge.js';
import { type FormState, payloadOf, samePayload, stateOf } from './form-values.js';
import { type ReadRecord, readRecord, recordPath } from './record-read.js';
import { useApp } from './session.js';

export interface ElsewhereChange {
  /** Which write of ours was refused (412), or null: the feed told of the change first. */
  readonly refused: 'save' | 'delete' | null;
  /** Who saved it (a name), when known. */
  readonly by: string | null;
  /** When (ISO-8601), when known. */
  readonly at: string | null;
  /** The labels of the fields and relations their version changed. */
  readonly changed: readonly string[];
  /** The record no longer exists. */
  readonly deleted: boolean;
}

export interface FormVersions {
  readonly form: FormState;
  readonly baseline: FormState;
  readonly etag: string | null;
}

interface Origin {
  readonly by: string | null;
  readonly at: string | null;
}

const UNKNOWN: Origin = { by: null, at: null };

async function originOf(change: Change | null): Promise<Origin> {
  return change ? { by: await actorName(change), at: change.at } : UNKNOWN;
}

export function useChangedElsewhere(
  meta: ResourceMeta,
  id: string | null,
  current: FormVersions | null,
  /** Makes `theirs` the form's version, with `form` in the inputs. */
  adopt: (theirs: ReadRecord, form: FormState) => void,
) {
  const { session } = useApp();
  const path = recordPath(meta, id);
  const [change, setChange] = useState<ElsewhereChange | null>(null);
  const theirs = useRef<ReadRecord | null>(null);
  const latest = useRef(current);
  latest.current = current;
  const follow = useRef<Follow | null>(null);
  /** The newest change of this record the feed has shown. */
  const last = useRef<Change | null>(null);
  const singular = meta.singular_label.toLowerCase();

  const learn = async (refused: ElsewhereChange['refused'], told?: Change) => {
    if (refused !== null) await follow.current?.pull();
    const origin = await originOf(told ?? last.current).catch(() => UNKNOWN);
    const known = latest.current;
    if (!known) return;
    try {
      const read = await readRecord(path);
      // Our own save, or a version the form already holds: nothing to tell. Without a version,
      // what the form was loaded from or holds now (a save of ours) is that version.
      const stored = payloadOf(meta, stateOf(meta, read.record));
      const same =
        read.etag !== null
          ? read.etag === known.etag
          : samePayload(stored, payloadOf(meta, known.baseline)) ||
            samePayload(stored, payloadOf(meta, known.form));
      if (refused === null && same) return;
      theirs.current = read;
      const changed = changedLabels(meta, known.baseline, stateOf(meta, read.record));
      setChange({ refused, ...origin, changed, deleted: false });
      if (refused === null)
        announce(`This ${singular} was changed${origin.by ? ` by ${origin.by}` : ''}.`);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      theirs.current = null;
      setChange({ refused, ...origin, changed: [], deleted: true });
      if (refused === null)
        announce(`This ${singular} was deleted${origin.by ? ` by ${origin.by}` : ''}.`);
    }
  };

  /** The form's write under way, and the ETags its writes gave: never someone else's. */
  const writing = useRef<Promise<unknown> | null>(null);
  const ours = useRef(new Set<string>());
  const write = <T extends { readonly headers: Headers }>(request: Promise<T>): Promise<T> => {
    writing.current = request;
    request.then((answer) => {
      const tag = answer.headers.get('etag');
      if (tag) ours.current.add(tag);
    }, ignore);
    return request;
  };

  const onChanges = async (changes: readonly Change[]) => {
    const mine = changes.filter((c) => String(c.id) === id);
    const newest = mine[mine.length - 1];
    if (!newest) return;
    last.current = newest;
    // A push can come before the answer of the save that made it: that save is waited for.
    await writing.current?.catch(ignore);
    if (newest.version != null && ours.current.has(`"${String(newest.version)}"`)) return;
    await learn(null, newest);
  };

  /** Follows the record's changes from the Changes-Seq of its show (null: no feed). */
  const watch = (seq: number | null) => {
    if (seq === null || follow.current) return;
    const live = { resource: meta.name, userId: session.user.id };
    follow.current = followChanges(
      meta.path,
      seq,
      onChanges,
      () => {
        // Fell behind the feed's retention: read the record again and follow from there.
        follow.current = null;
        readRecord(path).then((read) => {
          watch(read.seq);
          return learn(null);
        }, ignore);
      },
      live,
    );
  };
  useEffect(() => () => follow.current?.stop(), []);

  const choose = (keepMine: boolean) => {
    const known = latest.current;
    const read = theirs.current;
    if (!known || !read) return;
    const theirState = stateOf(meta, read.record, known.form);
    adopt(read, keepMine ? mergeForms(known.baseline, known.form, theirState) : theirState);
    setChange(null);
    theirs.current = null;
    announce(
      keepMine
        ? 'Your changes are kept on top of their version. Save to store them.'
        : 'Their version is loaded.',
    );
  };

  return {
    change,
    watch,
    write,
    learn,
    keepMine: () => choose(true),
    loadTheirs: () => choose(false),
  };
}

const ignore = () => {};
