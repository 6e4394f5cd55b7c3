/**
 * "Fits where" and "cheapest change": for one phase of one model, the
 * smallest number of each catalogue device that holds it, and the cheapest
 * single change that makes it fit on the target device, each with the peak
 * the engine predicts for it.
 *
 * Split and fixed bytes (the input of fitsWhere.ts). The phase is replayed
 * as on one device (every byte that reaches any accelerator, host tensors
 * excluded) and each live tensor is put on one side:
 * - split: bytes that divide over N devices when the job is spread over N.
 *   When the code itself spreads tensors (a placement sharded over more than
 *   one device, or parameters placed on several device indices as
 *   accelerate's device_map does), split is exactly what the code divides:
 *   the sharded tensors and the device-mapped parameters, buffers and KV
 *   cache. When the code puts everything on one device, split is the
 *   obvious sharding, fully sharded data parallelism (ZeRO stage 3,
 *   arXiv:1910.02054 §5; PyTorch FSDP; jax.sharding): parameters, buffers,
 *   gradients and optimizer state, plus the KV cache, which lives with its
 *   layer when layers are spread (transformers cache_utils keeps each
 *   layer's keys on that layer's device).
 * - fixed: everything else, held by every device whatever N: replicated
 *   tensors, activations, inputs and temporaries (the per-device batch is
 *   kept), and transients, taken as the analyzer computed them for the
 *   target (per device).
 * N devices fit when fixed(t) + split(t) / N ≤ budget at every instant t,
 * so the count is the largest fitsWhere count over the instants; only
 * instants on the Pareto frontier of (fixed, split) can bind, so only those
 * are evaluated. With N = 1 this is exactly the engine's single-device peak.
 *
 * Cheapest change. Candidates come from the breakdown at the peak; each is
 * applied to the phase's events and replayed by the engine (replayPeak, the
 * peak of replayPhase without its timeline and breakdown; the change is a
 * size per allocation, the events are not copied) on the target, so its
 * peak comes from the same formula as the estimate:
 * - 16-bit parameters: float32/float64 parameters, gradients and optimizer
 *   state become bfloat16 (float16 where the device has no bfloat16);
 *   gradients and optimizer moments follow the parameter dtype (jax.grad;
 *   torch `.grad`; optax `tree_zeros_like(params)`; torch Adam
 *   `zeros_like(p)`). Activations are left as they are (conservative).
 * - a smaller batch: activations, inputs and KV cache are linear in the batch
 *   (Korthikanti et al. 2022 Table 2: s·b·h·(34 + 5·a·s/h); kvcache.ts
 *   2·L·kv·hd·s·b·bytes); the first of ÷2, ÷4 … ÷64 that fits. Offered only
 *   for inference and training (init and load have no data batch) and when
 *   such contributors are live at the peak.
 * - activation checkpointing (training only): full recomputation keeps a
 *   transformer layer's input, e·s·b·h bytes, of the at least 16·e·s·b·h
 *   the layer keeps otherwise (16 elements per s·b·h position before masks
 *   and attention scores: Korthikanti et al. 2022 §4.1, activations.ts
 *   trainingActivationBytes), so activations are multiplied by 1/16. This
 *   treats every activation as a per-layer transformer activation (logits
 *   kept for the loss are not recomputed in practice), and the working set
 *   of the one layer being recomputed in the backward pass is not counted:
 *   an estimate, labelled as such in its formula.
 * - an 8-bit optimizer (PyTorch only): bitsandbytes Adam8bit keeps each
 *   state element in one byte (Optimizer2State, see training.ts).
 * - more devices: the smallest count of the target's device from the split
 *   model above, and what it takes to divide the split bytes.
 * Cheapness is an order of kinds, written down in COST_ORDER below: for
 * training, changes that keep the arithmetic (a smaller micro-batch with
 * gradient accumulation, recomputation) come before changes to the numbers
 * (8-bit optimizer state, 16-bit weights), and hardware comes last; for
 * init, load and inference, 16-bit weights (how checkpoints are shipped)
 * come first.
 */
import type { DType, MemoryEvent, ModelFacts, PhaseName, PhaseTrace, TensorFact, TensorRole } from './facts';
import { deviceBudgets, fitsCount } from './fitsWhere';
import { listDevices } from './devices';
import { replayPeak, tensorBytes } from './timeline';
import type { DeviceInfo, Estimate, PhaseEstimate } from './types';

