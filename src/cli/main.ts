// The `svc` command line (DESIGN.md 3.1): one file per command under commands/. Machine-readable
// output on stdout, messages on stderr, non-zero exit with a clear message on bad input; help
// for every command (cli/help.ts).
import { ConfigError } from '../config/config.js';
import { readEnvFile } from './cli-config.js';
import { CliError } from './cli-error.js';
import { commands } from './commands/index.js';
import { commandHelp, generalHelp, parseCommandArgs } from './help.js';
import { escapeMessage } from './terminal-text.js';

const HELP = new Set(['--help', '-h', 'help']);

function unknownCommand(name: string): number {
  process.stderr.write(`svc: unknown command "${name}".\n\n${generalHelp(commands)}`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || HELP.has(name)) {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      process.stdout.write(generalHelp(commands));
      return 0;
    }
    const command = commands[topic];
    if (!command) return unknownCommand(topic);
    process.stdout.write(commandHelp(topic, command));
    return 0;
  }
  const command = commands[name];
  if (!command) return unknownCommand(name);
  const input = parseCommandArgs(name, command, rest);
  if (input.help) {
    process.stdout.write(commandHelp(name, command));
    return 0;
  }
  readEnvFile();
  return (await command.run(input)) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof CliError || error instanceof ConfigError;
    // A message may quote stored names.
    process.stderr.write(
      `svc: ${escapeMessage(error instanceof Error ? error.message : String(error))}\n`,
    );
    process.exitCode = usage ? 2 : 1;
  },
);
