// The composition root: configuration -> databases (migrated, bootstrapped) -> auth -> app with
// the service's routes.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { bootstrap } from './app/bootstrap.js';
import { webhooks } from './app/resources/webhooks.js';
import { grantableAbilities, serviceRoutes } from './app/routes.js';
import { type Clock, FailureLimiter } from './auth/failure-limiter.js';
import { apiGuard, sessionGuard } from './auth/guards.js';
import { SessionAuth } from './auth/session/session-auth.js';
import { registerSessionRoutes } from './auth/session/session-routes.js';
import { registerTokenAdminRoutes } from './auth/tokens/token-admin-routes.js';
import type { Config } from './config/config.js';
import { persistentSecret } from './config/secrets.js';
import { type ConnectOptions, connectDatabase } from './database/connect.js';
import type { Database } from './database/database.js';
import { MIGRATION_SETS, migrate } from './database/migrator.js';
import { UnitDatabases, type UnknownConnection } from './database/unit-databases.js';
import { show } from './engine/actions/show.js';
import { keepChanges, refreshKnownSeq } from './engine/changes/retention.js';
import {
  checkedDatabases,
  checkSchema,
  reportText,
  SchemaCheckFailed,
} from './engine/definition/schema-check.js';
import type { ResourceRoute } from './engine/routes.js';
import { errors } from './errors.js';
import { DEFAULT_ADMIN_ROOT, registerAdminRoutes } from './http/admin-routes.js';
import { buildApp } from './http/build-app.js';
import { registerDescriptionRoutes } from './http/description-routes.js';
import { engineContextOf } from './http/engine-context.js';
import { registerHealthRoutes } from './http/health-routes.js';
import { clientAddressOf } from './kernel/client-address.js';
import { MiddlewareRegistry } from './kernel/middleware.js';
import { liveChanges } from './live/live-changes.js';
import { notificationChannel } from './notifications/notification-event.js';
import { NotificationInbox } from './notifications/notification-inbox.js';
import { registerNotificationRoutes } from './notifications/notification-routes.js';
import { NotificationSender } from './notifications/notification-sender.js';
import { installRealtime } from './realtime/install-realtime.js';
import type { PusherServer } from './realtime/pusher-server.js';
import { RestDriverConnections } from './rest-driver/rest-driver-connections.js';
import { registerRestDriverRoutes } from './rest-driver/rest-driver-routes.js';
import { openSharedState } from './shared-state.js';
import { installWebhooks } from './webhooks/install-webhooks.js';

export interface Service {
  readonly app: FastifyInstance;
  readonly database: Database;
  /** The databases of the units' data tables: the main one and each DB_CONNECTIONS entry. */
  readonly unitDatabases: UnitDatabases;
  /** The send API of SPEC.md 6 (the session user's default sender is given per call). */
  readonly notifications: NotificationSender;
  /** The embedded Pusher server; null unless REALTIME_NOTIFICATIONS=true. */
  readonly realtime: PusherServer | null;
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly logger?: FastifyServerOptions['logger'];
  /** Milliseconds since the epoch; tests move it to end failure windows and sessions. */
  readonly clock?: Clock;
  /**
   * prepareService() already ran (the primary of `svc serve --workers`): open the database
   * without migrating and skip the first-start bootstrap, which workers would otherwise race.
   */
  readonly prepared?: boolean;
  /** The resource routes (default: the service's own, app/routes.ts); tests add fixtures. */
  readonly resources?: readonly ResourceRoute[];
  /**
   * Shows a generated first admin password on a line of its own (`svc serve`); without it the
   * password goes into the log record.
   */
  readonly onAdminPassword?: AdminPasswordLine;
}

export type AdminPasswordLine = (password: string) => void;

interface StartLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Opens DATABASE_URL and brings its schema up to date (unless MIGRATE_ON_START=false). */
export async function openDatabase(config: Config): Promise<Database> {
  const database = connectDatabase(config.databaseUrl, withReplicas(config));
  if (config.migrateOnStart) await migrate(database.db, MIGRATION_SETS);
  return database;
}

/** DATABASE_URL's connect options: its read replicas besides the pool (DESIGN.md 3.12). */
function withReplicas(config: Config): ConnectOptions {
  return { ...config, replicas: config.readReplicas };
}

/**
 * Issue 36: every resource checked against the databases it uses before the service serves. A
 * problem stops the start; migrations that have not run too, unless the operator chose to serve
 * anyway (START_WITH_PENDING_MIGRATIONS): then the report is returned, to be logged.
 */
