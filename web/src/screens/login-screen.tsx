// /admin/login: the session sign-in (POST /app/login). A 422 (wrong credentials, a missing
// field) and the 429 of the per-IP limit are shown as the service words them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../lib/api.js';
import type { Session } from '../lib/session.js';

export function LoginScreen({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  // The one field to start with (autofocus is not honoured for an element a script inserts).
  useEffect(() => first.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await post<Session>('/app/login', { login, password }));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The service could not be reached.');
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login">
      <form class="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to svc</h1>
        {error ? (
          <p role="alert" class="alert">
            {error}
          </p>
        ) : null}
        <label for="login">Login</label>
        <input
          id="login"
          name="login"
          autoComplete="username"
          value={login}
          onInput={(e) => setLogin(e.currentTarget.value)}
          required
          ref={first}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          required
        />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
