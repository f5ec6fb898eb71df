// The delivery worker of an instance (DESIGN.md 3.10): turns every database's new changes into
// deliveries, and runs a lane per endpoint with something due: the lane claims the endpoint's
// oldest pending deliveries together, sends them one after another (in seq order, each once the
// one before is answered) and records their outcomes at once, then claims again while there is
// more. Woken by this process's commits at once, and every WEBHOOKS_POLL_MS for the rest
// (another instance's or a CLI command's commits, retries come due, a claim whose worker died).
// Nothing a write does waits for it: a write's listener only wakes it, and a slow receiver holds
// only its own endpoint's lane. While the API keeps the event loop busy, each read of a log,
// claim and attempt waits for the worker's turn (delivery-pacing.ts), and a read is short.
import type { WebhookConfig } from '../config/config.js';
import type { Database } from '../database/database.js';
import { SHORT_TAIL_BATCH, TAIL_BATCH } from '../engine/changes/change-tail.js';
import { numberCommitted, onChangesCommitted } from '../engine/changes/committed.js';
import { Gate } from '../support/gate.js';
import type { WarnLog } from '../support/warn-log.js';
import type { DeliveryPacing } from './delivery-pacing.js';
import {
  BATCH,
  type ClaimedBatch,
  claimBatch,
  endpointIds,
  fanOut,
  hasActiveEndpoints,
  pruneDeliveries,
  type Settlement,
  settleBatch,
} from './delivery-store.js';
import { DELIVERY_TIMEOUT_MS, postWebhook } from './webhook-post.js';
import { openSecret } from './webhook-secret.js';

/** config.webhooks (config/config.ts WebhookConfig). */
export type WebhookSettings = WebhookConfig;

