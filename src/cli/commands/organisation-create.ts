// svc company:create <name>, svc unit:create <name> [--company=] [--connection=], svc group:create <name>
import { companies, groups, units } from '../../app/resources/administration.js';
import { create } from '../../engine/actions/create.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, withDatabase } from '../database-session.js';

export const companyCreate: Command = {
  summary: 'Create a company (tenant): <name>',
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('Usage: svc company:create <name>');
    printJson(await withDatabase(({ context }) => create(companies, context, { name })));
    process.stderr.write(`Company "${name}" created.\n`);
  },
};

export const unitCreate: Command = {
  summary: 'Create a unit: <name> [--company=<id|name>] [--connection=<name>]',
  options: { company: { type: 'string' }, connection: { type: 'string' } },
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
  summary: 'Create a user group: <name>',
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('Usage: svc group:create <name>');
    printJson(await withDatabase(({ context }) => create(groups, context, { name })));
    process.stderr.write(`Group "${name}" created.\n`);
  },
};
