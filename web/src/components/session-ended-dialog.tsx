// The session ended (a 401) while a screen holds unsaved changes: instead of leaving for the
// sign-in screen and losing them, sign in again over the screen, then save.
import { useEffect, useRef } from 'preact/hooks';
import type { Session } from '../lib/session.js';
import { SignInForm } from './sign-in-form.js';

export function SessionEndedDialog({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="session-ended-title"
      aria-describedby="session-ended-text"
      // Esc would leave a screen that can no longer save: signing in is the way on.
      onCancel={(event) => event.preventDefault()}
    >
      <h2 id="session-ended-title">Your session has ended</h2>
      <p id="session-ended-text">Sign in again to go on: your changes on this screen are kept.</p>
      <SignInForm onSignedIn={onSignedIn} />
    </dialog>
  );
}
