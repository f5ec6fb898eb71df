// The frame of every signed-in screen: navigation to the resources the user may list (from the
// metadata's `allowed`), Tokens for admins, Notifications; the unit switcher, the bell, the
// user's name and Sign out.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../lib/api.js';
import { LOGOUT, SESSION_UNIT } from '../lib/endpoints.js';
import { BASE, guarded, Link, useLocation } from '../lib/router.js';
import { isAdmin, type Session, useApp } from '../lib/session.js';
import { Announcer } from './announcer.js';
import { NotificationBell } from './notification-bell.js';

interface NavItem {
  readonly href: string;
  readonly label: string;
}

function UnitSwitcher() {
  const { session, setSession } = useApp();
  const id = useId();
  const [problem, setProblem] = useState<string | null>(null);
  const units = session.units ?? [session.unit];
  if (units.length < 2) return <span class="unit-name">{session.unit.name}</span>;
  return (
    <span class="unit-switcher">
      <label for={id}>Unit</label>
      <select
        id={id}
        value={String(session.unit.id)}
        onChange={(event) => {
          const select = event.currentTarget;
          const unitId = Number(select.value);
          // The screen reloads in the new unit: unsaved changes would be lost, so ask first.
          select.value = String(session.unit.id);
          guarded(async () => {
            try {
              setSession(await post<Session>(SESSION_UNIT, { unit_id: unitId }));
            } catch (error) {
              setProblem(
                error instanceof ApiError ? error.message : 'The unit could not be switched.',
              );
            }
          });
        }}
      >
        {units.map((unit) => (
          <option key={unit.id} value={String(unit.id)}>
            {unit.name}
          </option>
        ))}
      </select>
      {problem ? (
        <span role="alert" class="field-error">
          {problem}
        </span>
      ) : null}
    </span>
  );
}

export function Shell({ children }: { children: ComponentChildren }) {
  const { session, resources, resourcesError, signedOut } = useApp();
  const place = useLocation();
  const main = useRef<HTMLElement>(null);

  // A new screen: focus its heading, so a screen reader announces it and Tab starts there.
  const path = place.path;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = main.current?.querySelector<HTMLElement>('h1');
    heading?.focus();
    window.scrollTo(0, 0);
  }, [path]);

  const items: NavItem[] = [
    ...(resources ?? [])
      .filter((r) => r.allowed.includes('list'))
      .map((r) => ({ href: `${BASE}/r/${r.name}`, label: r.label })),
    ...(isAdmin(session) ? [{ href: `${BASE}/tokens`, label: 'Tokens' }] : []),
    { href: `${BASE}/notifications`, label: 'Notifications' },
  ];
  const current = (href: string) => path === href || path.startsWith(`${href}/`);

  const signOut = () =>
    guarded(async () => {
      try {
        await post(LOGOUT);
      } catch {
        // Already signed out: the sign-in page is where we go either way.
      }
      signedOut();
    });

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href={`${BASE}/`} class="brand">
          svc admin
        </Link>
        <nav aria-label="Main" class="nav">
          <ul>
            {items.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <UnitSwitcher />
          <NotificationBell />
          <span class="user-name">{session.user.name}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {resourcesError ? (
          <p role="alert" class="alert">
            The resources could not be read: {resourcesError}
          </p>
        ) : null}
        {children}
      </main>
      <Announcer />
    </div>
  );
}
