// What every data command shares: the server's configuration, the migrated (and on first use
// bootstrapped) database, lookups of users/units/companies by id or name, and JSON output.

import { bootstrap } from '../app/bootstrap.js';
import type { Config } from '../config/config.js';
import type { Database } from '../database/database.js';
import { numberingSettled } from '../engine/changes/committed.js';
import type { EngineContext } from '../engine/context.js';
import { HttpError } from '../errors.js';
import { NO_SCOPE } from '../model/scope.js';
import { openDatabase } from '../service.js';
import { openSharedState } from '../shared-state.js';
import { announceDatabase, cliConfig } from './cli-config.js';
import { CliError } from './cli-error.js';
import { escapeControls, terminalJson } from './terminal-text.js';

export interface CliSession {
  readonly config: Config;
  readonly database: Database;
  /** An engine context for direct invocation of resource actions. */
  readonly context: EngineContext;
}

export async function withDatabase<T>(work: (session: CliSession) => Promise<T>): Promise<T> {
  const config = cliConfig();
  announceDatabase(config);
  const database = await openDatabase(config);
  try {
    const first = await bootstrap(database, config.adminPassword);
    if (first.generatedPassword)
      process.stderr.write(
        `First use: created user "admin" with password ${first.generatedPassword} (shown once).\n`,
      );
    const context: EngineContext = {
      system: database,
      data: database,
      scope: NO_SCOPE,
      user: null,
      mode: 'direct',
      // The changes its writes append say a command made them (DESIGN.md 3.9).
      actor: { user_id: null, token_id: null, via: 'cli' },
      // Where the server keeps them: the system database, or Redis with REDIS_URL.
      endSessionsOf: async (userId) => {
        const shared = await openSharedState(config, database, Date.now);
        try {
          await shared.sessions.endUserSessions(userId, null);
        } finally {
          await shared.close();
        }
      },
    };
    return await work({ config, database, context });
  } catch (error) {
    // A refused write reads like the API's 422: the summary, then each field's messages.
    if (error instanceof HttpError && error.status === 422) {
      const details = Object.entries((error.body.errors ?? {}) as Record<string, string[]>)
        .map(([field, messages]) => `  ${field}: ${messages.join(' ')}`)
        .join('\n');
      throw new CliError(`${error.message}\n${details}`);
    }
    if (error instanceof HttpError) throw new CliError(error.message);
    throw error;
  } finally {
    // Where seqs are given after the commit (PostgreSQL, MySQL), the command's changes get theirs
    // before it ends, so servers following the log tell of them now.
    await numberingSettled(database);
    await database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${terminalJson(value)}\n`);
}

/** How a record found by name is told apart from others of that name: a unit by its company. */
async function describeRows(
  database: Database,
  table: string,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (table !== 'units') return new Map(ids.map((id) => [id, `#${id}`]));
  const rows = await database.db
    .selectFrom('units')
    .leftJoin('companies', 'companies.id', 'units.company_id')
    .select(['units.id as id', 'companies.name as company'])
    .where('units.id', 'in', [...ids])
    .execute();
  return new Map(
    rows.map((r: Record<string, unknown>) => [
      Number(r.id),
      `#${Number(r.id)} (${r.company === null ? 'no company' : `company ${escapeControls(String(r.company))}`})`,
    ]),
  );
}

/**
 * A row by id (all digits) or by its name column, or a CliError naming what was not found. A
 * lookup by name says on stderr which record it chose; several records of one name (left from
 * before names were unique) are listed, and the command asks for an id.
 */
export async function findByIdOrName(
  database: Database,
  table: string,
  nameColumn: string,
  what: string,
  ref: string | undefined,
): Promise<number> {
  if (!ref) throw new CliError(`Missing ${what}: give its id or ${nameColumn}.`);
  const query = database.db.selectFrom(table).select('id').orderBy('id');
  const byId = /^\d+$/.test(ref);
  const rows = byId
    ? await query.where('id', '=', Number(ref)).execute()
    : await query.where(nameColumn, '=', ref).execute();
  if (rows.length === 0) throw new CliError(`No ${what} "${ref}".`);
  const ids = rows.map((r: Record<string, unknown>) => Number(r.id));
  if (byId) return Number(ids[0]);
  const described = await describeRows(database, table, ids);
  // Worded without a plural: `${what}s` made "companys".
  if (ids.length > 1)
    throw new CliError(
      `More than one ${what} is named "${ref}": ${ids.map((id) => described.get(id)).join(', ')}. Give its id.`,
    );
  process.stderr.write(`Using ${what} "${ref}": ${described.get(Number(ids[0]))}.\n`);
  return Number(ids[0]);
}

export function requiredString(value: unknown, option: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new CliError(`--${option}=<value> is required.`);
  return value;
}
