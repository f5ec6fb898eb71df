// Operator-written SQL, as the signed-request driver runs it: one statement per call, read-only
// unless writes are allowed, a row cap and a time limit, each enforced by the engine itself
// rather than by reading the SQL text. Every dialect folder has a raw-sql.ts implementing it.

export interface RawSqlLimits {
  /** False: the connection is opened so that the database refuses every write. */
  readonly allowWrite: boolean;
  /** Rows returned at most; the statement stops at the next one and the result says so. */
  readonly maxRows: number;
  /** Milliseconds the statement may run before it is cancelled. */
  readonly timeoutMs: number;
  /**
   * Bytes an answer's values may hold (text as its characters, blobs as their base64, 8 for any
   * other value); a larger answer is refused ('too-large') and a write rolled back.
   */
  readonly maxAnswerBytes: number;
}

/** A value a statement may bind: JSON scalars (booleans become what the engine stores for them). */
export type RawBinding = string | number | boolean | null;

/**
 * A value as it leaves the REST driver: JSON-safe (big integers and exact decimals as strings, blobs
 * as base64, timestamps as ISO-8601 text); booleans where the engine has a boolean type.
 */
export type RawValue = string | number | boolean | null;

export interface RawColumn {
  readonly name: string;
  /** The declared type of the column the value comes from; null for an expression. */
  readonly type: string | null;
}

export interface RawResult {
  readonly columns: readonly RawColumn[];
  /** One array per row, in the order of `columns` (names may repeat, so not objects). */
  readonly rows: ReadonlyArray<readonly RawValue[]>;
  /** True when the statement had more rows than the cap. */
  readonly truncated: boolean;
}

export interface RawTable {
  readonly name: string;
  readonly type: 'table' | 'view';
}

export interface RawTableColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
  /** The default as SQL text, as the catalog holds it. */
  readonly default: string | null;
  readonly primary_key: boolean;
}

export type RawSqlRefusalKind =
  | 'multiple-statements'
  | 'read-only'
  | 'timeout'
  | 'too-large'
  | 'invalid'
  | 'unavailable';

/** The operator-facing wording of the refusals, the same on every engine. */
/** Connections each server database keeps for the REST driver (per process). */
export const RAW_SQL_POOL_SIZE = 2;
/** How long a REST driver call waits for a connection (to open, or to be free) before it is a 503. */
export const RAW_SQL_CHECKOUT_TIMEOUT_MS = 10_000;

export const refusals = {
  readOnly:
    'The driver is read-only (REST_DRIVER_ALLOW_WRITE is not true): the database refused a statement that writes.',
  oneStatement: 'Send exactly one SQL statement per request.',
  empty: 'The sql field holds no SQL statement.',
  timeout: (ms: number) => `The statement ran longer than ${ms} ms and was cancelled.`,
  tooLarge: (bytes: number) =>
    `The answer is larger than ${bytes / (1024 * 1024)} MiB (REST_DRIVER_MAX_ANSWER_MB): select fewer rows or shorter values.`,
} as const;

/** The statement was refused or cancelled; `message` is written for the operator. */
export class RawSqlError extends Error {
  constructor(
    readonly kind: RawSqlRefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'RawSqlError';
  }
}

/**
 * A result as the REST driver answers it, JSON text in UTF-8: `{columns, rows, row_count, truncated}`.
 * Encoded where the rows are: on SQLite in the statement's thread, so the event loop only
 * writes the bytes out.
 */
export function encodeRawResult(result: RawResult): Uint8Array {
  const { columns, rows, truncated } = result;
  return new TextEncoder().encode(
    JSON.stringify({ columns, rows, row_count: rows.length, truncated }),
  );
}

export interface RawSql {
  /**
   * Runs exactly one statement and answers its result encoded (encodeRawResult); throws
   * RawSqlError when the database refuses or cancels it.
   */
  run(sql: string, bindings: readonly RawBinding[]): Promise<Uint8Array>;
  /** Tables and views of the user schema, by name. */
  tables(): Promise<RawTable[]>;
  /** The columns of an existing table or view; null when there is none of that name. */
  columns(table: string): Promise<RawTableColumn[] | null>;
  close(): Promise<void>;
}
