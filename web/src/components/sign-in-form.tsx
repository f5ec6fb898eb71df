// The sign-in fields (POST /app/login): the sign-in screen's, and the dialog's that renews an
// ended session over a screen with unsaved changes. A 422 (wrong credentials, a missing field)
// and the 429 of the per-IP limit are shown as the service words them.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../lib/api.js';
import { LOGIN } from '../lib/endpoints.js';
import type { Session } from '../lib/session.js';
import { Alert } from './alert.js';

export function SignInForm({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const id = useId();
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
      onSignedIn(await post<Session>(LOGIN, { login, password }));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The service could not be reached.');
      setBusy(false);
    }
  };

  return (
    <form class="sign-in" onSubmit={submit}>
      <Alert message={error} />
      <label for={`${id}-login`}>Login</label>
      <input
        id={`${id}-login`}
        name="login"
        autoComplete="username"
        value={login}
        onInput={(e) => setLogin(e.currentTarget.value)}
        required
        ref={first}
      />
      <label for={`${id}-password`}>Password</label>
      <input
        id={`${id}-password`}
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
  );
}
