/**
 * Process entry of the language server (dist/server.js). It starts the
 * analysis worker first, so the worker loads its code and the grammar while
 * this thread loads the server's (dist/serverMain.js, through V8's code
 * cache: boot/codeCache.ts), then starts the server. The transport comes from
 * argv (--stdio, --node-ipc, --socket=N; vscode-languageserver reads it).
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { loadBundle } from './boot/codeCache';
import { startWorker } from './lsp/workerStart';
import type * as ServerMain from './serverMain';

// V8 accepts a code cache only under the flags it was made with, and the server sets --expose-gc for its idle
// collections (lsp/gc.ts), process-wide, on its first idle point. Set first, the flags are the same for every
// cache made and read, in this thread and every worker, before and after that point.
try { setFlagsFromString('--expose-gc'); } catch { /* a runtime that refuses it: gc.ts copes */ }
const worker = startWorker(join(__dirname, 'worker.js'));
const code = loadBundle(join(__dirname, 'serverMain.js'));
(code.exports as typeof ServerMain).start({ worker, code });
