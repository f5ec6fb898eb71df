// A notification's action (DESIGN.md 3.6): `url` opens in a new tab, `navigate` goes to an
// address of this origin (in the app when it is one of the app's; never elsewhere), `go` opens
// the named screen.

import { type NotificationAction as Action, screenPath } from '../lib/notifications.js';
import { Link } from '../lib/router.js';

/**
 * The address as the browser reads it, if it is on this origin; else null and no link. The server
 * refuses others (`/\\host`, `/<TAB>/host`), but a record stored before it did may hold one.
 */
function inApp(url: string): URL | null {
  try {
    const target = new URL(url, location.origin);
    return target.origin === location.origin ? target : null;
  } catch {
    return null;
  }
}

export function NotificationAction({ action }: { action: Action }) {
  switch (action.kind) {
    case 'url':
      return (
        <a class="button-link" href={action.url} target="_blank" rel="noopener noreferrer">
          {action.label ?? 'Open link'}
          <span class="visually-hidden"> (opens in a new tab)</span>
        </a>
      );
    case 'navigate': {
      const target = inApp(action.url);
      if (target === null) return null;
      return target.pathname.startsWith('/admin/') ? (
        <Link class="button-link" href={`${target.pathname}${target.search}${target.hash}`}>
          {action.label ?? 'Open'}
        </Link>
      ) : (
        <a class="button-link" href={target.href}>
          {action.label ?? 'Open'}
        </a>
      );
    }
    case 'go':
      return (
        <Link class="button-link" href={screenPath(action)}>
          {action.label ?? 'Open'}
        </Link>
      );
  }
}
