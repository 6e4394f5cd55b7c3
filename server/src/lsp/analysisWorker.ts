/**
 * The main thread's side of the analysis worker: sends document edits as
 * they arrive, runs one analysis at a time (the newest per document; a run
 * superseded while in flight is cancelled through a shared flag), and
 * restarts the worker if it dies, failing the runs it held. When the worker
 * bundle is absent (running from source), analyses run in this thread.
 */
import { join } from 'node:path';
import { analyzeFile as analyze } from '../program/project';
import type { AnalysisResult, AnalyzeOptions } from '../analysis/api';
import { Cancelled } from '../interp/interp';
import { collectGarbage } from './gc';
import { unpackResult } from './packed';
import { adviceComingFor, adviceMadeAhead } from './format';
import type { PhaseAdvice } from '../../../shared/src/advice';
import type { FromWorker, ToWorker, TreeEdit, WorkerMemory } from './workerProtocol';
import { newCancelBuffer, startWorker, type AnalysisThread, type StartedWorker } from './workerStart';
import { CODE_CACHE_DIR_ENV, type CacheState, type LoadedBundle } from '../boot/codeCache';

/**
 * Once the server has been idle for `IDLE_MS`, both threads collect their
 * garbage (Node has no idle-time collection, so an idle server otherwise
 * keeps the heap of its last burst of analyses) and the worker reports what
 * is left. If that is over these limits the worker is replaced by a fresh one:
 * tree-sitter's wasm memory only ever grows (a 2 MB file takes it from ~36 MB
 * to ~85 MB, and the pages it touched stay resident), and terminating the
 * worker is the only way to return it. A fresh worker after its warm-up holds
 * ~18 MB of heap and ~36 MB of external (wasm) memory; the next run after a
 * replacement parses its document from scratch.
 */
const RECYCLE_EXTERNAL_BYTES = 44 * 2 ** 20;
const RECYCLE_HEAP_BYTES = 96 * 2 ** 20;
/**
 * The worker is also replaced once the process's RSS at an idle point has grown this much over its
 * baseline. The growth that the heap and wasm figures above do not show is native: the worker's
 * allocations (message serialization, array buffers, V8's GC work lists and compiler zones) are freed
 * but stay resident in glibc's thread arenas, fragmented. Under `npm run fuzz` idle RSS grew 215 →
 * 347 MB in 150 s with both JS heaps and the wasm memory flat; `malloc_trim(0)`, called from gdb,
 * returned 93 of the 135 MB grown by then, and ending the worker returns it too (Node cannot call
 * `malloc_trim`). The extension's malloc settings (client/src/serverEnv.ts) make less of it stay.
 * Two baselines: with no document open, the lowest idle RSS ever seen with none open (a replacement
 * then costs nothing: no tree or text to rebuild, and no run follows until a document is opened);
 * with documents open, the lowest idle RSS since the current worker started (reset by a replacement,
 * so that memory the open documents legitimately hold replaces the worker at most once). 20 MB is the
 * issue's RSS budget (#10); bench editing (2,000 edits) stays within +3 MB.
 */
const RECYCLE_RSS_GROWTH_BYTES = 20 * 2 ** 20;
/** How long the server must have been idle before the collection (and perhaps the replacement). */
const IDLE_MS = 1000;
/**
 * How long a cancelled run (its document closed, or a newer edit) may take to stop before its worker is
 * replaced. The interpreter sees the cancel flag every few thousand steps (interp.ts CHECK_EVERY, well under
 * 10 ms), but work between its checks can run on: under `npm run fuzz` one mutated file of ~25,000 lines
 * kept the worker 11 s after its document was closed, and the documents opened after it waited behind it
 * past 15 s. A fresh worker is ready in a few hundred ms (docs/performance.md), so a run that has not stopped
 * within a second is cheaper to end than to wait for.
 */
export const CANCEL_GRACE_MS = 1000;
/** How long a hover waits for advice the worker is making before making it itself. */
const ADVICE_WAIT_MS = 100;

/**
 * How much the process's RSS at an idle point has grown over its baseline (RECYCLE_RSS_GROWTH_BYTES):
 * with no document open, over the lowest idle RSS ever seen with none open; with documents open, over
 * the lowest idle RSS since the current worker started.
 */
export class IdleRss {
  private sinceWorker?: number;
  private empty?: number;

  /** Records an idle point's RSS and returns its growth over the baseline that applies. */
  growth(rss: number, openDocuments: number): number {
    if (this.sinceWorker === undefined || rss < this.sinceWorker) this.sinceWorker = rss;
    if (openDocuments > 0) return rss - this.sinceWorker;
    if (this.empty === undefined || rss < this.empty) this.empty = rss;
    return rss - this.empty;
  }

