// Nonces the driver has accepted, each kept as long as its signed timestamp could still pass the
// clock-skew check: after that a replay fails on the timestamp anyway. In this process's memory,
// which serves one instance; several instances need a shared store (Redis, with REDIS_URL).
import type { Clock } from '../auth/failure-limiter.js';

export interface NonceStore {
  /** Records `nonce` until `expiresAt` (ms); false when it is already recorded and unexpired. */
  claim(nonce: string, expiresAt: number): Promise<boolean>;
}

const SWEEP_EVERY_MS = 60_000;

export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly clock: Clock = Date.now) {}

  async claim(nonce: string, expiresAt: number): Promise<boolean> {
    const now = this.clock();
    if (now >= this.nextSweep) {
      for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
      this.nextSweep = now + SWEEP_EVERY_MS;
    }
    const until = this.seen.get(nonce);
    if (until !== undefined && until >= now) return false;
    this.seen.set(nonce, expiresAt);
    return true;
  }

  /** Nonces held now, expired ones included until the next sweep. */
  get size(): number {
    return this.seen.size;
  }
}
