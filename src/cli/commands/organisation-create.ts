// svc company:create <name>, svc unit:create <name> [--company=] [--connection=], svc group:create <name>
import { companies, groups, units } from '../../app/resources/administration.js';
import { create } from '../../engine/actions/create.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, withDatabase } from '../database-session.js';

export const companyCreate: Command = {
  summary: 'Create a company (a tenant)',
  usage: '<name>',
  arguments: { '<name>': 'the company name' },
  examples: ['npx svc company:create Acme'],
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('Usage: svc company:create <name>');
    printJson(await withDatabase(({ context }) => create(companies, context, { name })));
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
      return create(units, context, { name, company_id: companyId, connection });
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
    printJson(await withDatabase(({ context }) => create(groups, context, { name })));
    process.stderr.write(`Group "${name}" created.\n`);
  },
};
