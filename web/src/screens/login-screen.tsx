// /admin/login: the session sign-in.
import { SignInForm } from '../components/sign-in-form.js';
import type { Session } from '../lib/session.js';
import { useTitle } from '../lib/title.js';

export function LoginScreen({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  useTitle('Sign in');
  return (
    <main id="main" class="login">
      <section class="card login-card" aria-labelledby="login-title">
        <h1 id="login-title">Sign in to svc</h1>
        <SignInForm onSignedIn={onSignedIn} />
      </section>
    </main>
  );
}
