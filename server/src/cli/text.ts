/**
 * Human-readable output of `oomlens check`, at most 100 columns a line.
 * One compact block per model, in the manner of accelerate's
 * `estimate-memory` table:
 *
 *   GPT · torch · line 119 · 124,439,808 parameters = 497.8 MB float32
 *   budget 42.5 GB per device on A100 40GB: PyTorch can use 42.9 GB less …
 *   phase       peak/device    budget  verdict
 *   load           497.8 MB   42.5 GB  ✓ fits
 *   training        14.9 GB   42.5 GB  ✓ fits
 *   largest at the training peak:
 *     9.7 GB  activations saved for backward (12 layers, float32), 12 tensors · line 126
 *
 * Every byte figure on a line uses one unit system (GB = 10^9 bytes, or
 * GiB = 2^30 with --units GiB); an unknown size prints "unknown", a known
 * part of a partly unknown peak "≥ X", never "0 B". "fits on" and the
 * cheapest change appear only for a phase that does not fit, and "fits on"
 * only when every size is known.
 */
import { adviseModel, fitsOnSummary, type PhaseAdvice } from '../../../shared/src/advice';
import { displayName } from '../../../shared/src/devices';
import { onDeviceText } from '../../../shared/src/budget';
import type { PhaseEstimate, Units } from '../../../shared/src/types';
import { formatBytes } from '../../../shared/src/units';
import { anchorSpan, type Finding, type HostModel, type ModelReport } from '../analysis/api';
import { LineIndex, modelUnknowns } from './report';

/** The widest line the text output prints. */
export const MAX_COLUMNS = 100;

export const unitNote = (units: Units): string => (units === 'GB' ? 'GB = 10^9 bytes' : 'GiB = 2^30 bytes');

const width = (s: string): number => [...s].length;

function pad(s: string, n: number, right = false): string {
  const len = width(s);
  return len >= n ? s : right ? ' '.repeat(n - len) + s : s + ' '.repeat(n - len);
}

/** Cuts a line to `max` columns, ending it with "…" when cut. */
export function clip(s: string, max = MAX_COLUMNS): string {
  const cps = [...s];
  return cps.length <= max ? s : cps.slice(0, max - 1).join('').trimEnd() + '…';
}

/** Word-wraps `text` to `max` columns; continuation lines start with `indent`. */
export function wrap(text: string, indent: string, max = MAX_COLUMNS): string[] {
  const lead0 = /^ */.exec(text)![0];
  // A figure and its unit ("29.0 GB") never part at a line break.
  const words = text.slice(lead0.length).replace(/(\d) (B|kB|MB|GB|TB|KiB|MiB|GiB|TiB)\b/g, '$1\u00a0$2').split(/ +/);
  const out: string[] = [];
  let line = '';
  for (const word of words) {
    const lead = out.length ? indent : lead0;
    if (line && width(lead + line + ' ' + word) > max) {
      out.push(lead + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) out.push((out.length ? indent : lead0) + line);
  return out.map((l) => clip(l.replace(/\u00a0/g, ' '), max));
}

/** Renders rows as aligned columns; columns listed in `rightAlign` are right-aligned. */
function table(rows: string[][], indent: string, rightAlign: number[] = []): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 0, width(c)); });
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 && !rightAlign.includes(i) ? c : pad(c, widths[i], rightAlign.includes(i)))).join('  ').trimEnd());
}

/** "42.5 GB", or "≥ 42.5 GB" for the known part of a peak with unknown sizes, or "unknown". */
export function peakText(p: Pick<PhaseEstimate, 'peakBytes' | 'fits'>, units: Units, lowerBound = false): string {
  // Nothing known at all: "unknown", not "≥ 0 B".
  if (p.peakBytes === null || (p.peakBytes === 0 && (p.fits === null || lowerBound))) return 'unknown';
  const b = formatBytes(p.peakBytes, units);
  return p.fits === null || lowerBound ? `≥ ${b}` : b;
}

export function verdictText(p: Pick<PhaseEstimate, 'peakBytes' | 'fits' | 'budgetBytes'>, units: Units): string {
  if (p.fits === true) return '✓ fits';
  if (p.fits === false) return p.peakBytes === null ? '✗ does not fit' : `✗ over by ${formatBytes(p.peakBytes - p.budgetBytes, units)}`;
  return '? unknown';
}

