// Phase replay: per-device accounting, peaks with transients, breakdowns that
// sum to the peak, compressed timelines and honest unknowns; plus the
// Threefry temporaries, accelerate's balanced map and the estimate entry point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayPeak, replayPhase, tensorBytes } from '../../shared/src/timeline';
import { threefryTemporaries } from '../../shared/src/threefry';
import { inferDeviceMap, treeFromSizes } from '../../shared/src/accelerate';
import { estimate } from '../../shared/src/estimate';
import { parseDeviceSpec } from '../../shared/src/devices';
import type { MemoryEvent, ModelFacts, PhaseTrace, Placement, TensorFact } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

function t(id: number, shape: number[], placement: Placement = { kind: 'device', index: 0 }, extra: Partial<TensorFact> = {}): TensorFact {
  return { id, label: `t${id}`, shape, dtype: 'float32', role: 'param', placement, ...extra };
}
const alloc = (tensor: TensorFact): MemoryEvent => ({ op: 'alloc', tensor });
const free = (id: number): MemoryEvent => ({ op: 'free', id });
function trace(events: MemoryEvent[], extra: Partial<PhaseTrace> = {}): PhaseTrace {
  return { phase: 'init', events, notes: [], unknowns: [], ...extra };
}

test('tensor sizes; bad dimensions are unknown, never a number', () => {
  assert.equal(tensorBytes({ shape: [1024, 1024], dtype: 'float32' }), 4 * MiB);
  assert.equal(tensorBytes({ shape: [], dtype: 'float16' }), 2);
  assert.equal(tensorBytes({ shape: [3, NaN], dtype: 'float32' }), null);
  assert.equal(tensorBytes({ shape: [3, -1], dtype: 'float32' }), null);
  assert.equal(tensorBytes({ shape: [3, 2.5], dtype: 'float32' }), null);
  assert.equal(tensorBytes({ shape: [1e15, 1e15], dtype: 'float32' }), null);
  assert.equal(tensorBytes({ shape: [Infinity], dtype: 'float32' }), null);
});

test('peak over allocs and frees, with a transient on top of the live set', () => {
  // a = 1 GiB (2^28 float32), b = 2 GiB; free a; transient 512 MiB.
  // Live after b: 3 GiB (peak candidate); after free a: 2 GiB; transient: 2.5 GiB.
  const ev: MemoryEvent[] = [
    alloc(t(1, [2 ** 28])), alloc(t(2, [2 ** 29])), free(1),
    { op: 'transient', label: 'scratch', bytesPerDevice: 512 * MiB, role: 'temporary', formula: 'f', citation: 'c' },
  ];
  const e = replayPhase(trace(ev), 1, 4 * GiB);
  assert.equal(e.peakBytes, 3 * GiB);
  assert.equal(e.fits, true);
  assert.deepEqual(e.breakdown.map((c) => [c.label, c.bytes]), [['t2', 2 * GiB], ['t1', GiB]]);
  assert.equal(e.timeline.length, 4);
  assert.equal(e.timeline[3].liveBytes, 2.5 * GiB);
  // A budget of 2.75 GiB does not fit.
  assert.equal(replayPhase(trace(ev), 1, 2.75 * GiB).fits, false);
});

test('a transient that makes the peak is its own contributor and the breakdown sums to the peak', () => {
  // 1 GiB live + 3 GiB transient = 4 GiB.
  const ev: MemoryEvent[] = [
    alloc(t(1, [2 ** 28])),
    { op: 'transient', label: 'threefry bits', bytesPerDevice: 3 * GiB, role: 'rng', formula: 'f', citation: 'c' },
  ];
  const e = replayPhase(trace(ev), 1, 30 * GiB);
  assert.equal(e.peakBytes, 4 * GiB);
  assert.equal(e.breakdown[0].label, 'threefry bits');
  assert.equal(e.breakdown.reduce((a, c) => a + c.bytes, 0), e.peakBytes);
});

