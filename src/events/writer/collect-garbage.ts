import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full collection of this thread's V8 heap, on demand. The writer calls it
 * once a burst of events is over: what the burst promoted (queued rows,
 * index entries that waited for a checkpoint) is garbage by then, and V8,
 * left alone, collects it only when the heap next grows, so an idle server
 * would keep the high-water mark of its last burst. gc() exists only with
 * --expose-gc, which neither `node dist/paywalld.js` nor the single
 * executable can be started with from code; set at run time, the flag makes
 * V8 give gc() to contexts created afterwards, so one is created for it.
 */
let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}
