// Objects with a fixed set of keys, built by a generated object literal. V8 gives every object
// of one literal the same hidden class up front, several times faster than adding computed keys
// one by one in a loop, which is what the hot paths (rows read, records serialised) would do.
// Keys come from entity and query definitions and are embedded as JSON string literals.

/**
 * `(source) => ({[keys[0]]: <value 0>, ...})`, where `valueAt(i)` is the JavaScript expression
 * of the i-th value, written in terms of `source` and `helpers` (passed through unchanged).
 */
export function compileObjectLiteral<S, R>(
  keys: readonly string[],
  valueAt: (i: number) => string,
  helpers: unknown = null,
): (source: S) => R {
  // A literal `"__proto__": v` would set the prototype; the computed form defines the key.
  const literalKey = (key: string) => (key === '__proto__' ? '["__proto__"]' : JSON.stringify(key));
  const fields = keys.map((key, i) => `${literalKey(key)}: ${valueAt(i)}`).join(', ');
  return new Function('helpers', `return (source) => ({ ${fields} });`)(helpers) as (
    source: S,
  ) => R;
}
