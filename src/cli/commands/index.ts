// Every CLI command by name.
import type { Command } from '../command.js';
import { migrate } from './migrate.js';
import { serve } from './serve.js';

export const commands: Record<string, Command> = {
  serve,
  migrate,
};
