/**
 * Text for hovers and lenses, built from an engine Estimate. Kept short: a
 * small Markdown table rather than a wall of text.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
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
