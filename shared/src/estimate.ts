/**
 * The engine's entry point: model facts and a target in, a per-phase
 * estimate out, every byte attributed to a contributor.
 */
import type { ModelFacts } from './facts';
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
    phases: facts.phases.map((p) => replayPhase(p, spec.count, budget.bytes)),
    unknowns: facts.unknowns,
  };
}
