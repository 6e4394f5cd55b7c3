/**
 * The analysis worker's entry (dist/worker.js): loads the worker's code
 * (dist/workerMain.js, worker.ts) through V8's code cache (boot/codeCache.ts)
 * and, when the main thread asks once the first analyses are done, saves the
 * cache of the code compiled by then.
 */
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { loadBundle } from '../boot/codeCache';
import type { FromWorker, ToWorker } from './workerProtocol';

const loaded = loadBundle(join(__dirname, 'workerMain.js'));
parentPort!.postMessage({ kind: 'code-cache', cache: loaded.cache, file: loaded.cacheFile } satisfies FromWorker);
parentPort!.on('message', (m: ToWorker) => {
  if (m.kind !== 'save-code-cache') return;
  parentPort!.postMessage({ kind: 'code-cache', cache: loaded.cache, saved: loaded.save(m.dir) } satisfies FromWorker);
});
