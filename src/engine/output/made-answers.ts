// List answers made from a kept page (issue 22). On PostgreSQL a list's page is kept with the
// snapshot it was read in and answered again while that snapshot holds (actions/list.ts); the
// same request then makes the same JSON text from the same rows, so the text and its ETag are
// kept beside the page and made again only when the page is read anew: a made answer is found
// through the kept rows it was made from, so it stands only while they are the kept ones.
import type { Resource } from '../definition/define-resource.js';

export interface MadeAnswer {
  readonly text: string;
  readonly etag: string;
  /** The cursors of the pages around (the Link header's). */
  readonly next: string | null;
  readonly prev: string | null;
}

/** Answers kept per process, and their characters; past either bound the store starts again. */
const LIMIT = 500;
const CHARACTERS_LIMIT = 16 * 1024 * 1024;
/** A longer answer is not kept: it would empty the store at once. */
const LONGEST_KEPT = CHARACTERS_LIMIT / 16;

/**
 * By the kept rows they were made from (weakly: the page memo decides how long those live), then
 * by resource (its number here) and request. Starting again is a new map.
 */
let store = new WeakMap<object, Map<string, MadeAnswer>>();
let entries = 0;
let characters = 0;
const resourceIds = new WeakMap<Resource, number>();
let nextResourceId = 0;

/** How a list answer made from the kept rows `from` is kept, under `key` (the request). */
export interface AnswerKeeper {
  /** The answer made earlier from the same rows for the same request, if any. */
  made(): MadeAnswer | undefined;
  keep(answer: MadeAnswer): void;
}

export function answerKeeper(resource: Resource, from: object, key: string): AnswerKeeper {
  let id = resourceIds.get(resource);
  if (id === undefined) resourceIds.set(resource, (id = nextResourceId++));
  const at = `${id}\u0000${key}`;
  return {
    made: () => store.get(from)?.get(at),
    keep(answer) {
      if (answer.text.length > LONGEST_KEPT) return;
      if (entries >= LIMIT || characters + answer.text.length > CHARACTERS_LIMIT) {
        store = new WeakMap();
        entries = 0;
        characters = 0;
      }
      let answers = store.get(from);
      if (!answers) store.set(from, (answers = new Map()));
      answers.set(at, answer);
      // A replaced answer still counts until the next start: a bound, not an exact sum.
      entries += 1;
      characters += answer.text.length;
    },
  };
}
