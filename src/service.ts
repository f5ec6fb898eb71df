// The composition root: configuration -> database (migrated) -> app with the service's routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import { connectDatabase } from './database/connect.js';
import type { Database } from './database/database.js';
import { migrate } from './database/migrator.js';
import { serviceRoutes } from './app/routes.js';
import { buildApp } from './http/build-app.js';
import { MiddlewareRegistry } from './http/middleware.js';
import type { FastifyServerOptions } from 'fastify';

export interface Service {
  readonly app: FastifyInstance;
  readonly database: Database;
  close(): Promise<void>;
}

export async function openDatabase(config: Config): Promise<Database> {
  const database = connectDatabase(config.databaseUrl, { sqlite: config.sqlite });
  await migrate(database.db, ['system', 'data']);
  return database;
}

export async function startService(config: Config, logger?: FastifyServerOptions['logger']): Promise<Service> {
  const database = await openDatabase(config);
  const middleware = new MiddlewareRegistry().define('svc.api', () => async () => {});
  const app = await buildApp({ config, database, resources: serviceRoutes, middleware, ...(logger !== undefined ? { logger } : {}) });
  app.addHook('onClose', async () => database.close());
  return { app, database, close: () => app.close() };
}
