// List input arrives from the query string or a JSON body, both alike (SPEC.md 4.2).
export type Input = Record<string, unknown>;

export function asInput(value: unknown): Input {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Input)
    : {};
}

export function mergeInputs(query: unknown, body: unknown): Input {
  return { ...asInput(query), ...asInput(body) };
}
