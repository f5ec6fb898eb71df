// Webhook delivery yields to the API (issue 34: a delivery system never slows the API). The
// worker shares the API's event loop, and every attempt costs it CPU (a signed POST, its answer,
// the claims and records), so while the API has requests waiting and keeps the loop busy the
// worker starts its work (a read of a change log, a claim, an attempt) only in the first
// WEBHOOKS_BUSY_SHARE % of every PERIOD_MS; what it has under way goes on. The deliveries then
// wait in the outbox (nothing is lost) and catch up once the API leaves the loop idle.
//
// "Busy" is judged every PERIOD_MS on the period just ended: requests arrived in it and the loop
// was in use HOLD_AT of it or more (the worker's own work counts too, so it is let go again
// only once a held period, in which it did little, shows the loop used less than RELEASE_BELOW:
// the API alone leaves room). Requests in flight say nothing here: on SQLite a request is
// mostly handled in one turn of the loop, and the others wait unread in their sockets.
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';

/** The length of one period: busy is judged, and the worker's turn comes, once per period. */
export const PERIOD_MS = 100;
/** The event loop's utilisation over a period (0 to 1) from which the worker is held back. */
const HOLD_AT = 0.9;
/** ... and below which, over a period it was held back in, it is let go. */
const RELEASE_BELOW = 0.7;

export class DeliveryPacing {
  /** Requests that arrived in the period so far. */
  private requests = 0;
  private periodStart = performance.now();
  private utilisation = performance.eventLoopUtilization();
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  /** Work waiting for the worker's next turn. */
  private waiting: Array<() => void> = [];
  private readonly turnMs: number;

  /** `share`: WEBHOOKS_BUSY_SHARE, the percentage of each period the worker starts work in. */
  constructor(share: number) {
    this.turnMs = (PERIOD_MS * share) / 100;
  }

  /** Counts `server`'s requests as they arrive. */
  watch(server: Server): void {
    server.on('request', () => {
      this.requests += 1;
    });
  }

  start(): void {
    if (this.timer || this.turnMs >= PERIOD_MS) return;
    this.periodStart = performance.now();
    this.timer = setInterval(() => this.judge(), PERIOD_MS);
    this.timer.unref();
  }

  /** Stops judging; the work waiting goes on at once. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.busy = false;
    this.release();
  }

  /** Whether the API counted as busy over the last period (the worker is held back). */
  get holding(): boolean {
    return this.busy;
  }

  /**
   * Null when the worker may start a piece of work now; otherwise a promise that resolves at its
   * next turn (the next period's start, or sooner if the API is no longer busy).
   */
  turn(): Promise<void> | null {
    if (!this.busy || performance.now() - this.periodStart < this.turnMs) return null;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** At each period's end: whether the API was busy over it; the worker's turn starts. */
  private judge(): void {
    const now = performance.now();
    const used = performance.eventLoopUtilization(this.utilisation).utilization;
    this.utilisation = performance.eventLoopUtilization();
    this.busy = this.requests > 0 && used >= (this.busy ? RELEASE_BELOW : HOLD_AT);
    this.requests = 0;
    this.periodStart = now;
    this.release();
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}
