// Named prepared statements (pg's `name` in a query config, which Kysely's PostgresDialect never
// passes): a statement text this process runs is parsed once per connection, and PostgreSQL
// then keeps its plan (a generic one after five runs, when that is no worse) instead of parsing
// and planning it at every request. The name is a hash of the text, so every connection and
// every instance gives one text the same name, and a name never stands for two texts. Not behind
// a pooler in transaction mode (client.ts).

import { createHash } from 'node:crypto';

/**
 * At most this many texts are named per process (each connection may then hold as many prepared
 * statements); later texts run unnamed. The query cache's shapes are far fewer in practice.
 */
const LIMIT = 500;

/** Reads and writes: BEGIN, COMMIT, DDL and the like gain nothing from a plan kept. */
const PLANNED = /^(select|insert|update|delete|with)\s/i;

const names = new Map<string, string>();

/** The prepared statement name of `text`, if it is planned and there is room for it. */
export function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < LIMIT && PLANNED.test(text)) {
    name = `svc_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}
