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
import { analyzeTree, MAX_BYTES } from '../analysis/analyze';
import { Cancelled } from '../interp/interp';
import { ParseTooSlow, parsePython, type Tree } from '../interp/parser';
import { analyzeFile } from '../program/project';
import { forgetListings } from '../program/workspace';
import { setOverlay, setRevalidateMs } from '../program/workspace';
import { resolve } from 'node:path';
import { collectGarbage } from './gc';
import { packResult } from './packed';
import { adviceMadeAhead } from './format';
import { adviseModel } from '../../../shared/src/advice';
import type { ToWorker, FromWorker, WorkerMemory } from './workerProtocol';
import { workerChannel } from './workerChannel';

const channel = workerChannel();
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
  return { heapTotal: m.heapTotal, external: m.external, rss: m.rss };
}

function post(m: FromWorker, transfer?: ArrayBuffer[]): void {
  channel.post(m, transfer);
}

/** The document's tree, parsed incrementally; a string when the parse ran past its deadline (the reason). */
async function treeFor(uri: string, text: string): Promise<Tree | string | undefined> {
  if (text.length > MAX_BYTES || text.includes('\u0000')) return undefined;
  let d = docs.get(uri);
  if (!d) docs.set(uri, (d = { length: -1 }));
  // The edits received must lead exactly to this text; if the lengths disagree, parse from scratch.
  const old = d.tree && d.length === text.length ? d.tree : undefined;
  let tree: Tree;
  try {
    tree = await parsePython(text, old);
  } catch (e) {
    if (!(e instanceof ParseTooSlow)) throw e;
    // No tree to edit from: the next text is parsed from scratch.
    d.tree?.delete();
    d.tree = undefined;
    d.length = -1;
    return e.message;
  }
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
        if (channel.flag(0) === m.job) { post({ kind: 'cancelled', job: m.job }); return; }
        if (m.opts.path) { const p = resolve(m.opts.path); openTexts.set(p, m.text); uriPaths.set(m.uri, p); }
        const tree = await treeFor(m.uri, m.text);
        // Fault injection for the tests of internal-error reporting (test/lsp/internal_errors.test.ts).
        if (process.env.OOMLENS_TEST_FAULT === 'worker') throw new Error('injected worker fault (OOMLENS_TEST_FAULT=worker)');
        // A run that never looks at its cancel flag (test/lsp/cancel_grace.test.ts): only a text asking for it.
        if (process.env.OOMLENS_TEST_FAULT === 'hang' && m.text.includes('OOMLENS_TEST_HANG')) for (;;) { /* spins until the worker is terminated */ }
        // A run that takes until it is cancelled, reading only its flag (test/lsp/worker_process.test.ts).
        if (process.env.OOMLENS_TEST_FAULT === 'hang' && m.text.includes('OOMLENS_TEST_UNTIL_CANCELLED')) {
          while (channel.flag(0) !== m.job) channel.waitFlag(0, channel.flag(0), 20);
          post({ kind: 'cancelled', job: m.job });
          return;
        }
        const internalErrors: string[] = [];
        const opts = {
          ...m.opts, cancelled: () => channel.flag(0) === m.job,
          onInternalError: (where: string, e: unknown) => { internalErrors.push(`${where}: ${(e as Error)?.stack ?? String(e)}`); },
        };
        // The file's own analysis from the incremental tree; then the workspace's (models built in files importing it).
        const result = await analyzeFile(m.text, opts, undefined, await analyzeTree(m.text, opts, typeof tree === 'string' ? undefined : tree, typeof tree === 'string' ? tree : undefined));
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

/** The warm-up program: a small PyTorch language model and its training loop (too big for a T4, so advice is made). */
const WARM_UP = `import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return x + self.drop(self.proj(torch.relu(self.fc(self.ln(x)))))

class Net(nn.Module):
    def __init__(self, vocab=50000, d=512, n=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        return self.head(x)

model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    idx = torch.randint(0, 50000, (64, 1024))
    loss = model(idx).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;

// Warm up while the editor is still opening the first document: load the grammar, then analyse a small model with
// a training step (`WARM_UP`) up to `WARM_UP_RUNS` times, making its advice as a result's is made: V8 compiles and
// optimises the interpreter's, the phases' and the advice's hot paths on it, and the first real analysis of a
// 2,000-line file takes ~110 ms of CPU instead of ~150 (in process, after 3 runs; docs/performance.md). Queued
// ahead of any message, it stops as soon as the first run is posted (slot 1 of the shared buffer: the interpreter
// polls it), so a document that arrives early waits at most for the grammar and one poll. A worker that replaces
// another at an idle point warms up the same way before the next keystroke.
const WARM_UP_RUNS = 3;
const runPosted = () => channel.flag(1) !== 0;
let chain: Promise<unknown> = (async () => {
  for (let i = 0; i < WARM_UP_RUNS && !runPosted(); i++) {
    const tree = await parsePython(WARM_UP);
    try {
      if (runPosted()) break;
      const r = await analyzeTree(WARM_UP, { device: 't4', versions: {}, cancelled: runPosted }, tree);
      for (const m of r.models) if (!runPosted() && adviceMadeAhead(m)) adviseModel(m.facts, m.estimate);
    } catch {
      // Cancelled by the first run, or anything else: a warm-up has no result to give.
    } finally {
      tree.delete();
    }
  }
})().catch(() => undefined);

// One message at a time, in order: edits must reach a tree before the analysis that reparses it.
channel.onMessage((m: ToWorker) => {
  chain = chain.then(() => handle(m)).catch((e: unknown) => post({ kind: 'error', job: -1, message: String(e) }));
});
