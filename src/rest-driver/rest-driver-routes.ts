// The signed-request driver (issue 6, docs/rest-driver.md "Signed-request driver"): raw SQL for an external
// database tool, registered only with REST_DRIVER_ENABLED=true, so that otherwise every path
// under the prefix is the JSON 404 of any unmatched route.
//   POST /_mad/rest-driver/query          {sql, bindings?, connection?} -> {columns, rows, row_count, truncated}
//   GET  /_mad/rest-driver/tables         ?connection= -> {tables: [{name, type}]}
//   GET  /_mad/rest-driver/tables/{name}  ?connection= -> {name, columns: [{name, type, nullable, default, primary_key}]}
import type { FastifyInstance } from 'fastify';
import type { Clock, FailureLimiter } from '../auth/failure-limiter.js';
import type { RestDriverConfig } from '../config/config.js';
import { type RawSql, RawSqlError } from '../database/raw-sql.js';
import { errors } from '../errors.js';
import type { NonceStore } from './nonce-store.js';
import { restDriverAuth } from './rest-driver-auth.js';
import type { RestDriverConnections } from './rest-driver-connections.js';
import { connectionName, readRestDriverQuery } from './rest-driver-input.js';

export const REST_DRIVER_PREFIX = '/_mad/rest-driver';

export interface RestDriverRoutesOptions {
  readonly config: RestDriverConfig;
  readonly connections: RestDriverConnections;
  readonly limiter: FailureLimiter;
  readonly nonces: NonceStore;
  readonly clock: Clock;
}

/** The database's refusals as catalog errors; anything else stays a 500. */
function translated(error: unknown): unknown {
  if (!(error instanceof RawSqlError)) return error;
  return error.kind === 'unavailable'
    ? errors.serviceUnavailable()
    : errors.driverStatementRefused(error.message);
}

async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw translated(error);
  }
}

export function registerRestDriverRoutes(
  app: FastifyInstance,
  options: RestDriverRoutesOptions,
): void {
  const { connections } = options;
  const auth = restDriverAuth({
    secret: options.config.secret,
    limiter: options.limiter,
    nonces: options.nonces,
    clock: options.clock,
  });
  const database = (name: string | null): RawSql => {
    const found = connections.get(name);
    if (!found) throw errors.validation({ connection: ['The selected connection is invalid.'] });
    return found;
  };
  const queryConnection = (query: unknown): string | null =>
    connectionName((query as Record<string, unknown> | undefined)?.connection);

  // Encapsulated: only these routes take their body as raw bytes, which the signature covers.
  app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        'application/json',
        { parseAs: 'buffer' },
        (_request, body, done) => done(null, body),
      );
      scope.addHook('onRequest', auth.refuseBlocked);
      scope.addHook('preHandler', auth.verify);

      scope.post('/query', async (request, reply) => {
        const input = readRestDriverQuery(
          Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        );
        const target = database(input.connection);
        // An audit line per statement; bindings may hold personal data and stay out of the log.
        request.log.info(
          { driver: { connection: input.connection, sql: input.sql.slice(0, 2000) } },
          'rest-driver statement',
        );
        // {columns, rows, row_count, truncated}, encoded already (on SQLite off the event loop).
        const json = await answer(target.run(input.sql, input.bindings));
        return reply
          .type('application/json; charset=utf-8')
          .send(Buffer.from(json.buffer, json.byteOffset, json.byteLength));
      });

      scope.get('/tables', async (request) => {
        const tables = await answer(database(queryConnection(request.query)).tables());
        return { tables };
      });

      scope.get('/tables/:name', async (request) => {
        const { name } = request.params as { name: string };
        // Looked up as a value among the catalog's tables, never spliced into SQL.
        const columns = await answer(database(queryConnection(request.query)).columns(name));
        if (!columns) throw errors.driverTableNotFound();
        return { name, columns };
      });
    },
    { prefix: REST_DRIVER_PREFIX },
  );
  app.addHook('onClose', async () => connections.close());
}