  workerReplaced(): void {
    this.sinceWorker = undefined;
  }
}

export type RunOutcome = { kind: 'result'; result: AnalysisResult; internalErrors?: string[] } | { kind: 'cancelled' } | { kind: 'error'; message: string };

/**
 * `text` is read when the run is sent, not when it is queued: the edits sent to the worker meanwhile
 * must lead its tree exactly to the text it then reparses.
 */
interface Job { id: number; uri: string; text: () => string; opts: Omit<AnalyzeOptions, 'cancelled'>; resolve: (o: RunOutcome) => void }

export class AnalysisWorker {
  private worker?: AnalysisThread;
  /** Shared with the worker (workerStart.ts, `StartedWorker.cancel`). */
  private readonly cancel: Int32Array;
  /** The worker the entry started before loading the server (main.ts), until it is adopted. */
  private early?: StartedWorker;
  /** The server's own bundle as the entry loaded it (its code cache is saved with the worker's). */
  private readonly code?: LoadedBundle;
  /** Whether the current worker's code came with its code cache (workerBoot.ts says at start). */
  workerCodeCache?: CacheState;
  /** Where code caches made at run time go (the extension's storage); see boot/codeCache.ts. */
  private readonly codeCacheDir = process.env[CODE_CACHE_DIR_ENV];
  /** Code caches are saved once per process, at the first idle point after a result. */
  private codeCacheDone = false;
  private resultSeen = false;
  private running?: Job;
  /** Set while the running job has been cancelled and not yet stopped (CANCEL_GRACE_MS). */
  private cancelTimer?: ReturnType<typeof setTimeout>;
  /** Waiting runs, at most one per document (a newer one replaces it). */
  private readonly queue = new Map<string, Job>();
  private nextId = 1;
  private readonly file = join(__dirname, 'worker.js');
  /** The worker's memory as last reported. */
  lastMemory?: WorkerMemory;
  /** Workers replaced because of their memory (for tests and logs). */
  recycled = 0;
  /** The process's idle RSS against its baselines (RECYCLE_RSS_GROWTH_BYTES). */
  private readonly idleRss = new IdleRss();
  /** How many documents are open (set by the server). */
  openCount: () => number = () => 0;
  private idleTimer?: ReturnType<typeof setTimeout>;
  /** A run was started since the last idle collection. */
  private busySinceGc = false;
  /** Paths of the open documents the worker has been given, by uri: a fresh worker gets their texts again. */
  private readonly paths = new Map<string, string>();
  /** Per job whose result came: settles its models' advice (worker.ts sends it right after the result). */
  private readonly adviceDue = new Map<number, (advice?: Array<PhaseAdvice[] | null>) => void>();
  /** The current text of an open document (set by the server). */
  textOf: (uri: string) => string | undefined = () => undefined;

  constructor(private readonly log: (msg: string) => void, boot: { worker?: StartedWorker; code?: LoadedBundle } = {}) {
    this.early = boot.worker;
    this.cancel = boot.worker?.cancel ?? newCancelBuffer();
    this.code = boot.code;
  }

