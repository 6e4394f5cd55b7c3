/**
 * How the analysis worker (worker.ts) talks to the server and reads its flags: as a worker thread (parentPort, and a
 * SharedArrayBuffer of flags it shares with the server) or as the main thread of a process of its own (workerHost.ts:
 * IPC messages, and a small file of flags the server writes, read by `pread` each time, since a process shares no
 * memory with the server and a busy main thread reads no message).
 */
import { parentPort, workerData } from 'node:worker_threads';

export interface WorkerChannel {
  post(m: unknown, transfer?: ArrayBuffer[]): void;
  onMessage(f: (m: never) => void): void;
  /** The current value of flag `i` (worker_start.ts StartedWorker.cancel: [0] the run to cancel, [1] a run was posted). */
  flag(i: number): number;
  /** Waits until flag `i` is no longer `value` or `ms` pass. */
  waitFlag(i: number, value: number, ms: number): void;
}

/** Set by a worker process's entry (workerHost.ts) before it loads the worker's code. */
const GLOBAL = '__oomlensWorkerChannel';

export function setProcessChannel(c: WorkerChannel): void {
  (globalThis as Record<string, unknown>)[GLOBAL] = c;
}

export function workerChannel(): WorkerChannel {
  const given = (globalThis as Record<string, unknown>)[GLOBAL] as WorkerChannel | undefined;
  if (given) return given;
  const flags = new Int32Array(workerData.cancel as SharedArrayBuffer);
  return {
    post: (m, transfer) => parentPort!.postMessage(m, transfer),
    onMessage: (f) => { parentPort!.on('message', f as (m: unknown) => void); },
    flag: (i) => Atomics.load(flags, i),
    waitFlag: (i, value, ms) => { Atomics.wait(flags, i, value, ms); },
  };
}
