/**
 * The CLI's JSON report (documented in docs/json-format.md), built from the
 * analyzer's results. Owns the conversion from UTF-16 offsets to 1-based
 * line / column pairs; columns count Unicode code points, as an editor's
 * cursor position and ruff do, so a non-ASCII character counts once.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Span, Unknown } from '../../../shared/src/facts';
import type { RuntimePart } from '../../../shared/src/types';
import { adviseModel, type Change, type FitsOn, type SplitBasis } from '../../../shared/src/advice';
import { anchorSpan, type AnalysisResult, type Finding, type Fix, type ModelReport } from '../analysis/api';
import { cellLine, type CellSpan } from '../notebook/cells';

export interface Position { line: number; column: number; /** In a notebook: the 1-based cell; line is then inside the cell. */ cell?: number }

/** Maps UTF-16 offsets of one text to 1-based line / column (for a notebook's joined cells: cell, line in it, column). */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string, private readonly path?: string, private readonly cells?: CellSpan[]) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  position(offset: number): Position {
    const off = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= off) lo = mid; else hi = mid - 1;
    }
    let column = 1;
    for (let i = this.starts[lo]; i < off; i++) {
      const c = this.text.charCodeAt(i);
      // The high half of a surrogate pair starts a code point; the low half does not add one.
      if (c < 0xdc00 || c > 0xdfff) column++;
    }
    if (this.cells) {
      const at = cellLine(this.cells, lo + 1);
      if (at) return { line: at.line, column, cell: at.cell };
    }
    return { line: lo + 1, column };
  }

  line(offset: number): number {
    return this.position(offset).line;
  }

  /** The line of a span in this text, or its own line when it lies in another file. */
  spanLine(span: Span): number {
    return span.file && span.line ? span.line : this.line(span.start);
  }

  /** "line 12" in this text, "model.py:34" in another file (relative to this file's folder). */
  label(span: Span): string {
    if (!span.file) return this.where(span.start);
    const rel = this.path && isAbsolute(span.file) ? relative(dirname(resolve(this.path)), span.file).split(sep).join('/') : span.file;
    return `${rel}:${span.line ?? '?'}`;
  }

  /** "line 12", or in a notebook "cell 3 line 2". */
  where(offset: number): string {
    const p = this.position(offset);
    return p.cell ? `cell ${p.cell} line ${p.line}` : `line ${p.line}`;
  }
}

export interface JsonRange { line: number; column: number; endLine: number; endColumn: number; /** Notebooks: the 1-based cell that line and column are in. */ cell?: number }

export interface JsonEdit extends JsonRange { newText: string }

export interface JsonFix { title: string; applicability: Fix['applicability']; preferred: boolean; edits: JsonEdit[] }

export interface JsonDiagnostic extends JsonRange {
  code: string;
  name: string;
  severity: Finding['severity'];
  message: string;
  fixes: JsonFix[];
  related: (JsonRange & { message: string })[];
}

/** `file` (relative to the analysed file's folder) when the line is in another file of the workspace. */
export interface JsonContributor { label: string; bytes: number; line: number | null; file?: string }

export interface JsonPhase {
  name: string;
  /** Peak on the busiest device; null when unknown. */
  peakBytes: number | null;
  /** True when a contributor is unknown: peakBytes is then the known part only (render "≥ X"). */
  peakIsLowerBound: boolean;
  budgetBytes: number;
  fits: boolean | null;
  /** What this phase could not size (why peakIsLowerBound or a null fits); the model's unknowns list them too. */
  unknowns: JsonUnknown[];
  breakdown: JsonContributor[];
  /** Only with several devices: the peak of each device, and which one is the busiest (0-based). */
  perDeviceBytes?: number[];
  peakDevice?: number;
  /** The smallest count of each catalogue device that holds the phase (shared/src/advice.ts). */
  fitsWhere: JsonFitsWhere;
  /** Only when the phase does not fit: changes that lower the peak on the target, cheapest first. */
  changes?: Change[];
  /** Only when the phase does not fit: the cheapest change that fits, or null. */
  cheapestChange?: Change | null;
}

