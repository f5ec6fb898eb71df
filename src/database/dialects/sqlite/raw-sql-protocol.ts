// The messages between sqlite/raw-sql.ts and its statement worker, and their shared state.
//
// Cancelling: the thread and the caller share one Int32 `state`. Whoever moves it from RUNNING
// first decides: the caller to CANCELLED at the time limit (it answers "timeout" at once), or
// the worker to FINISHED when it has its answer. A write runs in a transaction committed only
// by a FINISHED thread, so a statement reported as cancelled never leaves a change behind.
import type { RawBinding, RawSqlRefusalKind } from '../../raw-sql.js';

export const RUNNING = 0;
export const FINISHED = 1;
export const CANCELLED = 2;

export interface WorkerJob {
  readonly file: string;
  readonly sql: string;
  readonly bindings: readonly RawBinding[];
  readonly allowWrite: boolean;
  readonly maxRows: number;
  readonly maxAnswerBytes: number;
  /** Int32Array over a SharedArrayBuffer: RUNNING, FINISHED or CANCELLED. */
  readonly state: Int32Array;
}

export type WorkerReply =
  /** Sent when the statement starts to run: the time limit counts from here, not thread start-up. */
  | { readonly type: 'started' }
  /** The result encoded (encodeRawResult), its buffer transferred rather than copied. */
  | { readonly type: 'result'; readonly json: Uint8Array }
  | { readonly type: 'refused'; readonly kind: RawSqlRefusalKind; readonly message: string };