async function checkBeforeServing(
  config: Config,
  database: Database,
  units: UnitDatabases,
  routes: readonly ResourceRoute[],
): Promise<string | null> {
  const report = await checkSchema(
    routes.map((route) => route.resource),
    checkedDatabases(database, units),
  );
  const text = reportText(report);
  if (text === null) return null;
  if (report.pending.length > 0 && config.startWithPendingMigrations) return text;
  throw new SchemaCheckFailed(text);
}

/** First start (DESIGN.md 3.1): the company, unit and admin of an empty database, said once. */
async function firstStart(
  database: Database,
  config: Config,
  log: StartLog,
  passwordLine?: AdminPasswordLine,
): Promise<void> {
  const first = await bootstrap(database, config.adminPassword);
  if (first.generatedPassword && passwordLine) {
    log.warn(
      'First start: created company Default, unit Main and user "admin" with a generated password, shown once on its own line.',
    );
    passwordLine(first.generatedPassword);
  } else if (first.generatedPassword) {
    log.warn(
      `First start: created user "admin" with password ${first.generatedPassword} (shown once; change it).`,
    );
  } else if (first.created) {
    log.info(
      'First start: created company Default, unit Main and user "admin" (password from ADMIN_PASSWORD).',
    );
  } else if (config.adminPassword) {
    log.warn(
      'ADMIN_PASSWORD is ignored: the database already has users. Change a password with `npx svc user:password <login>`.',
    );
  }
}

function startingAnyway(report: string): string {
  return `${report}\nServing anyway (START_WITH_PENDING_MIGRATIONS=true): GET /ready answers 503 until the migrations have run.`;
}

/**
 * What must happen once before several processes start the service on one database and
 * DATA_DIR: migrations, the first-start bootstrap and the generated secrets.
 */
