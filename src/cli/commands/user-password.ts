// svc user:password <user> [--password=<text>]: sets a user's password through the users
// resource (its rules: at least 8 characters; stored hashed). The password comes from
// --password, else a prompt that does not echo when stdin is a terminal (asked twice), else the
// first line of stdin (`echo "$PW" | npx svc user:password admin`).
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { users } from '../../app/resources/administration.js';
import { update } from '../../engine/actions/update.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, withDatabase } from '../database-session.js';

/** One line from a terminal without echoing it. */
async function askHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.once('line', resolve));
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split(/\r?\n/)[0] ?? '';
}

async function passwordFrom(option: unknown, login: string): Promise<string> {
  if (typeof option === 'string') return option;
  if (process.stdin.isTTY) {
    const first = await askHidden(`New password for "${login}": `);
    const again = await askHidden('Again: ');
    if (first !== again) throw new CliError('The two passwords differ; nothing changed.');
    return first;
  }
  const line = await firstLineOfStdin();
  if (line === '')
    throw new CliError(
      'No password: give --password=<text>, type it at the prompt, or pipe it on stdin.',
    );
  return line;
}

export const userPassword: Command = {
  summary: "Set a user's password (prompts on a terminal, or --password, or stdin)",
  usage: '<user> [--password=<text>]',
  arguments: { '<user>': 'an id or login' },
  options: {
    password: {
      type: 'string',
      value: '<text>',
      description: 'the new password, at least 8 characters (else prompted, or read from stdin)',
    },
  },
  examples: ['npx svc user:password admin', 'echo "$NEW_PASSWORD" | npx svc user:password admin'],
  async run({ options, positionals }) {
    const [ref, extra] = positionals;
    if (!ref || extra !== undefined)
      throw new CliError('Usage: svc user:password <user> [--password=<text>]');
    const password = await passwordFrom(options.password, ref);
    const user = await withDatabase(async ({ database, context }) => {
      const id = await findByIdOrName(database, 'users', 'login', 'user', ref);
      return update(users, context, id, { password });
    });
    process.stderr.write(
      `Password of user "${String(user.login)}" (#${String(user.id)}) changed.\n`,
    );
  },
};
