// Environment -> typed, validated, frozen configuration, parsed once at boot (DESIGN.md 3.2).
import { isIP } from 'node:net';
import path from 'node:path';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string;
  readonly dbConnections: Readonly<Record<string, string>>;
  readonly appDebug: boolean;
  readonly tenantIsolation: boolean;
  /** MIGRATE_ON_START: `svc serve` runs pending migrations first (false: `svc migrate` does). */
  readonly migrateOnStart: boolean;
  /**
   * START_WITH_PENDING_MIGRATIONS: serve even though migrations have not run (MIGRATE_ON_START=false);
   * GET /ready answers 503 until they have. Otherwise they stop the start, as a resource that does
   * not match its database always does.
   */
  readonly startWithPendingMigrations: boolean;
  /** TRUST_PROXY: false, how many proxy hops to trust, or the proxies' addresses and CIDRs. */
  readonly trustProxy: TrustProxy;
  readonly bodyLimit: number;
  /** REQUEST_TIMEOUT_MS: time a client has to send a whole request (headers and body); 408 after. */
  readonly requestTimeoutMs: number;
  /** STREAM_ANSWERS_ABOVE: a resource answer longer than this many characters is streamed. */
  readonly streamAnswersAbove: number;
  /**
   * ANSWER_MEMORY_LIMIT_MB: MiB the list answers in flight may hold together (support/answer-budget.ts);
   * past it, large lists wait their turn.
   */
  readonly answerMemoryLimitMb: number;
  /** ANSWER_STALL_TIMEOUT_MS: a streamed answer whose client reads nothing this long is cut. */
  readonly answerStallTimeoutMs: number;
  readonly logLevel: string;
  /** LOG_FORMAT: `pretty` (human-readable), `json`, or `auto` (pretty when stdout is a terminal). */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  /** APP_SECRET when set; otherwise one is generated into DATA_DIR (config/secrets.ts). */
  readonly appSecret: string | null;
  /** Minutes of inactivity after which a session ends. */
  readonly sessionIdleMinutes: number;
  /** IDEMPOTENCY_KEY_TTL_SECONDS: how long a create's Idempotency-Key and its answer are kept. */
  readonly idempotencyKeyTtlSeconds: number;
  /** CHANGES_RETENTION_DAYS: how long the change log keeps a change (DESIGN.md 3.9). */
  readonly changesRetentionDays: number;
  /** HISTORY_RETENTION_DAYS: how long a record's revisions are kept (DESIGN.md 3.11). */
  readonly historyRetentionDays: number;
  /** The first admin's password on an empty database; generated and logged once when unset. */
  readonly adminPassword: string | null;
  readonly sqlite: {
    readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
    readonly cacheSizeKib: number;
    readonly backgroundCheckpoint: boolean;
  };
  /** PostgreSQL and MySQL connection pools (each process, worker or not, has its own). */
  readonly pool: {
    readonly size: number;
    readonly statementTimeoutMs: number;
    readonly connectTimeoutMs: number;
    /** DB_POOLER: `transaction` behind PgBouncer in transaction mode (DESIGN.md 3.12). */
    readonly pooler: 'transaction' | null;
  };
  /** DATABASE_READ_URL and DB_REPLICA_MAX_LAG_MS: read replicas of a PostgreSQL DATABASE_URL (DESIGN.md 3.12). */
  readonly readReplicas: { readonly urls: readonly string[]; readonly maxLagMs: number };
  /** Real-time push of notifications over the Pusher protocol (DESIGN.md 3.2, 3.5). */
  readonly realtime: RealtimeConfig;
  /** The signed-request driver under /_mad/rest-driver/* (issue 6, docs/rest-driver.md "Signed-request driver"). */
  readonly restDriver: RestDriverConfig;
  /** WORKERS: `svc serve` forks this many worker processes (node:cluster); null runs one process. */
  readonly workers: number | null;
  /** Milliseconds a shutdown waits for requests in flight before it cuts their connections. */
  readonly shutdownTimeoutMs: number;
  /** REDIS_URL: state shared by several instances (sessions, failure counters, nonces, fan-out); null keeps it local. */
  readonly redis: RedisConfig | null;
  /** Webhook deliveries (DESIGN.md 3.10). */
  readonly webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** WEBHOOKS_WORKER: whether this instance delivers (false: it records changes, others deliver). */
  readonly worker: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE: deliver to loopback, private and link-local addresses too. */
  readonly allowPrivate: boolean;
  /** WEBHOOKS_RETRY_FOR_SECONDS: how long after its first attempt a delivery is retried. */
  readonly retryForSeconds: number;
  /** WEBHOOKS_RETRY_BASE_MS: the first retry's delay; each later one doubles. */
  readonly retryBaseMs: number;
  /** WEBHOOKS_RETRY_MAX_MS: the longest delay between two attempts. */
  readonly retryMaxMs: number;
  /** WEBHOOKS_DELIVERY_RETENTION_DAYS: how long a succeeded or dead delivery stays listed. */
  readonly deliveryRetentionDays: number;
  /** WEBHOOKS_POLL_MS: how often each instance looks for new changes and due retries unprompted. */
  readonly pollMs: number;
  /** WEBHOOKS_BUSY_SHARE: % of the time the worker starts work in while the API is busy (100: always). */
  readonly busyShare: number;
}

