// Fits where (fitsWhere.ts, advice.ts) and the cheapest change: hand-computed
// counts and peaks on small traces, the split / fixed rule for code that
// shards and code that does not, and the property that one device of the
// target's kind is enough exactly when the estimate fits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { advisePhase, fitsOnDevices, fitsOnSummary, splitBasis, splitFixedFrontier } from '../../shared/src/advice';
import { fitsWhere, MAX_DEVICES } from '../../shared/src/fitsWhere';
import { listDevices, parseDeviceSpec } from '../../shared/src/devices';
import { estimate } from '../../shared/src/estimate';
import type { MemoryEvent, ModelFacts, PhaseName, Placement, RuntimeFacts, TensorFact } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const JAX: RuntimeFacts = { runtime: 'jax', versions: {} };
const TORCH: RuntimeFacts = { runtime: 'torch', versions: {} };
const dev = (id: string) => listDevices().find((d) => d.id === id)!;
const spec = (s: string) => parseDeviceSpec(s) as DeviceSpec;

let nextId = 1;
/** A tensor of `gib` GiB: float32 (2^28 elements per GiB) unless another dtype is given. */
function T(gib: number, role: TensorFact['role'], extra: Partial<TensorFact> = {}): TensorFact {
  const dtype = extra.dtype ?? 'float32';
  const per = dtype === 'float32' ? 2 ** 28 : dtype === 'float16' || dtype === 'bfloat16' ? 2 ** 29 : 2 ** 30;
  const id = nextId++;
  return { id, label: extra.label ?? `${role}${id}`, shape: [gib * per], dtype, role, placement: { kind: 'device', index: 0 }, ...extra };
}
const alloc = (tensor: TensorFact): MemoryEvent => ({ op: 'alloc', tensor });
const free = (id: number): MemoryEvent => ({ op: 'free', id });

function model(events: MemoryEvent[], phase: PhaseName, runtime: RuntimeFacts): ModelFacts {
  return {
    name: 'M', framework: runtime.runtime === 'jax' ? 'jax' : 'torch', span: { start: 0, end: 1 }, params: [], buffers: [], paramCount: null,
    phases: [{ phase, events, notes: [], unknowns: [] }], unknowns: [], runtime,
  };
}

test('fitsWhere: N = ceil(split / (budget − fixed)), null when the fixed part alone is too big', () => {
  // PyTorch on A100 40GB: CUDA's 42,298,834,944 B (devices.ts) − (400 + 8.125 + 1) MiB = 41,869,836,288 B usable
  // (budget.ts torchRuntime). split 100 GiB, fixed 2 GiB: room 39,722,352,640 B
  // → ceil(107,374,182,400 / 39,722,352,640) = ceil(2.70) = 3.
  const [row] = fitsWhere(100 * GiB, 2 * GiB, TORCH, [dev('a100-40gb')]);
  assert.equal(row.budgetBytes, 41_869_836_288);
  assert.equal(row.count, 3);
  // JAX on the same card: 75% of 42,298,834,944 B = 31,724,126,208 B (29.55 GiB); room 27.55 GiB → ceil(100 / 27.55) = 4.
  const J40 = 31_724_126_208;
  const [j] = fitsWhere(100 * GiB, 2 * GiB, JAX, [dev('a100-40gb')]);
  assert.equal(j.budgetBytes, J40);
  assert.equal(j.count, 4);
  // Fixed 30 GiB > 29.55 GiB: no count helps.
  assert.equal(fitsWhere(GiB, 30 * GiB, JAX, [dev('a100-40gb')])[0].count, null);
  // Nothing to split and the fixed part fits (29 GiB ≤ 29.55 GiB): one device.
  assert.equal(fitsWhere(0, 29 * GiB, JAX, [dev('a100-40gb')])[0].count, 1);
  // More than 65,536 devices is reported as no count: 1 PiB over 1 MiB of room each would need 2^30.
  assert.equal(fitsWhere(2 ** 50, J40 - MiB, JAX, [dev('a100-40gb')])[0].count, null);
  assert.equal(MAX_DEVICES, 65536);
});

