// Whose request a statement runs for, so that reads may go to a read replica (DESIGN.md 3.12)
// without a caller ever reading older data than its own last write. The HTTP layer opens a store
// per request (http/build-app.ts) and the engine context names the user (http/engine-context.ts);
// statements outside a request (background work) have none and read from the primary.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ReadingCaller {
  /** The acting user, once authenticated; until then reads go to the primary. */
  user: number | null;
  /** Set by the request's first write: its later reads go to the primary. */
  wrote: boolean;
  /** Where this request's reads go, chosen at its first read after authentication. */
  target?: unknown;
}

export const readingCaller = new AsyncLocalStorage<ReadingCaller>();

/** Runs `next` (the rest of a request) with a store of its own. */
export function withReadingCaller(next: () => void): void {
  readingCaller.run({ user: null, wrote: false }, next);
}

/** Names the user the current request acts for (no-op outside a request). */
export function readingFor(user: number | null): void {
  const store = readingCaller.getStore();
  if (store && store.user === null && user !== null) store.user = user;
}

/**
 * Runs a write that is bookkeeping, not the caller's data (a token's last_used_at): the caller's
 * reads need not wait for a replica to replay it.
 */
export function asBookkeeping<T>(work: () => Promise<T>): Promise<T> {
  return readingCaller.exit(work);
}
