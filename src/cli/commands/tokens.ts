// svc token:create <user> <unit> --name= [--abilities=a,b] [--expires-in-days=n | --expires-at=ISO],
// svc token:list, svc token:revoke <id>, svc abilities.
import { grantableAbilities } from '../../app/routes.js';
import { isAbilityName } from '../../auth/abilities.js';
import { createToken, listTokens, revokeToken } from '../../auth/tokens/token-service.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, requiredString, withDatabase } from '../database-session.js';

function expiry(options: Record<string, unknown>): Date | null {
  const days = options['expires-in-days'];
  const at = options['expires-at'];
  if (days !== undefined && at !== undefined)
    throw new CliError('Give --expires-in-days or --expires-at, not both.');
  if (typeof days === 'string') {
    if (!/^\d+$/.test(days) || Number(days) < 1)
      throw new CliError(`--expires-in-days must be a positive whole number, got "${days}".`);
    return new Date(Date.now() + Number(days) * 86_400_000);
  }
  if (typeof at === 'string') {
    const date = new Date(at);
    if (Number.isNaN(date.getTime()))
      throw new CliError(`--expires-at must be an ISO-8601 date, got "${at}".`);
    if (date.getTime() <= Date.now())
      throw new CliError(`--expires-at must be in the future, got "${at}".`);
    return date;
  }
  return null;
}

export const tokenCreate: Command = {
  summary: 'Issue an API token for a user in a unit; prints the token alone, once',
  usage:
    '<user> <unit> --name=<text> (--abilities=<a,b,...> | --no-abilities) [--expires-in-days=<n> | --expires-at=<ISO-8601>]',
  arguments: { '<user>': 'an id or login', '<unit>': 'an id or name' },
  options: {
    name: { type: 'string', value: '<text>', description: 'what the token is for (required)' },
    abilities: {
      type: 'string',
      value: '<a,b,...>',
      description: 'what it may do, from `svc abilities` (this or --no-abilities is required)',
    },
    'no-abilities': {
      type: 'boolean',
      description: 'issue a token that may do nothing (every ability-checked route answers 403)',
    },
    'expires-in-days': { type: 'string', value: '<n>', description: 'expire n days from now' },
    'expires-at': {
      type: 'string',
      value: '<ISO-8601>',
      description: 'expire at this moment, e.g. 2027-01-31T00:00:00Z',
    },
  },
  examples: [
    'npx svc token:create admin Main --name="CI job" --abilities=import-templates.read,import-templates.write',
  ],
  async run({ options, positionals }) {
    const [userRef, unitRef] = positionals;
    if (!userRef || !unitRef)
      throw new CliError(
        'Usage: svc token:create <user> <unit> --name=<text> (--abilities=<a,b,...> | --no-abilities) [--expires-in-days=<n> | --expires-at=<ISO-8601>]',
      );
    const name = requiredString(options.name, 'name');
    // A token without abilities answers 403 everywhere: asked for explicitly, never by omission.
    if (options.abilities !== undefined && options['no-abilities'] === true)
      throw new CliError('Give --abilities or --no-abilities, not both.');
    if (options.abilities === undefined && options['no-abilities'] !== true)
      throw new CliError(
        'Give --abilities=<a,b,...> (the list: `npx svc abilities`), or --no-abilities for a token that may do nothing.',
      );
    const abilities =
      typeof options.abilities === 'string'
        ? options.abilities
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean)
        : [];
    const grantable = grantableAbilities();
    const unknown = abilities.find((a) => !isAbilityName(a) || !grantable.includes(a));
    if (unknown)
      throw new CliError(
        `Ability "${unknown}" is not declared on any route. Grantable: ${grantable.join(', ')}`,
      );
    const expiresAt = expiry(options);
    const issued = await withDatabase(async ({ database }) => {
      const userId = await findByIdOrName(database, 'users', 'login', 'user', userRef);
      const unitId = await findByIdOrName(database, 'units', 'name', 'unit', unitRef);
      return createToken(database, grantable, { userId, unitId, name, abilities, expiresAt });
    });
    process.stdout.write(`${issued.token}\n`);
    process.stderr.write(
      `Token #${issued.record.id} "${issued.record.name}" issued; it is shown only this once.\n`,
    );
  },
};

export const tokenList: Command = {
  summary: 'List API tokens as JSON (never their secrets)',
  usage: '',
  examples: ['npx svc token:list'],
  async run() {
    printJson(await withDatabase(({ database }) => listTokens(database)));
  },
};

export const tokenRevoke: Command = {
  summary: 'Revoke an API token',
  usage: '<id>',
  arguments: { '<id>': 'the token id (`svc token:list`, or the number token:create printed)' },
  examples: ['npx svc token:revoke 3'],
  async run({ positionals }) {
    const [id] = positionals;
    if (!id || !/^\d+$/.test(id)) throw new CliError('Usage: svc token:revoke <id>');
    const { record, before } = await withDatabase(async ({ database }) => {
      const found = await database.db
        .selectFrom('api_tokens')
        .select('revoked_at')
        .where('id', '=', Number(id))
        .executeTakeFirst();
      // Revoking again changes nothing (the first revocation time stays): said, not repeated.
      const before = found?.revoked_at ?? null;
      return { record: found ? await revokeToken(database, Number(id)) : null, before };
    });
    if (!record) throw new CliError(`No token #${id}.`);
    printJson(record);
    process.stderr.write(
      before === null
        ? `Token #${id} revoked.\n`
        : `Token #${id} was already revoked (at ${String(record.revoked_at)}); unchanged.\n`,
    );
  },
};

export const abilities: Command = {
  summary: 'List the abilities a token can be given (those declared on routes)',
  usage: '',
  examples: ['npx svc abilities'],
  async run() {
    printJson(grantableAbilities());
  },
};
