// svc user:create <login> --name=<text> --password=<text> [--email=<text>] [--admin]
import { users } from '../../app/resources/administration.js';
import { create } from '../../engine/actions/create.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printJson, requiredString, withDatabase } from '../database-session.js';

export const userCreate: Command = {
  summary: 'Create a user: <login> --name= --password= [--email=] [--admin]',
  options: {
    name: { type: 'string' },
    password: { type: 'string' },
    email: { type: 'string' },
    admin: { type: 'boolean' },
  },
  async run({ options, positionals }) {
    const [login] = positionals;
    if (!login)
      throw new CliError(
        'Usage: svc user:create <login> --name=<text> --password=<text> [--email=<text>] [--admin]',
      );
    const payload = {
      login,
      name: requiredString(options.name, 'name'),
      password: requiredString(options.password, 'password'),
      ...(typeof options.email === 'string' ? { email: options.email } : {}),
      admin: options.admin === true ? 'Y' : 'N',
    };
    printJson(await withDatabase(({ context }) => create(users, context, payload)));
    process.stderr.write(`User "${login}" created.\n`);
  },
};
