// A resource's change feed as a screen follows it (DESIGN.md 3.9): from the Changes-Seq of the
// answer the screen shows, GET /api/<resource>/changes?after= every few seconds while the page
// is visible, and at once when asked (a refused save). With real time on, the resource's channel
// says when to read: each SvcResourceChanged is a "look" (the feed, not the push, is the
// record, so a lost or repeated push loses or repeats nothing), the poll slows to a safety net
// while subscribed and speeds up again when the socket is lost. Changes come out in seq order,
// each once. A 410 (the feed no longer keeps `after`) tells the screen to read its answer again
// and start over from that answer's Changes-Seq; a service without a feed (404) ends the follow.
import { ApiError, get, getCsrfToken } from './api.js';
import { changesPath, lookupPath } from './endpoints.js';
import { labelOf } from './lookup-labels.js';
import { realtimeSettings } from './realtime-settings.js';

export interface Change {
  readonly seq: number;
  readonly resource: string;
  readonly id: string | number;
  readonly action: 'created' | 'updated' | 'deleted';
  readonly version: unknown;
  readonly at: string;
  readonly actor: {
    readonly user_id: number | null;
    readonly token_id: number | null;
    readonly via: 'bearer' | 'session' | 'cli' | 'system';
  };
  readonly changes: Readonly<Record<string, unknown>>;
}

interface ChangesPage {
  readonly data: readonly Change[];
  readonly meta: { readonly after: number; readonly next: number; readonly has_more: boolean };
}

/** How often a screen asks for changes while its page is visible. */
export const POLL_MS = 3_000;
/** How often while the resource's channel is subscribed (a safety net: pushes say when). */
const SUBSCRIBED_POLL_MS = 60_000;
const PAGE = 100;

export interface Follow {
  /** Asks now (or right after the request under way) and resolves once caught up. */
  readonly pull: () => Promise<void>;
  readonly stop: () => void;
}

/** The resource's real-time channel to follow, for the signed-in user. */
export interface LiveSource {
  readonly resource: string;
  readonly userId: number;
}

export function followChanges(
  path: string,
  from: number,
  /** Awaited: the next page of changes waits until the screen has taken these. */
  onChanges: (changes: readonly Change[]) => void | Promise<void>,
  onGone: () => void,
  live?: LiveSource,
): Follow {
  let after = from;
  let interval = POLL_MS;
  let unsubscribe: () => void = () => {};
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;

  const schedule = () => {
    clearTimeout(timer);
    if (!stopped && document.visibilityState === 'visible') timer = setTimeout(pull, interval);
  };
  const read = async () => {
    try {
      let more = true;
      while (more && !stopped) {
        const page = await get<ChangesPage>(changesPath(path, after, PAGE));
        if (stopped) return;
        if (page.data.length > 0) await onChanges(page.data);
        // Advanced once the screen has them: a screen that failed to take them is asked again.
        after = Math.max(after, page.meta.next);
        more = page.meta.has_more;
      }
    } catch (error) {
      const status = error instanceof ApiError ? error.status : 0;
      if (status === 410) onGone();
      // Gone, no feed here, or not allowed: nothing more to follow. A network error: next time.
      if (status === 410 || status === 403 || status === 404) stopped = true;
    }
  };
  function pull(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    clearTimeout(timer);
    running = (async () => {
      do {
        again = false;
        await read();
      } while (again && !stopped);
      running = null;
      schedule();
    })();
    return running;
  }
  // A hidden page stops asking; shown again, it catches up at once.
  const onVisibility = () =>
    document.visibilityState === 'visible' ? pull() : clearTimeout(timer);
  document.addEventListener('visibilitychange', onVisibility);
  schedule();
  if (live) subscribeTo(live).catch(() => {});
  async function subscribeTo({ resource, userId }: LiveSource) {
    const settings = await realtimeSettings(userId);
    if (stopped || !settings.enabled || !settings.resource_auth_endpoint) return;
    const { followResource } = await import('./realtime.js');
    const leave = await followResource(settings, getCsrfToken, resource, pull, (subscribed) => {
      interval = subscribed ? SUBSCRIBED_POLL_MS : POLL_MS;
      // Subscribed (again): read what came before it; lost: back to polling.
      if (subscribed) pull();
      else if (!running) schedule();
    });
    if (stopped) leave?.();
    else if (leave) unsubscribe = leave;
  }
  return {
    pull,
    stop() {
      stopped = true;
      unsubscribe();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    },
  };
}

const VIA: Record<Change['actor']['via'], string> = {
  bearer: 'an API token',
  session: 'someone else',
  cli: 'the command line',
  system: 'svc',
};

/** Who made a change, as a person reads it: the user's name when there is one. */
export async function actorName(change: Pick<Change, 'actor'>): Promise<string> {
  const { user_id, via } = change.actor;
  if (user_id === null) return VIA[via];
  const name = await labelOf(lookupPath('users'), String(user_id)).catch(() => null);
  return name ?? VIA[via];
}
