// svc notify <user>[,<user>...] --title= --message= [--level=] [--icon=] [--url=|--navigate=]
// Stores through the same send service as POST /api/notifications (no sender: the command line
// has no session user). With REALTIME_NOTIFICATIONS=true it publishes through the Pusher HTTP
// API to PUSHER_HOST, or to the local service at HOST:PORT (DESIGN.md 3.6), both read from the
// same settings as the server (environment and .env). A failed push is an error (exit 1, saying
// where it tried): the records are stored and printed, but nobody saw them arrive.
import type { Config } from '../../config/config.js';
import { persistentSecret } from '../../config/secrets.js';
import type { ActionInput } from '../../notifications/notification-input.js';
import type { Level } from '../../notifications/notification-record.js';
import { NotificationSender } from '../../notifications/notification-sender.js';
import type { Broadcaster } from '../../realtime/broadcaster.js';
import { httpBroadcaster } from '../../realtime/http-broadcaster.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { findByIdOrName, printJson, requiredString, withDatabase } from '../database-session.js';
import { localService } from '../local-service.js';

const USAGE =
  'Usage: svc notify <user>[,<user>...] --title=<t> --message=<m> [--level=info|success|warning|danger] [--icon=<name>] [--url=<https://...> | --navigate=</path>]';

interface Push {
  readonly broadcaster: Broadcaster;
  /** Where the push goes, for messages. */
  readonly target: string;
}

function pushFor(config: Config): Push | null {
  const { realtime } = config;
  if (!realtime.enabled) return null;
  const secret = persistentSecret(config.dataDir, 'pusher', realtime.secret);
  const endpoint = realtime.external ?? localService(config);
  return {
    broadcaster: httpBroadcaster({
      endpoint,
      credentials: { appId: realtime.appId, key: realtime.key, secret },
    }),
    target: `${endpoint.scheme}://${endpoint.host}:${endpoint.port}${realtime.external ? ' (PUSHER_HOST)' : ' (the service at HOST:PORT)'}`,
  };
}

function actionOf(options: Record<string, unknown>): ActionInput | null {
  const { url, navigate } = options;
  if (url !== undefined && navigate !== undefined)
    throw new CliError('Give --url or --navigate, not both.');
  if (typeof url === 'string') return { kind: 'url', url };
  if (typeof navigate === 'string') return { kind: 'navigate', url: navigate };
  return null;
}

export const notify: Command = {
  summary: 'Send a notification to users; pushed in real time when REALTIME_NOTIFICATIONS=true',
  usage:
    '<user>[,<user>...] --title=<text> --message=<text> [--level=<level>] [--icon=<name>] [--url=<url> | --navigate=<path>]',
  arguments: { '<user>': 'an id or login; several separated by commas' },
  options: {
    title: { type: 'string', value: '<text>', description: 'the title (required)' },
    message: { type: 'string', value: '<text>', description: 'the text (required)' },
    level: {
      type: 'string',
      value: '<level>',
      description: 'info (default), success, warning or danger',
    },
    icon: { type: 'string', value: '<name>', description: 'an icon name for the front end' },
    url: { type: 'string', value: '<url>', description: 'an http(s) link to open in a new tab' },
    navigate: {
      type: 'string',
      value: '<path>',
      description: 'a path of the admin front end to go to',
    },
  },
  examples: [
    'npx svc notify admin --title="Import done" --message="42 rows imported" --level=success',
  ],
  async run({ options, positionals }) {
    const [list, extra] = positionals;
    if (!list || extra !== undefined) throw new CliError(USAGE);
    const refs = list
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    if (refs.length === 0) throw new CliError(USAGE);
    const title = requiredString(options.title, 'title');
    const message = requiredString(options.message, 'message');
    const action = actionOf(options);
    let pushFailure: string | null = null;
    let push: Push | null = null;
    const records = await withDatabase(async ({ config, database }) => {
      const to: number[] = [];
      for (const ref of refs)
        to.push(await findByIdOrName(database, 'users', 'login', 'user', ref));
      push = pushFor(config);
      const log = {
        warn: (details: object, text: string) => {
          const cause = (details as { err?: unknown }).err;
          pushFailure = cause instanceof Error ? cause.message : text;
        },
      };
      const sender = new NotificationSender({
        database,
        broadcaster: push?.broadcaster ?? null,
        log,
      });
      return sender.send({
        to,
        title,
        message,
        ...(typeof options.level === 'string' ? { level: options.level as Level } : {}),
        ...(typeof options.icon === 'string' ? { icon: options.icon } : {}),
        action,
      });
    });
    printJson(records);
    const stored = `${records.length} notification${records.length === 1 ? '' : 's'} stored`;
    const target = (push as Push | null)?.target;
    if (pushFailure !== null)
      throw new Error(
        `${stored}, but the real-time push failed: ${pushFailure}. Is svc running there with REALTIME_NOTIFICATIONS=true (or is PUSHER_HOST right)?`,
      );
    process.stderr.write(
      target
        ? `${stored} and pushed to ${target}.\n`
        : `${stored}; not pushed: REALTIME_NOTIFICATIONS is off in these settings.\n`,
    );
  },
};