/**
 * The budget explanation with its byte figures in the chosen units:
 * "JAX preallocates 75% of 15,360 MiB = 11.25 GiB" → "… of 16.1 GB = 12.1 GB".
 */
export function inUnits(text: string, units: Units): string {
  return text.replace(/(\d[\d,]*(?:\.\d+)?) (KiB|MiB|GiB|TiB)\b/g, (_m, n: string, u: string) => {
    const scale = { KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 }[u as 'KiB'] ?? 1;
    return formatBytes(Number(n.replace(/,/g, '')) * scale, units);
  });
}

/** How a contributor's count reads: "12 tensors", never a bare "×12". */
const countText = (n: number): string => (n > 1 ? `, ${n.toLocaleString('en-US')} tensors` : '');

/** The phase that is worst off: does not fit, else unknown, else the largest share of its budget. */
function worstPhase(phases: PhaseEstimate[]): PhaseEstimate | undefined {
  const rank = (p: PhaseEstimate) => (p.fits === false ? 2 : p.fits === null ? 1 : 0);
  return [...phases].filter((p) => p.peakBytes !== null && p.breakdown.length)
    .sort((a, b) => rank(b) - rank(a) || (b.peakBytes! / b.budgetBytes) - (a.peakBytes! / a.budgetBytes))[0];
}

/** A model that lives on the host only: its size, and why it is not a device model (no verdict). */
export function hostModelText(h: HostModel, idx: LineIndex, units: Units): string[] {
  const size = h.paramCount === null || h.bytes === null ? 'size unknown' : `${h.paramCount.toLocaleString('en-US')} parameters = ${formatBytes(h.bytes, units)}`;
  return wrap(`  ${h.name} · ${h.framework} · ${idx.label(h.span)} · ${size} on the host, not on the accelerator: ${h.reason}`, '    ');
}

export function modelText(m: ModelReport, idx: LineIndex, units: Units): string[] {
  const e = m.estimate;
  const out: string[] = [];
  const checkpointUnknown = modelUnknowns(m).some((u) => /unknown checkpoint/.test(u.reason));
  const params = m.facts.paramCount === null
    ? (checkpointUnknown ? 'unknown checkpoint' : 'parameters unknown')
    : `${m.facts.paramCount.toLocaleString('en-US')} parameters`;
  const dtypes = Object.entries(e.bytesByDtype).sort((a, b) => b[1] - a[1]);
  const bytes = e.paramBytes === null || e.paramBytes === 0 ? ''
    : dtypes.length === 1 ? ` = ${formatBytes(e.paramBytes, units)} ${dtypes[0][0]}`
    : ` = ${formatBytes(e.paramBytes, units)} (${dtypes.map(([d, b]) => `${d} ${formatBytes(b, units)}`).join(', ')})`;
  out.push(...wrap(`  ${m.facts.name} · ${m.facts.framework} · ${idx.label(anchorSpan(m))}${m.origin || m.run ? ` (${[m.origin, m.run].filter(Boolean).join('; ')})` : ''} · ${params}${bytes}`, '    '));
  if (e.bufferBytes > 0) out.push(`    buffers ${formatBytes(e.bufferBytes, units)}`);
  out.push(...wrap(`    budget ${formatBytes(e.budget.bytes, units)} per device on ${displayName(e.target)}: ${inUnits(e.budget.explanation, units)}`, '      '));
  const advice = adviseModel(m.facts, e);
  const rows: string[][] = [['phase', 'peak/device', 'budget', 'verdict']];
  e.phases.forEach((p, i) => rows.push([p.phase, peakText(p, units, advice[i]?.lowerBound), formatBytes(p.budgetBytes, units), verdictText(p, units)]));
  out.push(...table(rows, '    ', [1, 2]).map((l) => clip(l)));
  const worst = worstPhase(e.phases);
  const onDevice = worst && onDeviceText(worst, e.budget, units, advice[e.phases.indexOf(worst)]?.lowerBound);
  if (worst && onDevice) out.push(...wrap(`    on the device at the ${worst.phase} peak: ${onDevice} (the caching allocator may reserve more: fragmentation)`, '      '));
  if (worst) {
    const several = e.target.count > 1 ? ` (device ${worst.peakDevice})` : '';
    out.push(`    largest at the ${worst.phase} peak${several}:`);
    // Training lists all its parts (weights, gradients, optimizer state, activations, logits).
    const shown = worst.phase === 'training' ? 7 : 3;
    const top = worst.breakdown.slice(0, shown);
    const sizes = top.map((c) => formatBytes(c.bytes, units));
    const w = Math.max(...sizes.map(width));
    top.forEach((c, i) => {
      const line = c.span ? ` · ${idx.label(c.span)}` : '';
      out.push(clip(`      ${pad(sizes[i], w, true)}  ${c.label}${countText(c.count)}${line}`));
    });
    if (worst.breakdown.length > shown) {
      const rest = worst.breakdown.slice(shown).reduce((s, c) => s + c.bytes, 0);
      const n = worst.breakdown.length - shown;
      out.push(`      ${pad(formatBytes(rest, units), w, true)}  ${n} smaller contributor${n === 1 ? '' : 's'} (--format json lists them)`);
    }
  }
  e.phases.forEach((p, i) => {
    if (p.fits === false && advice[i]) out.push(...adviceText(advice[i], p.fits, e.target.device.id, displayName(e.target), units));
  });
  const unknowns = modelUnknowns(m);
  unknowns.slice(0, 5).forEach((u) => {
    const line = u.span ? ` (${idx.label(u.span)})` : '';
    out.push(...wrap(`    unknown: ${u.what}: ${u.reason}${line}`, '      '));
  });
  if (unknowns.length > 5) out.push(`    unknown: … and ${unknowns.length - 5} more (--format json lists them)`);
  return out;
}

