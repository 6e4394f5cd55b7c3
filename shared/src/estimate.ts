/**
 * The engine's entry point: model facts and a target in, a per-phase
 * estimate out, every byte attributed to a contributor.
 */
import type { ModelFacts, PhaseTrace, Unknown } from './facts';
import { frameworkBudget } from './budget';
import { dtypeBytes } from './dtypes';
import { replayPhase, tensorBytes } from './timeline';
import type { DeviceSpec, Estimate } from './types';

export function estimate(facts: ModelFacts, spec: DeviceSpec): Estimate {
  const budget = frameworkBudget(spec, facts.runtime);
  const bytesByDtype: Record<string, number> = {};
  let paramBytes: number | null = 0;
  for (const p of facts.params) {
    const b = tensorBytes(p);
    if (b === null) { paramBytes = null; continue; }
    if (paramBytes !== null) paramBytes += b;
    bytesByDtype[p.dtype] = (bytesByDtype[p.dtype] ?? 0) + b;
  }
  if (facts.paramCount === null && paramBytes !== null && facts.unknowns.length > 0) paramBytes = null;
  let bufferBytes = 0;
  for (const b of facts.buffers) bufferBytes += tensorBytes(b) ?? 0;
  void dtypeBytes;
  return {
    model: facts.name, target: spec, budget, paramCount: facts.paramCount, paramBytes, bytesByDtype, bufferBytes,
    // Parameters that could not be sized are a contributor of every phase: each phase's peak is then a lower bound.
    phases: facts.phases.map((p) => replayPhase(facts.paramCount === null ? withUnknowns(p, facts.unknowns) : p, spec.count, budget.bytes)),
    unknowns: facts.unknowns,
  };
}

function withUnknowns(p: PhaseTrace, extra: Unknown[]): PhaseTrace {
  const key = (u: Unknown) => `${u.what}|${u.reason}`;
  const have = new Set(p.unknowns.map(key));
  const add = extra.filter((u) => !have.has(key(u)));
  return add.length ? { ...p, unknowns: [...p.unknowns, ...add] } : p;
}
