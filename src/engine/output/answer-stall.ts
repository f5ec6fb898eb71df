// A streamed answer whose client reads nothing for ANSWER_STALL_TIMEOUT_MS is cut (issue 31,
// finding 2): while it waits for the client it holds its connection and its share of the
// answers' memory budget, and two clients that never read kept every other large list waiting.
// Progress is what the socket has handed to the kernel (bytes written less those still
// buffered): it grows only when the client takes some, a chunk (64 KiB, or one large value) at
// a time. Looked at a few times per timeout, one timer per streamed answer; the answer's stream
// closes when its socket is destroyed, which gives its budget back (output/json-answer.ts).
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** Checks per timeout: the cut comes between the timeout and a quarter more after the last progress. */
const CHECKS = 4;

export function cutWhenStalled(
  answer: Readable,
  socket: Socket,
  timeoutMs: number,
  onCut: () => void,
): void {
  const sent = () => socket.bytesWritten - socket.writableLength;
  let last = sent();
  let still = 0;
  const timer = setInterval(
    () => {
      const now = sent();
      if (now !== last) {
        last = now;
        still = 0;
        return;
      }
      still += 1;
      if (still < CHECKS) return;
      clearInterval(timer);
      onCut();
      socket.destroy();
    },
    Math.ceil(timeoutMs / CHECKS),
  );
  timer.unref();
  answer.once('close', () => clearInterval(timer));
}
