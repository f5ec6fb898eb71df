// History-mode routing for /admin/*, with the one thing the small routers lack: navigation that
// a screen with unsaved changes can hold back (in-app links, the back button), after asking.
// The question itself is the app's LeaveDialog; this module only keeps the state.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export const BASE = '/admin';

type Listener = () => void;
const listeners = new Set<Listener>();
const notify = () => {
  for (const listener of listeners) listener();
};

/** Screens with unsaved changes: each answers whether leaving now would lose something. */
const blockers = new Set<() => boolean>();
/** The navigation waiting for the person's answer, if any. */
let pending: (() => void) | null = null;
let current = location.pathname + location.search;

function commit(to: string, replace: boolean): void {
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  current = to;
  notify();
}

/** Whether a screen holds changes that leaving would lose. */
export function hasUnsavedChanges(): boolean {
  return blocked();
}

function blocked(): boolean {
  for (const blocker of blockers) if (blocker()) return true;
  return false;
}

export interface NavigateOptions {
  readonly replace?: boolean;
  /** Leave without asking (after a save, or when the session ended). */
  readonly force?: boolean;
}

export function navigate(to: string, options: NavigateOptions = {}): void {
  const go = () => commit(to, options.replace ?? false);
  if (!options.force && blocked() && to !== current) {
    pending = go;
    notify();
  } else go();
}

/** Runs an action that would lose unsaved changes (a unit switch, signing out): asks first. */
export function guarded(action: () => void): void {
  if (blocked()) {
    pending = action;
    notify();
  } else action();
}

addEventListener('popstate', () => {
  const target = location.pathname + location.search;
  if (blocked()) {
    // The browser has already moved: stay on the screen, put its address back, and ask.
    history.pushState(null, '', current);
    pending = () => commit(target, false);
  } else current = target;
  notify();
});

/** The pending navigation's answer: go on (true) or stay (false). */
export function resolvePending(leave: boolean): void {
  const go = pending;
  pending = null;
  if (leave && go) go();
  else notify();
}

export function usePendingNavigation(): boolean {
  useRouterState();
  return pending !== null;
}

function useRouterState(): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((t) => t + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
}

export interface Place {
  readonly path: string;
  readonly search: URLSearchParams;
  /** path + search, as navigate() takes it. */
  readonly href: string;
}

export function useLocation(): Place {
  useRouterState();
  return { path: location.pathname, search: new URLSearchParams(location.search), href: current };
}

/**
 * While `dirty` is true, in-app navigation asks first and closing the tab warns.
 * A layout effect, not useEffect: Preact runs a passive effect's cleanup after the next paint, so
 * an unmounted screen (just left with `Leave`) would still block until then, and a back button
 * pressed before that frame asked again over the next screen and stayed there.
 */
export function useLeaveGuard(dirty: boolean): void {
  const latest = useRef(dirty);
  latest.current = dirty;
  useLayoutEffect(() => {
    const blocker = () => latest.current;
    blockers.add(blocker);
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!latest.current) return;
      event.preventDefault();
      event.returnValue = '';
    };
    addEventListener('beforeunload', beforeUnload);
    return () => {
      blockers.delete(blocker);
      removeEventListener('beforeunload', beforeUnload);
    };
  }, []);
}

interface LinkProps {
  readonly href: string;
  readonly children?: ComponentChildren;
  readonly class?: string;
  readonly 'aria-current'?: 'page' | undefined;
  readonly 'aria-label'?: string;
  readonly onClick?: (event: MouseEvent) => void;
}

/** An <a> that navigates in the app (a modified click still opens a new tab). */
export function Link({ href, onClick, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      onClick={(event) => {
        onClick?.(event);
        if (
          event.defaultPrevented ||
          event.button !== 0 ||
          event.metaKey ||
          event.ctrlKey ||
          event.shiftKey ||
          event.altKey
        )
          return;
        event.preventDefault();
        navigate(href);
      }}
      {...rest}
    />
  );
}
