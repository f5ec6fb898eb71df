// Help and argument parsing for every command (issue 20): `svc --help`, `svc help <command>`,
// `svc <command> --help`, and clear messages for unknown options and missing values. Parsing is
// node:util's parseArgs; this only words its findings for a person.
import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';
import type { Command, CommandInput, OptionSpec } from './command.js';

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' };

function optionLabel(name: string, spec: OptionSpec): string {
  const long = `--${name}${spec.type === 'string' ? `=${spec.value ?? '<value>'}` : ''}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n');
}

export function generalHelp(commands: Readonly<Record<string, Command>>): string {
  const rows = Object.entries(commands).map(([name, c]) => [name, c.summary] as const);
  const examples = Object.values(commands)
    .map((c) => c.examples[0])
    .filter((e): e is string => e !== undefined);
  return `svc: the command line of the svc service.

Usage: npx svc <command> [arguments] [options]

Commands:
${table(rows)}

Examples:
${examples.map((e) => `  ${e}`).join('\n')}

Run \`npx svc help <command>\` or \`npx svc <command> --help\` for a command's arguments and options.
Settings come from the environment and from .env in the working directory (the environment
wins); .env.example lists them all. Output is JSON on stdout, messages go to stderr.
`;
}

export function commandHelp(name: string, command: Command): string {
  const parts = [
    `Usage: npx svc ${name}${command.usage ? ` ${command.usage}` : ''}`,
    command.summary,
  ];
  if (command.arguments && Object.keys(command.arguments).length > 0)
    parts.push(`Arguments:\n${table(Object.entries(command.arguments))}`);
  const options = { ...command.options, help: HELP_OPTION };
  parts.push(
    `Options:\n${table(Object.entries(options).map(([n, spec]) => [optionLabel(n, spec), spec.description]))}`,
  );
  parts.push(
    `Example${command.examples.length > 1 ? 's' : ''}:\n${command.examples.map((e) => `  ${e}`).join('\n')}`,
  );
  return `${parts.join('\n\n')}\n`;
}

/** The command's options and positionals, or a CliError a person can act on. */
export function parseCommandArgs(
  name: string,
  command: Command,
  args: readonly string[],
): CommandInput & { readonly help: boolean } {
  const specs: Readonly<Record<string, OptionSpec>> = { ...command.options, help: HELP_OPTION };
  const options = Object.fromEntries(
    Object.entries(specs).map(([n, s]) => [
      n,
      s.short ? { type: s.type, short: s.short } : { type: s.type },
    ]),
  );
  const hint = `Run \`npx svc ${name} --help\` for its options.`;
  // A first lenient pass finds the options that do not exist, to name them all at once.
  const { tokens } = parseArgs({
    args: [...args],
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const unknown = tokens
    .filter((t) => t.kind === 'option' && !(t.name in specs))
    .map((t) => (t.kind === 'option' ? t.rawName : ''));
  if (unknown.length > 0) {
    const known = Object.entries(specs)
      .map(([n, s]) => optionLabel(n, s))
      .join(', ');
    throw new CliError(
      `Unknown option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for \`svc ${name}\`. It takes: ${known}. ${hint}`,
    );
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options,
      allowPositionals: true,
      strict: true,
    });
    return { options: values, positionals, help: values.help === true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const raw = error instanceof Error ? error.message : String(error);
    const option = /'(-[^' ]+)/.exec(raw)?.[1] ?? 'an option';
    const spec = specs[option.replace(/^--?/, '')];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && spec?.type === 'string')
      throw new CliError(
        `${option} needs a value, e.g. ${optionLabel(option.replace(/^--?/, ''), spec)}. ${hint}`,
      );
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new CliError(`${option} takes no value. ${hint}`);
    throw new CliError(`${raw.replace(/'/g, '')}. ${hint}`);
  }
}
