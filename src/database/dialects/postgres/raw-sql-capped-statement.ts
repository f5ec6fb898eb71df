// One operator statement on PostgreSQL (raw-sql.ts) through the extended query protocol, its rows
// capped by the server's portal and by the answer's byte bound.
import type pg from 'pg';
import { rowBytes } from '../../../support/answer-budget.js';

/** A result column as the RowDescription message describes it. */
export interface Field {
  readonly name: string;
  /** The table the value comes from, 0 for an expression. */
  readonly tableID: number;
  readonly columnID: number;
  readonly dataTypeID: number;
}

/** The part of pg's protocol connection a custom query drives (@types/pg mistypes `rows` as a string). */
interface Wire {
  readonly stream: { cork?: () => void; uncork?: () => void };
  parse(message: { text: string; types: string[] }): void;
  bind(message: { values: Array<string | null> }): void;
  describe(message: { type: 'P' }): void;
  execute(message: { rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/**
 * One statement through the extended protocol, in one pipelined round trip: Parse (which refuses
 * several commands), Bind, Describe, Execute with a row limit, Sync. The client calls the handle*
 * methods as the server answers; `done` settles at ReadyForQuery or at the first error.
 */
export class CappedStatement implements pg.Submittable {
  fields: readonly Field[] = [];
  readonly rows: Array<ReadonlyArray<string | null>> = [];
  /** The text held no statement (only comments or blanks). */
  empty = false;
  /** The rows passed the answer's byte bound: none are kept from then on. */
  tooLarge = false;
  private bytes = 0;
  readonly done: Promise<unknown>;
  private settle: (error: unknown) => void = () => {};

  constructor(
    private readonly text: string,
    private readonly values: Array<string | null>,
    private readonly rowLimit: number,
    private readonly maxBytes: number,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    wire.stream.cork?.();
    try {
      wire.parse({ text: this.text, types: [] });
      wire.bind({ values: this.values });
      wire.describe({ type: 'P' });
      wire.execute({ rows: this.rowLimit });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.fields = message.fields;
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.tooLarge) return;
    // The row past the cap only says there are more: it is not answered, nor counted.
    if (this.rows.length === this.rowLimit - 1) {
      this.rows.push(message.fields);
      return;
    }
    this.bytes += rowBytes(message.fields);
    if (this.bytes <= this.maxBytes) this.rows.push(message.fields);
    else {
      this.tooLarge = true;
      this.rows.length = 0;
    }
  }

  /** The row limit was reached: the portal waits, producing nothing more, until the transaction ends. */
  handlePortalSuspended(): void {}

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {
    this.empty = true;
  }

  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as Wire).sendCopyFail(
      'COPY FROM STDIN is not available through the driver',
    );
  }

  handleCopyData(): void {}

  handleError(error: unknown): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle(null);
  }
}
