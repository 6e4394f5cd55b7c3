/**
 * The document store: open documents, their resolved settings, and one
 * cached analysis per document version. Re-analysis is debounced and
 * cancellable: an edit that arrives while an analysis runs supersedes it, and
 * results for an outdated version are dropped, so squiggles never land on
 * the wrong lines.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { AnalysisResult } from '../analysis/api';
import type { Settings } from '../config/settings';

/**
 * How long a request waits for an analysis that is on its way (a document's
 * first, or the current version's for fixAll) before answering without it:
 * requests are answered within about a second even while a huge file is analysed.
 */
export const WAIT_FOR_ANALYSIS_MS = 1000;

export interface DocState {
  doc: TextDocument;
  /** Analysis of `doc.version`, or of an earlier version while a new one is pending. */
  result?: AnalysisResult;
  resultVersion?: number;
  /** The text `result` was computed on, as a document (positions ↔ offsets), made when first needed. */
  resultDoc?: TextDocument;
  settings?: Settings;
  /** Problems with the effective configuration (bad pyproject, unknown device). */
  configProblems: string[];
  timer?: ReturnType<typeof setTimeout>;
  /** Bumped on every scheduling, so a finishing analysis can tell it was superseded. */
  generation: number;
  /** Resolves when the analysis for the current version is available. */
  waiters: Array<() => void>;
  /** Where the device in `settings` came from (protocol.ts StatusParams). */
  deviceSource?: { source: 'setting' | 'pyproject' | 'default'; pyproject?: string };
  /** A notebook cell: the notebook's URI. Its analysis is the notebook's (lsp/notebooks.ts). */
  notebook?: string;
}

export class DocumentStore {
  private readonly docs = new Map<string, DocState>();

  open(uri: string, languageId: string, version: number, text: string): DocState {
    const s: DocState = { doc: TextDocument.create(uri, languageId, version, text), configProblems: [], generation: 0, waiters: [] };
    this.docs.set(uri, s);
    return s;
  }

  get(uri: string): DocState | undefined {
    return this.docs.get(uri);
  }

  get size(): number {
    return this.docs.size;
  }

  all(): DocState[] {
    return [...this.docs.values()];
  }

  close(uri: string): void {
    const s = this.docs.get(uri);
    if (s?.timer) clearTimeout(s.timer);
    this.docs.delete(uri);
  }

  /**
   * The latest finished analysis, at once, with the text it was computed on (its spans are offsets
   * in that text): hovers and lenses answer from it while a newer one runs. Only before the first
   * analysis of a document is one waited for, at most `timeoutMs`.
   */
  async latest(s: DocState, timeoutMs = WAIT_FOR_ANALYSIS_MS): Promise<{ result: AnalysisResult; doc: TextDocument } | undefined> {
    if (!s.result) await this.current(s, timeoutMs);
    if (!s.result) return undefined;
    if (s.resultVersion === s.doc.version) return { result: s.result, doc: s.doc };
    s.resultDoc ??= TextDocument.create(s.doc.uri, s.doc.languageId, s.resultVersion ?? 0, s.result.text);
    return { result: s.result, doc: s.resultDoc };
  }

  /** The analysis matching the document's current version, waiting for it if one is on the way. */
  async current(s: DocState, timeoutMs = WAIT_FOR_ANALYSIS_MS): Promise<AnalysisResult | undefined> {
    if (s.result && s.resultVersion === s.doc.version) return s.result;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      s.waiters.push(() => { clearTimeout(t); resolve(); });
    });
    return s.resultVersion === s.doc.version ? s.result : undefined;
  }
}