test('single-device code: parameters split (FSDP), activations fixed; bf16 is the cheapest change at init', () => {
  // JAX, A100 40GB, budget 29.55 GiB (75% of CUDA's 39.39 GiB). Parameters 20 GiB float32, then a 16 GiB float16 copy (activation): peak 36 GiB ✗.
  const a = T(20, 'param');
  const b = T(16, 'activation', { dtype: 'float16' });
  const f = model([alloc(a), alloc(b)], 'init', JAX);
  const e = estimate(f, spec('a100-40gb'));
  assert.equal(e.phases[0].peakBytes, 36 * GiB);
  assert.equal(e.phases[0].fits, false);
  assert.equal(splitBasis(f.phases[0]), 'obvious');
  // Instants (fixed, split): (0, 20) then (16, 20); only (16, 20) can bind.
  assert.deepEqual(splitFixedFrontier(f.phases[0]).frontier, [{ fixed: 16 * GiB, split: 20 * GiB }]);

  const adv = advisePhase(f, e, 0);
  assert.equal(adv.splitBytes, 20 * GiB);
  assert.equal(adv.fixedBytes, 16 * GiB);
  const row = (id: string) => adv.fitsOn.find((r) => r.device === id)!;
  // A100 40GB: room 29.55 − 16 = 13.55 GiB → ceil(20 / 13.55) = 2. A100 80GB: 59.35 GiB budget (75% of 79.14 GiB) ≥ 36
  // → 1. T4: 10.92 GiB (75% of 14.56 GiB) < 16 fixed → none.
  assert.equal(row('a100-40gb').count, 2);
  assert.equal(row('a100-80gb').count, 1);
  assert.equal(row('t4').count, null);
  assert.equal(adv.fitsOn.length, listDevices().length);

  // Changes, init order: half precision (20 → 10 GiB: 26 GiB), then 2 devices (16 + 20/2 = 26 GiB). No batch at init.
  assert.deepEqual(adv.changes.map((c) => [c.kind, c.peakBytes, c.fits]), [
    ['half-precision', 26 * GiB, true],
    ['more-devices', 26 * GiB, true],
  ]);
  assert.equal(adv.cheapest?.kind, 'half-precision');
  assert.equal(adv.cheapest?.title, 'Store parameters in bfloat16');
  assert.match(adv.changes[1].title, /^Use 2× A100 40GB and shard parameters/);
  // T4 has no bfloat16: the same change is float16 there.
  const t4 = advisePhase(f, estimate(f, spec('t4')), 0);
  assert.equal(t4.changes.find((c) => c.kind === 'half-precision')?.title, 'Store parameters in float16');
});

test('training: a smaller batch is cheapest; checkpointing, 8-bit Adam, bf16 and more devices predicted exactly', () => {
  // PyTorch, A100 40GB: budget 42,530,242,560 B (39.609375 GiB).
  // weights 4 GiB + gradients 4 GiB + Adam exp_avg, exp_avg_sq 4 GiB each + activations 32 GiB = 48 GiB ✗.
  const ev = [T(4, 'param'), T(4, 'gradient'), T(4, 'optimizer'), T(4, 'optimizer'), T(32, 'activation', { dtype: 'float16' })].map(alloc);
  const f = model(ev, 'training', TORCH);
  const e = estimate(f, spec('a100-40gb'));
  assert.equal(e.phases[0].peakBytes, 48 * GiB);
  const adv = advisePhase(f, e, 0);
  const by = Object.fromEntries(adv.changes.map((c) => [c.kind, c]));
  // ÷2: activations 16 GiB → 32 GiB ✓ (the first divisor that fits).
  assert.equal(by['smaller-batch'].factor, 2);
  assert.equal(by['smaller-batch'].peakBytes, 32 * GiB);
  // Checkpointing keeps 32 × 1/16 = 2 GiB of activations → 18 GiB ✓.
  assert.equal(by.checkpointing.peakBytes, 18 * GiB);
  // 8-bit state: 2 × 4 GiB float32 → 2 × 1 GiB → 42 GiB ✗ (42 > 39.61).
  assert.equal(by['optimizer-8bit'].peakBytes, 42 * GiB);
  assert.equal(by['optimizer-8bit'].fits, false);
  // bf16 weights, gradients and state: 16 → 8 GiB → 40 GiB ✗ (40 > 39.61).
  assert.equal(by['half-precision'].peakBytes, 40 * GiB);
  assert.equal(by['half-precision'].fits, false);
  // FSDP: split 16 GiB, fixed 32 GiB, room 7.609375 GiB → N = ceil(2.10) = 3; 32 + 16/3 GiB, rounded up to a byte.
  assert.equal(by['more-devices'].factor, 3);
  assert.equal(by['more-devices'].peakBytes, Math.ceil(32 * GiB + (16 * GiB) / 3));
  assert.equal(by['more-devices'].fits, true);
  assert.deepEqual(adv.changes.map((c) => c.kind), ['smaller-batch', 'checkpointing', 'optimizer-8bit', 'half-precision', 'more-devices']);
  assert.equal(adv.cheapest?.kind, 'smaller-batch');
  // Under JAX there is no bitsandbytes: no 8-bit candidate.
  const j = advisePhase(model(ev, 'training', JAX), estimate(model(ev, 'training', JAX), spec('a100-40gb')), 0);
  assert.ok(!j.changes.some((c) => c.kind === 'optimizer-8bit'));
});

