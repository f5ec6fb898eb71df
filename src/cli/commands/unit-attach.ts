// svc unit:attach <user> <unit>: lets a user act in a unit (idempotent). The link is a row of
// the user's `units` detail relation, written through the users resource, so it leaves its
// change in the log (DESIGN.md 3.9) like any other write of a user.
import { users } from '../../app/resources/administration.js';
import { update } from '../../engine/actions/update.js';
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
    const link = await withDatabase(async ({ database, context }) => {
      const userId = await findByIdOrName(database, 'users', 'login', 'user', userRef);
      const unitId = await findByIdOrName(database, 'units', 'name', 'unit', unitRef);
      const linked = await database.db
        .selectFrom('user_units')
        .select(['id', 'unit_id'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute();
      const attached = !linked.some((row: { unit_id: unknown }) => Number(row.unit_id) === unitId);
      // The whole set: the rows kept by their ids, and the new one.
      if (attached)
        await update(users, context, userId, {
          units: [
            ...linked.map((row: { id: unknown }) => ({ id: Number(row.id) })),
            { unit_id: unitId },
          ],
        });
      return { user_id: userId, unit_id: unitId, attached };
    });
    printJson(link);
    process.stderr.write(link.attached ? 'Attached.\n' : 'Already attached.\n');
  },
};
