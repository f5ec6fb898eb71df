// A notification's action (DESIGN.md 3.6): `url` opens in a new tab, `navigate` goes to an
// address (in the app when it is one of the app's), `go` opens the named screen.

import { type NotificationAction as Action, screenPath } from '../lib/notifications.js';
import { Link } from '../lib/router.js';

export function NotificationAction({ action }: { action: Action }) {
  switch (action.kind) {
    case 'url':
      return (
        <a class="button-link" href={action.url} target="_blank" rel="noopener noreferrer">
          {action.label ?? 'Open link'}
          <span class="visually-hidden"> (opens in a new tab)</span>
        </a>
      );
    case 'navigate':
      return action.url.startsWith('/admin/') ? (
        <Link class="button-link" href={action.url}>
          {action.label ?? 'Open'}
        </Link>
      ) : (
        <a class="button-link" href={action.url}>
          {action.label ?? 'Open'}
        </a>
      );
    case 'go':
      return (
        <Link class="button-link" href={screenPath(action)}>
          {action.label ?? 'Open'}
        </Link>
      );
  }
}
