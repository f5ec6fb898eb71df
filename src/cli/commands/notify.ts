// svc notify <user>[,<user>...] --title= --message= [--level=] [--icon=] [--url=|--navigate=]
// Stores through the same send service as POST /api/notifications (no sender: the command line
// has no session user). With REALTIME_NOTIFICATIONS=true it publishes through the Pusher HTTP
// API to PUSHER_HOST, or to the local service at HOST:PORT (DESIGN.md 3.6); a failed push is
// reported on stderr and the command still succeeds, the notifications being stored.
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

function broadcasterFor(config: Config): Broadcaster | null {
  const { realtime } = config;
  if (!realtime.enabled) return null;
  const secret = persistentSecret(config.dataDir, 'pusher', realtime.secret);
  return httpBroadcaster({
    endpoint: realtime.external ?? localService(config),
    credentials: { appId: realtime.appId, key: realtime.key, secret },
  });
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
  summary:
    'Send a notification: <user>[,<user>...] --title= --message= [--level=] [--icon=] [--url=|--navigate=]',
  options: {
    title: { type: 'string' },
    message: { type: 'string' },
    level: { type: 'string' },
    icon: { type: 'string' },
    url: { type: 'string' },
    navigate: { type: 'string' },
  },
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
    const records = await withDatabase(async ({ config, database }) => {
      const to: number[] = [];
      for (const ref of refs)
        to.push(await findByIdOrName(database, 'users', 'login', 'user', ref));
      const log = {
        warn: (details: object, text: string) => {
          const cause = (details as { err?: unknown }).err;
          process.stderr.write(`${text}${cause instanceof Error ? ` ${cause.message}` : ''}\n`);
        },
      };
      const sender = new NotificationSender({ database, broadcaster: broadcasterFor(config), log });
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
    process.stderr.write(
      `${records.length} notification${records.length === 1 ? '' : 's'} sent.\n`,
    );
  },
};