export type SplitBasis = 'code' | 'obvious';

export interface FitsOn {
  /** Catalogue id, e.g. 'a100-40gb'. */
  device: string;
  name: string;
  /** Smallest count that holds the phase, or null when no count does (the fixed bytes alone exceed one device). */
  count: number | null;
  /** Framework budget of one such device, in bytes. */
  budgetBytes: number;
}

export type ChangeKind = 'free-held' | 'half-precision' | 'smaller-batch' | 'checkpointing' | 'optimizer-8bit' | 'more-devices';

export interface Change {
  kind: ChangeKind;
  /** Imperative, e.g. "Store parameters in bfloat16". */
  title: string;
  /** Predicted peak per device on the target after the change. */
  peakBytes: number;
  budgetBytes: number;
  fits: boolean;
  /** What the change costs, in words. */
  cost: string;
  formula: string;
  citation: string;
  /** ÷k for 'smaller-batch', the device count for 'more-devices'. */
  factor?: number;
}

export interface PhaseAdvice {
  phase: PhaseName;
  basis: SplitBasis;
  /** Split and fixed bytes at the single-device peak instant. */
  splitBytes: number;
  fixedBytes: number;
  /** Some sizes are unknown: every count is at least the one shown, every peak at least the one shown. */
  lowerBound: boolean;
  /** One row per catalogue device, in catalogue order. */
  fitsOn: FitsOn[];
  /** The candidates that lower the peak, cheapest first (only for a phase that does not fit). */
  changes: Change[];
  /** The cheapest candidate that fits, or null. */
  cheapest: Change | null;
}

const FSDP_SPLIT: ReadonlySet<TensorRole> = new Set<TensorRole>(['param', 'buffer', 'gradient', 'optimizer', 'kv-cache']);
const DEVICE_MAP_SPLIT: ReadonlySet<TensorRole> = new Set<TensorRole>(['param', 'buffer', 'kv-cache']);
const BATCH_ROLES: ReadonlySet<TensorRole> = new Set<TensorRole>(['activation', 'kv-cache', 'input']);
const PRECISION_ROLES: ReadonlySet<TensorRole> = new Set<TensorRole>(['param', 'gradient', 'optimizer']);
const FLOAT_STATE: ReadonlySet<DType> = new Set<DType>(['float32', 'float64', 'float16', 'bfloat16']);

/** The smallest reduction of the peak, as a fraction of it, for a change to be listed. */
export const MIN_GAIN = 0.01;
/** Batch divisors tried, smallest first. */
export const BATCH_DIVISORS = [2, 4, 8, 16, 32, 64] as const;
/** Full recomputation keeps e·s·b·h of ≥ 16·e·s·b·h bytes per layer (arXiv:2205.05198 §4.1; activations.ts). */
export const CHECKPOINT_KEEP = 1 / 16;

const COST_ORDER: Record<'training' | 'other', ChangeKind[]> = {
  training: ['free-held', 'smaller-batch', 'checkpointing', 'optimizer-8bit', 'half-precision', 'more-devices'],
  other: ['free-held', 'half-precision', 'smaller-batch', 'more-devices'],
};

/** Whether the code itself spreads tensors over several devices. */
export function splitBasis(trace: PhaseTrace): SplitBasis {
  const indices = new Set<number>();
  for (const ev of trace.events) {
    if (ev.op !== 'alloc') continue;
    const p = ev.tensor.placement;
    if (p.kind === 'sharded' && p.over > 1) return 'code';
    if (p.kind === 'device') indices.add(p.index);
  }
  return indices.size > 1 ? 'code' : 'obvious';
}

function isSplit(t: TensorFact, basis: SplitBasis): boolean {
  const p = t.placement;
  if (basis === 'obvious') return FSDP_SPLIT.has(t.role);
  if (p.kind === 'sharded') return p.over > 1;
  if (p.kind === 'device') return DEVICE_MAP_SPLIT.has(t.role);
  return false;
}

interface Instant { fixed: number; split: number }

/**
 * The (fixed, split) pairs that can bind, over the phase replayed as on one
 * device; also the pair at the single-device peak. Linear in the events,
 * plus a sort of the candidate instants.
 */