export interface JsonFitsWhere {
  /** 'code': split is what the program shards; 'obvious': parameters, gradients, optimizer state and KV cache (FSDP / ZeRO-3). */
  basis: SplitBasis;
  /** Bytes that divide over N devices, and bytes every device holds, at the single-device peak. */
  splitBytes: number;
  fixedBytes: number;
  /** Some sizes are unknown: each count is a lower bound. */
  lowerBound: boolean;
  /** One row per catalogue device; count null when no count fits. */
  devices: FitsOn[];
}

export interface JsonUnknown { what: string; reason: string; line: number | null; file?: string }

export interface JsonModel {
  name: string;
  framework: string;
  line: number;
  /** How the model was reached when the file does not build it ("as built in train.py:28", "built from GPTConfig() defaults"). */
  origin?: string;
  params: number | null;
  paramBytes: number | null;
  bytesByDtype: Record<string, number>;
  /**
   * What the budget is taken from: CUDA's total for the card (`capacityKnown`), else the nominal total;
   * `nominalBytes` is nvidia-smi's total (shared/src/devices.ts usableCapacity).
   */
  capacity: { capacityBytes: number; nominalBytes: number; capacityKnown: boolean };
  /** PyTorch on a GPU: the runtime layer under the tensors (shared/src/budget.ts torchRuntime). */
  runtime?: { capacityBytes: number; parts: RuntimePart[] };
  phases: JsonPhase[];
  /** The model's, its estimate's and every phase's unknowns, each once (modelUnknowns): what the text report lists. */
  unknowns: JsonUnknown[];
}

export interface JsonFile {
  path: string;
  /** The target the file was analysed for, e.g. '8xh100-80gb'. */
  device?: string;
  diagnostics: JsonDiagnostic[];
  models: JsonModel[];
  /** Model classes defined in the file that got no number, with what is missing. */
  unbuilt: { name: string; line: number; reason: string }[];
  /** Models that live on the host only (never moved to the accelerator): their size, no verdict. */
  host?: { name: string; framework: string; line: number; paramCount: number | null; bytes: number | null; reason: string }[];
  /** File-level problems: syntax errors, exhausted budgets, config problems. */
  unknowns: JsonUnknown[];
  /** Present when the file was not analysed, with the reason. */
  skipped?: string;
}

export interface JsonSummary {
  /** Files found under the paths; those analysed; those skipped (binary, too large). */
  files: number;
  analysed: number;
  skipped: number;
  models: number;
  findings: number;
  /** Paths that do not exist or cannot be read. */
  errors: string[];
  /** Bugs in oomlens met while analysing (the analysis died or a rule failed). */
  internalErrors: string[];
}

export interface JsonReport { files: JsonFile[]; summary?: JsonSummary }

export function range(idx: LineIndex, span: Span): JsonRange {
  const s = idx.position(span.start);
  const e = idx.position(span.end);
  // A span that ends at the start of the next cell ends at the end of its own.
  const end = s.cell !== undefined && e.cell !== s.cell ? idx.position(Math.max(span.start, span.end - 1)) : e;
  return { line: s.line, column: s.column, endLine: end.line, endColumn: end === e ? e.column : end.column + 1, ...(s.cell !== undefined ? { cell: s.cell } : {}) };
}

/** `{ cell }` for a position in a notebook, `{}` elsewhere. */
function cellOf(idx: LineIndex, offset: number): { cell?: number } {
  if (offset < 0) return {};
  const c = idx.position(offset).cell;
  return c === undefined ? {} : { cell: c };
}