  private ensure(): AnalysisThread | undefined {
    if (this.worker) return this.worker;
    // A replacement warms up until its first run is posted, as the first worker did (worker.ts).
    if (!this.early) Atomics.store(this.cancel, 1, 0);
    const started = this.early ?? startWorker(this.file, this.cancel);
    this.early = undefined;
    if (!started) return undefined;
    const w = started.worker;
    this.workerCodeCache = undefined;
    w.on('message', (m: FromWorker) => this.onMessage(m));
    w.on('error', (e) => this.log(`oomlens: analysis worker error: ${e.stack ?? e.message}`));
    w.on('exit', (code) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      const r = this.running;
      this.running = undefined;
      if (r) r.resolve({ kind: 'error', message: `the analysis worker stopped (exit code ${code})` });
      this.settleAdvice();
      this.pump();
    });
    this.worker = w;
    for (const [uri, path] of this.paths) {
      const text = this.textOf(uri);
      if (text !== undefined) w.postMessage({ kind: 'open', uri, path, text } satisfies ToWorker);
    }
    return w;
  }

  private send(m: ToWorker): void {
    this.ensure()?.postMessage(m);
  }

  /** Starts the worker ahead of the first run (it loads the parser and warms up on its own). */
  warm(): void {
    this.ensure();
  }

  /** Files were created or deleted on disk (a watched-files event). */
  filesChanged(): void {
    if (this.worker) this.worker.postMessage({ kind: 'files-changed' } satisfies ToWorker);
  }

  edit(uri: string, edits: TreeEdit[]): void {
    if (this.worker) this.worker.postMessage({ kind: 'edit', uri, edits } satisfies ToWorker);
  }

  close(uri: string): void {
    this.paths.delete(uri);
    const q = this.queue.get(uri);
    if (q) { this.queue.delete(uri); q.resolve({ kind: 'cancelled' }); }
    if (this.running?.uri === uri) this.cancelRunning();
    if (this.worker) this.send({ kind: 'close', uri });
    // What the document held is garbage now: collect it (and perhaps replace the worker) at the next idle point.
    this.busySinceGc = true;
    if (!this.running && !this.queue.size) this.whenIdle();
  }

  /** Analyses `text`; a later run for the same document supersedes this one (it resolves 'cancelled'). */
  run(uri: string, text: () => string, opts: Omit<AnalyzeOptions, 'cancelled'>): Promise<RunOutcome> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, uri, text, opts, resolve };
      const prev = this.queue.get(uri);
      if (prev) prev.resolve({ kind: 'cancelled' });
      this.queue.set(uri, job);
      if (this.running?.uri === uri) this.cancelRunning();
      this.pump();
    });
  }

  /**
   * Asks the running job to stop (the worker reads the shared flag); if it has not within CANCEL_GRACE_MS, ends
   * its worker and goes on with the queue on a fresh one, which is given the open documents again (ensure).
   */
  private cancelRunning(): void {
    const job = this.running;
    if (!job) return;
    if (this.worker) this.worker.flag(0, job.id);
    else Atomics.store(this.cancel, 0, job.id);
    if (this.cancelTimer || !this.worker) return;
    this.cancelTimer = setTimeout(() => {
      this.cancelTimer = undefined;
      const w = this.worker;
      if (this.running !== job || !w) return;
      this.log(`oomlens: a cancelled analysis of ${job.uri} did not stop within ${CANCEL_GRACE_MS} ms; its worker is replaced`);
      this.worker = undefined;
      this.lastMemory = undefined;
      this.idleRss.workerReplaced();
      this.running = undefined;
      // The advice that worker was making will not come.
      this.settleAdvice();
      void w.terminate();
      job.resolve({ kind: 'cancelled' });
      this.pump();
    }, CANCEL_GRACE_MS);
    this.cancelTimer.unref();
  }

  private pump(): void {
    if (this.running) return;
    const next = this.queue.values().next();
    if (next.done) { this.whenIdle(); return; }
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = undefined; }
    this.busySinceGc = true;
    const job = next.value;
    this.queue.delete(job.uri);
    this.running = job;
    const w = this.ensure();
    if (!w) { void this.inProcess(job); return; }
    if (job.opts.path) this.paths.set(job.uri, job.opts.path);
    w.flag(1, 1);
    w.postMessage({ kind: 'analyze', job: job.id, uri: job.uri, text: job.text(), opts: job.opts } satisfies ToWorker);
  }

  private async inProcess(job: Job): Promise<void> {
    let out: RunOutcome;
    try {
      const internalErrors: string[] = [];
      const result = await analyze(job.text(), { ...job.opts, onInternalError: (where, e) => { internalErrors.push(`${where}: ${(e as Error)?.stack ?? String(e)}`); } });
      out = { kind: 'result', result, internalErrors };
    } catch (e) {
      out = e instanceof Cancelled ? { kind: 'cancelled' } : { kind: 'error', message: (e as Error).stack ?? String(e) };
    }
    this.finish(job.id, out);
  }

  /** After `IDLE_MS` without a run: collect garbage in this thread and ask the worker to do the same and report. */
  private whenIdle(): void {
    if (!this.busySinceGc || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.running || this.queue.size) return;
      this.busySinceGc = false;
      this.saveCodeCaches();
      collectGarbage();
      this.worker?.postMessage({ kind: 'gc' } satisfies ToWorker);
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  /**
   * At the first idle point after a result, with a cache directory given: saves the code caches of the server's
   * bundle and the worker's (the code compiled by then, which includes the first analyses'), those not loaded
   * from a cache. The next server started with the same Node loads them (boot/codeCache.ts).
   */
  private saveCodeCaches(): void {
    if (this.codeCacheDone || !this.resultSeen || !this.codeCacheDir) return;
    this.codeCacheDone = true;
    if (this.code && this.code.cache !== 'accepted') {
      const saved = this.code.save(this.codeCacheDir);
      if (saved) this.log(`oomlens: saved the server's code cache to ${saved}`);
    }
    if (this.worker && this.workerCodeCache !== 'accepted') this.worker.postMessage({ kind: 'save-code-cache', dir: this.codeCacheDir } satisfies ToWorker);
  }

  /** The worker's memory after an idle collection: replace it if still idle and over the limits. */
  private maybeRecycle(m: WorkerMemory): void {
    const w = this.worker;
    if (!w || this.running || this.queue.size) return;
    // A worker with its own process: its RSS is what an analysis grows (the server's stays put).
    const rss = w.ownProcess && m.rss !== undefined ? m.rss : process.memoryUsage.rss();
    const grown = this.idleRss.growth(rss, this.openCount());
    if (m.external <= RECYCLE_EXTERNAL_BYTES && m.heapTotal <= RECYCLE_HEAP_BYTES && grown <= RECYCLE_RSS_GROWTH_BYTES) return;
    const mb = (n: number) => `${Math.round(n / 2 ** 20)} MB`;
    this.log(`oomlens: analysis worker replaced to return its memory (heap ${mb(m.heapTotal)}, wasm and other external ${mb(m.external)}, ${w.ownProcess ? 'its process\'s' : 'process'} RSS ${mb(rss)}, ${mb(grown)} over its idle baseline)`);
    this.worker = undefined;
    this.lastMemory = undefined;
    this.idleRss.workerReplaced();
    this.recycled++;
    // A fresh worker at once, so the next run does not wait for one to start.
    void w.terminate().then(() => this.ensure()).then(() => { if (process.env.OOMLENS_DEBUG_MEMORY) { const u = process.memoryUsage(); this.log(`oomlens: after replacing the worker: rss ${mb(u.rss)}, main heap ${mb(u.heapTotal)}, external ${mb(u.external)}`); } });
  }

  private onMessage(m: FromWorker): void {
    if (m.kind === 'advice') { this.adviceDue.get(m.job)?.(m.advice); return; }
    if (m.kind === 'code-cache') {
      this.workerCodeCache = m.cache;
      if (m.saved) this.log(`oomlens: saved the analysis worker's code cache to ${m.saved}`);
      return;
    }
    if (m.mem) this.lastMemory = m.mem;
    if (m.mem && process.env.OOMLENS_DEBUG_MEMORY) (globalThis as { gc?: () => void }).gc?.();
    if (m.mem && process.env.OOMLENS_DEBUG_MEMORY) this.log(`oomlens: worker memory: heap ${Math.round(m.mem.heapTotal / 2 ** 20)} MB, external ${Math.round(m.mem.external / 2 ** 20)} MB; process rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB, main heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)}/${Math.round(process.memoryUsage().heapTotal / 2 ** 20)} MB, main external ${Math.round(process.memoryUsage().external / 2 ** 20)} MB`);
    if (m.kind === 'memory') { this.maybeRecycle(m.mem); return; }
    if (m.job === -1) { this.log(`oomlens: analysis worker: ${m.kind === 'error' ? m.message : m.kind}`); return; }
    if (m.kind === 'result') {
      this.resultSeen = true;
      const result = unpackResult(m.result, m.packed);
      this.expectAdvice(m.job, result);
      this.finish(m.job, { kind: 'result', result, internalErrors: m.internalErrors });
      return;
    }
    this.finish(m.job, m.kind === 'cancelled' ? { kind: 'cancelled' } : { kind: 'error', message: m.message });
  }

  /** The worker sends the advice of `result`'s models that `adviceMadeAhead` selects; a hover waits for it, at most `ADVICE_WAIT_MS`. */
  private expectAdvice(job: number, result: AnalysisResult): void {
    const ahead = result.models.map(adviceMadeAhead);
    if (!ahead.some(Boolean)) return;
    let settle!: (advice?: Array<PhaseAdvice[] | null>) => void;
    const advice = new Promise<Array<PhaseAdvice[] | null> | undefined>((resolve) => { settle = resolve; });
    const timer = setTimeout(() => settle(undefined), ADVICE_WAIT_MS);
    timer.unref();
    this.adviceDue.set(job, (a) => { clearTimeout(timer); this.adviceDue.delete(job); settle(a); });
    void advice.then(() => this.adviceDue.delete(job));
    result.models.forEach((r, i) => { if (ahead[i]) adviceComingFor(r, advice.then((a) => a?.[i] ?? undefined)); });
  }

  /** The worker stopped: no advice will come. */
  private settleAdvice(): void {
    for (const settle of [...this.adviceDue.values()]) settle(undefined);
  }

  private finish(id: number, out: RunOutcome): void {
    const r = this.running;
    if (!r || r.id !== id) return;
    this.running = undefined;
    if (this.cancelTimer) { clearTimeout(this.cancelTimer); this.cancelTimer = undefined; }
    r.resolve(out);
    this.pump();
  }

  async dispose(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.cancelTimer) clearTimeout(this.cancelTimer);
    const w = this.worker;
    this.worker = undefined;
    this.settleAdvice();
    if (w) await w.terminate();
  }
}