export function splitFixedFrontier(trace: PhaseTrace, basis: SplitBasis = splitBasis(trace)): { frontier: Instant[]; atPeak: Instant } {
  const live = new Map<number, { bytes: number; split: boolean }>();
  let fixed = 0;
  let split = 0;
  const points: Instant[] = [];
  let atPeak: Instant = { fixed: 0, split: 0 };
  const note = (f: number, s: number) => {
    points.push({ fixed: f, split: s });
    if (f + s > atPeak.fixed + atPeak.split) atPeak = { fixed: f, split: s };
  };
  for (const ev of trace.events) {
    if (ev.op === 'alloc') {
      if (ev.tensor.placement.kind === 'host') continue;
      const b = tensorBytes(ev.tensor);
      if (b === null) continue;
      const sp = isSplit(ev.tensor, basis);
      live.set(ev.tensor.id, { bytes: b, split: sp });
      if (sp) split += b; else fixed += b;
      note(fixed, split);
    } else if (ev.op === 'free') {
      const x = live.get(ev.id);
      if (!x) continue;
      live.delete(ev.id);
      if (x.split) split -= x.bytes; else fixed -= x.bytes;
    } else {
      note(fixed + ev.bytesPerDevice, split);
    }
  }
  // Pareto frontier: by fixed descending, keep an instant only if its split exceeds every split seen.
  points.sort((a, b) => b.fixed - a.fixed || b.split - a.split);
  const frontier: Instant[] = [];
  let best = -1;
  for (const p of points) {
    if (p.split > best) { frontier.push(p); best = p.split; }
  }
  return { frontier, atPeak };
}

/** Smallest N of each device with fixed(t) + split(t)/N ≤ budget at every frontier instant (fitsWhere per instant, then the largest). */
export function fitsOnDevices(facts: ModelFacts, trace: PhaseTrace, devices: DeviceInfo[] = listDevices(), frontier = splitFixedFrontier(trace).frontier): FitsOn[] {
  // The budgets do not depend on the instant: computed once, not per frontier instant.
  const budgets = deviceBudgets(facts.runtime, devices);
  const rows: FitsOn[] = devices.map((d, i) => ({ device: d.id, name: d.name, count: 1, budgetBytes: budgets[i] }));
  const instants = frontier.length ? frontier : [{ fixed: 0, split: 0 }];
  rows.forEach((row, i) => {
    for (const p of instants) {
      const n = fitsCount(p.split, p.fixed, budgets[i]);
      if (n === null) { row.count = null; return; }
      row.count = Math.max(row.count as number, n);
    }
  });
  return rows;
}

type Transient = Extract<MemoryEvent, { op: 'transient' }>;

/** The size of a tensor of `bytes` rounded up, as a flat uint8 array. */
function resizedBytes(bytes: number): number | null {
  return tensorBytes({ shape: [Math.ceil(bytes)], dtype: 'uint8' });
}

/**
 * Fits-where rows and, for a phase that does not fit, the candidate changes
 * with their predicted peaks on the target, cheapest first.
 */