export interface WebhookWorkerOptions {
  readonly system: Database;
  /** Every database of records once, with its name ('' the main one). */
  readonly databases: ReadonlyArray<{ readonly key: string; readonly database: Database }>;
  readonly integerKey: (resource: string) => boolean;
  /** TENANT_ISOLATION: an endpoint receives only the changes of its creator's company. */
  readonly tenantIsolation: boolean;
  readonly settings: WebhookSettings;
  /** What the endpoints' stored secrets are sealed with (webhook-secret.ts). */
  readonly secretKey: Buffer;
  readonly log: WarnLog;
  readonly clock?: () => number;
  /** Holds the worker back while the API is busy; none: it never waits. */
  readonly pacing?: DeliveryPacing;
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

/** Endpoints delivered to at once at most per instance (one attempt under way each). */
export const MAX_IN_FLIGHT = 32;

/**
 * The lanes' claims and settlements under way at once at most: each holds a connection of the
 * pool for a statement or two, and the API keeps the rest of the pool (DB_POOL_SIZE, 10).
 */
const LANE_STATEMENTS = 2;

/** A batch's next delivery is attempted only if its time limit ends this long before the lease. */
const LEASE_MARGIN_MS = 1_000;

/** An endpoint being delivered to by this process: its claims, attempts and settlements in turn. */
interface Lane {
  /** Something new may be pending for it since its last claim read. */
  again: boolean;
}

export class WebhookWorker {
  private running: Promise<void> | null = null;
  /** Endpoints this process is delivering to. */
  private readonly lanes = new Map<number, Lane>();
  /** Endpoints to deliver to once a lane is free (MAX_IN_FLIGHT are under way). */
  private readonly waiting = new Set<number>();
  /** Endpoints whose oldest pending delivery is not due before this time (epoch ms). */
  private readonly notBefore = new Map<number, number>();
  private prunedAt = Number.NEGATIVE_INFINITY;
  /** Whether some endpoint was active at the last pass (true until the first one says). */
  private endpoints = true;
  /** Whether the next pass reads whether some endpoint is active (a webhook was written). */
  private readEndpoints = true;
  /** Each database's cursor as this process last saw it (delivery-store.ts fanOut). */
  private readonly cursors = new Map<string, number>();
  private again = false;
  private catchUp = false;
  private stopped = false;
  private readonly stops: Array<() => void> = [];
  private readonly clock: () => number;
  private readonly statements = new Gate(LANE_STATEMENTS);

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
          if (changes.some((change) => change.resource === WEBHOOKS_RESOURCE)) {
            this.readEndpoints = true;
            this.wake();
          } else if (this.endpoints) this.wake();
        }),
      );
    const timer = setInterval(() => this.wake(true), this.options.settings.pollMs);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
    const { pacing } = this.options;
    if (pacing) {
      pacing.start();
      this.stops.push(() => pacing.stop());
    }
    this.wake(true);
  }

  /** Something was replayed: every endpoint is looked at now. */
  replayed(): void {
    this.notBefore.clear();
    this.wake(true);
  }

  /** Stops waking; resolves once the pass under way has ended (attempts under way are let go). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
    await this.running;
  }

  /**
   * Runs a pass now, or once more after the one under way: a wake is never dropped. `catchUp`:
   * every endpoint is looked at too (retries come due, another instance's deliveries, a claim
   * whose worker died), not only those given new deliveries.
   */
  wake(catchUp = false): void {
    if (this.stopped) return;
    this.catchUp ||= catchUp;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const { catchUp } = this;
        this.catchUp = false;
        await this.pass(catchUp);
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
  }

  /** Reads the logs into deliveries, and sets the endpoints given some (or all) delivering. */
  private async pass(catchUp: boolean): Promise<void> {
    const { system, databases, integerKey, tenantIsolation, log } = this.options;
    const rules = { integerKey, isolated: tenantIsolation };
    try {
      // Read at catch-ups and after a webhook's write only: not a statement per write.
      if (catchUp || this.readEndpoints) {
        this.readEndpoints = false;
        this.endpoints = await hasActiveEndpoints(system);
      }
      for (const { key, database } of databases) {
        // A change a killed writer committed but did not number gets its seq first.
        if (catchUp) await numberCommitted(database);
        // Each read's deliveries go out at once: under steady writes the log always has more.
        // Past a full read the rest is read at once; after a shorter one, by the next pass (the
        // commits since woke it). Held back, a read is short: it is work on the API's loop.
        for (let read = 0, limit = 0; read >= limit; ) {
          await this.turn();
          if (this.stopped) return;
          const batch = this.options.pacing?.holding ? SHORT_TAIL_BATCH : TAIL_BATCH;
          limit = batch;
          const given = new Set<number>();
          const now = this.clock();
          read = await fanOut(system, key, database, rules, now, given, this.cursors, batch);
          for (const webhookId of given) this.deliver(webhookId);
        }
      }
      await this.prune();
      if (catchUp) for (const webhookId of await endpointIds(system)) this.deliver(webhookId);
    } catch (error) {
      log.warn({ err: error }, 'Delivering webhooks failed; trying again shortly.');
    }
  }

  /** Delivers to `webhookId` now, or right after its lane's claim under way. */
  private deliver(webhookId: number): void {
    if (this.stopped) return;
    const lane = this.lanes.get(webhookId);
    if (lane) {
      lane.again = true;
      return;
    }
    // A retry that is not due yet: nothing of the endpoint may go out before it.
    if ((this.notBefore.get(webhookId) ?? 0) > this.clock()) return;
    if (this.lanes.size >= MAX_IN_FLIGHT) {
      this.waiting.add(webhookId);
      return;
    }
    this.notBefore.delete(webhookId);
    const started: Lane = { again: false };
    this.lanes.set(webhookId, started);
    void this.run(webhookId, started)
      .catch((error: unknown) => {
        if (!this.stopped) this.options.log.warn({ err: error }, 'Delivering webhooks failed.');
      })
      .finally(() => {
        this.lanes.delete(webhookId);
        const [next] = this.waiting;
        if (next !== undefined) {
          this.waiting.delete(next);
          this.deliver(next);
        }
      });
  }

  /**
   * An endpoint's lane: claims its oldest pending deliveries, sends them one after another and
   * records their outcomes, again while there may be more; ends once none is due (or another
   * instance holds them).
   */
  private async run(webhookId: number, lane: Lane): Promise<void> {
    const { system } = this.options;
    while (!this.stopped) {
      await this.turn();
      if (this.stopped) return;
      lane.again = false;
      const claim = await this.statements.run(() => claimBatch(system, webhookId, this.clock()));
      if (claim === null || 'held' in claim) {
        if (lane.again) continue;
        return;
      }
      if ('notBefore' in claim) {
        this.notBefore.set(webhookId, claim.notBefore);
        return;
      }
      const { batch } = claim;
      const settled = await this.send(batch);
      // Unrecorded, the lease runs out and the deliveries are attempted again.
      await this.statements
        .run(() => settleBatch(system, batch, settled, this.clock()))
        .catch((error: unknown) => {
          if (!this.stopped)
            this.options.log.warn({ err: error }, 'Recording webhook deliveries failed.');
        });
      const last = settled[settled.length - 1];
      if (last?.status === 'pending') {
        this.notBefore.set(webhookId, last.nextAttemptAt);
        return;
      }
      // Whatever was not sent of the batch (the lease's end came near) is still pending.
      if (settled.length < batch.deliveries.length) lane.again = true;
      if (!lane.again && batch.deliveries.length < BATCH) return;
      // Other endpoints wait for a lane: this one goes after them (its ending starts the first).
      if (this.waiting.size > 0) {
        this.waiting.add(webhookId);
        return;
      }
    }
  }

  /**
   * Sends a batch's deliveries in order, each once its predecessor succeeded or died, while its
   * time limit fits in the lease; answers the outcomes of those attempted.
   */
  private async send(batch: ClaimedBatch): Promise<Settlement[]> {
    const { settings, secretKey } = this.options;
    const settled: Settlement[] = [];
    let secret = '';
    let unreadable: string | null = null;
    try {
      secret = openSecret(batch.storedSecret, secretKey, batch.webhookId);
    } catch (error) {
      unreadable = error instanceof Error ? error.message : String(error);
    }
    for (const delivery of batch.deliveries) {
      await this.turn();
      if (this.stopped) break;
      if (
        settled.length > 0 &&
        this.clock() + DELIVERY_TIMEOUT_MS + LEASE_MARGIN_MS > batch.leaseUntil
      )
        break;
      const outcome =
        unreadable === null
          ? await postWebhook(
              { url: batch.url, secret, id: `msg_${delivery.id}`, body: delivery.payload },
              settings.allowPrivate,
            )
          : { ok: false, status: null, durationMs: 0, error: unreadable };
      const now = this.clock();
      const attempts = delivery.attempts + (settled.length === 0 ? 0 : 1);
      const expired = now - (delivery.firstAttemptAt ?? now) >= settings.retryForSeconds * 1000;
      const status = outcome.ok ? 'succeeded' : expired ? 'dead' : 'pending';
      settled.push({
        id: delivery.id,
        status,
        nextAttemptAt: status === 'pending' ? now + retryDelay(settings, attempts) : now,
        lastStatus: outcome.status,
        durationMs: outcome.durationMs,
        error: outcome.error,
      });
      // A failure waits for its retry: nothing later of the endpoint goes out before it.
      if (status === 'pending') break;
    }
    return settled;
  }

  /** Resolves at once, or at the worker's next turn while the API is busy (delivery-pacing.ts). */
  private async turn(): Promise<void> {
    const wait = this.options.pacing?.turn();
    if (wait) await wait;
  }

  /** At most every PRUNE_EVERY_MS: deliveries settled longer ago than the retention go. */
  private async prune(): Promise<void> {
    const now = this.clock();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    const cutoff = now - this.options.settings.deliveryRetentionDays * DAY_MS;
    while ((await pruneDeliveries(this.options.system, cutoff)) > 0);
  }
}
