// Reads answers in a process of its own, so that a test measuring how long the server's event
// loop is held measures the server's work alone, not also the reading, parsing and hashing of
// the answers by the client in the same loop (test/http/streamed-answers.test.ts).
// Input on stdin: { base, headers, targets, warm }; it opens `warm` idle connections first (a
// /health each), so that the targets go out together, then GETs every target at once and writes
// one line of JSON: [{ status, sha256, bytes }] in the order of the targets.
import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';

const { base, headers, targets, warm } = JSON.parse(await text(process.stdin));

async function digest(target) {
  const response = await fetch(base + target, { headers });
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { status: response.status, sha256: hash.digest('hex'), bytes };
}

await Promise.all(
  Array.from({ length: warm }, () => fetch(`${base}/health`).then((reply) => reply.text())),
);
process.stdout.write(`${JSON.stringify(await Promise.all(targets.map(digest)))}\n`);