test('placements: device k, sharded, replicated, host', () => {
  // 4 devices. p0 = 1 GiB on device 1; p1 = 8 GiB sharded over 4 → 2 GiB each;
  // p2 = 1 GiB replicated; p3 = 16 GiB on the host (not counted).
  // Device 1: 1 + 2 + 1 = 4 GiB; others: 2 + 1 = 3 GiB.
  const ev = [
    alloc(t(0, [2 ** 28], { kind: 'device', index: 1 })),
    alloc(t(1, [2 ** 31], { kind: 'sharded', over: 4 })),
    alloc(t(2, [2 ** 28], { kind: 'replicated' })),
    alloc(t(3, [2 ** 32], { kind: 'host' })),
  ];
  const e = replayPhase(trace(ev), 4, 80 * GiB);
  assert.equal(e.peakBytes, 4 * GiB);
  assert.equal(e.peakDevice, 1);
  assert.deepEqual(e.perDeviceBytes, [3 * GiB, 4 * GiB, 3 * GiB, 3 * GiB]);
  assert.equal(e.breakdown.reduce((a, c) => a + c.bytes, 0), 4 * GiB);
});

test('sharded over more devices than the target: divided by the device count, with a note', () => {
  // 8 GiB sharded over 8 on a 2-device target: 4 GiB each.
  const e = replayPhase(trace([alloc(t(1, [2 ** 31], { kind: 'sharded', over: 8 }))]), 2, 80 * GiB);
  assert.equal(e.peakBytes, 4 * GiB);
  assert.ok(e.notes.some((n) => /sharded over 8/.test(n)));
});

test('breakdown groups tensors, timeline compresses consecutive allocs of a group', () => {
  // 300 tensors of 1 MiB in group "layers": one contributor of 300 MiB, count 300, one timeline point.
  const ev = Array.from({ length: 300 }, (_, i) => alloc(t(i, [2 ** 18], { kind: 'device', index: 0 }, { group: 'layers' })));
  const e = replayPhase(trace(ev), 1, GiB);
  assert.equal(e.peakBytes, 300 * MiB);
  assert.equal(e.breakdown.length, 1);
  assert.equal(e.breakdown[0].count, 300);
  assert.equal(e.breakdown[0].bytes, 300 * MiB);
  assert.equal(e.timeline.length, 1);
  assert.equal(e.timeline[0].liveBytes, 300 * MiB);
});

test('unknowns: a lower bound, fits null unless the known part already overflows', () => {
  // An absurd tensor (1e30 elements) is reported as unknown, not as Infinity.
  const ev = [alloc(t(1, [2 ** 28])), alloc(t(2, [1e15, 1e15]))];
  const e = replayPhase(trace(ev), 1, 30 * GiB);
  assert.equal(e.peakBytes, GiB);
  assert.ok(Number.isFinite(e.peakBytes));
  assert.equal(e.fits, null);
  assert.equal(e.unknowns.length, 1);
  assert.ok(e.notes.some((n) => /lower bound/.test(n)));
  // Known 1 GiB against a 0.5 GiB budget: false even with unknowns.
  assert.equal(replayPhase(trace(ev), 1, GiB / 2).fits, false);
  // Trace-level unknowns behave the same.
  const u = replayPhase(trace([alloc(t(1, [2 ** 28]))], { unknowns: [{ what: 'loop', reason: 'dynamic' }] }), 1, 30 * GiB);
  assert.equal(u.fits, null);
});

