/**
 * Entry point of the analyzer: text in, models + findings out.
 * (Being written now by the lead; this signature is the contract.)
 */
import type { AnalysisResult, AnalyzeOptions } from './api';

export async function analyze(text: string, opts: AnalyzeOptions): Promise<AnalysisResult> {
  void opts;
  return { text, models: [], findings: [], unknowns: [{ what: 'analysis', reason: 'analyzer not yet implemented' }], elapsedMs: 0 };
}
