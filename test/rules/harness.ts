/**
 * Annotated-fixture harness (rust-analyzer / ruff style). A fixture is a
 * Python file whose comments state what oomlens must report:
 *
 *   # oomlens-test: device=a100-40gb versions=jax==0.4.30
 *   model = Transformer(...)
 *   # ^ OOM101
 *
 * `# ^ CODE` (several codes separated by spaces allowed) expects a finding of
 * that code starting on the nearest line above that is not an annotation.
 * Unannotated lines must stay quiet. `# peak[PHASE]: <op> N UNIT` asserts a
 * model's peak in that phase (op is <, >, or ~ for within 10%).
 */
import type { AnalysisResult } from '../../server/src/analysis/api';
import { analyze, computeLineStarts, lineIndex } from '../../server/src/analysis/analyze';

export interface FixtureOutcome {
  result: AnalysisResult;
  falseNegatives: string[];
  falsePositives: string[];
  peakFailures: string[];
}

export function fixtureOptions(text: string): { device: string; versions: Record<string, string>; ignore: string[] } {
  const m = /^#\s*oomlens-test:(.*)$/m.exec(text);
  const opts = { device: 'a100-80gb', versions: {} as Record<string, string>, ignore: [] as string[] };
  if (!m) return opts;
  for (const part of m[1].trim().split(/\s+/)) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq);
    const v = part.slice(eq + 1);
    if (k === 'device') opts.device = v;
    if (k === 'ignore') opts.ignore = v.split(',');
    if (k === 'versions') for (const pin of v.split(',')) { const [n, ver] = pin.split('=='); opts.versions[n] = ver; }
  }
  return opts;
}

const UNITS: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };

export async function runFixture(text: string): Promise<FixtureOutcome> {
  const opts = fixtureOptions(text);
  const result = await analyze(text, { device: opts.device, versions: opts.versions, disabledRules: opts.ignore });
  const lines = text.split('\n');
  const expected: { line: number; code: string }[] = [];
  const peaks: { line: number; phase: string; op: string; bytes: number; raw: string }[] = [];
  let lastCode = -1;
  lines.forEach((l, i) => {
    const ann = /^\s*#\s*\^\s*((?:OOM\d{3}\s*)+)$/.exec(l);
    const peak = /^\s*#\s*peak\[(\w+)\]:\s*([<>~])\s*([\d.]+)\s*(B|kB|MB|GB|TB|KiB|MiB|GiB)\s*$/.exec(l);
    if (ann) for (const code of ann[1].trim().split(/\s+/)) expected.push({ line: lastCode, code });
    else if (peak) peaks.push({ line: lastCode, phase: peak[1], op: peak[2], bytes: Number(peak[3]) * UNITS[peak[4]], raw: l.trim() });
    else if (l.trim() !== '' && !/^\s*#/.test(l)) lastCode = i;
  });
  const starts = computeLineStarts(text);
  const found = result.findings.map((f) => ({ line: lineIndex(starts, f.span.start), code: f.code, message: f.message }));
  const falseNegatives = expected.filter((e) => !found.some((f) => f.line === e.line && f.code === e.code)).map((e) => `line ${e.line + 1}: expected ${e.code}`);
  const falsePositives = found.filter((f) => !expected.some((e) => e.line === f.line && e.code === f.code)).map((f) => `line ${f.line + 1}: unexpected ${f.code}: ${f.message}`);
  const peakFailures: string[] = [];
  for (const p of peaks) {
    const model = result.models.find((m) => lineIndex(starts, m.facts.span.start) === p.line);
    const phase = model?.estimate.phases.find((x) => x.phase === p.phase);
    const got = phase?.peakBytes;
    const ok = got != null && (p.op === '<' ? got < p.bytes : p.op === '>' ? got > p.bytes : Math.abs(got - p.bytes) <= 0.1 * p.bytes);
    if (!ok) peakFailures.push(`line ${p.line + 1}: ${p.raw} but got ${got ?? 'no estimate'}`);
  }
  return { result, falseNegatives, falsePositives, peakFailures };
}

/** Applies the first fix of every finding with `code` (non-overlapping edits, last first). */
export function applyFixes(text: string, result: AnalysisResult, code: string, unsafe: boolean): string {
  const edits = result.findings
    .filter((f) => f.code === code)
    .map((f) => f.fixes.find((x) => x.applicability === 'safe' || (unsafe && x.applicability === 'unsafe')))
    .filter((f): f is NonNullable<typeof f> => !!f)
    .flatMap((f) => f.edits)
    .sort((a, b) => b.start - a.start);
  let out = text;
  let limit = Infinity;
  for (const e of edits) {
    if (e.end > limit) continue;
    out = out.slice(0, e.start) + e.newText + out.slice(e.end);
    limit = e.start;
  }
  return out;
}
