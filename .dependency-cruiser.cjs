// Import boundaries of src/ (issue 16, STYLE.md "The shape of the house"): the layers, from the
// bottom up, and who may import whom. `npm run lint` runs
//   depcruise src --config .dependency-cruiser.cjs
// which fails on any arrow below; `--output-type err-long` prints each rule's comment too.
//
//   support/                 generic helpers (object literals, sha256, warn log); imports nothing
//   errors.ts, config/       the error catalog, the configuration
//   database/                Kysely, connections, dialects (the only driver code), migrations
//   model/                   entities, relations, rules
//   engine/                  the generic resource engine
//   kernel/                  what the features share: request state, middleware, the Redis link
//   auth/ rest-driver/ notifications/ realtime/ live/   features, side by side on the kernel
//   app/                     the concrete service: entities and resources
//   http/                    Fastify wiring
//   service.ts, shared-state.ts              the composition root
//   cli/                     the commands
//
// Paths are relative to the repository root and matched after resolution, so a rule does not
// depend on how many `../` an import has. Type-only imports count (tsPreCompilationDeps).

const SUPPORT = '^src/support/';
const ERRORS = '^src/errors[.]ts$';
const CONFIG = '^src/config/';
const DATABASE = '^src/database/';
const MODEL = '^src/model/';
const ENGINE = '^src/engine/';
const KERNEL = '^src/kernel/';
const AUTH = '^src/auth/';
const REST_DRIVER = '^src/rest-driver/';
const NOTIFICATIONS = '^src/notifications/';
const REALTIME = '^src/realtime/';
const SCOPED_CHANNELS = '^src/realtime/scoped-channels[.]ts$';
const LIVE = '^src/live/';
const WEBHOOKS = '^src/webhooks/';
const BROADCASTER = '^src/realtime/broadcaster[.]ts$';
const OPENAPI = '^src/openapi/';
const APP = '^src/app/';
const HTTP = '^src/http/';
const ROOT = '^src/(service|shared-state)[.]ts$';
const CLI = '^src/cli/';

// Every file of src/ is in one of these (rule not-in-a-layer).
const KNOWN = [
  SUPPORT,
  ERRORS,
  CONFIG,
  DATABASE,
  MODEL,
  ENGINE,
  KERNEL,
  AUTH,
  REST_DRIVER,
  NOTIFICATIONS,
  REALTIME,
  LIVE,
  WEBHOOKS,
  OPENAPI,
  APP,
  HTTP,
  ROOT,
  CLI,
];
// What every feature stands on.
const BELOW_FEATURES = [SUPPORT, ERRORS, CONFIG, DATABASE, MODEL, ENGINE, KERNEL];

/** A layer rule: files matching `from` may import, within src/, only files matching `allowed`. */
function onlyImports(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: allowed },
  };
}

