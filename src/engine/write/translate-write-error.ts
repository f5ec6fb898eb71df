// A constraint the rules did not foresee (a unique index, a foreign key) answers 422, not 500:
// the dialect adapter has already recognised the driver's error (STYLE.md example 2).
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { errors, HttpError } from '../../errors.js';
import { attributeName } from '../validation/messages.js';

export const INVALID_VALUE = 'A value does not fit the type of its column.';

export function translateWriteError(error: unknown, adapter: DialectAdapter): unknown {
  if (error instanceof HttpError) return error;
  const known = adapter.translateError(error);
  if (!known) return error;
  switch (known.kind) {
    case 'unique': {
      const field = known.column ?? 'record';
      return errors.validation({ [field]: [`The ${attributeName(field)} has already been taken.`] });
    }
    case 'foreign-key':
      return errors.validation({ record: ['The record is still in use by other records, or refers to a record that does not exist.'] });
    case 'not-null': {
      const field = known.column ?? 'record';
      return errors.validation({ [field]: [`The ${attributeName(field)} field is required.`] });
    }
    case 'too-long': {
      const field = known.column ?? 'record';
      return errors.validation({ [field]: [`The ${attributeName(field)} is longer than the database column allows.`] });
    }
    case 'invalid-value':
      return errors.validation({ record: [INVALID_VALUE] });
    case 'unavailable':
    case 'timeout':
      // Answered 503 by the global error handler, as on every route (http/error-handler.ts).
      return error;
  }
}
