// /admin/: where to go, from the metadata (the resources the user may list).
import { Link } from '../lib/router.js';
import { isAdmin, useApp } from '../lib/session.js';
import { useTitle } from '../lib/title.js';

export function HomeScreen() {
  const { session, resources } = useApp();
  useTitle('Start');
  const listed = (resources ?? []).filter((r) => r.allowed.includes('list'));
  return (
    <section>
      <h1 tabIndex={-1}>Welcome, {session.user.name}</h1>
      <p>
        You are working in unit <strong>{session.unit.name}</strong>.
      </p>
      {resources === null ? (
        <p role="status">Loading…</p>
      ) : (
        <ul class="tiles">
          {listed.map((r) => (
            <li key={r.name}>
              <Link href={`/admin/r/${r.name}`} class="tile">
                {r.label}
              </Link>
            </li>
          ))}
          {isAdmin(session) ? (
            <li>
              <Link href="/admin/tokens" class="tile">
                API tokens
              </Link>
            </li>
          ) : null}
          <li>
            <Link href="/admin/notifications" class="tile">
              Your notifications
            </Link>
          </li>
        </ul>
      )}
    </section>
  );
}