/**
 * For a phase that does not fit: "init fits on: 2× A100 80GB, 1× H200, …"
 * when every size is known, and the cheapest change with its predicted
 * peak and cost (shared/src/advice.ts).
 */
export function adviceText(a: PhaseAdvice, fits: boolean | null, targetId: string, target: string, units: Units): string[] {
  const out: string[] = [];
  if (fits !== false) return out;
  if (!a.lowerBound) {
    const { shown, more } = fitsOnSummary(a.fitsOn, targetId);
    const own = a.fitsOn.find((r) => r.device === targetId);
    const never = own && own.count === null ? `; no count of ${own.name} (${formatBytes(a.fixedBytes, units)} must sit on every device)` : '';
    out.push(...wrap(shown.length
      ? `    ${a.phase} fits on: ${shown.join(', ')}${more ? `, … (+${more} more)` : ''}${never}`
      : `    ${a.phase} fits on: no catalogue device, at any count (${formatBytes(a.fixedBytes, units)} must sit on every device)`, '      '));
  }
  const c = a.cheapest;
  if (c) {
    out.push(...wrap(`    ${a.phase} cheapest change: ${c.title} → peak ${formatBytes(c.peakBytes, units)} of ${formatBytes(c.budgetBytes, units)} on ${target} ✓ (cost: ${c.cost})`, '      '));
  } else {
    const closest = [...a.changes].sort((x, y) => x.peakBytes - y.peakBytes)[0];
    out.push(...wrap(`    ${a.phase} cheapest change: none of the single changes fits on ${target}${closest ? `; closest: ${closest.title} → ${formatBytes(closest.peakBytes, units)}` : ''}`, '      '));
  }
  return out;
}

/** `path:line:col: CODE [*] message`, `[*]` when a safe fix exists (ruff's convention), wrapped at 100 columns. */
export function findingLine(path: string, f: Finding, idx: LineIndex, units: Units = 'GB'): string {
  const p = idx.position(f.span.start);
  const safe = f.fixes.some((x) => x.applicability === 'safe');
  return wrap(`${path}:${p.cell ? `cell ${p.cell}:` : ''}${p.line}:${p.column}: ${f.code}${safe ? ' [*]' : ''} ${inUnits(f.message, units)}`, '    ').join('\n');
}