test('a known batch is never cut below one example: batch 1 gets no smaller-batch change, batch 4 at most 4×', () => {
  // The same 48 GiB training phase as above (A100 40GB, budget 39.609375 GiB), with the batch the activations are
  // sized for. Batch 1: no smaller batch exists; checkpointing is the cheapest change (18 GiB).
  const ev = [T(4, 'param'), T(4, 'gradient'), T(4, 'optimizer'), T(4, 'optimizer'), T(32, 'activation', { dtype: 'float16' })].map(alloc);
  const withBatch = (b: number): ModelFacts => { const f = model(ev, 'training', TORCH); f.phases[0].batch = b; return f; };
  const one = withBatch(1);
  const a1 = advisePhase(one, estimate(one, spec('a100-40gb')), 0);
  assert.ok(!a1.changes.some((c) => c.kind === 'smaller-batch'), JSON.stringify(a1.changes.map((c) => c.title)));
  assert.equal(a1.cheapest?.kind, 'checkpointing');
  // Batch 4 on an L4 (about 22 GiB usable): 16 GiB + 32/k — ÷4 gives 24 GiB ✗, only ÷8 (20 GiB) would fit, which
  // a batch of 4 cannot take: the change offered stops at 4×.
  const four = withBatch(4);
  const a4 = advisePhase(four, estimate(four, spec('l4')), 0);
  const cut = a4.changes.find((c) => c.kind === 'smaller-batch');
  assert.ok(cut && (cut.factor ?? 0) <= 4, JSON.stringify(cut));
});

test('code that shards: split is what it shards, replicated bytes are fixed', () => {
  // JAX on 2× A100 40GB (29.55 GiB each): a 40 GiB parameter sharded over 2 (20 GiB per device) and a
  // replicated 12 GiB activation: 32 GiB per device ✗.
  const sharded: Placement = { kind: 'sharded', over: 2 };
  const f = model([alloc(T(40, 'param', { placement: sharded })), alloc(T(12, 'activation', { placement: { kind: 'replicated' } }))], 'init', JAX);
  const e = estimate(f, spec('2xa100-40gb'));
  assert.equal(e.phases[0].peakBytes, 32 * GiB);
  const adv = advisePhase(f, e, 0);
  assert.equal(adv.basis, 'code');
  assert.equal(adv.splitBytes, 40 * GiB);
  assert.equal(adv.fixedBytes, 12 * GiB);
  // room 17.55 GiB → ceil(40 / 17.55) = 3 A100 40GB; 12 + 40/3 GiB.
  const more = adv.changes.find((c) => c.kind === 'more-devices')!;
  assert.equal(more.factor, 3);
  assert.equal(more.peakBytes, Math.ceil(12 * GiB + (40 * GiB) / 3));
  assert.equal(more.title, "Use 3× A100 40GB, spreading the code's sharding over 3");
  // bf16: 20 → 10 GiB per device + 12 = 22 GiB ✓, the cheapest at init.
  assert.equal(adv.cheapest?.kind, 'half-precision');
  assert.equal(adv.cheapest?.peakBytes, 22 * GiB);
  // A replicated parameter is not split: basis stays 'code' only because something is sharded.
  assert.equal(splitBasis({ phase: 'init', events: [alloc(T(1, 'param', { placement: { kind: 'replicated' } }))], notes: [], unknowns: [] }), 'obvious');
  // accelerate-style placement on two device indices is the code's split too.
  assert.equal(splitBasis({ phase: 'load', events: [alloc(T(1, 'param')), alloc(T(1, 'param', { placement: { kind: 'device', index: 1 } }))], notes: [], unknowns: [] }), 'code');
});

test('a freed tensor and a transient bind at different instants: the count covers both', () => {
  // JAX A100 40GB (29.55 GiB). Instant 1: params 24 GiB (split) + a 10 GiB transient (fixed) → 10 + 24/N.
  // Then params freed to 8 GiB and a 25 GiB activation: 25 + 8/N. N = 1 fails both; N = 2: 22 and 29 ✓.
  const p1 = T(16, 'param');
  const p2 = T(8, 'param');
  const ev: MemoryEvent[] = [
    alloc(p1), alloc(p2),
    { op: 'transient', label: 'scratch', bytesPerDevice: 10 * GiB, role: 'temporary', formula: 'f', citation: 'c' },
    free(p1.id), alloc(T(25, 'activation')),
  ];
  const f = model(ev, 'init', JAX);
  const rows = fitsOnDevices(f, f.phases[0], [dev('a100-40gb')]);
  assert.equal(rows[0].count, 2);
  // The frontier keeps both binding instants.
  assert.deepEqual(splitFixedFrontier(f.phases[0]).frontier, [{ fixed: 25 * GiB, split: 8 * GiB }, { fixed: 10 * GiB, split: 24 * GiB }]);
});