/** A driver rule: only files matching `allowedFrom` may import the npm packages `packages`. */
function driver(name, packages, allowedFrom, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: '^src/', pathNot: allowedFrom },
    to: { path: `(^|/)node_modules/(@types/)?(${packages.join('|')})/` },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A file cycle in src/: the files of a cycle can only be understood, loaded and moved ' +
        'together. Move the shared part down (usually a type) so the arrows point one way.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that does not resolve to a file: the layer rules cannot see where it points ' +
        '(and tsc should have failed too).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      comment:
        'An npm package that package.json does not declare (it resolves only because another ' +
        'package brought it into node_modules): declare it in dependencies.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      comment:
        'src/ imports a devDependency at run time: `npm ci --omit=dev` would not install it. ' +
        'Move the package to dependencies (type-only imports are fine).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-not-to-test',
      comment: 'src/ -> test/: the service never depends on its tests or their helpers.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'not-in-a-layer',
      comment:
        'A file of src/ outside the known layers (a new folder, or an old one such as redis/): ' +
        'put it in a layer, or add the folder to .dependency-cruiser.cjs with its rule.',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: KNOWN },
    },
    {
      name: 'not-in-a-layer-importer',
      comment: 'The same, for a file outside the known layers that imports something.',
      severity: 'error',
      from: { path: '^src/', pathNot: KNOWN },
      to: {},
    },

    // The layers, bottom up. Each rule forbids every arrow from its layer to anything in src/
    // that is not below it (or itself).
    onlyImports(
      'support-imports-only-support',
      SUPPORT,
      [SUPPORT],
      'support/ -> anything else in src/: support/ holds generic helpers that every layer may ' +
        'use, so it must not know any of them.',
    ),
    onlyImports(
      'errors-config-import-only-support',
      [ERRORS, CONFIG],
      [SUPPORT, ERRORS, CONFIG],
      'errors.ts or config/ -> database/ and above: the error catalog and the configuration ' +
        'are read by every layer, so they see only support/ and each other.',
    ),
    onlyImports(
      'database-imports-only-lower',
      DATABASE,
      [SUPPORT, ERRORS, CONFIG, DATABASE],
      'database/ -> model/, engine/ or above: the database layer (connections, dialects, ' +
        'migrations) knows no entity; a helper it needs from above belongs in support/.',
    ),
    onlyImports(
      'model-imports-only-lower',
      MODEL,
      [SUPPORT, ERRORS, CONFIG, DATABASE, MODEL],
      'model/ -> engine/ or above: entities and relations are what the engine works on, so ' +
        'they cannot know the engine (e.g. a rule type belongs in model/).',
    ),
    onlyImports(
      'engine-imports-only-lower',
      ENGINE,
      [SUPPORT, ERRORS, CONFIG, DATABASE, MODEL, ENGINE],
      'engine/ -> kernel/, a feature, app/, http/, cli/ or the composition root: the generic ' +
        'resource engine never knows the concrete service (STYLE.md: app -> engine -> model).',
    ),
    onlyImports(
      'kernel-imports-only-lower',
      KERNEL,
      [SUPPORT, ERRORS, CONFIG, DATABASE, MODEL, KERNEL],
      'kernel/ -> engine/, a feature, app/, http/, cli/ or the composition root: the kernel ' +
        'is what auth, driver, notifications and realtime share, so it knows none of them.',
    ),

    // The features stand side by side on the kernel; none imports app/, http/, cli/ or the
    // composition root.
    onlyImports(
      'auth-imports-only-kernel-and-below',
      AUTH,
      [...BELOW_FEATURES, AUTH],
      'auth/ -> another feature, app/, http/, cli/ or the composition root: auth stands on ' +
        'the kernel; whoever needs both gets them from the composition root.',
    ),
    onlyImports(
      'rest-driver-imports-only-kernel-auth-and-below',
      REST_DRIVER,
      [...BELOW_FEATURES, AUTH, REST_DRIVER],
      'rest-driver/ -> notifications/, realtime/, app/, http/, cli/ or the composition root: the ' +
        'REST driver endpoint builds on auth/ (its signature and nonce guard) and the kernel only.',
    ),
    onlyImports(
      'notifications-imports-only-broadcaster-of-realtime',
      NOTIFICATIONS,
      [...BELOW_FEATURES, NOTIFICATIONS, BROADCASTER],
      'notifications/ -> realtime/ other than broadcaster.ts, auth/, rest-driver/, app/, http/, ' +
        'cli/ or the composition root: realtime/broadcaster.ts is the one narrow interface ' +
        'between the two features.',
    ),
    onlyImports(
      'realtime-imports-only-kernel-and-below',
      REALTIME,
      [SUPPORT, ERRORS, CONFIG, DATABASE, KERNEL, REALTIME],
      'realtime/ -> model/, engine/, another feature, app/, http/, cli/ or the composition ' +
        'root: the Pusher-protocol server knows no entity and no resource; what it needs of ' +
        'notifications is handed to it by the composition root.',
    ),

    onlyImports(
      'live-imports-only-scoped-channels-of-realtime',
      LIVE,
      [...BELOW_FEATURES, LIVE, SCOPED_CHANNELS],
      'live/ -> realtime/ other than scoped-channels.ts, another feature, app/, http/, cli/ or ' +
        "the composition root: live/ relays the engine's change log to real time through the " +
        'one narrow interface realtime/scoped-channels.ts.',
    ),
    onlyImports(
      'webhooks-imports-only-kernel-and-below',
      WEBHOOKS,
      [...BELOW_FEATURES, WEBHOOKS],
      'webhooks/ -> another feature, app/, http/, cli/ or the composition root: deliveries ' +
        "follow the engine's change log; the routes and databases are handed to them.",
    ),
    onlyImports(
      'openapi-imports-only-engine-kernel-and-below',
      OPENAPI,
      [...BELOW_FEATURES, OPENAPI],
      'openapi/ -> a feature, app/, http/, cli/ or the composition root: the document is ' +
        "generated from the engine's definitions and the route table it is handed; http/ " +
        'serves it.',
    ),
    onlyImports(
      'app-imports-no-wiring',
      APP,
      [...BELOW_FEATURES, AUTH, NOTIFICATIONS, WEBHOOKS, APP],
      'app/ -> realtime/, rest-driver/, http/, cli/ or the composition root: the concrete service ' +
        'defines entities and resources on the engine (with auth abilities and notifications); ' +
        'the wiring imports it, not the other way round.',
    ),
    {
      name: 'http-not-to-cli-or-root',
      comment:
        'http/ -> cli/, service.ts or shared-state.ts: the Fastify wiring is built by the ' +
        'composition root, which the CLI starts.',
      severity: 'error',
      from: { path: HTTP },
      to: { path: [CLI, ROOT] },
    },
    {
      name: 'root-not-to-cli',
      comment:
        'service.ts or shared-state.ts -> cli/: the composition root is started by the CLI ' +
        '(and by the tests), never the other way round.',
      severity: 'error',
      from: { path: ROOT },
      to: { path: CLI },
    },

    // The admin front end (web/) is a browser program of its own: it shares one file of the
    // service, the metadata types it renders from, and the service never imports it.
    {
      name: 'web-imports-only-metadata-types',
      comment:
        'web/ -> src/ beyond src/engine/description/metadata-types.ts: the admin front end ' +
        'talks to the service over HTTP only; the one shared file is the shape of GET ' +
        '/app/resources, imported type-only.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/engine/description/metadata-types[.]ts$' },
    },
    {
      name: 'src-not-to-web',
      comment: 'src/ -> web/: the service serves the built front end (dist/web), never its source.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },

    // Drivers: only the dialects know which engine runs; only realtime speaks WebSocket; only
    // the kernel's shared Redis opens ioredis.
    driver(
      'sql-drivers-only-in-dialects',
      ['better-sqlite3', 'pg', 'mysql2'],
      '^src/database/dialects/',
      'A SQL driver (better-sqlite3, pg, mysql2) outside database/dialects/: only the dialects ' +
        'know which engine runs (STYLE.md).',
    ),
    driver(
      'ws-only-in-realtime',
      ['ws'],
      REALTIME,
      'ws outside realtime/: only the real-time server speaks WebSocket (STYLE.md).',
    ),
    driver(
      'ioredis-only-in-shared-redis',
      ['ioredis'],
      '^src/kernel/shared-redis[.]ts$',
      'ioredis outside kernel/shared-redis.ts: one module opens the shared Redis connections ' +
        '(prefix, retry policy, SUBSCRIBE connections); the stores use its SharedRedis.',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    cache: false,
  },
};