function dedupe(us: Unknown[]): Unknown[] {
  const seen = new Set<string>();
  return us.filter((u) => {
    const k = `${u.what}|${u.reason}|${u.span?.start ?? ''}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/**
 * Every unknown of a model, once: its facts', its estimate's and each
 * phase's (a phase's "≥" has its reason among them). The text and JSON
 * reports both list these, so a CI user reads the same reasons in either.
 */
export function modelUnknowns(m: ModelReport): Unknown[] {
  const e = m.estimate;
  return dedupe([...m.facts.unknowns, ...e.unknowns, ...e.phases.flatMap((p) => p.unknowns)]);
}

function unknownJson(idx: LineIndex, u: Unknown): JsonUnknown {
  return { what: u.what, reason: u.reason, line: u.span ? idx.spanLine(u.span) : null, ...fileOf(idx, u.span), ...(u.span && !u.span.file ? cellOf(idx, u.span.start) : {}) };
}

export function diagnosticJson(idx: LineIndex, f: Finding): JsonDiagnostic {
  return {
    code: f.code,
    name: f.name,
    severity: f.severity,
    ...range(idx, f.span),
    message: f.message,
    fixes: f.fixes.map((x) => ({
      title: x.title,
      applicability: x.applicability,
      preferred: x.preferred === true,
      edits: x.edits.map((e) => ({ ...range(idx, e), newText: e.newText })),
    })),
    related: f.related.map((r) => ({ ...range(idx, r.span), message: r.message })),
  };
}

export function modelJson(idx: LineIndex, m: ModelReport): JsonModel {
  const e = m.estimate;
  const several = e.target.count > 1;
  const advice = adviseModel(m.facts, e);
  return {
    name: m.facts.name,
    framework: m.facts.framework,
    line: idx.spanLine(anchorSpan(m)),
    ...(m.origin ? { origin: m.origin } : {}),
    ...(m.run ? { run: m.run } : {}),
    ...cellOf(idx, anchorSpan(m).file ? -1 : anchorSpan(m).start),
    params: m.facts.paramCount,
    paramBytes: e.paramBytes,
    bytesByDtype: e.bytesByDtype,
    capacity: { capacityBytes: e.budget.capacityBytes, nominalBytes: e.budget.nominalBytes, capacityKnown: e.budget.capacityKnown },
    ...(e.budget.runtime ? { runtime: { capacityBytes: e.budget.capacityBytes, parts: e.budget.runtime } } : {}),
    phases: e.phases.map((p, i) => {
      const a = advice[i];
      return {
        name: p.phase,
        peakBytes: p.peakBytes,
        peakIsLowerBound: p.peakIsLowerBound,
        budgetBytes: p.budgetBytes,
        fits: p.fits,
        unknowns: dedupe(p.unknowns).map((u) => unknownJson(idx, u)),
        breakdown: p.breakdown.map((c) => ({ label: c.label, bytes: c.bytes, line: c.span ? idx.spanLine(c.span) : null, ...fileOf(idx, c.span), ...(c.span && !c.span.file ? cellOf(idx, c.span.start) : {}) })),
        ...(several ? { perDeviceBytes: p.perDeviceBytes, peakDevice: p.peakDevice } : {}),
        fitsWhere: { basis: a.basis, splitBytes: a.splitBytes, fixedBytes: a.fixedBytes, lowerBound: a.lowerBound, devices: a.fitsOn },
        ...(p.fits === false ? { changes: a.changes, cheapestChange: a.cheapest } : {}),
      };
    }),
    unknowns: modelUnknowns(m).map((u) => unknownJson(idx, u)),
  };
}

function fileOf(idx: LineIndex, span: Span | undefined): { file?: string } {
  return span?.file ? { file: idx.label(span).replace(/:[^:]*$/, '') } : {};
}

export function fileJson(path: string, device: string, r: AnalysisResult, findings: Finding[], extraUnknowns: string[] = [], absPath = path, cells?: CellSpan[]): JsonFile {
  const idx = new LineIndex(r.text, absPath, cells);
  return {
    path,
    device,
    diagnostics: findings.map((f) => diagnosticJson(idx, f)),
    models: r.models.map((m) => modelJson(idx, m)),
    unbuilt: r.unbuilt.map((u) => ({ name: u.name, line: idx.spanLine(u.span), reason: u.reason })),
    ...(r.host?.length ? { host: r.host.map((h) => ({ name: h.name, framework: h.framework, line: idx.spanLine(h.span), paramCount: h.paramCount, bytes: h.bytes, reason: h.reason })) } : {}),
    unknowns: [...r.unknowns.map((u) => unknownJson(idx, u)), ...extraUnknowns.map((reason) => ({ what: 'config', reason, line: null }))],
  };
}
