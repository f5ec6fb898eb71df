// Named prepared statements (pg's `name` in a query config, which Kysely's PostgresDialect never
// passes): a statement text this process runs is parsed once per connection, and PostgreSQL
// then keeps its plan (a generic one after five runs, when that is no worse) instead of parsing
// and planning it at every request. The name is a hash of the text, so every connection and
// every instance gives one text the same name, and a name never stands for two texts.

import { createHash } from 'node:crypto';
import type pg from 'pg';

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

/** Makes `client` run the texts it is given (as Kysely gives them: text, values) as named statements. */
export function nameStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof config === 'string' && Array.isArray(values) ? nameOf(config) : undefined;
    return name === undefined
      ? query(config, values, callback)
      : query({ name, text: config, values }, callback);
  }) as typeof client.query;
}
