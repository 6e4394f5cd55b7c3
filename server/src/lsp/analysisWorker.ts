/**
 * The main thread's side of the analysis worker: sends document edits as
 * they arrive, runs one analysis at a time (the newest per document; a run
 * superseded while in flight is cancelled through a shared flag), and
 * restarts the worker if it dies, failing the runs it held. When the worker
 * bundle is absent (running from source), analyses run in this thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { analyzeFile as analyze } from '../program/project';
import type { AnalysisResult, AnalyzeOptions } from '../analysis/api';
import { Cancelled } from '../interp/interp';
import type { FromWorker, ToWorker, TreeEdit } from './workerProtocol';

export type RunOutcome = { kind: 'result'; result: AnalysisResult } | { kind: 'cancelled' } | { kind: 'error'; message: string };

/**
 * `text` is read when the run is sent, not when it is queued: the edits sent to the worker meanwhile
 * must lead its tree exactly to the text it then reparses.
 */
interface Job { id: number; uri: string; text: () => string; opts: Omit<AnalyzeOptions, 'cancelled'>; resolve: (o: RunOutcome) => void }

export class AnalysisWorker {
  private worker?: Worker;
  private readonly cancel = new Int32Array(new SharedArrayBuffer(4));
  private running?: Job;
  /** Waiting runs, at most one per document (a newer one replaces it). */
  private readonly queue = new Map<string, Job>();
  private nextId = 1;
  private readonly file = join(__dirname, 'worker.js');
  /** RSS of the worker's process as last reported (the same process as the server: threads share it). */
  lastRss = 0;

  constructor(private readonly log: (msg: string) => void) {}

  private ensure(): Worker | undefined {
    if (this.worker) return this.worker;
    if (!existsSync(this.file)) return undefined;
    const w = new Worker(this.file, { workerData: { cancel: this.cancel.buffer }, resourceLimits: { maxOldGenerationSizeMb: 3072, stackSizeMb: 8 } });
    w.on('message', (m: FromWorker) => this.onMessage(m));
    w.on('error', (e) => this.log(`oomlens: analysis worker error: ${e.stack ?? e.message}`));
    w.on('exit', (code) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      const r = this.running;
      this.running = undefined;
      if (r) r.resolve({ kind: 'error', message: `the analysis worker stopped (exit code ${code})` });
      this.pump();
    });
    w.unref();
    this.worker = w;
    return w;
  }

  private send(m: ToWorker): void {
    this.ensure()?.postMessage(m);
  }

  edit(uri: string, edits: TreeEdit[]): void {
    if (this.worker) this.worker.postMessage({ kind: 'edit', uri, edits } satisfies ToWorker);
  }

  close(uri: string): void {
    const q = this.queue.get(uri);
    if (q) { this.queue.delete(uri); q.resolve({ kind: 'cancelled' }); }
    if (this.running?.uri === uri) Atomics.store(this.cancel, 0, this.running.id);
    if (this.worker) this.send({ kind: 'close', uri });
  }

  /** Analyses `text`; a later run for the same document supersedes this one (it resolves 'cancelled'). */
  run(uri: string, text: () => string, opts: Omit<AnalyzeOptions, 'cancelled'>): Promise<RunOutcome> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, uri, text, opts, resolve };
      const prev = this.queue.get(uri);
      if (prev) prev.resolve({ kind: 'cancelled' });
      this.queue.set(uri, job);
      if (this.running?.uri === uri) Atomics.store(this.cancel, 0, this.running.id);
      this.pump();
    });
  }

  private pump(): void {
    if (this.running) return;
    const next = this.queue.values().next();
    if (next.done) return;
    const job = next.value;
    this.queue.delete(job.uri);
    this.running = job;
    const w = this.ensure();
    if (!w) { void this.inProcess(job); return; }
    w.postMessage({ kind: 'analyze', job: job.id, uri: job.uri, text: job.text(), opts: job.opts } satisfies ToWorker);
  }

  private async inProcess(job: Job): Promise<void> {
    let out: RunOutcome;
    try {
      out = { kind: 'result', result: await analyze(job.text(), job.opts) };
    } catch (e) {
      out = e instanceof Cancelled ? { kind: 'cancelled' } : { kind: 'error', message: (e as Error).stack ?? String(e) };
    }
    this.finish(job.id, out);
  }

  private onMessage(m: FromWorker): void {
    if (m.kind === 'result') this.lastRss = m.rssBytes;
    if (m.job === -1) { this.log(`oomlens: analysis worker: ${m.kind === 'error' ? m.message : m.kind}`); return; }
    this.finish(m.job, m.kind === 'result' ? { kind: 'result', result: m.result } : m.kind === 'cancelled' ? { kind: 'cancelled' } : { kind: 'error', message: m.message });
  }

  private finish(id: number, out: RunOutcome): void {
    const r = this.running;
    if (!r || r.id !== id) return;
    this.running = undefined;
    r.resolve(out);
    this.pump();
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
