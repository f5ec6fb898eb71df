// The change relay (DESIGN.md 3.9 "Real time"): each instance tails the change log of every
// database it serves and hands each change, in seq order, to its own sockets subscribed to the
// change's resource channel whose signed scope includes it (resource-channels.ts). The log is
// the source; what wakes a tail is only a hint:
//   - a commit of this process (engine/changes/committed.ts), at once;
//   - with REDIS_URL, another instance's commit: it publishes `look` on `<prefix>changes`;
//   - a timer every CATCH_UP_MS, for what no hint announced (a CLI command's writes, a Redis
//     message lost while Redis was away, a change a killed process committed but did not number
//     on PostgreSQL and MySQL: the timer's read numbers it first): a push is late, never lost.
// A tail reads only while some socket of this process holds a resource channel; otherwise it
// moves its mark to the log's end, so a new subscriber is told of what follows its subscription
// (what came before, it reads from GET .../changes after its list's Changes-Seq).
import { randomUUID } from 'node:crypto';
import type { Database } from '../database/database.js';
import { changeOf } from '../engine/changes/change.js';
import { readTail, TAIL_BATCH } from '../engine/changes/change-tail.js';
import { numberCommitted, onChangesCommitted } from '../engine/changes/committed.js';
import { refreshKnownSeq } from '../engine/changes/retention.js';
import type { SharedRedis } from '../kernel/shared-redis.js';
import type { Row } from '../model/entity.js';
import type { ScopedDelivery } from '../realtime/scoped-channels.js';
import type { WarnLog } from '../support/warn-log.js';
import {
  RESOURCE_CHANGED_EVENT,
  RESOURCE_CHANNEL_PREFIX,
  resourceChannel,
  sees,
} from './resource-channels.js';

/** How often every tail is read without a hint. */
export const CATCH_UP_MS = 2000;

/** A database whose changes are relayed, with its name in channel data ('' the main one). */
export interface RelayedDatabase {
  readonly key: string;
  readonly database: Database;
}

export interface ChangeRelayOptions {
  readonly databases: readonly RelayedDatabase[];
  /** This process's sockets. */
  readonly sockets: ScopedDelivery;
  /** Whether a resource's key is an integer (the change's `id` answers as a number then). */
  readonly integerKey: (resource: string) => boolean;
  readonly redis: SharedRedis | null;
  readonly log: WarnLog;
}

interface Hint {
  readonly origin: string;
  readonly db: string;
}

class Tail {
  /** The last seq handed to the sockets (or skipped, with no subscriber). */
  mark = 0;
  private reading: Promise<void> | null = null;
  private again = false;

  constructor(
    readonly relayed: RelayedDatabase,
    private readonly relay: (tail: Tail, catchUp: boolean) => Promise<void>,
  ) {}

  /**
   * Reads now, or once more after the read under way: a hint is never dropped. A catch-up read
   * also numbers what waits for its seq.
   */
  wake(catchUp = false): void {
    this.catchUp ||= catchUp;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        const catchUp = this.catchUp;
        this.catchUp = false;
        await this.relay(this, catchUp);
      } while (this.again);
    })().finally(() => {
      this.reading = null;
    });
  }

  private catchUp = false;
}

export class ChangeRelay {
  private readonly origin = randomUUID();
  private readonly tails: Tail[];
  private readonly stops: Array<() => void> = [];
  private readonly hintChannel: string | null;

  constructor(private readonly options: ChangeRelayOptions) {
    this.tails = options.databases.map(
      (relayed) => new Tail(relayed, (tail, catchUp) => this.read(tail, catchUp)),
    );
    this.hintChannel = options.redis?.key('changes') ?? null;
  }

  /** Starts at each log's end; resolves once hints from the other instances are subscribed. */
  async start(): Promise<void> {
    for (const tail of this.tails) {
      tail.mark = await refreshKnownSeq(tail.relayed.database);
      this.stops.push(
        onChangesCommitted(tail.relayed.database, () => {
          tail.wake();
          this.hintOthers(tail.relayed.key);
        }),
      );
    }
    const timer = setInterval(() => {
      for (const tail of this.tails) tail.wake(true);
    }, CATCH_UP_MS);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
    const { redis } = this.options;
    if (redis && this.hintChannel) {
      const subscriber = await redis.subscriber();
      subscriber.on('message', (channel: string, text: string) => {
        if (channel === this.hintChannel) this.hinted(text);
      });
      await subscriber.subscribe(this.hintChannel);
    }
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private hintOthers(db: string): void {
    const { redis } = this.options;
    if (!redis || !this.hintChannel) return;
    const hint: Hint = { origin: this.origin, db };
    // A lost hint only delays: the timer reads the log anyway.
    redis.client.publish(this.hintChannel, JSON.stringify(hint)).catch(() => {});
  }

  private hinted(text: string): void {
    let hint: Partial<Hint>;
    try {
      hint = JSON.parse(text) as Partial<Hint>;
    } catch {
      return;
    }
    if (hint.origin === this.origin) return;
    for (const tail of this.tails) if (tail.relayed.key === hint.db) tail.wake();
  }

  private async read(tail: Tail, catchUp: boolean): Promise<void> {
    const { database } = tail.relayed;
    try {
      if (!this.options.sockets.hasSubscribersStartingWith(RESOURCE_CHANNEL_PREFIX)) {
        tail.mark = Math.max(tail.mark, await refreshKnownSeq(database));
        return;
      }
      if (catchUp) await numberCommitted(database);
      for (;;) {
        const rows = await readTail(database, tail.mark);
        for (const row of rows) this.deliver(tail.relayed.key, row);
        const last = rows[rows.length - 1];
        if (last) tail.mark = Number(last.seq);
        if (rows.length < TAIL_BATCH) return;
      }
    } catch (error) {
      this.options.log.warn(
        { err: error, database: tail.relayed.key || 'main' },
        'Reading the change log for real time failed; trying again at the next change.',
      );
    }
  }

  private deliver(db: string, row: Row): void {
    const resource = String(row.resource);
    const channel = resourceChannel(resource);
    const { sockets } = this.options;
    if (!sockets.hasSubscribers(channel)) return;
    const scope = {
      db,
      unit: row.unit_id == null ? null : Number(row.unit_id),
      company: row.company_id == null ? null : Number(row.company_id),
    };
    const change = changeOf(row, this.options.integerKey(resource));
    sockets.deliver(channel, RESOURCE_CHANGED_EVENT, JSON.stringify(change), (data) =>
      sees(data, scope),
    );
  }
}
