/**
 * The language server proper (dist/serverMain.js), started by the entry
 * (main.ts, dist/server.js) once that has started the analysis worker.
 */
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import type { LoadedBundle } from './boot/codeCache';
import { createServer } from './lsp/server';
import type { StartedWorker } from './lsp/workerStart';

/** What the entry made before loading this bundle. */
export interface Boot {
  /** The analysis worker, started first. */
  worker?: StartedWorker;
  /** This bundle, loaded through the code cache (its cache is saved once the first analyses are done). */
  code?: LoadedBundle;
}

export function start(boot: Boot = {}): void {
  createServer(createConnection(ProposedFeatures.all), boot).listen();
}
