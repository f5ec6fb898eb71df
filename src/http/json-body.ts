// The one JSON body parser (DESIGN.md 3.5, 3.6 "Bounds"). What it refuses before any handler
// sees the body:
// - nesting deeper than MAX_BODY_DEPTH: counted on the text before parsing, so a 1 MiB body of
//   `[[[[...` costs one pass over its characters, not half a million arrays, and nothing later
//   (JSON.stringify of a notification's data) can overflow the stack on it;
// - strings (values or keys) that are not valid Unicode (a lone surrogate sent as `\ud800`): a
//   422 on the field, since a database would store U+FFFD in their place.
// A `__proto__` key is data like any other: JSON.parse defines it as an own property (it never
// sets a prototype), so it needs no refusal; code reading payloads uses own properties only.
import { type ErrorBag, errors } from '../errors.js';
import { attributeName } from '../support/attribute-name.js';

export const MAX_BODY_DEPTH = 64;

/** The deepest nesting of arrays and objects in JSON text, stopping once past `limit`. */
function depthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

// Only an escape can put a surrogate into parsed JSON: decoded UTF-8 never holds a lone one.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

// A high surrogate not followed by a low one, or a low one not preceded by a high one (code
// units: no `u` flag). String.prototype.isWellFormed is newer than the TypeScript lib here.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/** The path (`groups.0.name`) of the first string, value or key, that is not well-formed Unicode. */
function illFormedPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return wellFormed(value) ? null : path;
  if (value === null || typeof value !== 'object') return null;
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, item] of entries) {
    const at = path === '' ? String(key) : `${path}.${key}`;
    if (typeof key === 'string' && !wellFormed(key)) return at;
    const found = illFormedPath(item, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Parses a JSON request body: `undefined` for one of JSON whitespace only (DESIGN.md 3.5: no
 * body), else the value, or throws the catalog's answer.
 */
export function parseJsonBody(text: string): unknown {
  if (/^[ \t\n\r]*$/.test(text)) return undefined;
  if (depthExceeds(text, MAX_BODY_DEPTH)) throw errors.bodyTooDeep(MAX_BODY_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.malformedJson();
  }
  if (SURROGATE_ESCAPE.test(text)) {
    const path = illFormedPath(value, '');
    if (path !== null) {
      const field = path === '' ? 'body' : path;
      const dot = field.lastIndexOf('.') + 1;
      const name = attributeName(field.slice(dot), field.slice(0, dot));
      // A computed key: the path may be `__proto__`.
      const bag: ErrorBag = { [field]: [`The ${name} field must be valid Unicode text.`] };
      throw errors.validation(bag);
    }
  }
  return value;
}
