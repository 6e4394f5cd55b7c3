/**
 * Jupyter notebooks over LSP notebook document sync (LSP 3.17): the client
 * sends the notebook and its cells; the server analyses the code cells in
 * order as one program (server/src/notebook/cells.ts) and gives each cell a
 * view of that analysis with its spans moved into the cell. A cell is then
 * an ordinary document of the store, so diagnostics, hover, CodeLens and
 * code actions work on it unchanged. A model built in one cell and used in
 * a later one is one model; what lies in another cell is not shown in this
 * one.
 */
import { NotebookDocuments, type NotebookDocument } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyze } from '../analysis/analyze';
import type { AnalysisResult } from '../analysis/api';
import { joinCells, type CellSpan } from '../notebook/cells';
import type { DocState } from './documents';
import { publishDiagnostics } from './handlers/diagnostics';
import type { OomlensServer } from './server';

/** Notebook types whose code cells are Python (VS Code's Jupyter and interactive window). */
export const NOTEBOOK_SELECTOR = [
  { notebook: { notebookType: 'jupyter-notebook' }, cells: [{ language: 'python' }] },
  { notebook: { notebookType: 'interactive' }, cells: [{ language: 'python' }] },
];

const DEBOUNCE_MS = 120;

/**
 * Copies a value, moving every span-shaped object ({ start, end } numbers)
 * by -offset. Shared objects are copied once; functions are kept.
 */
export function shiftSpans<T>(value: T, offset: number, memo = new Map<object, unknown>()): T {
  if (value === null || typeof value !== 'object') return value;
  const seen = memo.get(value as object);
  if (seen !== undefined) return seen as T;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    memo.set(value, out);
    for (const x of value) out.push(shiftSpans(x, offset, memo));
    return out as T;
  }
  if (value instanceof Map || value instanceof Set || ArrayBuffer.isView(value)) return value;
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  memo.set(value as object, out);
  for (const k of Object.keys(src)) out[k] = shiftSpans(src[k], offset, memo);
  if (typeof src.start === 'number' && typeof src.end === 'number') {
    out.start = src.start - offset;
    out.end = src.end - offset;
  }
  return out as T;
}

/** The part of a notebook's analysis that belongs to one cell, in the cell's own offsets. */
export function cellView(r: AnalysisResult, span: CellSpan, cellText: string): AnalysisResult {
  const lo = span.startOffset;
  const hi = span.startOffset + span.length;
  const inCell = (s: { start: number }) => s.start >= lo && s.start < hi;
  const part: AnalysisResult = {
    text: r.text,
    models: r.models.filter((m) => inCell(m.facts.span)),
    findings: r.findings.filter((f) => inCell(f.span)),
    unbuilt: r.unbuilt.filter((u) => !u.span.file && inCell(u.span)),
    unknowns: r.unknowns.filter((u) => !u.span || inCell(u.span)),
    elapsedMs: r.elapsedMs,
  };
  return { ...shiftSpans(part, lo), text: cellText };
}

interface NotebookState { uri: string; timer?: ReturnType<typeof setTimeout>; generation: number }

export class Notebooks {
  private readonly docs = new NotebookDocuments(TextDocument);
  private readonly states = new Map<string, NotebookState>();

  constructor(private readonly server: OomlensServer) {
    this.docs.onDidOpen((nb) => this.sync(nb, 0));
    this.docs.onDidChange((e) => this.sync(e.notebookDocument, DEBOUNCE_MS));
    this.docs.onDidClose((nb) => this.close(nb));
  }

  listen(): void {
    this.docs.listen(this.server.connection);
  }

  /** Re-analyses the notebook a cell belongs to (a settings change, a pyproject edit). */
  scheduleCell(cellUri: string, delay = 0): void {
    const nb = this.docs.findNotebookDocumentForCell(cellUri);
    if (nb) this.sync(nb, delay);
  }

