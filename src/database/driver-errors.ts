// Driver errors as svc's answers, the one place for reads, writes and the error handler alike
// (STYLE.md example 2): each dialect adapter recognises its own driver's codes
// (DialectAdapter.translateError); this turns what it recognised into the catalog's error. A
// constraint the rules did not foresee is a 422, a database that cannot serve the request a 503;
// an error no adapter recognises is left to be a 500.
import { errors, type HttpError } from '../errors.js';
import { attributeName } from '../support/attribute-name.js';
import type { DialectAdapter } from './dialects/dialect-adapter.js';

export const INVALID_VALUE = 'A value does not fit the type of its column.';

/** Where a value the column cannot hold came from: a written record, or a read's filters. */
export type ValueSource = 'record' | 'filters';

export function driverError(
  error: unknown,
  adapters: readonly DialectAdapter[],
  source: ValueSource,
): HttpError | null {
  for (const adapter of adapters) {
    const known = adapter.translateError(error);
    if (!known) continue;
    switch (known.kind) {
      case 'unique':
        return fieldError(known.column ?? 'record', 'has already been taken.');
      case 'foreign-key':
        return errors.validation({
          record: [
            'The record is still in use by other records, or refers to a record that does not exist.',
          ],
        });
      case 'not-null':
        return fieldError(known.column ?? 'record', 'field is required.');
      case 'too-long':
        return fieldError(known.column ?? 'record', 'is longer than the database column allows.');
      case 'invalid-value':
        return errors.validation({ [source]: [INVALID_VALUE] });
      case 'unavailable':
        return withCause(errors.serviceUnavailable(), error);
      case 'timeout':
        return withCause(errors.databaseTimeout(), error);
      // Still a victim after the retries (engine/context.ts): the database is too busy now.
      case 'deadlock':
        return withCause(errors.serviceUnavailable(), error);
    }
  }
  return null;
}

/** `The <field> <what>` under the field's key. */
function fieldError(field: string, what: string): HttpError {
  return errors.validation({ [field]: [`The ${attributeName(field)} ${what}`] });
}

/** The driver's error kept with a 503, for the log line of the error handler. */
function withCause(answer: HttpError, cause: unknown): HttpError {
  answer.cause = cause;
  return answer;
}
