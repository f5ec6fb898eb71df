// The shapes of the OpenAPI document's operations and path items, as plain objects.
export type Operation = Record<string, unknown>;
export type PathItem = Record<string, Operation>;
