/**
 * `oomlens fix`: applies each selected finding's preferred fix (or its first)
 * like `ruff check --fix`. Only `safe` fixes apply unless unsafe ones are
 * allowed; `display` fixes never apply. Fixes of one round whose edits would
 * overlap an already chosen fix wait for the next round, which re-analyses
 * the edited text, so every edit is computed against the text it changes.
 */
import type { AnalysisResult, Finding, Fix, TextEdit } from '../analysis/api';

export const MAX_ROUNDS = 10;

export function chooseFix(f: Finding, unsafe: boolean): Fix | undefined {
  const allowed = (x: Fix): boolean => x.applicability === 'safe' || (unsafe && x.applicability === 'unsafe');
  const best = f.fixes.find((x) => x.preferred) ?? f.fixes[0];
  if (best && allowed(best)) return best;
  // The recommended fix is not allowed: fall back to the first allowed one, in the rule's order.
  return f.fixes.find(allowed);
}

function overlaps(a: TextEdit, b: TextEdit): boolean {
  // Two insertions at one point conflict too: their order would be arbitrary.
  if (a.start === a.end && b.start === b.end) return a.start === b.start;
  // Otherwise they conflict when they share at least one character (an insertion: when it falls strictly inside the other).
  return a.start < b.end && b.start < a.end;
}

/** Applies edits (non-overlapping) to text, from the end so earlier offsets stay valid. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

export interface Applied { code: string; line: number; title: string }

/** One round: picks fixes that do not overlap, in the order of the findings. */
export function planRound(findings: Finding[], unsafe: boolean): { fixes: { finding: Finding; fix: Fix }[]; edits: TextEdit[] } {
  const chosen: { finding: Finding; fix: Fix }[] = [];
  const edits: TextEdit[] = [];
  const ordered = [...findings].sort((a, b) => a.span.start - b.span.start);
  for (const f of ordered) {
    const fix = chooseFix(f, unsafe);
    if (!fix || fix.edits.length === 0) continue;
    if (fix.edits.some((e) => edits.some((d) => overlaps(d, e)))) continue;
    // Two findings offering the very same edit (one cause, two rules) apply it once.
    if (chosen.some((c) => c.fix.edits.length === fix.edits.length && c.fix.edits.every((e, i) => e.start === fix.edits[i].start && e.end === fix.edits[i].end && e.newText === fix.edits[i].newText))) continue;
    chosen.push({ finding: f, fix });
    edits.push(...fix.edits);
  }
  return { fixes: chosen, edits };
}

/**
 * Fixes one text to a fixed point. `analyse` re-runs the analyzer and returns
 * the selected findings; stops when nothing applies, the text stops changing,
 * or the number of fixable findings stops going down (a fix that does not
 * remove its finding would otherwise be applied again and again).
 */
export async function fixText(
  text: string,
  analyse: (text: string) => Promise<{ result: AnalysisResult; findings: Finding[] }>,
  unsafe: boolean,
  lineOf: (text: string, offset: number) => number,
): Promise<{ text: string; applied: Applied[]; remaining: { result: AnalysisResult; findings: Finding[] } }> {
  const applied: Applied[] = [];
  let current = await analyse(text);
  let lastFixable = Infinity;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const fixable = current.findings.filter((f) => chooseFix(f, unsafe)).length;
    if (fixable === 0 || fixable >= lastFixable) break;
    lastFixable = fixable;
    const plan = planRound(current.findings, unsafe);
    if (!plan.fixes.length) break;
    const next = applyEdits(text, plan.edits);
    if (next === text) break;
    for (const { finding, fix } of plan.fixes) applied.push({ code: finding.code, line: lineOf(text, finding.span.start), title: fix.title });
    text = next;
    current = await analyse(text);
  }
  return { text, applied, remaining: current };
}