test('property: one device of the target kind is enough exactly when the estimate fits', () => {
  // Deterministic pseudo-random traces (LCG), single device, JAX and PyTorch budgets.
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  const roles: TensorFact['role'][] = ['param', 'activation', 'gradient', 'optimizer', 'temporary', 'kv-cache'];
  for (let trial = 0; trial < 200; trial++) {
    const ev: MemoryEvent[] = [];
    const live: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = rnd();
      if (r < 0.6 || !live.length) {
        const t = T(1 + Math.floor(rnd() * 20), roles[Math.floor(rnd() * roles.length)]);
        live.push(t.id);
        ev.push(alloc(t));
      } else if (r < 0.85) {
        ev.push(free(live.splice(Math.floor(rnd() * live.length), 1)[0]));
      } else {
        ev.push({ op: 'transient', label: 'x', bytesPerDevice: Math.floor(rnd() * 10) * GiB, role: 'temporary', formula: 'f', citation: 'c' });
      }
    }
    const rt = trial % 2 ? JAX : TORCH;
    const f = model(ev, 'init', rt);
    for (const id of ['a100-40gb', 't4', 'h100-80gb']) {
      const e = estimate(f, spec(id));
      const row = fitsOnDevices(f, f.phases[0], [dev(id)])[0];
      assert.equal(row.count === 1, e.phases[0].fits === true, `trial ${trial} on ${id}: peak ${e.phases[0].peakBytes} budget ${e.phases[0].budgetBytes} count ${row.count}`);
    }
  }
});

test('fitsOnSummary: the target kind first, then by count and size; devices that never fit are left out', () => {
  const rows = [
    { device: 'h200', name: 'H200', count: 1, budgetBytes: 100 },
    { device: 'a100-40gb', name: 'A100 40GB', count: 2, budgetBytes: 30 },
    { device: 't4', name: 'T4', count: null, budgetBytes: 11 },
    { device: 'a100-80gb', name: 'A100 80GB', count: 1, budgetBytes: 60 },
    { device: 'l4', name: 'L4', count: 3, budgetBytes: 17 },
  ];
  assert.deepEqual(fitsOnSummary(rows, 'a100-40gb', 3), { shown: ['2× A100 40GB', '1× A100 80GB', '1× H200'], more: 1 });
  assert.deepEqual(fitsOnSummary(rows, 't4', 10).shown, ['1× A100 80GB', '1× H200', '2× A100 40GB', '3× L4']);
});

test('a phase that fits, or whose size is unknown, gets fits-where but no change', () => {
  const f = model([alloc(T(1, 'param'))], 'init', JAX);
  const adv = advisePhase(f, estimate(f, spec('a100-40gb')), 0);
  assert.equal(adv.changes.length, 0);
  assert.equal(adv.cheapest, null);
  assert.equal(adv.fitsOn.find((r) => r.device === 'tpu-v2')?.count, 1);
  const g = model([alloc(T(1, 'param')), alloc({ ...T(1, 'activation'), shape: [NaN] })], 'inference', JAX);
  const a2 = advisePhase(g, estimate(g, spec('a100-40gb')), 0);
  assert.equal(a2.lowerBound, true);
  assert.equal(a2.changes.length, 0);
});

test('another model still referenced on the device: releasing it first is the cheapest change, its peak without that model', () => {
  // A100 40GB, PyTorch: 41,869,836,288 B usable. An earlier 20 GiB model still referenced, this model's 20 GiB load.
  const other = T(20, 'buffer', { group: 'another model on the device: earlier (float32)' });
  const mine = T(20, 'param', { dtype: 'float16' });
  const facts = model([alloc(other), alloc(mine)], 'load', TORCH);
  const est = estimate(facts, spec('a100-40gb'));
  assert.equal(est.phases[0].fits, false);
  const adv = advisePhase(facts, est, 0);
  assert.equal(adv.cheapest?.kind, 'free-held');
  assert.equal(adv.cheapest?.peakBytes, 20 * GiB);
  assert.equal(adv.cheapest?.fits, true);
});
