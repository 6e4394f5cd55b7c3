/**
 * The analysis worker's own process (dist/workerHost.js), started by the server (workerStart.ts). Its main thread
 * runs the worker (dist/workerMain.js, worker.ts, loaded through V8's code cache as workerBoot.ts loads it for a
 * thread): messages come and go over the IPC channel, and the flags (the run to cancel, whether a run was posted)
 * are read from the small file the server writes (OOMLENS_WORKER_FLAGS), since a busy main thread reads no message
 * and a process shares no memory with the server. Running the worker on the process's main thread, not in a thread of
 * it, saves the thread's start (~45 ms before the first analysis, measured: docs/performance.md) and its heap.
 *
 * Why a process: the native memory an analysis frees stays resident in glibc's per-thread arenas, and ending a
 * worker thread does not return it (the next worker reuses the arena): under `npm run fuzz` the server's idle RSS
 * kept 50–70 MB over its start after large documents, and `malloc_trim(0)` from gdb returned it
 * (docs/performance.md). Ending a process returns everything, so the server replaces this one when it has grown.
 */
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { loadBundle } from '../boot/codeCache';
import { setProcessChannel } from './workerChannel';
import type { FromWorker, ToWorker } from './workerProtocol';

// The same flags as the server's entry (main.ts): a code cache is accepted only under the flags it was made with.
try { setFlagsFromString('--expose-gc'); } catch { /* a runtime that refuses it: gc.ts copes */ }
const flagsFile = process.env.OOMLENS_WORKER_FLAGS;
if (!process.send || !flagsFile) process.exit(70);
const fd = openSync(flagsFile!, 'r');
const word = Buffer.alloc(4);
const flag = (i: number): number => (readSync(fd, word, 0, 4, 4 * i) === 4 ? word.readInt32LE(0) : 0);
const pause = new Int32Array(new SharedArrayBuffer(4));
const send = (m: unknown) => { try { process.send!(m as never); } catch { /* the server is gone: 'disconnect' ends this process */ } };
setProcessChannel({
  post: (m) => send(m),
  onMessage: (f) => { process.on('message', f as (m: unknown) => void); },
  flag,
  waitFlag: (i, value, ms) => { if (flag(i) === value) Atomics.wait(pause, 0, 0, ms); },
});
// The flags file goes with the process, whoever ends first (the server removes it too when it sees this one end).
process.on('exit', () => { try { closeSync(fd); rmSync(dirname(flagsFile!), { recursive: true, force: true }); } catch { /* gone */ } });
process.on('disconnect', () => process.exit(0));
// A message sent as the server ends (the CLI exits once it has its results) fails asynchronously with EPIPE, as an
// 'error' event of this process: the server is gone, so this process ends quietly instead of printing a stack.
process.on('error', () => process.exit(0));
const loaded = loadBundle(join(__dirname, 'workerMain.js'));
send({ kind: 'code-cache', cache: loaded.cache, file: loaded.cacheFile } satisfies FromWorker);
process.on('message', (m: ToWorker) => {
  if (m?.kind !== 'save-code-cache') return;
  send({ kind: 'code-cache', cache: loaded.cache, saved: loaded.save(m.dir) } satisfies FromWorker);
});
