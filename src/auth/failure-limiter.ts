// Brute-force protection (SPEC.md 5.1.8, DESIGN.md 3.5/3.6): once one IP has 20 failed
// authentications within 600 s, every further request from it is refused with 429 until 600 s
// after its first counted failure. A success does not reset the count. The store is the
// database by default (Redis when configured), the clock injectable for tests.

export const MAX_FAILURES = 20;
export const WINDOW_SECONDS = 600;
const WINDOW_MS = WINDOW_SECONDS * 1000;

/** Milliseconds since the epoch. */
export type Clock = () => number;

export interface FailureWindow {
  readonly failures: number;
  readonly startedAt: number;
}

export interface FailureStore {
  get(ip: string): Promise<FailureWindow | null>;
  /** Counts one failure at `now`, starting a new window when the stored one has ended. */
  record(ip: string, now: number, windowMs: number): Promise<void>;
  /**
   * True when the windows are rows of the system database's auth_failures table, so a lookup
   * there may read the caller's window in the same statement (auth/identity-query.ts).
   */
  readonly inSystemDatabase: boolean;
}

export class FailureLimiter {
  constructor(
    private readonly store: FailureStore,
    private readonly clock: Clock = Date.now,
  ) {}

  /** See FailureStore.inSystemDatabase. */
  get inSystemDatabase(): boolean {
    return this.store.inSystemDatabase;
  }

  async blocked(ip: string): Promise<boolean> {
    return this.blockedBy(await this.store.get(ip));
  }

  window(ip: string): Promise<FailureWindow | null> {
    return this.store.get(ip);
  }

  /** Whether a window already read (for instance along with a token) blocks its IP now. */
  blockedBy(window: FailureWindow | null): boolean {
    return (
      window !== null &&
      window.failures >= MAX_FAILURES &&
      this.clock() < window.startedAt + WINDOW_MS
    );
  }

  async fail(ip: string): Promise<void> {
    await this.store.record(ip, this.clock(), WINDOW_MS);
  }
}
