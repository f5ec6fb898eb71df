// The memory held by answers in flight (issue 19 item 2: RSS stays bounded). A list page at the
// largest sizes the limits allow is about 100 MB of records, held from its read until its answer
// is written; ten at once held 1.7 to 2.8 GB. One budget per process (ANSWER_MEMORY_LIMIT_MB)
// bounds it: an answer charges what it holds as it learns it (row by row as the page is read,
// see the engines' sliced-reader.ts), is given it back as its
// text is written out, and waits, first come first served, while the budget is spent. Answers
// up to `threshold` never touch it: only what an answer learns past that is charged. The oldest
// answer holding a charge never waits, so the answers that hold the budget always finish and
// nothing deadlocks: what is held stays under the limit plus that one answer's page.

/** What an answer in flight is charged: one per request, made whether or not it turns out large. */
export interface AnswerShare {
  /**
   * Learns `bytes` more held. Undefined when it may go on at once (always while the answer is
   * small), else a promise to wait for, settled once the budget grants it.
   */
  charge(bytes: number): Promise<void> | undefined;
  /**
   * Before a read: undefined, or while the budget is spent, a promise settled when this answer
   * may start (a read that would wait midway holding a connection waits here instead).
   */
  admission(): Promise<void> | undefined;
  /** `bytes` of what it holds are written out (at most what it was charged). */
  release(bytes: number): void;
  /** The answer is done (written, failed or abandoned): gives back all it holds. */
  end(): void;
}

interface Waiter {
  readonly share: Share;
  readonly bytes: number;
  readonly resolve: () => void;
}

export class AnswerBudget {
  /** Bytes charged to answers in flight. */
  private held = 0;
  /** The most ever held at once (tests and measurements). */
  peak = 0;
  /** Bytes read and waiting to be charged: a read that waits holds what it has read. */
  private asked = 0;
  /**
   * The most ever held and waiting to be charged at once: what the answers in flight had read.
   * A read charged as it goes waits with one row; one charged once its page is whole, with the page.
   */
  peakRead = 0;
  /** Shares holding a charge, oldest first (a Set keeps insertion order). */
  private readonly holders = new Set<Share>();
  private readonly waiting: Waiter[] = [];

  constructor(
    /** ANSWER_MEMORY_LIMIT_MB in bytes. */
    readonly limit: number,
    /** Bytes an answer may hold before it is charged (STREAM_ANSWERS_ABOVE). */
    readonly threshold: number,
  ) {}

  /** A share for one answer. */
  share(): AnswerShare {
    return new Share(this);
  }

  /** Bytes charged now. */
  get charged(): number {
    return this.held;
  }

  /** Answers waiting for their turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** @internal Charges `bytes` to `share`, at once when the budget allows, else in turn. */
  take(share: Share, bytes: number): Promise<void> | undefined {
    if (this.mayTake(share, bytes, this.waiting.length === 0)) {
      this.grant(share, bytes);
      return undefined;
    }
    this.asked += bytes;
    this.notePeakRead();
    return new Promise((resolve) => this.waiting.push({ share, bytes, resolve }));
  }

  /** @internal Undefined while the budget is not spent, else a promise settled when it is not. */
  admit(share: Share): Promise<void> | undefined {
    if (this.held < this.limit || this.holders.size === 0) return undefined;
    return this.take(share, 0);
  }

  /** @internal */
  give(share: Share, bytes: number, ended: boolean): void {
    this.held -= bytes;
    if (ended) {
      this.holders.delete(share);
      // A share ended while it waited leaves the queue, and what waited goes on uncharged.
      const at = this.waiting.findIndex((w) => w.share === share);
      const left = at >= 0 ? this.waiting.splice(at, 1)[0] : undefined;
      if (left) {
        this.asked -= left.bytes;
        left.resolve();
      }
    }
    this.drain();
  }

  /**
   * The oldest holder never waits (it is what the others wait for); otherwise a charge fits under
   * the limit, or nobody holds anything. `inTurn`: no one waits before it (first come, first served).
   */
  private mayTake(share: Share, bytes: number, inTurn: boolean): boolean {
    if (this.oldest() === share || this.holders.size === 0) return true;
    return inTurn && this.held + bytes <= this.limit;
  }

  private oldest(): Share | undefined {
    for (const share of this.holders) return share;
    return undefined;
  }

  private grant(share: Share, bytes: number): void {
    if (bytes > 0) {
      this.holders.add(share);
      share.held += bytes;
      this.held += bytes;
      if (this.held > this.peak) this.peak = this.held;
      this.notePeakRead();
    }
  }

  private notePeakRead(): void {
    if (this.held + this.asked > this.peakRead) this.peakRead = this.held + this.asked;
  }

  private drain(): void {
    // The oldest holder first, wherever it waits; then the queue in order while charges fit.
    const oldest = this.oldest();
    const at = oldest ? this.waiting.findIndex((w) => w.share === oldest) : -1;
    if (at > 0) this.waiting.unshift(...this.waiting.splice(at, 1));
    for (let next = this.waiting[0]; next; next = this.waiting[0]) {
      if (!this.mayTake(next.share, next.bytes, true)) return;
      this.waiting.shift();
      this.asked -= next.bytes;
      this.grant(next.share, next.bytes);
      next.resolve();
    }
  }
}

class Share implements AnswerShare {
  /** Bytes learnt before charging starts. */
  private seen = 0;
  private charging = false;
  private ended = false;
  /** Bytes charged and not yet given back. */
  held = 0;

  constructor(private readonly budget: AnswerBudget) {}

  charge(bytes: number): Promise<void> | undefined {
    if (this.ended) return undefined;
    if (!this.charging) {
      this.seen += bytes;
      if (this.seen <= this.budget.threshold) return undefined;
      // Past the threshold: everything learnt so far is charged at once.
      this.charging = true;
      return this.budget.take(this, this.seen);
    }
    return this.budget.take(this, bytes);
  }

  admission(): Promise<void> | undefined {
    return this.ended ? undefined : this.budget.admit(this);
  }

  release(bytes: number): void {
    if (this.held === 0) return;
    const given = Math.min(bytes, this.held);
    this.held -= given;
    this.budget.give(this, given, false);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.charging && this.held === 0) return;
    const given = this.held;
    this.held = 0;
    this.budget.give(this, given, true);
  }
}

/**
 * The bytes a row's values hold, as an answer's text will measure them: a string's characters,
 * a buffer's bytes, 8 for anything else. For charging, not exact.
 */
export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/** valueBytes summed over a row object's (or a raw row array's) values. */
export function rowBytes(row: object): number {
  let bytes = 0;
  if (Array.isArray(row)) for (let i = 0; i < row.length; i += 1) bytes += valueBytes(row[i]);
  else for (const key in row) bytes += valueBytes((row as Record<string, unknown>)[key]);
  return bytes;
}

/** What a result's rows hold (rowBytes of each). */
export function rowsBytes(rows: readonly unknown[]): number {
  let bytes = 0;
  for (let i = 0; i < rows.length; i += 1) bytes += rowBytes(rows[i] as object);
  return bytes;
}
