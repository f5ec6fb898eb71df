// The weak ETag of a list answer: a digest of the answer's JSON text. A list has no stored
// version (it is a page of a filtered, sorted set), so "nothing changed" means exactly "the
// same text": the same on every instance, and never a 304 for a page whose records, totals or
// names changed. It saves the client the transfer and the parsing, not the server the reads.
import { createHash } from 'node:crypto';

export function listTag(text: string): string {
  return `W/"${createHash('sha1').update(text).digest('base64url')}"`;
}
