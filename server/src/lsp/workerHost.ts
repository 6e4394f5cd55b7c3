/**
 * The analysis worker's own process (dist/workerHost.js), started by the server (workerStart.ts). It runs the
 * worker thread exactly as the server ran it before (dist/worker.js, with its shared cancel flags) and relays
 * messages both ways; flag writes come as `{ kind: '__flag' }` messages and are stored here, where the worker
 * thread reads them. Its main thread does nothing else, so a cancel reaches the flag while the worker is busy.
 *
 * Why a process: the native memory an analysis frees stays resident in glibc's per-thread arenas, and ending a
 * worker thread does not return it (the next worker reuses the arena): under `npm run fuzz` the server's idle RSS
 * kept 50–70 MB over its start after large documents, and `malloc_trim(0)` from gdb returned it
 * (docs/performance.md). Ending a process returns everything, so the server replaces this one when it has grown.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { startThread } from './workerStart';

// The same flags as the server's entry (main.ts): a code cache is accepted only under the flags it was made with.
try { setFlagsFromString('--expose-gc'); } catch { /* a runtime that refuses it: gc.ts copes */ }
const started = startThread(join(__dirname, 'worker.js'));
if (!started || !process.send) process.exit(70);
const { worker, cancel } = started!;
const send = (m: unknown) => { try { process.send!(m); } catch { /* the server is gone: 'disconnect' ends this process */ } };
worker.ref();
worker.on('message', (m) => send(m));
worker.on('error', (e) => send({ kind: 'error', job: -1, message: `worker thread error: ${(e as Error)?.stack ?? String(e)}` }));
worker.on('exit', (code) => process.exit(code || 1));
process.on('message', (m: { kind?: string; index?: number; value?: number }) => {
  if (m?.kind === '__flag') { Atomics.store(cancel, m.index!, m.value!); return; }
  worker.postMessage(m);
});
process.on('disconnect', () => process.exit(0));
// A message sent as the server ends (the CLI exits once it has its results) fails asynchronously with EPIPE, as an
// 'error' event of this process: the server is gone, so this process ends quietly instead of printing a stack.
process.on('error', () => process.exit(0));