export async function prepareService(
  config: Config,
  log: StartLog,
  passwordLine?: AdminPasswordLine,
): Promise<void> {
  const database = await openDatabase(config);
  try {
    // Opening the units' databases brings their data tables up to date too.
    const units = await UnitDatabases.open(database, config, config, config.migrateOnStart);
    const unchecked = await checkBeforeServing(config, database, units, serviceRoutes).finally(() =>
      units.close(),
    );
    if (unchecked !== null) log.warn(startingAnyway(unchecked));
    await firstStart(database, config, log, passwordLine);
  } finally {
    await database.close();
  }
  persistentSecret(config.dataDir, 'app', config.appSecret);
  if (config.realtime.enabled) persistentSecret(config.dataDir, 'pusher', config.realtime.secret);
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  // Set up first (no file is opened yet): an engine the REST driver cannot use stops the start here.
  const restDriver = config.restDriver.enabled ? RestDriverConnections.open(config) : null;
  const database = options.prepared
    ? connectDatabase(config.databaseUrl, withReplicas(config))
    : await openDatabase(config);
  const resources = options.resources ?? serviceRoutes;
  let unchecked: string | null = null;
  const unitDatabases = await UnitDatabases.open(
    database,
    config,
    config,
    config.migrateOnStart,
  ).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  try {
    // The primary of a pool checked before forking: each worker learns the column lengths.
    unchecked = await checkBeforeServing(config, database, unitDatabases, resources);
    if (options.prepared) unchecked = null;
  } catch (error) {
    await unitDatabases.close();
    await database.close();
    throw error;
  }
  const clock = options.clock ?? Date.now;
  // A unit naming an unconfigured connection is an operator's mistake: said once in the log,
  // and each of its resource requests answers 503 (http/build-app.ts).
  const reported = new Set<string>();
  const dataFor = (connection: string | null): Database | UnknownConnection => {
    const data = unitDatabases.for(connection);
    if ('unknownConnection' in data && !reported.has(data.unknownConnection)) {
      reported.add(data.unknownConnection);
      app.log.error(
        `A unit names connection "${data.unknownConnection}", which DB_CONNECTIONS does not configure; its requests answer 503.`,
      );
    }
    return data;
  };
  // Sessions, failure counters and nonces: in Redis with REDIS_URL, shared by every instance.
  const shared = await openSharedState(config, database, clock).catch(async (error: unknown) => {
    await unitDatabases.close();
    await database.close();
    throw error;
  });
  const limiter = new FailureLimiter(shared.failures, clock);
  const sessions = new SessionAuth({
    store: shared.sessions,
    dataFor,
    idleMinutes: config.sessionIdleMinutes,
    tenantIsolation: config.tenantIsolation,
    clock,
  });
  const bearer = {
    system: database,
    dataFor,
    limiter,
    tenantIsolation: config.tenantIsolation,
    clock,
  };
  const middleware = new MiddlewareRegistry()
    .define('svc.api', apiGuard(bearer, sessions))
    .define('svc.auth', sessionGuard(sessions));
  const authenticated = middleware.resolve('svc.auth');
  const pusherSecret = config.realtime.enabled
    ? persistentSecret(config.dataDir, 'pusher', config.realtime.secret)
    : '';
  // Made inside routes(app), which runs during buildApp: they need the app's log and server.
  let notifications: NotificationSender | undefined;
  let realtime: PusherServer | null = null;
  // Resource changes on real time (DESIGN.md 3.9): the channels, then the relay to the sockets.
  const changes = liveChanges({
    routes: resources,
    contextOf: engineContextOf(database),
    databases: unitDatabases.keyed(),
  });
  const app = await buildApp({
    unitDatabases: unitDatabases.databases(),
    config,
    database,
    resources,
    middleware,
    cookieSecret: persistentSecret(config.dataDir, 'app', config.appSecret),
    sessions: shared.sessions,
    routes(app) {
      registerHealthRoutes(app, {
        database,
        migrationSets: MIGRATION_SETS,
        unitDatabases: unitDatabases.databases(),
      });
      registerAdminRoutes(app, {
        root: DEFAULT_ADMIN_ROOT,
        sessionLive: (request) => sessions.isLive(request),
      });
      registerDescriptionRoutes(app, { resources, database, authenticated });
      registerSessionRoutes(app, { system: database, sessions, limiter, authenticated });
      registerTokenAdminRoutes(app, {
        system: database,
        grantable: grantableAbilities(resources),
        authenticated,
      });
      const live = installRealtime(app, {
        config: config.realtime,
        secret: pusherSecret,
        clock,
        authenticated,
        channelOf: notificationChannel,
        redis: shared.redis,
        clientAddress: clientAddressOf(config.trustProxy),
        scopedChannels: changes.channels,
      });
      realtime = live.server;
      if (live.server && live.scoped) changes.relay(app, live.server, shared.redis);
      notifications = new NotificationSender({
        database,
        broadcaster: live.broadcaster,
        log: app.log,
        clock,
      });
      const inbox = new NotificationInbox(database, clock);
      registerNotificationRoutes(app, {
        sender: notifications,
        inbox,
        middleware: (spec) => middleware.resolve(spec),
      });
      const contextOf = engineContextOf(database);
      installWebhooks(app, {
        system: database,
        routes: resources,
        databases: unitDatabases.keyed(),
        settings: config.webhooks,
        tenantIsolation: config.tenantIsolation,
        appSecret: persistentSecret(config.dataDir, 'app', config.appSecret),
        middleware: (spec) => middleware.resolve(spec),
        // As the resource's show and update would answer: its admin check, then its scope.
        endpointOf: async (request, action, id) => {
          const context = contextOf(request);
          if (webhooks.authorize && !(await webhooks.authorize(action, context)))
            throw errors.unauthorized();
          await show(webhooks, context, id);
        },
        clock,
      });
      if (restDriver)
        registerRestDriverRoutes(app, {
          config: config.restDriver,
          connections: restDriver,
          limiter,
          nonces: shared.nonces,
          clock,
        });
    },
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  // The change log (DESIGN.md 3.9): Changes-Seq starts from each database's last seq, and old
  // changes, and the history they hold (3.11), are pruned in the background.
  const changeDatabases = () => [database, ...unitDatabases.databases()];
  await Promise.all(changeDatabases().map((db) => refreshKnownSeq(db)));
  const retention = keepChanges(
    changeDatabases,
    { changes: config.changesRetentionDays, history: config.historyRetentionDays },
    app.log,
    clock,
  );
  app.addHook('onClose', async () => {
    retention.stop();
    await unitDatabases.close();
    await database.close();
  });
  app.addHook('onClose', async () => shared.close());
  shared.redis?.reportTo(app.log);
  if (unchecked !== null) app.log.error(startingAnyway(unchecked));
  if (!config.pool.pooler && database.behindPooler?.())
    app.log.warn(
      'DATABASE_URL refused a startup parameter, as PgBouncer does: running as with DB_POOLER=transaction (set it to say so).',
    );
  if (!options.prepared) await firstStart(database, config, app.log, options.onAdminPassword);
  if (!notifications) throw new Error('buildApp did not register the service routes');
  return { app, database, unitDatabases, notifications, realtime, close: () => app.close() };
}
