// The signed-in session as GET /app/session and POST /app/login answer it, and what the screens
// share: the session and the resources' metadata (GET /app/resources).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';

export interface UnitChoice {
  readonly id: number;
  readonly name: string;
}

export interface SessionUser {
  readonly id: number;
  readonly login: string;
  readonly name: string;
  readonly email: string | null;
  readonly admin: string;
}

export interface Session {
  readonly user: SessionUser;
  readonly unit: UnitChoice;
  /** The units the session can switch to (older servers: absent). */
  readonly units?: readonly UnitChoice[];
  readonly csrf_token: string;
}

export interface AppState {
  readonly session: Session;
  /** null while loading; the resources the caller may see. */
  readonly resources: readonly ResourceMeta[] | null;
  /** Why the metadata could not be read, if it could not. */
  readonly resourcesError: string | null;
  readonly setSession: (session: Session) => void;
  /** After POST /app/logout: no session, the sign-in screen. */
  readonly signedOut: () => void;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside the signed-in shell');
  return state;
}

export function useResource(name: string): ResourceMeta | null | undefined {
  const { resources } = useApp();
  if (resources === null) return undefined;
  return resources.find((r) => r.name === name) ?? null;
}

export const isAdmin = (session: Session) => session.user.admin === 'Y';

/**
 * The readable XSRF-TOKEN cookie comes and goes with the session (set at sign-in, cleared at
 * sign-out): without it there is no session to ask GET /app/session about.
 */
const XSRF_COOKIE = 'XSRF-TOKEN';

export const mayHaveSession = (): boolean =>
  document.cookie.split(';').some((c) => c.trim().startsWith(`${XSRF_COOKIE}=`));

/** A session that answered 401: its cookie goes, so the next visit does not ask again. */
export function forgetSession(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: no Cookie Store API in Firefox 115 or Safari 16
  document.cookie = `${XSRF_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax`;
}
