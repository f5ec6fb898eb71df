// Laravel 10/11 English messages, kept verbatim so clients migrating from the
// PHP service see identical error texts.
import type { CheckRule } from '../../model/rules.js';

/** How min/max talk about the value: characters, numeric value or items. */
export type SizeType = 'string' | 'numeric' | 'array';

export const REQUIRED_MESSAGE = 'The :attribute field is required.';

const SIZE_MESSAGES = {
  max: {
    string: 'The :attribute field must not be greater than :max characters.',
    numeric: 'The :attribute field must not be greater than :max.',
    array: 'The :attribute field must not have more than :max items.',
  },
  min: {
    string: 'The :attribute field must be at least :min characters.',
    numeric: 'The :attribute field must be at least :min.',
    array: 'The :attribute field must have at least :min items.',
  },
} as const;

export const MESSAGES = {
  string: 'The :attribute field must be a string.',
  integer: 'The :attribute field must be an integer.',
  numeric: 'The :attribute field must be a number.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute field must be an array.',
  json: 'The :attribute field must be a valid JSON string.',
  in: 'The selected :attribute is invalid.',
  email: 'The :attribute field must be a valid email address.',
  date: 'The :attribute field must be a valid date.',
  url: 'The :attribute field must be an http or https URL.',
  exists: 'The selected :attribute is invalid.',
  unique: 'The :attribute has already been taken.',
} as const satisfies Record<Exclude<CheckRule['name'], 'max' | 'min'>, string>;

export function requiredMessage(attribute: string): string {
  return fill(REQUIRED_MESSAGE, { attribute });
}

export function messageFor(rule: CheckRule, attribute: string, size: SizeType): string {
  if (rule.name === 'max' || rule.name === 'min') {
    return fill(SIZE_MESSAGES[rule.name][size], { attribute, [rule.name]: rule.raw });
  }
  return fill(MESSAGES[rule.name], { attribute });
}

// Single pass with a callback so a ':' or '$' inside a value is never re-expanded.
function fill(template: string, params: Record<string, string>): string {
  return template.replace(/:([a-z]+)/g, (whole, key: string) => params[key] ?? whole);
}
