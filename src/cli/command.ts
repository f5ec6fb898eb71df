// The shape of one CLI command.
import type { ParseArgsConfig } from 'node:util';

export interface CommandInput {
  readonly options: Record<string, string | boolean | Array<string | boolean> | undefined>;
  readonly positionals: readonly string[];
}

export interface Command {
  readonly summary: string;
  readonly options?: NonNullable<ParseArgsConfig['options']>;
  run(input: CommandInput): Promise<number | void>;
}
