// A form's record saved by someone else (DESIGN.md 3.9): learnt from a refused save (412) or from
// the change feed. Their version is read once, what they changed is named, and the person
// chooses: keep their own changes on top of it (the next save then names its ETag) or load it.
// Nothing the person typed changes before they choose.
import { useRef, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { announce } from '../components/announcer.js';
import { ApiError } from './api.js';
import { changedLabels, mergeForms } from './form-merge.js';
import { type FormState, stateOf } from './form-values.js';
import { type ReadRecord, readRecord } from './record-read.js';

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

/** Who changed the record and when, as the change feed tells it. */
export interface ChangeOrigin {
  readonly by: string | null;
  readonly at: string | null;
}

export interface FormVersions {
  readonly form: FormState;
  readonly baseline: FormState;
  readonly etag: string | null;
}

export function useChangedElsewhere(
  meta: ResourceMeta,
  path: string,
  current: FormVersions | null,
  /** Makes `theirs` the form's version, with `form` in the inputs. */
  adopt: (theirs: ReadRecord, form: FormState) => void,
  /** Who and when, from the change feed, for a refused save (unknown without it). */
  originOf: () => Promise<ChangeOrigin> = async () => ({ by: null, at: null }),
) {
  const [change, setChange] = useState<ElsewhereChange | null>(null);
  const theirs = useRef<ReadRecord | null>(null);
  const latest = useRef(current);
  latest.current = current;

  const learn = async (refused: ElsewhereChange['refused'], told?: ChangeOrigin) => {
    const origin = told ?? (await originOf().catch(() => ({ by: null, at: null })));
    const known = latest.current;
    if (!known) return;
    const singular = meta.singular_label.toLowerCase();
    try {
      const read = await readRecord(path);
      // Our own save, or a version the form already holds: nothing to tell.
      if (refused === null && read.etag !== null && read.etag === known.etag) return;
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
    learn,
    keepMine: () => choose(true),
    loadTheirs: () => choose(false),
  };
}