  /** Brings the cell documents of the store in step with the notebook and schedules its analysis. */
  private sync(nb: NotebookDocument, delay: number): void {
    const store = this.server.store;
    const live = new Set<string>();
    for (const cell of nb.cells) {
      const doc = this.docs.getCellTextDocument(cell);
      if (!doc || doc.languageId !== 'python') continue;
      live.add(doc.uri);
      const s = store.get(doc.uri);
      if (!s) store.open(doc.uri, doc.languageId, doc.version, doc.getText()).notebook = nb.uri;
      else if (s.doc.version !== doc.version || s.doc.getText() !== doc.getText()) s.doc = TextDocument.create(doc.uri, doc.languageId, doc.version, doc.getText());
    }
    for (const s of store.all()) {
      if (s.notebook === nb.uri && !live.has(s.doc.uri)) {
        store.close(s.doc.uri);
        void this.server.connection.sendDiagnostics({ uri: s.doc.uri, diagnostics: [] });
      }
    }
    let st = this.states.get(nb.uri);
    if (!st) this.states.set(nb.uri, (st = { uri: nb.uri, generation: 0 }));
    if (st.timer) clearTimeout(st.timer);
    const generation = ++st.generation;
    const state = st;
    st.timer = setTimeout(() => { state.timer = undefined; void this.run(nb.uri, generation); }, delay);
  }

  private close(nb: NotebookDocument): void {
    const st = this.states.get(nb.uri);
    if (st?.timer) clearTimeout(st.timer);
    this.states.delete(nb.uri);
    for (const s of this.server.store.all()) {
      if (s.notebook !== nb.uri) continue;
      this.server.store.close(s.doc.uri);
      void this.server.connection.sendDiagnostics({ uri: s.doc.uri, diagnostics: [] });
    }
  }

  private async run(uri: string, generation: number): Promise<void> {
    const nb = this.docs.getNotebookDocument(uri);
    const st = this.states.get(uri);
    if (!nb || !st) return;
    const cells: { state: DocState; index: number }[] = [];
    nb.cells.forEach((cell, i) => {
      const doc = this.docs.getCellTextDocument(cell);
      const s = doc && this.server.store.get(doc.uri);
      if (s) cells.push({ state: s, index: i + 1 });
    });
    const joined = joinCells(cells.map((c) => ({ index: c.index, text: c.state.doc.getText() })));
    // Settings of the notebook file itself (its pyproject.toml, its folder's editor settings).
    const whole: DocState = { doc: TextDocument.create(uri, 'python', nb.version, joined.text), configProblems: [], generation: 0, waiters: [] };
    const t0 = Date.now();
    let result: AnalysisResult;
    const { settings, problems, deviceSource } = await this.server.settingsFor(whole);
    try {
      result = await analyze(joined.text, {
        path: this.server.pathOf(uri), device: settings.target.device, disabledRules: settings.diagnostics.disabled,
        severityOverrides: settings.diagnostics.severity, preview: settings.preview.enable,
        onInternalError: (where, e) => this.server.logError(`${where} on ${uri}`, e),
      });
    } catch (e) {
      this.server.logError(`analysis of notebook ${uri} failed`, e);
      result = { text: joined.text, models: [], findings: [], unbuilt: [], unknowns: [{ what: 'analysis', reason: `internal error: ${(e as Error).message}` }], elapsedMs: 0 };
    }
    if (generation !== st.generation) return;
    this.server.logAnalysis(uri, result, Date.now() - t0, ` (notebook, ${cells.length} code cells)`);
    cells.forEach((c, i) => {
      const s = c.state;
      const span = joined.cells[i];
      s.settings = settings;
      s.deviceSource = deviceSource;
      s.configProblems = i === 0 ? problems : [];
      s.result = cellView(result, span, s.doc.getText());
      s.resultVersion = s.doc.version;
      publishDiagnostics(this.server, s);
      this.server.sendStatus(s);
      for (const w of s.waiters.splice(0)) w();
    });
  }
}
