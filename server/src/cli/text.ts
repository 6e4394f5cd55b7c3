/**
 * Human-readable output of `oomlens check`: per model a small table
 * (parameters, bytes by dtype, each phase's peak against the budget with
 * ✓ / ✗, the largest contributors with their lines, what stayed unknown),
 * then ruff-style finding lines and a summary. Every byte figure carries its
 * unit (GB = 10^9 bytes, GiB = 2^30 bytes).
 */
import { adviseModel, fitsOnSummary, type PhaseAdvice } from '../../../shared/src/advice';
import { displayName } from '../../../shared/src/devices';
import type { Units } from '../../../shared/src/types';
import { formatBytes } from '../../../shared/src/units';
import { anchorSpan, type Finding, type ModelReport } from '../analysis/api';
import { LineIndex } from './report';

const verdict = (fits: boolean | null): string => (fits === null ? '?' : fits ? '✓' : '✗');

export const unitNote = (units: Units): string => (units === 'GB' ? 'GB = 10^9 bytes' : 'GiB = 2^30 bytes');

function pad(s: string, n: number, right = false): string {
  const len = [...s].length;
  return len >= n ? s : right ? ' '.repeat(n - len) + s : s + ' '.repeat(n - len);
}

/** Renders rows as aligned columns; columns listed in `rightAlign` are right-aligned. */
function table(rows: string[][], indent: string, rightAlign: number[] = []): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 0, [...c].length); });
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 && !rightAlign.includes(i) ? c : pad(c, widths[i], rightAlign.includes(i)))).join('  ').trimEnd());
}

export function modelText(m: ModelReport, idx: LineIndex, units: Units): string[] {
  const e = m.estimate;
  const out: string[] = [];
  out.push(`  ${m.facts.name} (${m.facts.framework}), ${idx.label(anchorSpan(m))}${m.origin ? `, ${m.origin}` : ''}`);
  const params = m.facts.paramCount === null ? 'unknown' : m.facts.paramCount.toLocaleString('en-US');
  const dtypes = Object.entries(e.bytesByDtype).sort((a, b) => b[1] - a[1]).map(([d, b]) => `${d} ${formatBytes(b, units)}`);
  out.push(`    parameters  ${params}${e.paramBytes === null ? '' : `  = ${formatBytes(e.paramBytes, units)}`}${dtypes.length ? `  (${dtypes.join(', ')})` : ''}`);
  if (e.bufferBytes > 0) out.push(`    buffers     ${formatBytes(e.bufferBytes, units)}`);
  const target = displayName(e.target);
  out.push(`    budget      ${formatBytes(e.budget.bytes, units)} per device on ${target}: ${e.budget.explanation}`);
  const rows: string[][] = [['phase', 'peak/device', 'budget', 'fits']];
  for (const p of e.phases) {
    rows.push([p.phase, p.peakBytes === null ? 'unknown' : formatBytes(p.peakBytes, units), formatBytes(p.budgetBytes, units), verdict(p.fits)]);
  }
  out.push(...table(rows, '    ', [1, 2]));
  for (const p of e.phases) {
    if (p.peakBytes === null || !p.breakdown.length) continue;
    // The training phase lists all its parts (weights, gradients, optimizer state, activations, logits).
    const top = p.breakdown.slice(0, p.phase === 'training' ? 7 : 3).map((c) => `${formatBytes(c.bytes, units)} ${c.label}${c.count > 1 ? ` ×${c.count}` : ''}${c.span ? ` (${idx.label(c.span)})` : ''}`);
    out.push(`    ${p.phase} peak${e.target.count > 1 ? ` on device ${p.peakDevice}` : ''}: ${top.join('; ')}`);
  }
  const advice = adviseModel(m.facts, e);
  e.phases.forEach((p, i) => { if (p.peakBytes !== null) out.push(...adviceText(advice[i], p.fits, e.target.device.id, displayName(e.target), units)); });
  const unknowns = [...m.facts.unknowns, ...e.unknowns, ...e.phases.flatMap((p) => p.unknowns)];
  const seen = new Set<string>();
  for (const u of unknowns) {
    const line = u.span ? ` (${idx.label(u.span)})` : '';
    const key = `${u.what}|${u.reason}|${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > 5) { out.push(`    unknown: … and ${unknowns.length - 5} more`); break; }
    out.push(`    unknown: ${u.what}: ${u.reason}${line}`);
  }
  return out;
}

/**
 * "init fits on: 2× A100 40GB, 1× H100 80GB, … (+3 more)" for every phase
 * with a known peak, and for a phase that does not fit the cheapest change
 * with its predicted peak and cost (shared/src/advice.ts).
 */
export function adviceText(a: PhaseAdvice, fits: boolean | null, targetId: string, target: string, units: Units): string[] {
  const out: string[] = [];
  // Unknown verdict: no "fits on" list (it would rest on the part that could not be sized).
  if (fits === null) return out;
  const { shown, more } = fitsOnSummary(a.fitsOn, targetId);
  const at = a.lowerBound ? 'needs at least' : 'fits on';
  out.push(shown.length
    ? `    ${a.phase} ${at}: ${shown.join(', ')}${more ? `, … (+${more} more)` : ''}`
    : `    ${a.phase} ${at}: no catalogue device, at any count (${formatBytes(a.fixedBytes, units)} must sit on every device)`);
  const own = a.fitsOn.find((r) => r.device === targetId);
  if (shown.length && own && own.count === null) out[out.length - 1] += `; no count of ${own.name} (${formatBytes(a.fixedBytes, units)} must sit on every device)`;
  if (fits === false) {
    const c = a.cheapest;
    if (c) {
      out.push(`    ${a.phase} cheapest change: ${c.title} → peak ${formatBytes(c.peakBytes, units)} of ${formatBytes(c.budgetBytes, units)} on ${target} ✓ (cost: ${c.cost})`);
    } else {
      const closest = [...a.changes].sort((x, y) => x.peakBytes - y.peakBytes)[0];
      out.push(`    ${a.phase} cheapest change: none of the single changes fits on ${target}${closest ? `; closest: ${closest.title} → ${formatBytes(closest.peakBytes, units)}` : ''}`);
    }
  }
  return out;
}

/** `path:line:col: CODE [*] message`, `[*]` when a safe fix exists (ruff's convention). */
export function findingLine(path: string, f: Finding, idx: LineIndex): string {
  const p = idx.position(f.span.start);
  const safe = f.fixes.some((x) => x.applicability === 'safe');
  return `${path}:${p.line}:${p.column}: ${f.code}${safe ? ' [*]' : ''} ${f.message}`;
}
