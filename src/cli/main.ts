// The `svc` command line (DESIGN.md 3.1): one file per command under commands/. Machine-readable
// output on stdout, messages on stderr, non-zero exit with a clear message on bad input.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config.js';
import { readEnvFile } from './cli-config.js';
import { CliError } from './cli-error.js';
import { commands } from './commands/index.js';

async function main(argv: string[]): Promise<number> {
  readEnvFile();
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(
      `${name ? `Unknown command "${name}".\n` : ''}Usage: svc <command>\n\nCommands:\n`,
    );
    for (const [key, c] of Object.entries(commands))
      process.stderr.write(`  ${key.padEnd(16)} ${c.summary}\n`);
    return name ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    options: command.options ?? {},
    allowPositionals: true,
    strict: true,
  });
  return (await command.run({ options: values, positionals })) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage =
      error instanceof CliError ||
      error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
