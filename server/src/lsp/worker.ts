/**
 * The analysis worker (a worker_threads thread, bundled as dist/workerMain.js
 * and loaded by dist/worker.js, workerBoot.ts).
 * It keeps one tree-sitter tree per open document, applies the editor's
 * edits to it (`tree.edit`) and reparses incrementally with the old tree
 * when asked to analyse, deleting trees no longer used. Analyses run here,
 * off the server's main thread, so hovers and code actions are answered
 * while one runs; a superseded run is cancelled through a shared flag the
 * interpreter polls.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeTree, MAX_BYTES } from '../analysis/analyze';
import { Cancelled } from '../interp/interp';
import { parsePython, type Tree } from '../interp/parser';
import { analyzeFile } from '../program/project';
import { forgetListings } from '../program/workspace';
import { setOverlay, setRevalidateMs } from '../program/workspace';
import { resolve } from 'node:path';
import { collectGarbage } from './gc';
import { packResult } from './packed';
import { adviceMadeAhead } from './format';
import { adviseModel } from '../../../shared/src/advice';
import type { ToWorker, FromWorker, WorkerMemory } from './workerProtocol';

const cancelFlag = new Int32Array(workerData.cancel as SharedArrayBuffer);
const docs = new Map<string, { tree?: Tree; length: number }>();
/** Texts of the open documents by path: imports and programs read them instead of the disk. */
const openTexts = new Map<string, string>();
const uriPaths = new Map<string, string>();
setOverlay((p) => openTexts.get(p));
// The editor reports changes on disk (watched files: forgetListings); between them a disk text checked
// within the last 2 s is not checked again (the listing of Python files is already kept for 5 s).
setRevalidateMs(2000);

function mem(): WorkerMemory {
  if (process.env.OOMLENS_DEBUG_MEMORY) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heapTotal: m.heapTotal, external: m.external };
}

function post(m: FromWorker, transfer?: ArrayBuffer[]): void {
  parentPort!.postMessage(m, transfer);
}

async function treeFor(uri: string, text: string): Promise<Tree | undefined> {
  if (text.length > MAX_BYTES || text.includes('\u0000')) return undefined;
  let d = docs.get(uri);
  if (!d) docs.set(uri, (d = { length: -1 }));
  // The edits received must lead exactly to this text; if the lengths disagree, parse from scratch.
  const old = d.tree && d.length === text.length ? d.tree : undefined;
  const tree = await parsePython(text, old);
  if (d.tree) d.tree.delete();
  d.tree = tree;
  d.length = text.length;
  return tree;
}

async function handle(m: ToWorker): Promise<void> {
  switch (m.kind) {
    case 'files-changed': forgetListings(); return;
    case 'save-code-cache': return; // workerBoot.ts saves it
    case 'edit': {
      const d = docs.get(m.uri);
      if (!d?.tree) return;
      for (const e of m.edits) {
        d.tree.edit(e);
        d.length += e.newEndIndex - e.oldEndIndex;
      }
      return;
    }
    case 'open': {
      const p = resolve(m.path);
      openTexts.set(p, m.text);
      uriPaths.set(m.uri, p);
      return;
    }
    case 'close': {
      docs.get(m.uri)?.tree?.delete();
      docs.delete(m.uri);
      const p = uriPaths.get(m.uri);
      if (p) { openTexts.delete(p); uriPaths.delete(m.uri); }
      return;
    }
    case 'gc': {
      collectGarbage();
      post({ kind: 'memory', job: -2, mem: mem() });
      return;
    }
    case 'analyze': {
      try {
        if (Atomics.load(cancelFlag, 0) === m.job) { post({ kind: 'cancelled', job: m.job }); return; }
        if (m.opts.path) { const p = resolve(m.opts.path); openTexts.set(p, m.text); uriPaths.set(m.uri, p); }
        const tree = await treeFor(m.uri, m.text);
        // Fault injection for the tests of internal-error reporting (test/lsp/internal_errors.test.ts).
        if (process.env.OOMLENS_TEST_FAULT === 'worker') throw new Error('injected worker fault (OOMLENS_TEST_FAULT=worker)');
        const internalErrors: string[] = [];
        const opts = {
          ...m.opts, cancelled: () => Atomics.load(cancelFlag, 0) === m.job,
          onInternalError: (where: string, e: unknown) => { internalErrors.push(`${where}: ${(e as Error)?.stack ?? String(e)}`); },
        };
        // The file's own analysis from the incremental tree; then the workspace's (models built in files importing it).
        const result = await analyzeFile(m.text, opts, undefined, await analyzeTree(m.text, opts, tree));
        // The per-tensor parts go packed and transferred: the main thread unpacks a model's only when read.
        const { slim, packed, transfer } = packResult(result);
        post({ kind: 'result', job: m.job, result: slim, packed, mem: mem(), internalErrors }, transfer);
        // Then the advice a hover shows, made here while the main thread publishes the diagnostics.
        post({ kind: 'advice', job: m.job, advice: result.models.map((r) => { try { return adviceMadeAhead(r) ? adviseModel(r.facts, r.estimate) : null; } catch { return null; } }) });
      } catch (e) {
        if (e instanceof Cancelled) post({ kind: 'cancelled', job: m.job, mem: mem() });
        else post({ kind: 'error', job: m.job, message: (e as Error).stack ?? String(e), mem: mem() });
      }
      return;
    }
  }
}

// Warm up while the editor is still opening the first document: load the grammar and run a tiny analysis
// (first-call compilation of the interpreter and the phases), queued ahead of any message.
// It stops as soon as the first run is posted (slot 1 of the shared buffer): the run would otherwise wait for it.
const runPosted = () => Atomics.load(cancelFlag, 1) !== 0;
let chain: Promise<unknown> = (async () => {
  const tree = await parsePython('import torch\nx = torch.zeros((2, 2))\n');
  try { if (!runPosted()) await analyzeTree(tree.rootNode.text, { device: 'a100-80gb', versions: {}, cancelled: runPosted }, tree); } finally { tree.delete(); }
})().catch(() => undefined);

// One message at a time, in order: edits must reach a tree before the analysis that reparses it.
parentPort!.on('message', (m: ToWorker) => {
  chain = chain.then(() => handle(m)).catch((e: unknown) => post({ kind: 'error', job: -1, message: String(e) }));
});
