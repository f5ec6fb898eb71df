// How far V8 lets the JS heap grow past what was live at its last full collection (issue 19
// item 2: RSS stays bounded). V8 grows it by up to 4x while collections are cheap, and a large
// list answer makes them cheap: its 1 MiB strings are garbage that costs nothing to mark. Ten
// lists of 101 MiB held a 300 MB live heap in an RSS of 1.5 GiB on SQLite. Growing by a quarter
// instead held it at 0.7 GiB, with as many lists served (docs/performance.md, Large answers).
import v8 from 'node:v8';

/** The heap's growth past the live set at its last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 25;

/**
 * Sets V8's heap growth for this process, unless it was started with its own
 * (`node --heap-growing-percent=N`). V8 reads the setting each time it sizes the heap, so it
 * takes effect at once.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
