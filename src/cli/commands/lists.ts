// svc user:list, company:list, unit:list, group:list: every record, JSON on stdout (a table when
// stdout is a terminal), in id order. Never a password hash.
import type { Db } from '../../database/db.js';
import type { Command } from '../command.js';
import { withDatabase } from '../database-session.js';
import { printRows } from '../output-table.js';

type Row = Record<string, unknown>;

function listCommand(
  what: string,
  example: string,
  columns: readonly string[],
  read: (db: Db) => Promise<Row[]>,
): Command {
  return {
    summary: `List the ${what} (JSON; a table on a terminal)`,
    usage: '',
    examples: [example],
    async run() {
      const rows = await withDatabase(({ database }) => read(database.db));
      printRows(rows, columns, what);
    },
  };
}

export const userList = listCommand(
  'users',
  'npx svc user:list',
  ['id', 'login', 'name', 'email', 'admin', 'active', 'units'],
  async (db) => {
    const users = await db
      .selectFrom('users')
      .select(['id', 'login', 'name', 'email', 'admin', 'active'])
      .orderBy('id')
      .execute();
    const links = await db
      .selectFrom('user_units')
      .innerJoin('units', 'units.id', 'user_units.unit_id')
      .select(['user_units.user_id as user_id', 'units.name as unit'])
      .orderBy('user_units.id')
      .execute();
    return users.map((u: Row) => ({
      ...u,
      id: Number(u.id),
      units: links.filter((l: Row) => Number(l.user_id) === Number(u.id)).map((l: Row) => l.unit),
    }));
  },
);

export const companyList = listCommand(
  'companies',
  'npx svc company:list',
  ['id', 'name', 'active'],
  async (db) =>
    (await db.selectFrom('companies').select(['id', 'name', 'active']).orderBy('id').execute()).map(
      (c: Row) => ({ ...c, id: Number(c.id) }),
    ),
);

export const unitList = listCommand(
  'units',
  'npx svc unit:list',
  ['id', 'name', 'company', 'connection', 'active'],
  async (db) =>
    (
      await db
        .selectFrom('units')
        .leftJoin('companies', 'companies.id', 'units.company_id')
        .select([
          'units.id as id',
          'units.name as name',
          'units.company_id as company_id',
          'companies.name as company',
          'units.connection as connection',
          'units.active as active',
        ])
        .orderBy('units.id')
        .execute()
    ).map((u: Row) => ({
      ...u,
      id: Number(u.id),
      company_id: u.company_id === null ? null : Number(u.company_id),
    })),
);

export const groupList = listCommand('groups', 'npx svc group:list', ['id', 'name'], async (db) =>
  (await db.selectFrom('groups').select(['id', 'name']).orderBy('id').execute()).map((g: Row) => ({
    ...g,
    id: Number(g.id),
  })),
);
