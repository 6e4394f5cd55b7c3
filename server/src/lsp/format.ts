/**
 * Text for hovers and lenses, built from an engine Estimate. Kept short: a
 * small Markdown table rather than a wall of text.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { adviseModel, fitsOnSummary, type PhaseAdvice } from '../../../shared/src/advice';
import { displayName } from '../../../shared/src/devices';
import { onDeviceText } from '../../../shared/src/budget';
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
/** Advice being made elsewhere (the analysis worker), by estimate: settles once it is in `adviceCache` or will not come. */
const adviceComing = new WeakMap<Estimate, Promise<void>>();

/**
 * The models whose advice the analysis worker makes as soon as it has sent their result (advice is
 * shown for the phases that do not fit, and making it for a large model takes the main thread
 * 5–25 ms, which would delay the hover).
 */
export const adviceMadeAhead = (r: ModelReport): boolean => r.estimate.phases.some((p) => p.fits === false);

/** The advice of `r` will come as `advice` (undefined: it will not; it is then made here when needed). */
export function adviceComingFor(r: ModelReport, advice: Promise<PhaseAdvice[] | undefined>): void {
  const e = r.estimate;
  adviceComing.set(e, advice.then((a) => { if (a && !adviceCache.has(e)) adviceCache.set(e, a); }, () => undefined));
}

/** Waits for advice of `r` that is on its way, if any (then `hoverMarkdown` does not make it again). */
export async function adviceReady(r: ModelReport): Promise<void> {
  await adviceComing.get(r.estimate);
}

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

/** A table cell padded with non-breaking spaces: VS Code's hover draws tables without cell padding. */
const cell = (s: string): string => `&nbsp;${s}&nbsp;&nbsp;`;

/** "42.5 GB", "≥ 42.5 GB" for the known part of a peak with unknown sizes, or "unknown" — never a made-up "0 B". */
export function peakCell(p: PhaseEstimate, units: Units): string {
  if (p.peakBytes === null || (p.peakBytes === 0 && p.fits === null)) return 'unknown';
  return p.fits === null ? `≥ ${formatBytes(p.peakBytes, units)}` : formatBytes(p.peakBytes, units);
}

const verdictCell = (p: PhaseEstimate): string => (p.fits === null ? '? unknown' : p.fits ? '✓ fits' : '✗ does not fit');

/**
 * The hover: the oomlens table first (phase · peak/device · budget ·
 * verdict), then the biggest contributors with links to their lines, then
 * what is unknown, then what would fit. The diagnostics' text is not
 * repeated (the editor shows it beside the hover).
 */
export function hoverMarkdown(r: ModelReport, doc: TextDocument, units: Units): string {
  const e = r.estimate;
  const lines: string[] = [];
  const params = e.paramCount === null ? 'parameters unknown' : `${formatCount(e.paramCount)} params`;
  lines.push(`**${e.model}** · ${params}${e.paramBytes ? ` · ${formatBytes(e.paramBytes, units)}` : ''} · ${displayName(e.target)}`);
  // How this construction was reached: another file built it, and/or a launch command gave its arguments.
  const how = [r.origin, r.run].filter(Boolean).join(' · ');
  if (how) lines.push('', `_${how}_`);
  lines.push('');
  lines.push(`| ${cell('phase')} | ${cell('peak / device')} | ${cell('budget')} | ${cell('verdict')} |`);
  lines.push('|:---|---:|---:|:---|');
  for (const p of e.phases) lines.push(`| ${cell(p.phase)} | ${cell(peakCell(p, units))} | ${cell(formatBytes(p.budgetBytes, units))} | ${cell(verdictCell(p))} |`);
  lines.push('');
  const p = worstPhase(e);
  if (p && p.breakdown.length) {
    lines.push(`Largest at the ${p.phase} peak:`);
    for (const c of p.breakdown.slice(0, 4)) {
      const ln = c.span ? doc.positionAt(c.span.start).line + 1 : undefined;
      const link = ln ? ` · [line ${ln}](${doc.uri}#L${ln})` : '';
      lines.push(`- ${formatBytes(c.bytes, units)} ${c.label}${c.count > 1 ? ` (${c.count} tensors)` : ''}${link}`);
    }
    lines.push('');
  }
  const seen = new Set<string>();
  const unknowns = [...r.facts.unknowns, ...e.unknowns, ...e.phases.flatMap((ph) => ph.unknowns)].filter((u) => {
    const k = `${u.what}|${u.reason}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  if (unknowns.length) {
    lines.push('Unknown:');
    for (const u of unknowns.slice(0, 4)) lines.push(`- ${u.what}: ${u.reason}`);
    lines.push('');
  }
  const advice = adviceLines(r, units);
  if (advice.length) lines.push(...advice.flatMap((l) => [l, '']));
  const peak = worstPhase(e);
  const onDevice = peak && onDeviceText(peak, e.budget, units);
  if (peak && onDevice) lines.push(`On the device at the ${peak.phase} peak: ${onDevice}.`, '');
  lines.push(`Budget: ${e.budget.explanation}`);
  return lines.join('\n');
}