export function advisePhase(facts: ModelFacts, est: Estimate, index: number, devices: DeviceInfo[] = listDevices()): PhaseAdvice {
  const trace = facts.phases[index];
  const p: PhaseEstimate = est.phases[index];
  const basis = splitBasis(trace);
  const { frontier, atPeak } = splitFixedFrontier(trace, basis);
  // A phase whose verdict is unknown names no devices: any count would rest on the unknown part.
  const fitsOn = p.fits === null ? [] : fitsOnDevices(facts, trace, devices, frontier);
  const lowerBound = p.unknowns.length > 0;
  const advice: PhaseAdvice = { phase: p.phase, basis, splitBytes: atPeak.split, fixedBytes: atPeak.fixed, lowerBound, fitsOn, changes: [], cheapest: null };
  if (p.fits !== false || p.peakBytes === null) return advice;

  const spec = est.target;
  const budget = p.budgetBytes;
  // The phase replayed with each allocation's size (and each transient's) as the change makes it.
  const peakOf = (bytesOf: (t: TensorFact) => number | null, transientOf?: (e: Transient) => number) =>
    replayPeak(trace, spec.count, bytesOf, transientOf) ?? Infinity;
  const roles = new Set(p.breakdown.map((c) => c.role));
  const training = p.phase === 'training';
  const found: Change[] = [];
  const add = (c: Omit<Change, 'budgetBytes' | 'fits'>) => {
    // A change must lower the peak by at least MIN_GAIN of it to be worth a line.
    if (!(c.peakBytes <= (p.peakBytes as number) * (1 - MIN_GAIN))) return;
    // Whole bytes, rounded up (a sharded share can be fractional).
    found.push({ ...c, peakBytes: Math.ceil(c.peakBytes), budgetBytes: budget, fits: c.peakBytes <= budget });
  };

  // Another model the program still references (loaded earlier, an old copy): releasing it first costs nothing of
  // this model's arithmetic (server/src/phases/heldAtLoad.ts, training.ts heldThroughStep label them).
  const held = (x: TensorFact) => /^another (model|module) on the device/.test(x.group ?? '');
  if (p.breakdown.some((c) => /^another (model|module) on the device/.test(c.label))) {
    add({
      kind: 'free-held',
      title: 'Release the other model still referenced on the device first (`del` its names, then `gc.collect()` and `torch.cuda.empty_cache()`)',
      peakBytes: peakOf((x) => (held(x) ? 0 : tensorBytes(x))),
      cost: 'reload or move it back if it is needed later',
      formula: 'the peak without the tensors of the other module still referenced; replayed on the target',
      citation: 'CPython reference counting (an object is freed with its last reference); torch.cuda.empty_cache returns cached blocks',
    });
  }

  // 16-bit parameters (and the gradients / optimizer state that follow their dtype).
  const half: DType = spec.device.bf16 ? 'bfloat16' : 'float16';
  if ([...roles].some((r) => PRECISION_ROLES.has(r))) {
    const peak = peakOf((x) => tensorBytes(PRECISION_ROLES.has(x.role) && (x.dtype === 'float32' || x.dtype === 'float64') ? { shape: x.shape, dtype: half } : x));
    add({
      kind: 'half-precision',
      title: training ? `Train with ${half} parameters` : `Store parameters in ${half}`,
      peakBytes: peak,
      cost: training ? `lower precision: ${half} weights, gradients and optimizer state` : `lower precision: ${half} weights, as most checkpoints ship`,
      formula: `float32/float64 parameters${training ? ', gradients and optimizer state' : ''} × ${half} bytes (2) / original bytes; replayed on ${spec.count}× ${spec.device.name}`,
      citation: `dtypes.ts (IEEE 754 binary16, bfloat16: 2 bytes)${spec.device.bf16 ? '' : `; ${spec.device.name} has no bfloat16 (${spec.device.citation})`}`,
    });
  }

  // A smaller batch: activations, inputs and KV cache scale linearly with it.
  // Init and load have no data batch (activations there are casts and traced example inputs).
  // A known batch is cut to at most one example per step: a batch of 1 cannot be cut, a batch of 4 at most 4×.
  const divisors = BATCH_DIVISORS.filter((k) => trace.batch === undefined || k <= trace.batch);
  if ((training || p.phase === 'inference') && divisors.length && [...roles].some((r) => BATCH_ROLES.has(r))) {
    for (const k of divisors) {
      const peak = peakOf(
        (x) => { const b = tensorBytes(x); return BATCH_ROLES.has(x.role) && b !== null && x.placement.kind !== 'host' ? resizedBytes(b / k) : b; },
        (e) => (BATCH_ROLES.has(e.role) ? Math.ceil(e.bytesPerDevice / k) : e.bytesPerDevice),
      );
      if (peak <= budget || k === divisors[divisors.length - 1]) {
        add({
          kind: 'smaller-batch', factor: k,
          title: `Cut the batch ${k}×`,
          peakBytes: peak,
          cost: training ? `${k}× more micro-steps per batch; gradient accumulation keeps the effective batch` : `${k}× more forward passes for the same work`,
          formula: `activations, inputs and KV cache ÷ ${k} (linear in batch: s·b·h·(34 + 5·a·s/h) per layer; 2·L·kv·hd·s·b·bytes)`,
          citation: 'Korthikanti et al. 2022, arXiv:2205.05198 Table 2; transformers cache_utils.py (KV cache)',
        });
        break;
      }
    }
  }

  // Activation checkpointing (training).
  if (training && roles.has('activation')) {
    const peak = peakOf((x) => { const b = tensorBytes(x); return x.role === 'activation' && b !== null && x.placement.kind !== 'host' ? resizedBytes(b * CHECKPOINT_KEEP) : b; });
    add({
      kind: 'checkpointing',
      title: 'Recompute activations in the backward pass (gradient checkpointing)',
      peakBytes: peak,
      cost: 'one extra forward pass per step, about a third more compute',
      formula: 'activations at the peak × 1/16 (full recomputation keeps each layer\'s input, e·s·b·h of ≥ 16·e·s·b·h bytes); assumes they are per-layer transformer activations; the layer being recomputed is not counted',
      citation: 'Korthikanti et al. 2022, arXiv:2205.05198 §4.1; activations.ts trainingActivationBytes; Chen et al. 2016, arXiv:1604.06174',
    });
  }

  // 8-bit optimizer state (bitsandbytes, PyTorch).
  if (facts.runtime.runtime === 'torch' && roles.has('optimizer')) {
    const peak = peakOf((x) => tensorBytes(x.role === 'optimizer' && FLOAT_STATE.has(x.dtype) ? { shape: x.shape, dtype: 'uint8' } : x));
    add({
      kind: 'optimizer-8bit',
      title: 'Use an 8-bit optimizer (bitsandbytes Adam8bit)',
      peakBytes: peak,
      cost: 'a bitsandbytes dependency; blockwise-quantised optimizer state',
      formula: 'each optimizer state element 1 byte (2 B per parameter for Adam)',
      citation: 'bitsandbytes/optim/optimizer.py Optimizer2State (Dettmers et al. 2021, arXiv:2110.02861)',
    });
  }

  // More devices of the target's kind, or sharding over the ones there are.
  const row = fitsOn.find((r) => r.device === spec.device.id);
  if (row && row.count !== null) {
    const n = Math.max(row.count, spec.count);
    const more = n > spec.count;
    const peak = frontier.reduce((a, x) => Math.max(a, x.fixed + x.split / n), 0);
    const dev = spec.device.name;
    add({
      kind: 'more-devices', factor: n,
      title: basis === 'obvious'
        ? `${more ? `Use ${n}× ${dev} and shard` : `Shard`} parameters, gradients and optimizer state over ${more ? 'them' : `the ${n} devices`} (FSDP / ZeRO-3 / jax.sharding)`
        : more ? `Use ${n}× ${dev}, spreading the code's sharding over ${n}` : `Spread the sharded tensors evenly over all ${n} devices`,
      peakBytes: peak,
      cost: more ? `${n - spec.count} more ${dev}${basis === 'obvious' ? ', and sharding code' : ''}; communication in every step` : 'sharding code; communication in every step',
      formula: `max over the phase of fixed + split / ${n} (split: ${basis === 'code' ? 'what the code shards' : 'parameters, buffers, gradients, optimizer state, KV cache'}; fixed: the rest, per device)`,
      citation: 'Rajbhandari et al. 2019, arXiv:1910.02054 §5 (ZeRO stage 3); fitsWhere.ts',
    });
  }

  const order = COST_ORDER[training ? 'training' : 'other'];
  found.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  advice.changes = found;
  advice.cheapest = found.find((c) => c.fits) ?? null;
  return advice;
}

export function adviseModel(facts: ModelFacts, est: Estimate, devices: DeviceInfo[] = listDevices()): PhaseAdvice[] {
  return est.phases.map((_, i) => advisePhase(facts, est, i, devices));
}

/**
 * The devices a phase fits on, for display: the target's kind first, then
 * by count and capacity ("2× A100 40GB", "1× A100 80GB", …), at most `limit`.
 */
export function fitsOnSummary(rows: FitsOn[], targetId: string, limit = 4): { shown: string[]; more: number } {
  const ok = rows.filter((r): r is FitsOn & { count: number } => r.count !== null);
  const cap = (r: FitsOn) => r.budgetBytes;
  ok.sort((a, b) => Number(b.device === targetId) - Number(a.device === targetId) || a.count - b.count || cap(a) - cap(b) || a.device.localeCompare(b.device));
  return { shown: ok.slice(0, limit).map((r) => `${r.count}× ${r.name}`), more: Math.max(0, ok.length - limit) };
}