test('threefry temporaries: flax#3701 numbers', () => {
  // 2^33 float32 elements: max_count = 32·2^33/32 = 2^33 ≥ 2^32−1 → vmapped blocks:
  // 3 × 2^33 × 4 B = 96 GiB on every device, whatever the sharding.
  const orig = threefryTemporaries({ elements: 2 ** 33, bitWidth: 32, partitionable: false, shards: 8, jitted: true });
  assert.equal(orig.bytesPerDevice, 96 * GiB);
  // Partitionable: each device hashes its shard's counters elementwise (jax.random's samplers are jitted),
  // fused into the sample on GPU/TPU (measured without temporaries in test/truth's sharded init): nothing extra.
  const part = threefryTemporaries({ elements: 2 ** 33, bitWidth: 32, partitionable: true, shards: 8, jitted: true });
  assert.equal(part.bytesPerDevice, 0);
  // Below 2^32−1 and sharded: one full bits buffer: 2^30 × 4 B = 4 GiB.
  assert.equal(threefryTemporaries({ elements: 2 ** 30, bitWidth: 32, partitionable: false, shards: 8, jitted: true }).bytesPerDevice, 4 * GiB);
  // Unsharded, jitted, small: fused into the output.
  assert.equal(threefryTemporaries({ elements: 2 ** 30, bitWidth: 32, partitionable: false, shards: 1, jitted: true }).bytesPerDevice, 0);
  // bfloat16 uses 16 bits: max_count = 16·2^30/32 = 2^29 → 2 GiB.
  assert.equal(threefryTemporaries({ elements: 2 ** 30, bitWidth: 16, partitionable: false, shards: 8, jitted: true }).bytesPerDevice, 2 * GiB);
  assert.match(orig.citation, /prng\.py/);
});

test('accelerate placement: balanced caps and the room kept on GPU 0 for the largest layer', () => {
  // 4 blocks of 1 GiB on 2 GPUs of 10 GiB (max_memory given): balanced cap = 4 GiB // 2 + int(1.25 × 1 GiB)
  // = 3.25 GiB on GPU 0, which also keeps 1 GiB free for the largest layer still to place (a main device):
  // blocks 0 and 1 fit under 2.25 GiB, block 2 does not, so GPU 1 takes blocks 2 and 3.
  const tree = treeFromSizes([0, 1, 2, 3].map((i) => ({ name: `layer.${i}`, bytes: GiB })));
  const plan = inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 10 * GiB, 1: 10 * GiB }, userSet: true, variant: 'transformers', deviceCount: 2 });
  assert.deepEqual(plan.perDevice, [2 * GiB, 2 * GiB]);
  assert.equal(plan.assignment['layer.3'], 1);
  // One GPU of 4.4 GiB, no max_memory: 90% of it (3.96 GiB) less the 1 GiB reserve holds two blocks; the
  // third does not fit, so the device is closed and the CPU takes the other two.
  const one = inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 4.4 * GiB }, cpu: Infinity, userSet: false, variant: 'transformers', deviceCount: 1 });
  assert.deepEqual(one.perDevice, [2 * GiB]);
  assert.equal(one.cpuBytes, 2 * GiB);
  // bitsandbytes loads keep 10% of each cap free (transformers adjust_max_memory): GPU 0's 3.25 GiB becomes
  // 2.925 GiB, less the 1 GiB reserve: one block; GPU 1 (9 GiB) the other three.
  const q = inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 10 * GiB, 1: 10 * GiB }, userSet: true, variant: 'transformers', deviceCount: 2, capScale: 0.9 });
  assert.deepEqual(q.perDevice, [GiB, 3 * GiB]);
  // At 5 GiB (4.5 usable) all four fit: the reserve is for layers still to place, and none is left after the last.
  assert.deepEqual(inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 5 * GiB }, cpu: Infinity, userSet: false, variant: 'transformers', deviceCount: 1 }).perDevice, [4 * GiB]);
});

