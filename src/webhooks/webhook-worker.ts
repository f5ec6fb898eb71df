// The delivery worker of an instance (DESIGN.md 3.10): turns every database's new changes into
// deliveries and sends the due ones. Woken by this process's commits at once, and every
// WEBHOOKS_POLL_MS for the rest (another instance's or a CLI command's commits, retries come
// due, a claim whose worker died). Nothing a write does waits for it: a write's listener only
// wakes it, and a slow receiver holds only its own delivery.
import type { WebhookConfig } from '../config/config.js';
import type { Database } from '../database/database.js';
import { numberCommitted, onChangesCommitted } from '../engine/changes/committed.js';
import type { WarnLog } from '../support/warn-log.js';
import {
  type ClaimedDelivery,
  claim,
  fanOut,
  hasActiveEndpoints,
  headsOf,
  pruneDeliveries,
  type Settlement,
  settle,
} from './delivery-store.js';
import { postWebhook } from './webhook-post.js';

/** config.webhooks (config/config.ts WebhookConfig). */
export type WebhookSettings = WebhookConfig;

export interface WebhookWorkerOptions {
  readonly system: Database;
  /** Every database of records once, with its name ('' the main one). */
  readonly databases: ReadonlyArray<{ readonly key: string; readonly database: Database }>;
  readonly integerKey: (resource: string) => boolean;
  readonly settings: WebhookSettings;
  readonly log: WarnLog;
  readonly clock?: () => number;
}

/** The delay before attempt `attempts + 1`: exponential, capped, with jitter (half to whole). */
export function retryDelay(settings: WebhookSettings, attempts: number, random = Math.random()) {
  const exponential = settings.retryBaseMs * 2 ** Math.min(attempts - 1, 30);
  const capped = Math.min(exponential, settings.retryMaxMs);
  return Math.round(capped / 2 + (capped / 2) * random);
}

/** The webhooks resource's name: a change of it may make an endpoint active. */
const WEBHOOKS_RESOURCE = 'webhooks';

/** How often an instance prunes the delivery log (WEBHOOKS_DELIVERY_RETENTION_DAYS). */
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Attempts under way at most per instance (each to another endpoint). */
const MAX_IN_FLIGHT = 32;

export class WebhookWorker {
  private running: Promise<void> | null = null;
  /** Endpoints with an attempt of this process under way. */
  private readonly inFlight = new Set<number>();
  /** Endpoints whose head is not due before this time (epoch ms). */
  private readonly notBefore = new Map<number, number>();
  private prunedAt = Number.NEGATIVE_INFINITY;
  /** Whether some endpoint was active at the last pass (true until the first one says). */
  private endpoints = true;
  private again = false;
  private catchUp = false;
  private readLogs = false;
  private stopped = false;
  private readonly stops: Array<() => void> = [];
  private readonly clock: () => number;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.clock = options.clock ?? Date.now;
  }

  start(): void {
    // A commit wakes the worker only while some endpoint is active (or when it writes one): with
    // none, a pass per write would add a write transaction (the cursor's) to every write, which
    // halved SQLite's creates and updates; the poll still moves the cursor along.
    for (const { database } of this.options.databases)
      this.stops.push(
        onChangesCommitted(database, (changes) => {
          if (this.endpoints || changes.some((change) => change.resource === WEBHOOKS_RESOURCE))
            this.wake();
        }),
      );
    const timer = setInterval(() => this.wake(true), this.options.settings.pollMs);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
    this.wake(true);
  }

  /** Something was replayed: every endpoint is looked at now. */
  replayed(): void {
    this.notBefore.clear();
    this.wake();
  }

  /** Stops waking; resolves once the pass under way has ended (attempts under way are let go). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
    await this.running;
  }

  /**
   * Runs a pass now, or once more after the one under way: a wake is never dropped. `logs`
   * false: only claims (an attempt ended; no new change to read).
   */
  wake(catchUp = false, logs = true): void {
    if (this.stopped) return;
    this.catchUp ||= catchUp;
    this.readLogs ||= logs;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const { catchUp, readLogs } = this;
        this.catchUp = false;
        this.readLogs = false;
        await this.pass(catchUp, readLogs);
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
  }

  private async pass(catchUp: boolean, readLogs: boolean): Promise<void> {
    const { system, databases, integerKey, log } = this.options;
    try {
      this.endpoints = await hasActiveEndpoints(system);
      for (const { key, database } of readLogs ? databases : []) {
        // A change a killed writer committed but did not number gets its seq first.
        if (catchUp) await numberCommitted(database);
        while ((await fanOut(system, key, database, integerKey, this.clock())) > 0);
      }
      await this.prune();
      // A head not due yet stays the head until it is attempted: its endpoint is not looked at
      // again before then (a catch-up pass looks again: another instance may have moved it).
      if (catchUp) this.notBefore.clear();
      const now = this.clock();
      const skip = new Set(this.inFlight);
      for (const [webhook, at] of this.notBefore) if (at > now) skip.add(webhook);
      for (const head of await headsOf(system, skip)) {
        if (this.inFlight.size >= MAX_IN_FLIGHT) return;
        if (head.notBefore > now) {
          this.notBefore.set(head.webhookId, head.notBefore);
          continue;
        }
        const delivery = await claim(system, head, this.clock());
        if (!delivery) continue;
        this.inFlight.add(delivery.webhookId);
        // Not awaited: each attempt wakes the worker when it ends, for its endpoint's next one.
        void this.attempt(delivery)
          .catch((error: unknown) => log.warn({ err: error }, 'A webhook attempt failed.'))
          .finally(() => {
            this.inFlight.delete(delivery.webhookId);
            this.wake(false, false);
          });
      }
    } catch (error) {
      log.warn({ err: error }, 'Delivering webhooks failed; trying again shortly.');
    }
  }

  /** At most every PRUNE_EVERY_MS: deliveries settled longer ago than the retention go. */
  private async prune(): Promise<void> {
    const now = this.clock();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    const cutoff = now - this.options.settings.deliveryRetentionDays * DAY_MS;
    while ((await pruneDeliveries(this.options.system, cutoff)) > 0);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { settings, system, log } = this.options;
    const outcome = await postWebhook(
      {
        url: delivery.url,
        secret: delivery.secret,
        id: `msg_${delivery.id}`,
        body: delivery.payload,
      },
      settings.allowPrivate,
    );
    const now = this.clock();
    const expired = now - delivery.firstAttemptAt >= settings.retryForSeconds * 1000;
    const settlement: Settlement = {
      status: outcome.ok ? 'succeeded' : expired ? 'dead' : 'pending',
      nextAttemptAt: outcome.ok || expired ? now : now + retryDelay(settings, delivery.attempts),
      lastStatus: outcome.status,
      durationMs: outcome.durationMs,
      error: outcome.error,
    };
    // Unrecorded, the lease runs out and the delivery is attempted again.
    await settle(system, delivery, settlement, now).catch((error: unknown) => {
      if (!this.stopped) log.warn({ err: error }, 'Recording a webhook delivery failed.');
    });
  }
}
