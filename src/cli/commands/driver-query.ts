// svc driver:query "<sql>" [--bindings=<json array>] [--connection=<name>]
// Signs one statement with REST_DRIVER_SECRET and sends it to the running service at HOST:PORT
// (docs/rest-driver.md "Signed-request driver"), the same way an external tool would: the answer's JSON on
// stdout; a refusal's message on stderr and exit 1.

import { signatureHeaders } from '../../rest-driver/request-signature.js';
import { REST_DRIVER_PREFIX } from '../../rest-driver/rest-driver-routes.js';
import { cliConfig } from '../cli-config.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printJson } from '../database-session.js';
import { localService } from '../local-service.js';

const USAGE = 'Usage: svc driver:query "<sql>" [--bindings=<json array>] [--connection=<name>]';

function bindingsOf(option: unknown): unknown[] | undefined {
  if (typeof option !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(option);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed))
    throw new CliError(`--bindings must be a JSON array, e.g. --bindings='[1, "a", null]'.`);
  return parsed;
}

/** The error body's message, whichever shape it has ({message} or {error}). */
function messageOf(body: unknown, status: number): string {
  const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const message = fields.message ?? fields.error;
  return typeof message === 'string' ? message : `HTTP ${status}`;
}

export const driverQuery: Command = {
  summary: 'Send one signed SQL statement to the running service (REST_DRIVER_SECRET, HOST:PORT)',
  usage: '"<sql>" [--bindings=<json>] [--connection=<name>]',
  arguments: { '"<sql>"': 'one SQL statement, ? for each binding' },
  options: {
    bindings: {
      type: 'string',
      value: '<json>',
      description: 'a JSON array of values for the ? marks',
    },
    connection: {
      type: 'string',
      value: '<name>',
      description: 'a DB_CONNECTIONS entry instead of DATABASE_URL',
    },
  },
  examples: [`npx svc driver:query "select id, name from units where id = ?" --bindings='[1]'`],
  async run({ options, positionals }) {
    const [sql, extra] = positionals;
    if (!sql || extra !== undefined) throw new CliError(USAGE);
    const config = cliConfig();
    const secret = config.restDriver.secret;
    if (secret === '')
      throw new CliError(
        "REST_DRIVER_SECRET is not set: the command signs with the service's secret.",
      );
    const bindings = bindingsOf(options.bindings);
    const connection = typeof options.connection === 'string' ? options.connection : undefined;
    const body = JSON.stringify({
      sql,
      ...(bindings ? { bindings } : {}),
      ...(connection ? { connection } : {}),
    });
    const target = `${REST_DRIVER_PREFIX}/query`;
    const { host, port } = localService(config);
    const url = `http://${host}:${port}${target}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signatureHeaders(secret, { method: 'POST', target, body }),
        },
        body,
        // The statement's own limit, plus time to connect and answer.
        signal: AbortSignal.timeout(config.restDriver.timeoutMs + 10_000),
      });
    } catch (error) {
      const cause =
        error instanceof Error && error.cause instanceof Error
          ? error.cause.message
          : error instanceof Error
            ? error.message
            : String(error);
      throw new Error(`Cannot reach the service at ${url}: ${cause}`);
    }
    const text = await response.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Error(`The service answered ${response.status} with a body that is not JSON.`);
    }
    if (!response.ok) {
      const hint = response.status === 404 ? ' (is REST_DRIVER_ENABLED=true on the service?)' : '';
      throw new Error(
        `The service answered ${response.status}: ${messageOf(answer, response.status)}${hint}`,
      );
    }
    printJson(answer);
  },
};
