// svc user:password <user> [--password=<text>]: sets a user's password through the users
// resource (its rules: at least 8 characters; stored hashed; the user's sessions end, wherever
// the server keeps them). The password comes from
// --password, else a prompt that does not echo when stdin is a terminal (asked twice), else the
// first line of stdin (`echo "$PW" | npx svc user:password admin`).
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { users } from '../../app/resources/administration.js';
import { update } from '../../engine/actions/update.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, withDatabase } from '../database-session.js';

/**
 * Lines typed at a terminal, without echo, one per question. One interface for every question:
 * a line typed ahead of the second prompt is kept, not lost with a closed interface.
 */
async function askHidden(questions: readonly string[]): Promise<string[]> {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: true });
  const lines = rl[Symbol.asyncIterator]();
  const answers: string[] = [];
  try {
    for (const question of questions) {
      process.stderr.write(question);
      const next = await lines.next();
      process.stderr.write('\n');
      if (next.done) throw new CliError('No password typed; nothing changed.');
      answers.push(String(next.value));
    }
    return answers;
  } finally {
    rl.close();
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
    const [first = '', again] = await askHidden([`New password for "${login}": `, 'Again: ']);
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
    // The users resource takes a blank password on update as "unchanged": refused here instead.
    if (password.trim() === '')
      throw new CliError('The password must not be empty; nothing changed.');
    const user = await withDatabase(async ({ database, context }) => {
      const id = await findByIdOrName(database, 'users', 'login', 'user', ref);
      return (await update(users, context, id, { password })).body;
    });
    process.stderr.write(
      `Password of user "${String(user.login)}" (#${String(user.id)}) changed.\n`,
    );
  },
};
