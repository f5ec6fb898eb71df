// The shape of one CLI command: what it does, how it is called, each option with a line of help,
// and examples (`svc help <command>` prints them; cli/help.ts).

export interface CommandInput {
  readonly options: Record<string, string | boolean | Array<string | boolean> | undefined>;
  readonly positionals: readonly string[];
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** How the value is written in help, e.g. `<text>` for `--name=<text>`. */
  readonly value?: string;
  /** One line. */
  readonly description: string;
}

export interface Command {
  /** One line: what the command does. */
  readonly summary: string;
  /** What follows the command's name, e.g. `<login> --name=<text> [--admin]`. */
  readonly usage: string;
  /** Each positional argument as written in `usage`, with a line of help. */
  readonly arguments?: Readonly<Record<string, string>>;
  readonly options?: Readonly<Record<string, OptionSpec>>;
  /** Full command lines, `npx svc ...`. */
  readonly examples: readonly string[];
  run(input: CommandInput): Promise<number | void>;
}
