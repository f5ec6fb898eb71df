// The app: who is signed in, which screen the address names, and the shell around it. An
// expired session (any 401) leads to /admin/login?next=<where the person was>, and back there
// after signing in.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ResourcesAnswer } from '../../src/engine/description/metadata-types.js';
import { ConfirmDialog } from './components/confirm-dialog.js';
import { SessionEndedDialog } from './components/session-ended-dialog.js';
import { Shell } from './components/shell.js';
import { ApiError, get, onUnauthenticated, post, setCsrfToken } from './lib/api.js';
import { RESOURCES, SESSION, SESSION_UNIT } from './lib/endpoints.js';
import {
  BASE,
  hasUnsavedChanges,
  navigate,
  type Place,
  resolvePending,
  useLocation,
  usePendingNavigation,
} from './lib/router.js';
import {
  AppContext,
  type AppState,
  forgetSession,
  isAdmin,
  mayHaveSession,
  type Session,
} from './lib/session.js';
import { DeletedScreen } from './screens/deleted-screen.js';
import { FormScreen } from './screens/form-screen.js';
import { HomeScreen } from './screens/home-screen.js';
import { ListScreen } from './screens/list-screen.js';
import { LoginScreen } from './screens/login-screen.js';
import { NotFound } from './screens/not-found.js';
import { NotificationsScreen } from './screens/notifications-screen.js';
import { TokensScreen } from './screens/tokens-screen.js';

const LOGIN = `${BASE}/login`;

/** Where to go after signing in: an in-app address only (never another site). */
function nextOf(place: Place): string {
  const next = place.search.get('next') ?? '';
  return next.startsWith(`${BASE}/`) && !next.startsWith(LOGIN) ? next : `${BASE}/`;
}

function Screen({ place, session }: { place: Place; session: Session }) {
  const parts = place.path.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  const [first, resource, id, ...rest] = parts;
  if (parts.length === 0) return <HomeScreen />;
  if (first === 'r' && resource && rest.length === 0) {
    if (id === undefined) return <ListScreen key={resource} name={resource} />;
    if (id === 'deleted') return <DeletedScreen key={`${resource}/deleted`} name={resource} />;
    return <FormScreen key={`${resource}/${id}`} name={resource} id={id === 'new' ? null : id} />;
  }
  if (first === 'tokens' && parts.length === 1 && isAdmin(session)) return <TokensScreen />;
  if (first === 'notifications' && parts.length === 1) return <NotificationsScreen />;
  return <NotFound />;
}

function LeaveDialog() {
  const pending = usePendingNavigation();
  return (
    <ConfirmDialog
      open={pending}
      title="Leave without saving?"
      action="Leave"
      danger
      onConfirm={() => resolvePending(true)}
      onCancel={() => resolvePending(false)}
    >
      <p>Your changes on this screen have not been saved.</p>
    </ConfirmDialog>
  );
}

export function App() {
  const place = useLocation();
  // undefined: not known yet; null: signed out.
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);
  const [resources, setResources] = useState<AppState['resources']>(null);
  const [resourcesError, setResourcesError] = useState<string | null>(null);
  const [sessionEnded, setSessionEnded] = useState(false);
  /** The requests waiting for the session to be renewed in the dialog. */
  const renewals = useRef<((renewed: boolean) => void)[]>([]);

  const setSession = (next: Session | null) => {
    setCsrfToken(next?.csrf_token ?? null);
    setSessionState(next);
  };

  useEffect(() => {
    onUnauthenticated(async () => {
      // The session is gone: its hint goes too, so no later visit asks GET /app/session.
      forgetSession();
      // Unsaved changes: sign in again over the screen rather than lose them; the requests
      // that met the ended session (the save) wait for it and are sent again.
      if (hasUnsavedChanges()) {
        setSessionEnded(true);
        return new Promise<boolean>((resolve) => renewals.current.push(resolve));
      }
      setSession(null);
      const here = location.pathname + location.search;
      if (!here.startsWith(LOGIN))
        navigate(`${LOGIN}?next=${encodeURIComponent(here)}`, { replace: true, force: true });
      return false;
    });
    // No session hint, no session: the sign-in screen without asking (a 401 the console shows).
    // svc drops the hint of an expired session with the page, and a 401 forgets it (above).
    if (!mayHaveSession()) setSession(null);
    else get<Session>(SESSION).then(setSession, () => setSession(null));
  }, []);

  const unitId = session?.unit.id;
  useEffect(() => {
    if (unitId === undefined) return;
    // A unit switch keeps the navigation of the unit before while the new one loads.
    setResourcesError(null);
    get<ResourcesAnswer>(RESOURCES).then(
      (answer) => setResources(answer.data),
      (error: unknown) => {
        setResources([]);
        setResourcesError(
          error instanceof ApiError ? error.message : 'The resources could not be read.',
        );
      },
    );
  }, [unitId]);

  const onLogin = place.path === LOGIN;
  useEffect(() => {
    if (session === null && !onLogin)
      navigate(`${LOGIN}?next=${encodeURIComponent(place.href)}`, { replace: true, force: true });
    if (session && onLogin) navigate(nextOf(place), { replace: true, force: true });
  }, [session, onLogin]);

  if (onLogin || session === null) {
    return session === null && onLogin ? (
      <LoginScreen onSignedIn={(signedIn) => setSession(signedIn)} />
    ) : null;
  }
  if (session === undefined)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );

  const state: AppState = {
    session,
    resources,
    resourcesError,
    setSession,
    signedOut: () => {
      setSession(null);
      navigate(LOGIN, { force: true });
    },
  };
  return (
    <AppContext.Provider value={state}>
      <Shell>
        <Screen key={session.unit.id} place={place} session={session} />
      </Shell>
      <LeaveDialog />
      {sessionEnded ? (
        <SessionEndedDialog
          onSignedIn={async (renewed) => {
            // A new session starts in the user's first unit: back to the unit of the screen.
            let next = renewed;
            const unit = session.unit.id;
            if (renewed.unit.id !== unit && renewed.units?.some((u) => u.id === unit)) {
              setCsrfToken(renewed.csrf_token);
              next = await post<Session>(SESSION_UNIT, { unit_id: unit }).catch(() => renewed);
            }
            setSession(next);
            setSessionEnded(false);
            for (const resend of renewals.current.splice(0)) resend(true);
          }}
        />
      ) : null}
    </AppContext.Provider>
  );
}
