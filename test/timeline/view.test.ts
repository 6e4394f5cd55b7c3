// The memory timeline as Vega-Lite (server/src/timeline/): the spec's
// rectangles stack to the engine's live bytes, carry their tooltip and the
// line a click opens; the time axis is named by source lines; the y axis
// follows the phase's peak, with the budget line only where it fits; and
// vega draws the same spec to a standalone SVG (`--format svg`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimate } from '../../shared/src/estimate';
import { parseDeviceSpec } from '../../shared/src/devices';
import type { MemoryEvent, ModelFacts, TensorFact } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';
import { documentSpec, locatorFor, timelineView } from '../../server/src/timeline/view';
import { renderSvg } from '../../server/src/timeline/render';

const GiB = 2 ** 30;
const spec = (s: string) => parseDeviceSpec(s) as DeviceSpec;
const SRC = 'import jax\nw = init()\ncopy = w.astype(f16)\ndel w\nout = f(copy)\n';
const at = (line: number) => { const starts = [0]; for (let i = 0; i < SRC.length; i++) if (SRC[i] === '\n') starts.push(i + 1); return { start: starts[line - 1], end: starts[line - 1] + 1 }; };
function t(id: number, gib: number, extra: Partial<TensorFact> = {}): TensorFact {
  return { id, label: `t${id}`, shape: [gib * 2 ** 28], dtype: 'float32', role: 'param', placement: { kind: 'device', index: 0 }, ...extra };
}
function facts(events: MemoryEvent[]): ModelFacts {
  return {
    name: 'Net', framework: 'jax', span: { start: 0, end: 1 }, params: [], buffers: [], paramCount: null,
    phases: [{ phase: 'init', events, notes: [], unknowns: [] }], unknowns: [], runtime: { runtime: 'jax', versions: {} },
  };
}
const locate = locatorFor(SRC, 'file:///x/model.py', '/x/model.py', (f) => `file://${f}`);

interface Row { band: string; x0: number; x1: number; y0: number; y1: number; contributor: string; bytes: string; created: string; during: string; uri?: string; line?: number }
type Spec = { layer: { data?: { values: Row[] }; encoding?: Record<string, { scale?: { domain: unknown[] }; axis?: { values: number[]; labelExpr: string }; title?: string }>; layer?: { mark: { type: string } }[] }[] };

const f = facts([
  alloc(t(1, 20, { label: 'weights <&>', span: at(2) })),
  alloc(t(2, 8, { label: 'half copy', role: 'activation', span: at(3) })),
  { op: 'free', id: 1, span: at(4) },
  alloc(t(3, 1, { label: 'out', role: 'activation', span: at(5) })),
]);
function alloc(tensor: TensorFact): MemoryEvent { return { op: 'alloc', tensor }; }

test('rectangles stack to the live bytes, with tooltip fields and the line a click opens', () => {
  const e = estimate(f, spec('a100-40gb'));
  const v = timelineView(f, e, locate, { units: 'GB', width: 'container', titles: false });
  assert.equal(v.phases.length, 1);
  assert.equal(v.title, 'Memory timeline: Net (jax) on A100 40GB');
  const s = v.phases[0].spec as unknown as Spec;
  const rows = s.layer[0].data!.values;
  // At each step the top of the stack is the replay's live bytes (in GB on the axis).
  const p = e.phases[0];
  p.timeline.forEach((pt, j) => {
    const top = Math.max(0, ...rows.filter((r) => r.x0 <= j && j < r.x1).map((r) => r.y1));
    assert.ok(Math.abs(top * 1e9 - pt.liveBytes) < 1, `step ${j}: ${top} GB vs ${pt.liveBytes}`);
  });
  const w = rows.find((r) => r.band === 'weights <&>')!;
  assert.equal(w.contributor, 'weights <&> (param)');
  assert.equal(w.bytes, '21.5 GB');
  assert.equal(w.created, 'model.py:2 `w = init()`');
  assert.equal(w.uri, 'file:///x/model.py');
  assert.equal(w.line, 1);
  assert.match(w.during, /^line 2: \+ weights <&>/);
  // The x axis: one tick per source line, named by the line.
  const x = s.layer[0].encoding!.x;
  assert.deepEqual(x.axis!.values, [0.5, 1.5, 2.5, 3.5]);
  assert.match(x.axis!.labelExpr, /^\["L2","L3","L4","L5"\]\[floor\(datum\.value\)\]$/);
  assert.equal(v.phases[0].heading, 'init: peak 30.1 GB of 31.7 GB usable · ✓ fits');
});

test('the y axis follows the peak; the budget line is drawn only where it fits on it', () => {
  // Peak 28 GiB against A100 40GB under JAX (31.7 GB: 75% of CUDA's 42.3 GB): the budget line is drawn.
  const near = timelineView(f, estimate(f, spec('a100-40gb')), locate, { units: 'GB', width: 600 }).phases[0];
  const rules = (sp: Record<string, unknown>) => (sp as unknown as Spec).layer.flatMap((l) => l.layer ?? []).filter((l) => l.mark.type === 'rule');
  assert.equal(rules(near.spec).length, 1);
  assert.deepEqual(near.notes, []);
  // A small model on an H200: the axis ends near its peak, the budget is a note.
  const small = facts([alloc(t(1, 1, { span: at(2) })), alloc(t(2, 1, { span: at(3) }))]);
  const far = timelineView(small, estimate(small, spec('h200')), locate, { units: 'GiB', width: 600 }).phases[0];
  assert.equal(rules(far.spec).length, 0);
  const domain = (far.spec as unknown as Spec).layer[0].encoding!.y.scale!.domain as number[];
  assert.ok(domain[1] >= 2 && domain[1] < 3, `y axis to ${domain[1]} GiB for a 2 GiB peak`);
  assert.match(far.notes[0], /^budget [\d.]+ GiB is above this scale: the peak is [\d.]+% of it$/);
});

test('vega draws the document to a standalone SVG: escaped, deterministic, budget, peak and contributors', async () => {
  const e = estimate(f, spec('a100-40gb'));
  const doc = documentSpec(timelineView(f, e, locate, { units: 'GB', width: 600 }), 600);
  const svg = await renderSvg(doc);
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.trimEnd().endsWith('</svg>'));
  assert.ok(!/<script|<foreignObject|href="http|@import/i.test(svg), 'nothing to run or fetch');
  assert.ok(svg.includes('weights &lt;&amp;&gt; (param)'), 'labels escaped');
  assert.ok(!svg.includes('<&>'));
  assert.ok(svg.includes('budget 31.7 GB'));
  assert.ok(svg.includes('peak 30.1 GB'));
  assert.ok(svg.includes('init: peak 30.1 GB of 31.7 GB usable · ✓ fits'));
  assert.ok(svg.includes('>L3<'), 'steps named by source line');
  assert.equal(await renderSvg(doc), svg);
  // No phase: still a valid picture that says so.
  const none: ModelFacts = { ...f, phases: [] };
  assert.ok((await renderSvg(documentSpec(timelineView(none, estimate(none, spec('t4')), locate, { units: 'GB', width: 600 }), 600))).includes('No phase was traced'));
});
