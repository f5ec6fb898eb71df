// An answer's JSON text (issue 19 item 2: no request holds the others hostage). Up to
// `streamAbove` characters it is one string, as JSON.stringify makes it; past that, a list of
// large records (1 MiB descriptions, 1,000 detail rows each) would be a string of 100+ MB built
// and written in one go, holding the event loop for seconds. So the rest is a stream: each array
// item is serialised on its own, in chunks of about CHUNK characters, each chunk only when the
// socket has taken the last one (backpressure) and after a turn of the event loop. The bytes
// are the same either way: JSON.stringify of an object is its members' serialisations joined.
// With a share (support/answer-budget.ts), the answer owns the body: each array item is let go
// once serialised, and what the share was charged is given back as the chunks are written.
import { Readable } from 'node:stream';
import type { AnswerShare } from '../../support/answer-budget.js';
import { nextTurn } from '../../support/turns.js';

/** Characters per streamed chunk: few enough writes, small enough to serialise in well under 10 ms. */
const CHUNK = 64 * 1024;

/**
 * The pieces of `JSON.stringify(body)` in order: an array member's items one by one, every
 * other member whole. Only a plain object's own arrays are split (an answer's `data`).
 * `letGo`: each item is removed from its array once serialised, so it can be collected while
 * the rest is written.
 */
function* pieces(body: unknown, letGo: boolean): Generator<string> {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || 'toJSON' in body) {
    yield JSON.stringify(body);
    return;
  }
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    const prefix = `${first ? '{' : ','}${JSON.stringify(key)}:`;
    if (Array.isArray(value) && !('toJSON' in value)) {
      first = false;
      yield `${prefix}[`;
      for (let i = 0; i < value.length; i += 1) {
        yield* itemPieces(value[i], i === 0 ? '' : ',');
        if (letGo) value[i] = undefined;
      }
      yield ']';
      continue;
    }
    const text = JSON.stringify(value);
    // A member with no JSON form (undefined, a function) is left out, as JSON.stringify does.
    if (text === undefined) continue;
    yield prefix + text;
    first = false;
  }
  yield first ? '{}' : '}';
}

/** A string at least this long is written as it is, when JSON has nothing in it to escape. */
const LARGE = CHUNK;
/** What JSON.stringify escapes in a string: quotes, backslashes, controls, surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `separator`, then the pieces of `JSON.stringify(item)`: one piece for most items. A record's
 * large strings (a 1 MiB description) are yielded as they are, between their quotes, when they
 * hold nothing to escape: not copied
 * into a new string by JSON.stringify and again into a chunk, garbage that held the heap at
 * gigabytes under ten large lists (issue 19 item 2). Only a plain object's own members are
 * looked at; anything else is JSON.stringify's. A member's toJSON is called without its key
 * (a Date's ignores it).
 */
function* itemPieces(item: unknown, separator: string): Generator<string> {
  if (!holdsLargeString(item)) {
    // As JSON.stringify does in an array: what has no JSON form is null.
    yield separator + (JSON.stringify(item) ?? 'null');
    return;
  }
  let text = `${separator}{`;
  let first = true;
  for (const [key, value] of Object.entries(item)) {
    const large = typeof value === 'string' && value.length >= LARGE && !ESCAPED.test(value);
    const member = large ? '"' : JSON.stringify(value);
    if (member === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
    first = false;
    if (!large) continue;
    yield text;
    yield value;
    text = '"';
  }
  yield `${text}}`;
}

/** A plain object with a string member of LARGE characters or more: most records have none. */
function holdsLargeString(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || 'toJSON' in value) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === 'string' && member.length >= LARGE) return true;
  }
  return false;
}

/**
 * The JSON text of `body`: a string up to `streamAbove` characters, else a stream of its pieces.
 * `share`: what the answer is charged for its body, given back as the text is written (all of it
 * once the string is made, or when the stream closes, written, failed or cut off); the body is
 * then consumed.
 */
export function jsonAnswer(
  body: unknown,
  streamAbove: number,
  share?: AnswerShare,
): string | Readable {
  const parts = pieces(body, share !== undefined);
  const head: string[] = [];
  let length = 0;
  for (let next = parts.next(); !next.done; next = parts.next()) {
    head.push(next.value);
    length += next.value.length;
    // Strings, not Buffers: the socket encodes a string straight into its own buffer. One chunk
    // ahead at most, so an answer waiting for a slow client is not serialised in advance.
    if (length > streamAbove) {
      const stream = Readable.from(chunks(head, parts, share), { highWaterMark: 1 });
      // 'close' comes whether the stream ended, failed or was destroyed (the client went away),
      // even before its first chunk was asked for.
      if (share) stream.once('close', () => share.end());
      return stream;
    }
  }
  share?.end();
  return head.length === 1 ? (head[0] as string) : head.join('');
}

/** What is already serialised, then the rest in chunks of about CHUNK characters. */
async function* chunks(
  head: string[],
  rest: Iterator<string>,
  share: AnswerShare | undefined,
): AsyncGenerator<string> {
  const first = head.join('');
  head.length = 0;
  yield first;
  // Resumed: the stream has taken the chunk (one ahead of the socket at most).
  share?.release(first.length);
  let chunk: string[] = [];
  let length = 0;
  for (let next = rest.next(); !next.done; next = rest.next()) {
    // A large piece goes alone, after what is gathered: joining would copy it. It goes in
    // slices of CHUNK (substrings share its characters), so a slow client's progress shows a
    // chunk at a time (output/answer-stall.ts).
    if (next.value.length >= LARGE) {
      if (chunk.length > 0) yield chunk.join('');
      share?.release(length);
      chunk = [];
      length = 0;
      // A turn before each slice: a client that reads as fast as we write would otherwise take
      // the whole value (a MiB or more) in one turn of the loop, one answer's after another's.
      for (const slice of slices(next.value)) {
        await nextTurn();
        yield slice;
        share?.release(slice.length);
      }
      continue;
    }
    chunk.push(next.value);
    length += next.value.length;
    if (length < CHUNK) continue;
    // Another request's turn between chunks, even when the client reads as fast as we write.
    await nextTurn();
    yield chunk.join('');
    share?.release(length);
    chunk = [];
    length = 0;
  }
  if (chunk.length > 0) yield chunk.join('');
}

/** `text` in pieces of about CHUNK characters, never splitting a surrogate pair (each is encoded alone). */
function* slices(text: string): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + CHUNK, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield text.slice(at, end);
    at = end;
  }
}