export interface RedisConfig {
  /** redis:// or rediss://, credentials included: never logged. */
  readonly url: string;
  /** REDIS_PREFIX: starts every key and the pub/sub channel, so deployments sharing a Redis stay apart. */
  readonly prefix: string;
}

export interface RestDriverConfig {
  readonly enabled: boolean;
  /** The HMAC-SHA256 key of every request; at least 32 characters when enabled. */
  readonly secret: string;
  /** Lets statements write; without it the database refuses every write. */
  readonly allowWrite: boolean;
  /** Rows returned at most per statement; more are cut off with `truncated: true`. */
  readonly maxRows: number;
  /** Milliseconds a statement may run before it is cancelled. */
  readonly timeoutMs: number;
  /** REST_DRIVER_MAX_ANSWER_MB: MiB an answer's values may hold; a larger one is a 422. */
  readonly maxAnswerMb: number;
}

export interface RealtimeConfig {
  /** REALTIME_NOTIFICATIONS: the embedded Pusher server, the auth route and the broadcasts. */
  readonly enabled: boolean;
  readonly appId: string;
  readonly key: string;
  /** PUSHER_APP_SECRET when set; otherwise one is generated into DATA_DIR (config/secrets.ts). */
  readonly secret: string | null;
  /** PUSHER_HOST/PORT/SCHEME: publish through this server's HTTP API instead of the embedded one. */
  readonly external: PusherEndpoint | null;
  /** Seconds without a client message before the server pings it (sent as activity_timeout). */
  readonly activityTimeout: number;
  /** REALTIME_MAX_CONNECTIONS: WebSockets this process holds at most; further upgrades get a 503. */
  readonly maxConnections: number;
  /** REALTIME_MAX_CONNECTIONS_PER_ADDRESS: WebSockets one client address holds at most; a 429 past it. */
  readonly maxConnectionsPerAddress: number;
  /** REALTIME_AUTH_TIMEOUT_MS: a connection holding no private channel this long is closed (4009). */
  readonly authTimeoutMs: number;
}

export interface PusherEndpoint {
  readonly host: string;
  readonly port: number;
  readonly scheme: 'http' | 'https';
}

export class ConfigError extends Error {}

/**
 * Which peers may speak for the client through X-Forwarded-For, as Fastify's `trustProxy` takes
 * it: a hop count, or addresses and CIDRs (and proxy-addr's names `loopback`, `linklocal`,
 * `uniquelocal`). The client is the first untrusted address from the right; never `true` (trust
 * everyone), which would make it the leftmost, written by the client itself.
 */
export type TrustProxy = false | number | readonly string[];

type Env = Record<string, string | undefined>;

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

/** DATABASE_READ_URL: comma-separated PostgreSQL URLs, beside a PostgreSQL DATABASE_URL. */
function readReplicas(env: Env, databaseUrl: string): Config['readReplicas'] {
  const urls = (env.DATABASE_READ_URL ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  for (const url of urls)
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new ConfigError(
        'DATABASE_READ_URL must list postgres:// URLs (read replicas of a PostgreSQL DATABASE_URL)',
      );
  if (urls.length > 0 && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError(
      'DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (the primary it replicates)',
    );
  return Object.freeze({
    urls: Object.freeze(urls),
    maxLagMs: int(env, 'DB_REPLICA_MAX_LAG_MS', 1_000, 0, 3_600_000),
  });
}

/** DB_POOLER: empty (direct; a pooler that refuses startup parameters is detected) or `transaction`. */
function pooler(env: Env): 'transaction' | null {
  const raw = env.DB_POOLER;
  if (raw === undefined || raw === '') return null;
  if (raw === 'transaction') return 'transaction';
  throw new ConfigError(`DB_POOLER must be "transaction" or empty, got "${raw}"`);
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: Env): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(false|0|no|off)$/i.test(raw)) return false;
  // `true` trusts the one proxy in front (a hop count of 1): the address it saw is the client.
  if (/^(true|yes|on)$/i.test(raw)) return 1;
  if (/^\d+$/.test(raw)) return int(env, 'TRUST_PROXY', 1, 1, 100);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!PROXY_NAMES.has(entry) && (version === 0 || !prefixOk || extra !== undefined))
      throw new ConfigError(
        `TRUST_PROXY must be false, true, a hop count, or addresses and CIDRs separated by commas (e.g. 10.0.0.0/8,127.0.0.1), got "${entry}"`,
      );
  }
  return Object.freeze(entries);
}

