// svc company:create <name>, svc unit:create <name> [--company=] [--connection=], svc group:create <name>
// Names are unique (a unit's within its company: app/entities/organisation.ts); a clash is
// refused naming the record that holds the name.
import { companies, groups, units } from '../../app/resources/administration.js';
import type { Database } from '../../database/database.js';
import { create } from '../../engine/actions/create.js';
import type { EngineContext } from '../../engine/context.js';
import type { Resource } from '../../engine/definition/define-resource.js';
import { HttpError } from '../../errors.js';
import type { Row } from '../../model/entity.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, withDatabase } from '../database-session.js';

/** create(), with the 422 of a taken name turned into a message naming the holder. */
async function createNamed(
  resource: Resource,
  context: EngineContext,
  database: Database,
  payload: Row & { name: string },
  what: string,
): Promise<Row> {
  try {
    return (await create(resource, context, payload)).body;
  } catch (error) {
    const taken =
      error instanceof HttpError &&
      error.status === 422 &&
      Object.keys(error.body.errors ?? {}).join() === 'name';
    if (!taken) throw error;
    let holder = database.db
      .selectFrom(resource.entity.table)
      .select('id')
      .where('name', '=', payload.name);
    if (what === 'unit')
      holder =
        payload.company_id === null
          ? holder.where('company_id', 'is', null)
          : holder.where('company_id', '=', payload.company_id);
    const found = await holder.orderBy('id').executeTakeFirst();
    const within =
      what === 'unit'
        ? payload.company_id === null
          ? ' without a company'
          : ' in that company'
        : '';
    throw new CliError(
      `A ${what} named "${payload.name}" already exists${within}: #${String(found?.id)}. Choose another name.`,
    );
  }
}

export const companyCreate: Command = {
  summary: 'Create a company (a tenant)',
  usage: '<name>',
  arguments: { '<name>': 'the company name' },
  examples: ['npx svc company:create Acme'],
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('Usage: svc company:create <name>');
    printJson(
      await withDatabase(({ context, database }) =>
        createNamed(companies, context, database, { name }, 'company'),
      ),
    );
    process.stderr.write(`Company "${name}" created.\n`);
  },
};

export const unitCreate: Command = {
  summary: 'Create a unit (where tokens and sessions act), optionally in a company',
  usage: '<name> [--company=<id|name>] [--connection=<name>]',
  arguments: { '<name>': 'the unit name' },
  options: {
    company: { type: 'string', value: '<id|name>', description: 'the company it belongs to' },
    connection: {
      type: 'string',
      value: '<name>',
      description: 'a DB_CONNECTIONS entry holding its data (default: DATABASE_URL)',
    },
  },
  examples: ['npx svc unit:create East --company=Acme'],
  async run({ options, positionals }) {
    const [name] = positionals;
    if (!name)
      throw new CliError(
        'Usage: svc unit:create <name> [--company=<id|name>] [--connection=<name>]',
      );
    const record = await withDatabase(async ({ context, database, config }) => {
      const connection = typeof options.connection === 'string' ? options.connection : null;
      if (connection !== null && !(connection in config.dbConnections)) {
        throw new CliError(
          `Unknown connection "${connection}": DB_CONNECTIONS names ${Object.keys(config.dbConnections).join(', ') || 'none'}.`,
        );
      }
      const companyId =
        typeof options.company === 'string'
          ? await findByIdOrName(database, 'companies', 'name', 'company', options.company)
          : null;
      return createNamed(
        units,
        context,
        database,
        { name, company_id: companyId, connection },
        'unit',
      );
    });
    printJson(record);
    process.stderr.write(`Unit "${name}" created.\n`);
  },
};

export const groupCreate: Command = {
  summary: 'Create a user group',
  usage: '<name>',
  arguments: { '<name>': 'the group name' },
  examples: ['npx svc group:create Operators'],
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('Usage: svc group:create <name>');
    printJson(
      await withDatabase(({ context, database }) =>
        createNamed(groups, context, database, { name }, 'group'),
      ),
    );
    process.stderr.write(`Group "${name}" created.\n`);
  },
};
