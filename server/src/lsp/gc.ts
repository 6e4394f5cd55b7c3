/**
 * A full garbage collection on demand, for the server's idle moments.
 * Node has no idle-time collection: after a burst of analyses each thread's
 * heap keeps its garbage (100+ MB on the main thread after large documents,
 * measured under the fuzzer) until the next allocation pressure, which an
 * idle server never has. `global.gc` exists only under `--expose-gc`; the
 * flag can be set at run time and a fresh context then has `gc` (the flag is
 * read when a context is created), so the server does not depend on how the
 * editor starts it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/** Runs a full collection of this thread's heap; false when the runtime does not allow it. */
export function collectGarbage(): boolean {
  if (collect === undefined) {
    collect = (globalThis as { gc?: () => void }).gc ?? null;
    if (!collect) {
      try {
        setFlagsFromString('--expose-gc');
        collect = runInNewContext('gc') as () => void;
      } catch {
        collect = null;
      }
    }
  }
  collect?.();
  return collect !== null;
}
