/**
 * Text for hovers and lenses, built from an engine Estimate. Kept short: a
 * small Markdown table rather than a wall of text.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { adviseModel, fitsOnSummary, type PhaseAdvice } from '../../../shared/src/advice';
import { displayName } from '../../../shared/src/devices';
import type { Estimate, PhaseEstimate, Units } from '../../../shared/src/types';
import { formatBytes, formatCount } from '../../../shared/src/units';
import type { ModelReport } from '../analysis/api';

/** The phase with the highest known peak relative to its budget, if any. */
export function worstPhase(e: Estimate): PhaseEstimate | undefined {
  let best: PhaseEstimate | undefined;
  for (const p of e.phases) {
    if (p.peakBytes === null) continue;
    if (!best || p.peakBytes / p.budgetBytes > (best.peakBytes ?? 0) / best.budgetBytes) best = p;
  }
  return best;
}

const verdict = (fits: boolean | null): string => (fits === null ? '?' : fits ? '✓' : '✗');

/** One lens line: "7.24 B params · init peak 42.4 GB of 32.2 GB usable on A100 40GB ✗". */
export function lensTitle(e: Estimate, units: Units): string {
  const parts: string[] = [];
  if (e.paramCount !== null) parts.push(`${formatCount(e.paramCount)} params`);
  const p = worstPhase(e);
  if (p && p.peakBytes !== null) {
    parts.push(`${p.phase} peak ${formatBytes(p.peakBytes, units)} of ${formatBytes(p.budgetBytes, units)} usable on ${displayName(e.target)} ${verdict(p.fits)}`);
  } else {
    parts.push(`peak unknown on ${displayName(e.target)}`);
  }
  return parts.join(' · ');
}

// Advice replays phases a few times; keep it per estimate while the analysis result lives.
const adviceCache = new WeakMap<Estimate, PhaseAdvice[]>();

export function modelAdvice(r: ModelReport): PhaseAdvice[] {
  let a = adviceCache.get(r.estimate);
  if (!a) { a = adviseModel(r.facts, r.estimate); adviceCache.set(r.estimate, a); }
  return a;
}

/** One line per phase that does not fit: "Fits on (init): 2× A100 40GB, … · cheapest change: … → 28.2 GB ✓". */
export function adviceLines(r: ModelReport, units: Units): string[] {
  const e = r.estimate;
  const advice = modelAdvice(r);
  const lines: string[] = [];
  e.phases.forEach((p, i) => {
    if (p.fits !== false) return;
    const a = advice[i];
    const { shown, more } = fitsOnSummary(a.fitsOn, e.target.device.id, 3);
    const where = shown.length ? `${shown.join(', ')}${more ? ', …' : ''}` : 'no catalogue device';
    const c = a.cheapest;
    const change = c ? `${c.title} → ${formatBytes(c.peakBytes, units)} ✓` : 'no single change fits';
    lines.push(`Fits on (${p.phase}): ${where} · cheapest change: ${change}`);
  });
  return lines;
}

export function hoverMarkdown(r: ModelReport, doc: TextDocument, units: Units): string {
  const e = r.estimate;
  const lines: string[] = [];
  lines.push(`**${e.model}** on ${displayName(e.target)} — ${e.paramCount === null ? 'parameters unknown' : `${formatCount(e.paramCount)} params`}${e.paramBytes === null ? '' : `, ${formatBytes(e.paramBytes, units)}`}`);
  lines.push('');
  const dtypes = Object.entries(e.bytesByDtype).sort((a, b) => b[1] - a[1]);
  if (dtypes.length) {
    lines.push(`Parameters by dtype: ${dtypes.map(([d, b]) => `${d} ${formatBytes(b, units)}`).join(', ')}`);
    lines.push('');
  }
  lines.push('| phase | peak / device | budget | fits |');
  lines.push('|---|---:|---:|:---:|');
  for (const p of e.phases) {
    lines.push(`| ${p.phase} | ${p.peakBytes === null ? 'unknown' : formatBytes(p.peakBytes, units)} | ${formatBytes(p.budgetBytes, units)} | ${verdict(p.fits)} |`);
  }
  lines.push('');
  const advice = adviceLines(r, units);
  if (advice.length) {
    lines.push(...advice.flatMap((l) => [l, '']));
  }
  lines.push(`Budget: ${e.budget.explanation}`);
  const p = worstPhase(e);
  if (p && p.breakdown.length) {
    lines.push('');
    lines.push(`Largest at the ${p.phase} peak:`);
    for (const c of p.breakdown.slice(0, 5)) {
      const line = c.span ? ` (line ${doc.positionAt(c.span.start).line + 1})` : '';
      lines.push(`- ${formatBytes(c.bytes, units)} ${c.label}${c.count > 1 ? ` ×${c.count}` : ''}${line}`);
    }
  }
  const unknowns = [...e.unknowns, ...e.phases.flatMap((ph) => ph.unknowns)];
  if (unknowns.length) {
    lines.push('');
    lines.push('Unknown:');
    for (const u of unknowns.slice(0, 5)) lines.push(`- ${u.what}: ${u.reason}`);
  }
  return lines.join('\n');
}
