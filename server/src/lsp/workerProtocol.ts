/** Messages between the server's main thread and the analysis worker (worker.ts). */
import type { AnalysisResult, AnalyzeOptions } from '../analysis/api';
import type { PackedModels } from './packed';
import type { PhaseAdvice } from '../../../shared/src/advice';
import type { CacheState } from '../boot/codeCache';

/** A tree-sitter edit (UTF-16 offsets and row/column positions, as web-tree-sitter takes them). */
export interface TreeEdit {
  startIndex: number; oldEndIndex: number; newEndIndex: number;
  startPosition: { row: number; column: number }; oldEndPosition: { row: number; column: number }; newEndPosition: { row: number; column: number };
}

export type ToWorker =
  | { kind: 'edit'; uri: string; edits: TreeEdit[] }
  | { kind: 'close'; uri: string }
  /** Files were created or deleted on disk: listings of the workspace (programs, launch commands) are stale. */
  | { kind: 'files-changed' }
  /** An open document's text, for imports and programs (sent to a fresh worker for the documents analysed before). */
  | { kind: 'open'; uri: string; path: string; text: string }
  | { kind: 'analyze'; job: number; uri: string; text: string; opts: Omit<AnalyzeOptions, 'cancelled'> }
  /** Idle: collect garbage and report the memory left (the main thread decides whether to replace the worker). */
  | { kind: 'gc' }
  /** Save the code cache of the worker's code to `dir` (handled by workerBoot.ts), unless one was used. */
  | { kind: 'save-code-cache'; dir: string };

/** The worker's own memory after a run: its V8 heap and its external memory (tree-sitter's wasm memory, which never shrinks). */
export interface WorkerMemory {
  heapTotal: number; external: number;
  /** The RSS of the worker's process (the server's own when the worker is a thread of it). */
  rss?: number;
}

export type FromWorker =
  /**
   * `internalErrors`: each internal error the analysis survived, where and its stack (logged by the server).
   * `result` comes without its models' per-tensor parts, which are in `packed` (packed.ts: `unpackResult`).
   */
  | { kind: 'result'; job: number; result: AnalysisResult; packed: PackedModels; mem: WorkerMemory; internalErrors?: string[] }
  | { kind: 'cancelled'; job: number; mem?: WorkerMemory }
  | { kind: 'error'; job: number; message: string; mem?: WorkerMemory }
  /**
   * Sent right after a result: the advice (`adviseModel`) of each of its models that `adviceMadeAhead`
   * selects, null for the others and where making it failed (the main thread then makes it itself).
   */
  | { kind: 'advice'; job: number; advice: Array<PhaseAdvice[] | null> }
  /** The answer to 'gc': memory after a full collection. */
  | { kind: 'memory'; job: -2; mem: WorkerMemory }
  /** From workerBoot.ts: at start, whether the worker's code came with a code cache; after 'save-code-cache', the file saved. */
  | { kind: 'code-cache'; cache: CacheState; file?: string; saved?: string };
