// Environment -> typed, validated, frozen configuration, parsed once at boot (DESIGN.md 3.2).
import path from 'node:path';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string;
  readonly dbConnections: Readonly<Record<string, string>>;
  readonly appDebug: boolean;
  readonly tenantIsolation: boolean;
  readonly trustProxy: boolean;
  readonly bodyLimit: number;
  readonly logLevel: string;
  /** APP_SECRET when set; otherwise one is generated into DATA_DIR (config/secrets.ts). */
  readonly appSecret: string | null;
  /** Minutes of inactivity after which a session ends. */
  readonly sessionIdleMinutes: number;
  /** The first admin's password on an empty database; generated and logged once when unset. */
  readonly adminPassword: string | null;
  readonly sqlite: { readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'; readonly cacheSizeKib: number };
}

export class ConfigError extends Error {}

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
    if (typeof url !== 'string' || !/^[a-z0-9_-]+$/i.test(name)) {
      throw new ConfigError(`DB_CONNECTIONS entry "${name}" must map a name (a-z, 0-9, _ or -) to a URL string`);
    }
    out[name] = url;
  }
  return out;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const synchronous = (env.SQLITE_SYNCHRONOUS || 'NORMAL').toUpperCase();
  if (!['OFF', 'NORMAL', 'FULL', 'EXTRA'].includes(synchronous)) {
    throw new ConfigError(`SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA, got "${synchronous}"`);
  }
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0, 65535),
    dataDir,
    databaseUrl: env.DATABASE_URL || `sqlite:${path.join(dataDir, 'svc.sqlite')}`,
    dbConnections: Object.freeze(connections(env)),
    appDebug: bool(env, 'APP_DEBUG', false),
    tenantIsolation: bool(env, 'TENANT_ISOLATION', false),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || 'info',
    adminPassword: env.ADMIN_PASSWORD || null,
    appSecret: env.APP_SECRET || null,
    sessionIdleMinutes: int(env, 'SESSION_IDLE_MINUTES', 120, 1, 60 * 24 * 365),
    sqlite: Object.freeze({
      synchronous: synchronous as Config['sqlite']['synchronous'],
      // KiB of page cache per connection (negative in PRAGMA terms); 64 MB keeps a 100k dataset hot.
      cacheSizeKib: int(env, 'SQLITE_CACHE_SIZE_KIB', 65536, 256, 16 * 1024 * 1024),
    }),
  });
}
