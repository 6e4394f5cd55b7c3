/**
 * Starts the analysis worker. The server's entry (main.ts) calls this before it loads the rest of the server,
 * so the worker loads its code and the grammar while the main thread loads its own (analysisWorker.ts adopts
 * it); later workers (replacements) start here too.
 *
 * By default the worker runs on the main thread of a process of its own (workerHost.ts: ending it returns the native
 * memory that a thread's end leaves in the server's allocator arenas), its flags in a small file (FlagsFile);
 * `OOMLENS_ANALYSIS_HOST=thread` runs it as a worker thread of the server's process, sharing the flags' memory.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** What the server's side uses of a worker, thread or process. */
export interface AnalysisThread {
  postMessage(m: unknown, transfer?: ArrayBuffer[]): void;
  on(event: 'message', f: (m: never) => void): void;
  on(event: 'error', f: (e: Error) => void): void;
  on(event: 'exit', f: (code: number) => void): void;
  terminate(): Promise<unknown>;
  /** Stores a value in the worker's flags (the server's copy is `StartedWorker.cancel`). */
  flag(index: number, value: number): void;
  /** Whether the worker has a process of its own (its memory is not the server's). */
  readonly ownProcess: boolean;
}

export interface StartedWorker {
  worker: AnalysisThread;
  /**
   * The flags: [0] the id of the run to cancel; [1] set to 1 once a run has been posted, which ends the worker's
   * start-up warm-up at once (a real document is worth more than warming up on a toy one). Shared with a worker
   * thread in this process; a worker in its own process gets each write as a message (`flag`).
   */
  cancel: Int32Array;
}

export function newCancelBuffer(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

/** Starts a worker thread on `file` sharing `cancel`; undefined when the bundle is absent. */
export function startThread(file: string, cancel = newCancelBuffer()): { worker: Worker; cancel: Int32Array } | undefined {
  if (!existsSync(file)) return undefined;
  const worker = new Worker(file, { workerData: { cancel: cancel.buffer }, resourceLimits: { maxOldGenerationSizeMb: 3072, stackSizeMb: 8 } });
  worker.unref();
  return { worker, cancel };
}

class ThreadWorker implements AnalysisThread {
  readonly ownProcess = false;
  constructor(private readonly w: Worker, private readonly cancel: Int32Array) {}
  postMessage(m: unknown, transfer?: ArrayBuffer[]): void { this.w.postMessage(m, transfer); }
  on(event: 'message' | 'error' | 'exit', f: (x: never) => void): void { this.w.on(event, f as (x: unknown) => void); }
  terminate(): Promise<unknown> { return this.w.terminate(); }
  flag(index: number, value: number): void { Atomics.store(this.cancel, index, value); }
}

class ProcessWorker implements AnalysisThread {
  readonly ownProcess = true;
  private readonly exited: Promise<number>;
  constructor(private readonly p: ChildProcess, private readonly cancel: Int32Array, private readonly flags: FlagsFile) {
    this.exited = new Promise((resolve) => p.once('exit', (code, signal) => { flags.remove(); resolve(code ?? (signal ? 1 : 0)); }));
    p.unref();
    (p as unknown as { channel?: { unref(): void } }).channel?.unref();
  }
  postMessage(m: unknown): void {
    if (!this.p.connected) return;
    try { this.p.send(m as never); } catch { /* it is ending: its 'exit' fails the run it held */ }
  }
  on(event: 'message' | 'error' | 'exit', f: (x: never) => void): void {
    if (event === 'exit') void this.exited.then((code) => (f as (c: number) => void)(code));
    else this.p.on(event, f as (x: unknown) => void);
  }
  terminate(): Promise<unknown> { this.p.kill('SIGKILL'); return this.exited; }
  flag(index: number, value: number): void {
    Atomics.store(this.cancel, index, value);
    this.flags.write(index, value);
  }
}

/**
 * The flags of a worker process: a file of int32 words in the system's temporary folder, written here (pwrite) and
 * read by the worker each time it polls (workerHost.ts), removed when the process ends.
 */
class FlagsFile {
  readonly path: string;
  private fd: number | undefined;
  private readonly word = Buffer.alloc(4);
  constructor(initial: Int32Array) {
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-worker-'));
    this.path = join(dir, 'flags');
    const buf = Buffer.alloc(4 * initial.length);
    for (let i = 0; i < initial.length; i++) buf.writeInt32LE(Atomics.load(initial, i), 4 * i);
    writeFileSync(this.path, buf);
    this.fd = openSync(this.path, 'r+');
  }
  write(index: number, value: number): void {
    if (this.fd === undefined) return;
    this.word.writeInt32LE(value, 0);
    try { writeSync(this.fd, this.word, 0, 4, 4 * index); } catch { /* removed: the process has ended */ }
  }
  remove(): void {
    if (this.fd !== undefined) { try { closeSync(this.fd); } catch { /* closed */ } this.fd = undefined; }
    try { rmSync(dirname(this.path), { recursive: true, force: true }); } catch { /* gone */ }
  }
}

/** Starts the worker for `file` (dist/worker.js); undefined when the bundle is absent (running from source). */
export function startWorker(file: string, cancel = newCancelBuffer()): StartedWorker | undefined {
  const host = join(dirname(file), 'workerHost.js');
  // The flags written before this start are the file's first contents (a replacement is started with [1] = 0, as a
  // fresh process has it). No writable temporary folder: a thread, below.
  let flags: FlagsFile | undefined;
  if (process.env.OOMLENS_ANALYSIS_HOST !== 'thread' && existsSync(host) && existsSync(file)) {
    try { flags = new FlagsFile(cancel); } catch { flags = undefined; }
  }
  if (flags) {
    // No stdin/stdout: the server's stdout is the LSP channel. execArgv: not the server's (an --inspect port).
    const p = fork(host, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced', execArgv: [], env: { ...process.env, OOMLENS_WORKER_FLAGS: flags.path } });
    return { worker: new ProcessWorker(p, cancel, flags), cancel };
  }
  const t = startThread(file, cancel);
  return t && { worker: new ThreadWorker(t.worker, t.cancel), cancel: t.cancel };
}