function connections(env: Env): Record<string, string> {
  const raw = env.DB_CONNECTIONS;
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('DB_CONNECTIONS must be a JSON object {"name": "url"}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('DB_CONNECTIONS must be a JSON object {"name": "url"}');
  }
  const out: Record<string, string> = {};
  for (const [name, url] of Object.entries(parsed)) {
    // A unit stores the name in units.connection (at most 64 characters).
    if (!/^[a-z0-9_-]{1,64}$/i.test(name)) {
      throw new ConfigError(
        `DB_CONNECTIONS entry "${name}": a name is 1 to 64 characters of a-z, 0-9, _ or -`,
      );
    }
    if (typeof url !== 'string' || url.trim() === '') {
      throw new ConfigError(
        `DB_CONNECTIONS entry "${name}" must map to a database URL string (sqlite:, postgres:// or mysql://)`,
      );
    }
    out[name] = url;
  }
  return out;
}

// App id and key travel in URL paths (/apps/{id}/events, /app/{key}), so they stay path-safe.
const PUSHER_NAME = /^[A-Za-z0-9_-]{1,100}$/;

function pusherName(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!PUSHER_NAME.test(raw))
    throw new ConfigError(
      `${name} must be 1 to 100 characters of A-Z, a-z, 0-9, _ or -, got "${raw}"`,
    );
  return raw;
}

function pusherEndpoint(env: Env): PusherEndpoint | null {
  const host = env.PUSHER_HOST ?? '';
  // Checked even without PUSHER_HOST (Laravel's .env ships PUSHER_PORT=443 with an empty host).
  const scheme = (env.PUSHER_SCHEME || 'https').toLowerCase();
  if (scheme !== 'http' && scheme !== 'https')
    throw new ConfigError(`PUSHER_SCHEME must be http or https, got "${env.PUSHER_SCHEME}"`);
  const port = int(env, 'PUSHER_PORT', scheme === 'https' ? 443 : 80, 1, 65535);
  if (host === '') return null;
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(host)) {
    throw new ConfigError(
      `PUSHER_HOST must be a host name or IP address without scheme, port or path (e.g. soketi.internal), got "${host}"`,
    );
  }
  return Object.freeze({ host, port, scheme });
}

function realtime(env: Env): RealtimeConfig {
  return Object.freeze({
    enabled: bool(env, 'REALTIME_NOTIFICATIONS', false),
    appId: pusherName(env, 'PUSHER_APP_ID', 'svc'),
    key: pusherName(env, 'PUSHER_APP_KEY', 'svc-key'),
    secret: env.PUSHER_APP_SECRET || null,
    external: pusherEndpoint(env),
    activityTimeout: int(env, 'REALTIME_ACTIVITY_TIMEOUT', 120, 1, 3600),
    // Under a 1,024-descriptor limit, room stays for the HTTP connections and the database's.
    maxConnections: int(env, 'REALTIME_MAX_CONNECTIONS', 500, 1, 1_000_000),
    maxConnectionsPerAddress: int(env, 'REALTIME_MAX_CONNECTIONS_PER_ADDRESS', 50, 1, 1_000_000),
    authTimeoutMs: int(env, 'REALTIME_AUTH_TIMEOUT_MS', 15_000, 100, 3_600_000),
  });
}

export const MIN_DRIVER_SECRET_LENGTH = 32;
export const MAX_WORKERS = 256;

function restDriver(env: Env): RestDriverConfig {
  const enabled = bool(env, 'REST_DRIVER_ENABLED', false);
  const secret = env.REST_DRIVER_SECRET ?? '';
  if (enabled && secret.length < MIN_DRIVER_SECRET_LENGTH) {
    throw new ConfigError(
      `REST_DRIVER_ENABLED=true needs REST_DRIVER_SECRET of at least ${MIN_DRIVER_SECRET_LENGTH} characters ` +
        `(got ${secret.length}); generate one with: openssl rand -hex 32`,
    );
  }
  return Object.freeze({
    enabled,
    secret,
    allowWrite: bool(env, 'REST_DRIVER_ALLOW_WRITE', false),
    maxRows: int(env, 'REST_DRIVER_MAX_ROWS', 10_000, 1, 1_000_000),
    timeoutMs: int(env, 'REST_DRIVER_TIMEOUT_MS', 30_000, 10, 3_600_000),
    maxAnswerMb: int(env, 'REST_DRIVER_MAX_ANSWER_MB', 16, 1, 256),
  });
}

