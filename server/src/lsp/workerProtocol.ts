/** Messages between the server's main thread and the analysis worker (worker.ts). */
import type { AnalysisResult, AnalyzeOptions } from '../analysis/api';

/** A tree-sitter edit (UTF-16 offsets and row/column positions, as web-tree-sitter takes them). */
export interface TreeEdit {
  startIndex: number; oldEndIndex: number; newEndIndex: number;
  startPosition: { row: number; column: number }; oldEndPosition: { row: number; column: number }; newEndPosition: { row: number; column: number };
}

export type ToWorker =
  | { kind: 'edit'; uri: string; edits: TreeEdit[] }
  | { kind: 'close'; uri: string }
  | { kind: 'analyze'; job: number; uri: string; text: string; opts: Omit<AnalyzeOptions, 'cancelled'> };

export type FromWorker =
  | { kind: 'result'; job: number; result: AnalysisResult; rssBytes: number }
  | { kind: 'cancelled'; job: number }
  | { kind: 'error'; job: number; message: string };