test('accelerate placement with max_memory: a GPU too small for a block after the reserve, CPU and disk offload', () => {
  const tree = treeFromSizes([0, 1, 2, 3].map((i) => ({ name: `layer.${i}`, bytes: GiB })));
  // GPU 0: min(3.25, 1.5) GiB less the 1 GiB reserve holds no block; GPU 1 (the last, uncapped by the balance)
  // holds two at 2.5 GiB; the rest go to the CPU when max_memory lists it ...
  const b = inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 1.5 * GiB, 1: 2.5 * GiB }, cpu: 100 * GiB, userSet: true, variant: 'transformers', deviceCount: 2 });
  assert.deepEqual(b.perDevice, [0, 2 * GiB]);
  assert.equal(b.assignment['layer.3'], 'cpu');
  assert.equal(b.cpuBytes, 2 * GiB);
  // ... and to disk when it does not.
  const c = inferDeviceMap(tree, { mode: 'auto', gpus: { 0: 1.5 * GiB, 1: 2.5 * GiB }, userSet: true, variant: 'transformers', deviceCount: 2 });
  assert.deepEqual(c.unplaced, ['layer.2', 'layer.3']);
  // A GPU missing from max_memory gets nothing.
  assert.deepEqual(inferDeviceMap(tree, { mode: 'auto', gpus: { 1: 10 * GiB }, userSet: true, variant: 'transformers', deviceCount: 2 }).perDevice, [0, 4 * GiB]);
});

test('estimate: parameters by dtype and phases', () => {
  const spec = parseDeviceSpec('a100-40gb') as DeviceSpec;
  const w = t(1, [2 ** 28], { kind: 'device', index: 0 });
  const h = t(2, [2 ** 28], { kind: 'device', index: 0 }, { dtype: 'bfloat16' });
  const facts: ModelFacts = {
    name: 'M', framework: 'jax', span: { start: 0, end: 1 }, params: [w, h], buffers: [], paramCount: 2 ** 29,
    phases: [trace([alloc(w), alloc(h)])], unknowns: [], runtime: { runtime: 'jax', versions: {} },
  };
  const e = estimate(facts, spec);
  // 2^28 × 4 B + 2^28 × 2 B = 1 GiB + 0.5 GiB.
  assert.equal(e.paramBytes, 1.5 * GiB);
  assert.deepEqual(e.bytesByDtype, { float32: GiB, bfloat16: GiB / 2 });
  // 75% of CUDA's total for an A100 40GB, 42,298,834,944 B (devices.ts) = 31,724,126,208 B.
  assert.equal(e.budget.bytes, 31_724_126_208);
  assert.equal(e.phases[0].peakBytes, 1.5 * GiB);
  assert.equal(e.phases[0].fits, true);
});

test('replayPeak is replayPhase\'s peak: random traces (placements, frees, transients, unknown sizes) on 1 to 70 devices', () => {
  // A small linear congruential generator: the same traces on every run.
  let seed = 12345;
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
  const placements: Placement[] = [
    { kind: 'host' }, { kind: 'replicated' }, { kind: 'device', index: 0 }, { kind: 'device', index: 3 }, { kind: 'device', index: 80 },
    { kind: 'sharded', over: 2 }, { kind: 'sharded', over: 7 }, { kind: 'sharded', over: 100 },
  ];
  let checked = 0;
  for (let round = 0; round < 300; round++) {
    const events: MemoryEvent[] = [];
    const live: number[] = [];
    let id = 1;
    for (let i = 0, n = 1 + rnd(40); i < n; i++) {
      const r = rnd(10);
      if (r < 5 || live.length === 0) {
        const shape = rnd(15) === 0 ? [NaN, 4] : [1 + rnd(1000), 1 + rnd(333)];
        events.push(alloc(t(id, shape, placements[rnd(placements.length)], { dtype: rnd(2) ? 'float32' : 'bfloat16' })));
        live.push(id++);
      } else if (r < 8) {
        events.push(free(live.splice(rnd(live.length), 1)[0]));
      } else if (r < 9) {
        events.push(free(9999));
      } else {
        events.push({ op: 'transient', label: 'tmp', bytesPerDevice: rnd(500_000) + 0.5 * rnd(2), role: 'temporary', formula: 'f', citation: 'c' });
      }
    }
    const tr = trace(events, rnd(20) === 0 ? { unknowns: [{ what: 'x', reason: 'y' }] } : {});
    for (const count of [1, 2, 5, 70]) {
      assert.equal(replayPeak(tr, count), replayPhase(tr, count, 0).peakBytes, `round ${round}, ${count} devices`);
      checked++;
    }
  }
  assert.equal(checked, 1200);
});
