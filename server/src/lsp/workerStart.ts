/**
 * Starts the analysis worker thread (dist/worker.js). The server's entry
 * (main.ts) calls this before it loads the rest of the server, so the worker
 * loads its code and the grammar while the main thread loads its own
 * (analysisWorker.ts adopts it); later workers (replacements) start here too.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface StartedWorker {
  worker: Worker;
  /**
   * Shared with the worker: [0] the id of the run to cancel; [1] set to 1 once a run has been posted, which
   * ends the worker's start-up warm-up at once (a real document is worth more than warming up on a toy one).
   */
  cancel: Int32Array;
}

export function newCancelBuffer(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

/** Starts a worker on `file` sharing `cancel`; undefined when the bundle is absent (running from source). */
export function startWorker(file: string, cancel = newCancelBuffer()): StartedWorker | undefined {
  if (!existsSync(file)) return undefined;
  const worker = new Worker(file, { workerData: { cancel: cancel.buffer }, resourceLimits: { maxOldGenerationSizeMb: 3072, stackSizeMb: 8 } });
  worker.unref();
  return { worker, cancel };
}
