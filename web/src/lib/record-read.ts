// A record as the form reads it: the show's body with its ETag (the version a save's If-Match
// names) and its Changes-Seq (where following the record's changes starts), DESIGN.md 3.9.
import { exchange } from './api.js';

export type RecordBody = Readonly<Record<string, unknown>>;

export interface ReadRecord {
  readonly record: RecordBody;
  /** null: the resource keeps no version, so saves go without If-Match. */
  readonly etag: string | null;
  /** null: the service keeps no change feed. */
  readonly seq: number | null;
}

// The form imports a record's address from here.
export { recordPath } from './endpoints.js';

/** The Changes-Seq header of an answer, or null. */
export function changesSeqOf(headers: Headers): number | null {
  const text = headers.get('changes-seq');
  const seq = text === null ? Number.NaN : Number(text);
  return Number.isSafeInteger(seq) ? seq : null;
}

/** What a show or a write answered, as a ReadRecord. */
export const readOf = (answer: { data: RecordBody; headers: Headers }): ReadRecord => ({
  record: answer.data,
  etag: answer.headers.get('etag'),
  seq: changesSeqOf(answer.headers),
});

export async function readRecord(path: string): Promise<ReadRecord> {
  return readOf(await exchange<RecordBody>('GET', path));
}
