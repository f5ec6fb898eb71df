// Turns of the event loop for long work done in slices (issue 19 item 2: a list page read row by
// row, a large answer serialised chunk by chunk). A plain setImmediate lets every waiting slice
// run in the same check phase, so ten large lists at once would again hold the loop for ten
// slices before the next request is read. Here the waiting slices resume one per iteration of
// the loop, first come first served: between two of them the loop polls for I/O (a /health
// request, another small answer) whatever the number of large requests in flight.
const waiting: Array<() => void> = [];

function resumeOne(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(resumeOne);
}

/** Resolves in a later iteration of the event loop, once the slices that waited before have run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(resumeOne);
  });
}

/**
 * Whether slices wait for their turn now. Long work that starts while they do takes a turn
 * first: sixteen lists that arrive together would otherwise each run a first slice in the same
 * iteration of the loop, one after the other (128 ms at 8 ms each).
 */
export function othersWaiting(): boolean {
  return waiting.length > 0;
}
