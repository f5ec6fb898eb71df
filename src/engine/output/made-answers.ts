// List answers made from a kept page (issue 22). On PostgreSQL a list's page is kept with the
// snapshot it was read in and answered again while that snapshot holds (actions/list.ts); the
// same request then makes the same JSON text from the same rows, so the text and its ETag are
// kept beside the page and made again only when the page is read anew. A made answer names the
// kept rows it was made from (weakly: the page memo decides how long they live) and stands only
// while they are still the kept ones.
import type { Resource } from '../definition/define-resource.js';

export interface MadeAnswer {
  readonly text: string;
  readonly etag: string;
  /** The cursors of the pages around (the Link header's). */
  readonly next: string | null;
  readonly prev: string | null;
}

interface Kept extends MadeAnswer {
  readonly from: WeakRef<object>;
}

/** Answers kept per process, and their characters; past either bound the store starts again. */
const LIMIT = 500;
const CHARACTERS_LIMIT = 16 * 1024 * 1024;
/** A longer answer is not kept: it would empty the store at once. */
const LONGEST_KEPT = CHARACTERS_LIMIT / 16;

/** By resource (its number here) and request. */
const store = new Map<string, Kept>();
let characters = 0;
const resourceIds = new WeakMap<Resource, number>();
let nextResourceId = 0;

/** How a list answer made from the kept rows `from` is kept, under `key` (the request). */
export interface AnswerMemo {
  /** The answer made earlier from the same rows for the same request, if any. */
  made(): MadeAnswer | undefined;
  keep(answer: MadeAnswer): void;
}

export function answerMemo(resource: Resource, from: object, key: string): AnswerMemo {
  let id = resourceIds.get(resource);
  if (id === undefined) resourceIds.set(resource, (id = nextResourceId++));
  const at = `${id}\u0000${key}`;
  return {
    made() {
      const found = store.get(at);
      return found && found.from.deref() === from ? found : undefined;
    },
    keep(answer) {
      const { text } = answer;
      if (text.length > LONGEST_KEPT) return;
      if (store.size >= LIMIT || characters + text.length > CHARACTERS_LIMIT) {
        store.clear();
        characters = 0;
      }
      store.set(at, { ...answer, from: new WeakRef(from) });
      // A replaced answer still counts until the next clear: a bound, not an exact sum.
      characters += text.length;
    },
  };
}
