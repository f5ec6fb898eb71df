// The configuration every command reads: the environment, then the working directory's `.env`
// for what the environment leaves unset (DESIGN.md 3.6), exactly as `svc serve` reads it.
import { type Config, loadConfig } from '../config/config.js';
import { databaseEngine, databaseLocation } from '../config/database-location.js';
import { applyEnvFile, type EnvFile } from '../config/env-file.js';

let envFile: EnvFile | null = null;

/** Reads `.env` into process.env once (main.ts does it first, before any command runs). */
export function readEnvFile(): EnvFile {
  envFile ??= applyEnvFile();
  return envFile;
}

export function cliConfig(): Config {
  readEnvFile();
  return loadConfig();
}

/** Where the settings came from, for messages: the environment, and `.env` when there is one. */
export function settingsSource(): string {
  const file = readEnvFile().path;
  return file ? `environment + ${file}` : `environment only, no .env in ${process.cwd()}`;
}

/** Says on stderr which database a command opens (never its password). */
export function announceDatabase(config: Config): void {
  process.stderr.write(
    `Database: ${databaseEngine(config.databaseUrl)} ${databaseLocation(config.databaseUrl)} (settings: ${settingsSource()})\n`,
  );
}
