// The conditional request headers of a request (RFC 9110 section 13) and what they decide, in
// the order of section 13.2.2: If-Match first (strong comparison), then If-None-Match (weak).
// A read answers 304 when If-None-Match holds; a write answers 412 (with the current ETag) when
// either fails. Writes evaluate them inside their transaction, on the row they have locked.
import { errors, HttpError } from '../../errors.js';
import { conditionMatches, parseCondition, type TagCondition } from './entity-tag.js';

export interface Preconditions {
  readonly ifMatch: TagCondition;
  readonly ifNoneMatch: TagCondition;
}

export const NO_PRECONDITIONS: Preconditions = Object.freeze({ ifMatch: null, ifNoneMatch: null });

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export function preconditionsOf(headers: Headers): Preconditions {
  return {
    ifMatch: parseCondition(headers['if-match']),
    ifNoneMatch: parseCondition(headers['if-none-match']),
  };
}

export type Outcome = 'proceed' | 'not-modified' | 'failed';

/** The outcome for an existing record whose ETag is `current` (null: it keeps no version). */
export function evaluate(
  preconditions: Preconditions,
  current: string | null,
  method: 'read' | 'write',
): Outcome {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch !== null && !conditionMatches(ifMatch, current, 'strong')) return 'failed';
  if (ifNoneMatch !== null && conditionMatches(ifNoneMatch, current, 'weak'))
    return method === 'read' ? 'not-modified' : 'failed';
  return 'proceed';
}

/** The 412, with the record's current ETag so the client can read it again or retry with it. */
export function preconditionFailed(current: string | null): HttpError {
  const error = errors.preconditionFailed();
  if (current === null) return error;
  return new HttpError(error.code, error.status, error.body, { ...error.headers, etag: current });
}

/** Throws the 412 of a write whose preconditions fail on the record as stored now. */
export function checkWrite(preconditions: Preconditions, current: string | null): void {
  if (evaluate(preconditions, current, 'write') === 'failed') throw preconditionFailed(current);
}

/** Throws the 428 of a write that a resource with requireIfMatch receives without If-Match. */
export function requireIfMatch(preconditions: Preconditions): void {
  if (preconditions.ifMatch === null) throw errors.preconditionRequired();
}
