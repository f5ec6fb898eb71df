// A resource's change feed as a screen follows it (DESIGN.md 3.9): from the Changes-Seq of the
// answer the screen shows, GET /api/<resource>/changes?after= every few seconds while the page
// is visible, and at once when asked (a push, a refused save). Changes come out in seq order,
// each once. A 410 (the feed no longer keeps `after`) tells the screen to read its answer again
// and start over from that answer's Changes-Seq; a service without a feed (404) ends the follow.
import { labelOf } from '../components/lookup-picker.js';
import { ApiError, get } from './api.js';

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
const PAGE = 100;

export interface Follow {
  /** Asks now (or right after the request under way) and resolves once caught up. */
  readonly pull: () => Promise<void>;
  readonly stop: () => void;
}

export function followChanges(
  path: string,
  from: number,
  /** Awaited: the next page of changes waits until the screen has taken these. */
  onChanges: (changes: readonly Change[]) => void | Promise<void>,
  onGone: () => void,
): Follow {
  let after = from;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;

  const schedule = () => {
    clearTimeout(timer);
    if (!stopped && document.visibilityState === 'visible') timer = setTimeout(pull, POLL_MS);
  };
  const read = async () => {
    try {
      let more = true;
      while (more && !stopped) {
        const page = await get<ChangesPage>(`${path}/changes?after=${after}&limit=${PAGE}`);
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
  return {
    pull,
    stop() {
      stopped = true;
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
export async function actorName(change: Change): Promise<string> {
  const { user_id, via } = change.actor;
  if (user_id === null) return VIA[via];
  const name = await labelOf('/app/lookups/users', String(user_id)).catch(() => null);
  return name ?? VIA[via];
}
