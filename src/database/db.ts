// The query builder of one database (or of one of its transactions).
import type { Kysely } from 'kysely';

/**
 * Tables are declared at run time by entities (src/model), so the query builder is untyped
 * here; every identifier that reaches it comes from an entity or resource definition checked
 * at boot, never from a request.
 */
// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
export type Db = Kysely<any>;
