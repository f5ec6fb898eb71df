// How far each read replica is behind the primary, in time (DESIGN.md 3.12). Every SAMPLE_MS the
// primary's WAL position is read with the time it was asked at, and each replica's replay
// position: a replica has then replayed every commit acknowledged before the latest primary
// sample at or below its replay position (`freshAt`). A replica is used only while freshAt is
// within DB_REPLICA_MAX_LAG_MS of now, and for a caller only when freshAt is past the caller's
// last write: exact, with no statement added to a request. A replica that fails to answer is
// skipped until it answers again.
import type pg from 'pg';

/** How often the positions are read. */
const SAMPLE_MS = 100;

export interface ReplicaState {
  readonly index: number;
  /** Epoch ms: every commit acknowledged before this is replayed there; -Infinity: unknown or down. */
  freshAt: number;
}

/** "16/B374D848" as a number of bytes. */
function lsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export class ReplicaMonitor {
  readonly replicas: ReplicaState[];
  /** Primary samples, oldest first: [asked at (epoch ms), WAL position]. */
  #samples: Array<[number, bigint]> = [];
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly primary: pg.Pool,
    private readonly pools: readonly pg.Pool[],
    /** DB_REPLICA_MAX_LAG_MS: a replica further behind than this is not read. */
    readonly maxLagMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.replicas = pools.map((_, index) => ({ index, freshAt: Number.NEGATIVE_INFINITY }));
  }

  start(): void {
    this.#timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.#timer.unref();
    void this.sample();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A replica usable for a caller whose last write was acknowledged at `wroteAt` (epoch ms), if any. */
  usable(wroteAt: number, turn: number): ReplicaState | undefined {
    const now = this.clock();
    const fresh = this.replicas.filter(
      (r) => r.freshAt >= wroteAt && now - r.freshAt <= this.maxLagMs,
    );
    return fresh.length === 0 ? undefined : fresh[turn % fresh.length];
  }

  /** A statement could not reach replica `index`: skipped until the next sample reaches it. */
  failed(index: number): void {
    const replica = this.replicas[index];
    if (replica) replica.freshAt = Number.NEGATIVE_INFINITY;
  }

  async sample(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      const askedAt = this.clock();
      try {
        const { rows } = await this.primary.query<{ position: string }>(
          'select pg_current_wal_lsn()::text as position',
        );
        if (rows[0]) this.#samples.push([askedAt, lsn(rows[0].position)]);
      } catch {
        // The primary is away: the replicas' freshness stays what the samples say.
      }
      // Kept for twice the allowed lag: older samples cannot make a replica usable.
      const horizon = askedAt - 2 * this.maxLagMs - SAMPLE_MS;
      while (this.#samples.length > 1 && (this.#samples[0]?.[0] ?? 0) < horizon)
        this.#samples.shift();
      await Promise.all(this.pools.map((pool, index) => this.#sampleReplica(pool, index)));
    } finally {
      this.#running = false;
    }
  }

  async #sampleReplica(pool: pg.Pool, index: number): Promise<void> {
    const replica = this.replicas[index] as ReplicaState;
    try {
      const { rows } = await pool.query<{ position: string | null }>(
        'select pg_last_wal_replay_lsn()::text as position',
      );
      const position = rows[0]?.position;
      // null: not a standby (or not replaying): never used as a replica.
      if (!position) {
        replica.freshAt = Number.NEGATIVE_INFINITY;
        return;
      }
      const replayed = lsn(position);
      let freshAt = Number.NEGATIVE_INFINITY;
      for (const [askedAt, position] of this.#samples) if (position <= replayed) freshAt = askedAt;
      replica.freshAt = freshAt;
    } catch {
      replica.freshAt = Number.NEGATIVE_INFINITY;
    }
  }
}
