import { useEffect, useSyncExternalStore } from "react";

// A chat page asks for a dozen things as it opens; the thread is the one
// the reader came for. The side reads that nothing on the first screen
// waits for (what the next checkpoint builds on, the checkpoints a fork
// could start from, where the model's context starts) wait for the thread's
// first frame, so their requests, answers and renders do not hold it back.
// Once the first thread of the page's life is on screen they are not held
// again; nor for longer than LATEST_MS, should no thread ever paint.

const LATEST_MS = 1500;
let painted = false;
const listeners = new Set<() => void>();

/** The thread's first frame is on screen (or it is too late to wait). */
export function markThreadPainted() {
  if (painted) return;
  painted = true;
  for (const l of listeners) l();
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Whether reads that wait for the thread's first frame may go. */
export function useThreadPainted(): boolean {
  const now = useSyncExternalStore(subscribe, () => painted, () => true);
  useEffect(() => {
    if (painted) return;
    const t = window.setTimeout(markThreadPainted, LATEST_MS);
    return () => window.clearTimeout(t);
  }, []);
  return now;
}

/** Marks the thread painted once `ready` has held for a frame. */
export function useMarkThreadPainted(ready: boolean) {
  useEffect(() => {
    if (!ready || painted) return;
    // Called before the frame that shows the rows is painted; the reads it
    // lets go render in a task after it.
    const raf = requestAnimationFrame(markThreadPainted);
    return () => cancelAnimationFrame(raf);
  }, [ready]);
}

/** For tests: start again as a page that has painted nothing. */
export function resetThreadPainted() {
  painted = false;
}
