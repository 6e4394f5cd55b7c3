// The memory timeline picture (timelineSvg.ts): per-contributor series that
// add up to the replay's live bytes on the busiest device, the peak kept
// when points are reduced, linear work on long traces, and an SVG that is
// well formed, deterministic, escaped and self-contained.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeXml, phaseSeries, timelineSvg } from '../../shared/src/timelineSeries';
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

/** Tag balance of an SVG document: every opened element closed in order, no stray text outside the root. */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([A-Za-z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, close, name, , self] = m;
    if (self) continue;
    if (close) { if (stack.pop() !== name) return false; } else stack.push(name);
  }
  return stack.length === 0;
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
  assert.deepEqual(sg.bands.map((b) => b.label), ['g9', 'g8', 'g7', '7 smaller contributors']);
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
  const svg = timelineSvg(f, estimate(f, spec('h200')), { units: 'GB', maxPoints: 500 });
  const ms = Date.now() - t0;
  assert.equal(s.steps.length, 500);
  assert.equal(Math.max(...s.totals), 50 * GiB);
  assert.ok(ms < 10_000, `took ${ms} ms: the replay must stay linear`);
  assert.ok(svg.includes('peak 53.7 GB'), 'the spike is drawn and labelled');
});

test('SVG: well formed, standalone, deterministic, with the budget line, legend and escaped labels', () => {
  const evil = 'w <script>alert("x")</script> & \'q\'';
  const ev: MemoryEvent[] = [alloc(t(1, 20, { label: evil })), alloc(t(2, 16, { label: 'float16 copy', role: 'activation', dtype: 'float16', shape: [16 * 2 ** 29] }))];
  const f = facts(ev);
  const e = estimate(f, spec('a100-40gb'));
  const svg = timelineSvg(f, e, { units: 'GB' });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /);
  assert.ok(svg.trimEnd().endsWith('</svg>'));
  assert.ok(balanced(svg), 'every element is closed');
  // Self-contained: no script, no external reference, no style sheet.
  assert.ok(!/<script|<style|href=|url\(|@import/i.test(svg));
  // The escaped label is there, the raw one is not.
  assert.ok(svg.includes(escapeXml(evil).slice(0, 30)));
  assert.ok(!svg.includes('<script>'));
  // Budget: JAX 75% of 40,960 MiB = 32.2 GB; peak 20 + 16 GiB = 38.7 GB; legend entries name the contributors.
  assert.ok(svg.includes('budget 32.2 GB'));
  assert.ok(svg.includes('stroke-dasharray'));
  assert.ok(svg.includes('init: peak 38.7 GB of 32.2 GB usable ✗ does not fit'));
  assert.ok(svg.includes('float16 copy · activation · up to 17.2 GB'));
  assert.equal(timelineSvg(f, e, { units: 'GB' }), svg);
  // GiB axis and labels.
  const gib = timelineSvg(f, e, { units: 'GiB' });
  assert.ok(gib.includes('budget 30.0 GiB'));
  assert.ok(gib.includes('>40 GiB<'));
});

test('escapeXml drops characters XML forbids and escapes markup', () => {
  assert.equal(escapeXml('a\u0001b<&>"\''), 'ab&lt;&amp;&gt;&quot;&apos;');
});

test('a model without phases or events still gives a valid SVG', () => {
  const f = facts([]);
  const svg = timelineSvg(f, estimate(f, spec('t4')), { units: 'GB' });
  assert.ok(balanced(svg));
  assert.ok(svg.includes('No memory events traced in this phase.'));
  const none: ModelFacts = { ...f, phases: [] };
  assert.ok(timelineSvg(none, estimate(none, spec('t4')), { units: 'GB' }).includes('No phase was traced'));
});

test('a model far below its budget is drawn to the scale of its peak, the budget said to be above it', () => {
  // 1 GiB then 1 GiB more (peak 2 GiB) against an H100's budget of about 60 GiB: the y axis ends near 2 GiB.
  const small = facts([alloc(t(1, 1)), alloc(t(2, 1))]);
  const svg = timelineSvg(small, estimate(small, spec('h100-80gb')), { units: 'GiB' });
  const ticks = [...svg.matchAll(/text-anchor="end">([\d.]+) GiB</g)].map((m) => Number(m[1]));
  assert.ok(ticks.length >= 2, svg.slice(0, 400));
  const top = Math.max(...ticks);
  assert.ok(top >= 2 && top < 4, `y axis to ${top} GiB for a 2 GiB peak`);
  assert.match(svg, /budget [\d.]+ GiB ↑ above this scale \(peak [\d.]+% of it\)/);
  assert.ok(!svg.includes('stroke-dasharray'), 'no budget line drawn off the scale');
  // Near the budget, the line is drawn as before.
  const big = facts([alloc(t(1, 40)), alloc(t(2, 30))]);
  assert.ok(timelineSvg(big, estimate(big, spec('h100-80gb')), { units: 'GiB' }).includes('stroke-dasharray'));
});
