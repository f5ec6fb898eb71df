// The query builder of one database (or of one of its transactions).
import type { Kysely } from 'kysely';

/**
 * Tables are declared at run time by entities (src/model), so the query builder is untyped
 * here; every identifier that reaches it comes from an entity or resource definition checked
 * at boot, never from a request.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = Kysely<any>;
