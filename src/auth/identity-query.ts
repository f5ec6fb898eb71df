// The acting user, unit and company of a credential row (a token or a session), read in the
// credential's own lookup so both modes re-validate the scope in one indexed statement. Each
// related row comes back as one JSON column (a correlated sub-query): on SQLite that reads
// several times faster than the same columns through joins.
import { type Expression, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../database/database.js';
import type { DialectAdapter } from '../database/dialects/dialect-adapter.js';
import { param, runStatement, statementSite } from '../database/statement-runner.js';
import { readCasts } from '../model/casts.js';
import type { Row } from '../model/entity.js';
import type { ScopeFacts } from './scope-check.js';

const USER_COLUMNS = [
  'id',
  'login',
  'name',
  'email',
  'admin',
  'active',
  'created_at',
  'updated_at',
] as const;

export interface Identity extends ScopeFacts {
  /** The user's stored record (no password hash), or null when the user no longer exists. */
  readonly user: Row | null;
  readonly unit: {
    readonly id: number;
    readonly name: string;
    readonly active: unknown;
    readonly companyId: number | null;
    readonly connection: string | null;
  } | null;
  readonly company: { readonly id: number; readonly active: unknown } | null;
  readonly linked: boolean;
}

const ref = (column: string) => sql.ref(column);

/** The user and unit a credential names: columns of its row, or parameters. */
export interface IdentityIds {
  readonly user: Expression<unknown>;
  readonly unit: Expression<unknown>;
}

/** The tables the identity columns read. */
export const IDENTITY_TABLES = ['users', 'units', 'companies', 'user_units'] as const;

/** The identity's columns by name (the credential's user and unit, its company, their link). */
export function identityExpressions(
  adapter: DialectAdapter,
  ids: IdentityIds,
): Record<'identity_user' | 'identity_unit' | 'identity_linked', Expression<unknown>> {
  const user = adapter.jsonObject(
    Object.fromEntries(USER_COLUMNS.map((column) => [column, ref(`iu.${column}`)])),
  );
  const unit = adapter.jsonObject({
    id: ref('iun.id'),
    name: ref('iun.name'),
    active: ref('iun.active'),
    company_id: ref('iun.company_id'),
    connection: ref('iun.connection'),
    company_found: sql`(select ic.id from companies ic where ic.id = iun.company_id)`,
    company_active: sql`(select ic.active from companies ic where ic.id = iun.company_id)`,
  });
  return {
    identity_user: sql`(select ${user} from users iu where iu.id = ${ids.user})`,
    identity_unit: sql`(select ${unit} from units iun where iun.id = ${ids.unit})`,
    identity_linked: sql`(select count(*) from user_units l where l.user_id = ${ids.user} and l.unit_id = ${ids.unit})`,
  };
}

/** The ids of a credential row over alias `c` that has user_id and unit_id. */
export const CREDENTIAL_IDS: IdentityIds = { user: ref('c.user_id'), unit: ref('c.unit_id') };

const aliased = (expressions: Readonly<Record<string, Expression<unknown>>>) =>
  Object.entries(expressions).map(([name, expression]) => sql`${expression}`.as(name));

/** Adds the identity columns to a query over alias `c` that has user_id and unit_id. */
// biome-ignore-start lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
export function withIdentity(
  query: SelectQueryBuilder<any, any, Row>,
  adapter: DialectAdapter,
): SelectQueryBuilder<any, any, Row> {
  return query.select(aliased(identityExpressions(adapter, CREDENTIAL_IDS)));
}
// biome-ignore-end lint/suspicious/noExplicitAny: the untyped query builder ends here

const IDENTITY_OF_IDS = statementSite('identity of a user and unit id');

/**
 * The identity of a user acting in a unit, for a credential kept outside the database (a Redis
 * session): the same columns in one statement without a FROM.
 */
export async function findIdentity(
  database: Database,
  userId: number,
  unitId: number,
): Promise<Identity> {
  const { db, adapter } = database;
  const ids = { user: param('user'), unit: param('unit') };
  const [row] = await runStatement<Row>(
    db,
    [IDENTITY_OF_IDS],
    () => db.selectNoFrom(aliased(identityExpressions(adapter, ids))),
    { user: userId, unit: unitId },
  );
  return identityOf(row ?? {});
}

function object(value: unknown): Row | null {
  const parsed = readCasts.json(value);
  return parsed !== null && typeof parsed === 'object' ? (parsed as Row) : null;
}

/** The user's columns the service shows (never the password hash). */
export const USER_RECORD_COLUMNS = USER_COLUMNS;

/** A stored user row as the service shows it: the id a number, timestamps ISO-8601 UTC whatever the engine. */
export function userRecord(row: Row): Row {
  return {
    ...row,
    id: Number(row.id),
    created_at: readCasts.datetime(row.created_at),
    updated_at: readCasts.datetime(row.updated_at),
  };
}

function userOf(value: unknown): Row | null {
  const user = object(value);
  return user && userRecord(user);
}

export function identityOf(row: Row): Identity {
  const user = userOf(row.identity_user);
  const unit = object(row.identity_unit);
  return {
    user,
    unit: unit
      ? {
          id: Number(unit.id),
          name: String(unit.name),
          active: unit.active,
          companyId: unit.company_id == null ? null : Number(unit.company_id),
          connection: (unit.connection as string | null) ?? null,
        }
      : null,
    company:
      unit?.company_found == null
        ? null
        : { id: Number(unit.company_found), active: unit.company_active },
    linked: Number(row.identity_linked) > 0,
  };
}