function redis(env: Env): RedisConfig | null {
  const url = env.REDIS_URL ?? '';
  const prefix = env.REDIS_PREFIX || 'svc:';
  if (!/^[\x21-\x7e]{1,100}$/.test(prefix))
    throw new ConfigError(
      `REDIS_PREFIX must be 1 to 100 visible ASCII characters (no spaces), got "${prefix}"`,
    );
  if (url === '') return null;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  // The value is not echoed: it may hold a password.
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new ConfigError(
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    );
  return Object.freeze({ url, prefix });
}

function logFormat(env: Env): Config['logFormat'] {
  const raw = (env.LOG_FORMAT || 'auto').toLowerCase();
  if (raw !== 'auto' && raw !== 'pretty' && raw !== 'json')
    throw new ConfigError(`LOG_FORMAT must be auto, pretty or json, got "${env.LOG_FORMAT}"`);
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const synchronous = (env.SQLITE_SYNCHRONOUS || 'NORMAL').toUpperCase();
  if (!['OFF', 'NORMAL', 'FULL', 'EXTRA'].includes(synchronous)) {
    throw new ConfigError(
      `SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA, got "${synchronous}"`,
    );
  }
  const databaseUrl = env.DATABASE_URL || `sqlite:${path.join(dataDir, 'svc.sqlite')}`;
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0, 65535),
    dataDir,
    databaseUrl,
    dbConnections: Object.freeze(connections(env)),
    migrateOnStart: bool(env, 'MIGRATE_ON_START', true),
    startWithPendingMigrations: bool(env, 'START_WITH_PENDING_MIGRATIONS', false),
    appDebug: bool(env, 'APP_DEBUG', false),
    tenantIsolation: bool(env, 'TENANT_ISOLATION', false),
    trustProxy: trustProxy(env),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    streamAnswersAbove: int(env, 'STREAM_ANSWERS_ABOVE', 1024 * 1024, 0, 1024 * 1024 * 1024),
    answerMemoryLimitMb: int(env, 'ANSWER_MEMORY_LIMIT_MB', 256, 1, 1024 * 1024),
    answerStallTimeoutMs: int(env, 'ANSWER_STALL_TIMEOUT_MS', 30_000, 100, 3_600_000),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat(env),
    adminPassword: env.ADMIN_PASSWORD || null,
    appSecret: env.APP_SECRET || null,
    sessionIdleMinutes: int(env, 'SESSION_IDLE_MINUTES', 120, 1, 60 * 24 * 365),
    idempotencyKeyTtlSeconds: int(env, 'IDEMPOTENCY_KEY_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    changesRetentionDays: int(env, 'CHANGES_RETENTION_DAYS', 30, 1, 3650),
    historyRetentionDays: int(env, 'HISTORY_RETENTION_DAYS', 365, 1, 36500),
    webhooks: Object.freeze({
      worker: bool(env, 'WEBHOOKS_WORKER', true),
      allowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
      retryForSeconds: int(env, 'WEBHOOKS_RETRY_FOR_SECONDS', 86_400, 1, 30 * 86_400),
      retryBaseMs: int(env, 'WEBHOOKS_RETRY_BASE_MS', 5_000, 10, 3_600_000),
      retryMaxMs: int(env, 'WEBHOOKS_RETRY_MAX_MS', 3_600_000, 10, 24 * 3_600_000),
      pollMs: int(env, 'WEBHOOKS_POLL_MS', 1_000, 50, 60_000),
      busyShare: int(env, 'WEBHOOKS_BUSY_SHARE', 5, 1, 100),
      deliveryRetentionDays: int(env, 'WEBHOOKS_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    }),
    sqlite: Object.freeze({
      synchronous: synchronous as Config['sqlite']['synchronous'],
      // KiB of page cache per connection (negative in PRAGMA terms); 64 MB keeps a 100k dataset hot.
      cacheSizeKib: int(env, 'SQLITE_CACHE_SIZE_KIB', 65536, 256, 16 * 1024 * 1024),
      backgroundCheckpoint: bool(env, 'SQLITE_BACKGROUND_CHECKPOINT', true),
    }),
    pool: Object.freeze({
      size: int(env, 'DB_POOL_SIZE', 10, 1, 1000),
      statementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 30_000, 100, 24 * 3_600_000),
      // Short: an unreachable database should answer 503 quickly, not hold the request.
      connectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 2_000, 100, 120_000),
      pooler: pooler(env),
    }),
    readReplicas: readReplicas(env, databaseUrl),
    realtime: realtime(env),
    restDriver: restDriver(env),
    redis: redis(env),
    workers: env.WORKERS ? int(env, 'WORKERS', 1, 1, MAX_WORKERS) : null,
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
  });
}
