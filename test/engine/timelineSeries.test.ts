// The memory timeline's numbers (timelineSeries.ts): per-contributor series
// that add up to the replay's live bytes on the busiest device, small
// contributors grouped into "other", the peak kept when points are reduced,
// and linear work on long traces. The chart is tested in test/timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phaseSeries } from '../../shared/src/timelineSeries';
import { estimate } from '../../shared/src/estimate';
import { parseDeviceSpec } from '../../shared/src/devices';
import type { MemoryEvent, ModelFacts, PhaseTrace, TensorFact } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';

const GiB = 2 ** 30;
const spec = (s: string) => parseDeviceSpec(s) as DeviceSpec;

function t(id: number, gib: number, extra: Partial<TensorFact> = {}): TensorFact {
  return { id, label: `t${id}`, shape: [gib * 2 ** 28], dtype: 'float32', role: 'param', placement: { kind: 'device', index: 0 }, ...extra };
}
const alloc = (tensor: TensorFact): MemoryEvent => ({ op: 'alloc', tensor });
const free = (id: number): MemoryEvent => ({ op: 'free', id });
function facts(events: MemoryEvent[], extra: Partial<PhaseTrace> = {}): ModelFacts {
  return {
    name: 'Net', framework: 'jax', span: { start: 0, end: 1 }, params: [], buffers: [], paramCount: null,
    phases: [{ phase: 'init', events, notes: [], unknowns: [], ...extra }], unknowns: [], runtime: { runtime: 'jax', versions: {} },
  };
}

test('series: groups stack to the live bytes at every point, and the largest total is the peak', () => {
  // a (group "layers") 2 + 3 GiB, b 4 GiB, free one layer (2 GiB), transient 1 GiB, c 1 GiB.
  const ev: MemoryEvent[] = [
    alloc(t(1, 2, { group: 'layers' })), alloc(t(2, 3, { group: 'layers' })), alloc(t(3, 4, { label: 'copy', role: 'activation' })),
    free(1),
    { op: 'transient', label: 'scratch', bytesPerDevice: GiB, role: 'temporary', formula: 'f', citation: 'c' },
    alloc(t(4, 1, { label: 'out' })),
  ];
  const f = facts(ev);
  const e = estimate(f, spec('a100-40gb'));
  const p = e.phases[0];
  const s = phaseSeries(f.phases[0], p, 1);
  // Points: "+ layers" (run of two), "+ copy", "− layers", "⚡ scratch", "+ out".
  assert.deepEqual(s.labels, ['+ layers', '+ copy', '− layers', '⚡ scratch', '+ out']);
  assert.deepEqual(s.totals.map((x) => x / GiB), [5, 9, 7, 8, 8]);
  assert.deepEqual(s.totals, p.timeline.map((x) => x.liveBytes));
  assert.equal(Math.max(...s.totals), p.peakBytes);
  const band = (label: string) => s.bands.find((b) => b.label === label)!.values.map((x) => x / GiB);
  assert.deepEqual(band('layers'), [5, 5, 3, 3, 3]);
  assert.deepEqual(band('copy'), [0, 4, 4, 4, 4]);
  assert.deepEqual(band('scratch'), [0, 0, 0, 1, 0]);
  assert.deepEqual(band('out'), [0, 0, 0, 0, 1]);
  // Bands ranked by their largest size.
  assert.deepEqual(s.bands.map((b) => [b.label, b.max / GiB]), [['layers', 5], ['copy', 4], ['out', 1], ['scratch', 1]]);
});

test('series on the busiest device of several, and "other" past the band limit', () => {
  // 2 devices: a sharded 8 GiB (4 each), a 3 GiB tensor on device 1 only → device 1 is the busiest (7 GiB).
  const ev: MemoryEvent[] = [alloc(t(1, 8, { placement: { kind: 'sharded', over: 2 } })), alloc(t(2, 3, { placement: { kind: 'device', index: 1 } }))];
  const f = facts(ev);
  const p = estimate(f, spec('2xa100-40gb')).phases[0];
  assert.equal(p.peakDevice, 1);
  const s = phaseSeries(f.phases[0], p, 2);
  assert.equal(s.device, 1);
  assert.deepEqual(s.totals.map((x) => x / GiB), [4, 7]);
  // Ten groups with maxBands 4: three named, the other seven in one band; totals unchanged.
  const many = Array.from({ length: 10 }, (_, i) => alloc(t(10 + i, i + 1, { label: `g${i}` })));
  const g = facts(many);
  const pg = estimate(g, spec('h200')).phases[0];
  const sg = phaseSeries(g.phases[0], pg, 1, 4);
  assert.deepEqual(sg.bands.map((b) => b.label), ['g9', 'g8', 'g7', 'other (7 smaller contributors)']);
  assert.equal(sg.bands[3].role, 'other');
  assert.equal(sg.totals[sg.totals.length - 1], 55 * GiB);
  assert.equal(sg.bands[3].max, 28 * GiB);
});

test('long traces: points reduced to the limit with the peak kept, in linear time', () => {
  // 200,000 events: alternate alloc / free of 1 GiB, with one 50 GiB spike in the middle.
  const ev: MemoryEvent[] = [];
  for (let i = 0; i < 100_000; i++) {
    const big = i === 61_234;
    ev.push(alloc(t(i + 1, big ? 50 : 1, { label: big ? 'spike' : `x${i % 2}` })));
    ev.push(free(i + 1));
  }
  const f = facts(ev);
  const t0 = Date.now();
  const p = estimate(f, spec('h200')).phases[0];
  const s = phaseSeries(f.phases[0], p, 1, 7, 500);
  const ms = Date.now() - t0;
  assert.equal(s.steps.length, 500);
  assert.equal(Math.max(...s.totals), 50 * GiB);
  assert.ok(ms < 10_000, `took ${ms} ms: the replay must stay linear`);
});

test('contributors below 1% of the largest go into "other", with the source span of each named band', () => {
  const ev: MemoryEvent[] = [
    alloc(t(1, 100, { label: 'big', span: { start: 10, end: 20 } })),
    alloc(t(2, 0.5, { label: 'tiny1' })), alloc(t(3, 0.25, { label: 'tiny2' })),
    { op: 'transient', label: 'scratch', bytesPerDevice: 10 * GiB, role: 'temporary', formula: 'f', citation: 'c', span: { start: 30, end: 40 } },
  ];
  const f = facts(ev);
  const p = estimate(f, spec('h200')).phases[0];
  const s = phaseSeries(f.phases[0], p, 1);
  assert.deepEqual(s.bands.map((b) => b.label), ['big', 'scratch', 'other (2 smaller contributors)']);
  assert.deepEqual(s.bands[0].span, { start: 10, end: 20 });
  assert.deepEqual(s.bands[1].span, { start: 30, end: 40 });
  assert.equal(s.bands[2].span, undefined);
  assert.equal(s.spans.length, s.steps.length);
  // Still the same totals.
  assert.deepEqual(s.totals, p.timeline.map((x) => x.liveBytes));
});
