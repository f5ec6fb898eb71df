// svc user:create <login> --name=<text> --password=<text> [--email=<text>] [--admin]
import { users } from '../../app/resources/administration.js';
import { create } from '../../engine/actions/create.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printJson, requiredString, withDatabase } from '../database-session.js';

export const userCreate: Command = {
  summary: 'Create a user',
  usage: '<login> --name=<text> --password=<text> [--email=<text>] [--admin]',
  arguments: { '<login>': 'the login name, unique' },
  options: {
    name: { type: 'string', value: '<text>', description: 'the display name (required)' },
    password: { type: 'string', value: '<text>', description: 'at least 8 characters (required)' },
    email: { type: 'string', value: '<text>', description: 'an e-mail address' },
    admin: { type: 'boolean', description: 'make the user an administrator' },
  },
  examples: ['npx svc user:create bob --name="Bob Smith" --password=change-me-1 --admin'],
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
    printJson((await withDatabase(({ context }) => create(users, context, payload))).body);
    process.stderr.write(`User "${login}" created.\n`);
  },
};
