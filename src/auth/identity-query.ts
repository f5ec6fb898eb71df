// The acting user, unit and company of a credential row (a token or a session), joined in the
// credential's own lookup so both modes re-validate the scope in one indexed statement.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Row } from '../model/entity.js';
import type { ScopeFacts } from './scope-check.js';

const USER_COLUMNS = ['id', 'login', 'name', 'email', 'admin', 'active', 'created_at', 'updated_at'] as const;

export interface Identity extends ScopeFacts {
  /** The user's stored record (no password hash), or null when the user no longer exists. */
  readonly user: Row | null;
  readonly unit: { readonly id: number; readonly name: string; readonly active: unknown; readonly companyId: number | null; readonly connection: string | null } | null;
  readonly company: { readonly id: number; readonly active: unknown } | null;
  readonly linked: boolean;
}

/** Joins users, units, companies and the user-unit link onto a query over alias `c` with user_id and unit_id. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withIdentity(query: SelectQueryBuilder<any, any, Row>): SelectQueryBuilder<any, any, Row> {
  return query
    .leftJoin('users as iu', 'iu.id', 'c.user_id')
    .leftJoin('units as iun', 'iun.id', 'c.unit_id')
    .leftJoin('companies as ic', 'ic.id', 'iun.company_id')
    .select(USER_COLUMNS.map((col) => `iu.${col} as user_${col}`))
    .select(['iun.id as unit_id', 'iun.name as unit_name', 'iun.active as unit_active', 'iun.company_id as unit_company_id', 'iun.connection as unit_connection'])
    .select(['ic.id as company_id', 'ic.active as company_active'])
    .select(sql<number>`(select count(*) from user_units l where l.user_id = c.user_id and l.unit_id = c.unit_id)`.as('linked'));
}

export function identityOf(row: Row): Identity {
  return {
    user: row.user_id == null ? null : Object.fromEntries(USER_COLUMNS.map((col) => [col, row[`user_${col}`]])),
    unit:
      row.unit_id == null
        ? null
        : {
            id: Number(row.unit_id),
            name: String(row.unit_name),
            active: row.unit_active,
            companyId: row.unit_company_id == null ? null : Number(row.unit_company_id),
            connection: (row.unit_connection as string | null) ?? null,
          },
    company: row.company_id == null ? null : { id: Number(row.company_id), active: row.company_active },
    linked: Number(row.linked) > 0,
  };
}
