// svc unit:attach <user> <unit>: lets a user act in a unit (idempotent).
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, withDatabase } from '../database-session.js';

export const unitAttach: Command = {
  summary: 'Let a user act in a unit (idempotent)',
  usage: '<user> <unit>',
  arguments: { '<user>': 'an id or login', '<unit>': 'an id or name' },
  examples: ['npx svc unit:attach bob East'],
  async run({ positionals }) {
    const [userRef, unitRef] = positionals;
    if (!userRef || !unitRef) throw new CliError('Usage: svc unit:attach <user> <unit>');
    const link = await withDatabase(async ({ database }) => {
      const userId = await findByIdOrName(database, 'users', 'login', 'user', userRef);
      const unitId = await findByIdOrName(database, 'units', 'name', 'unit', unitRef);
      const existing = await database.db
        .selectFrom('user_units')
        .select('id')
        .where('user_id', '=', userId)
        .where('unit_id', '=', unitId)
        .executeTakeFirst();
      if (!existing)
        await database.db
          .insertInto('user_units')
          .values({ user_id: userId, unit_id: unitId })
          .execute();
      return { user_id: userId, unit_id: unitId, attached: !existing };
    });
    printJson(link);
    process.stderr.write(link.attached ? 'Attached.\n' : 'Already attached.\n');
  },
};
