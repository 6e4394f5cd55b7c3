// Issue 4's corpus as a test: parameter counts on 30+ real-style model
// definitions against ground truth (PyTorch truths computed by running
// PyTorch here, JAX truths from the arithmetic in each file's header), no
// wrong numbers, no regression of a model recorded as exact in
// baseline.json, buffers equal to PyTorch's (counted apart from parameters),
// no alarm-family finding that the manifest does not expect, and at least 95%
// of the models with a truth exact (issue 4's acceptance bar).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeTorchTruth, entryKey, loadBaseline, loadManifest, runCorpus, totals, type CorpusResult } from './compare';

const torch = computeTorchTruth();
let cached: Promise<CorpusResult> | undefined;
const corpus = () => (cached ??= runCorpus(torch));

const describeRow = (r: CorpusResult['rows'][number]) =>
  `${r.key}: expected ${r.expected}, predicted ${r.predicted}${r.reasons.length ? ` (${r.reasons.slice(0, 3).join('; ')})` : ''}`;

test('corpus: at least 30 models, with ≥14 PyTorch, ≥5 Flax, ≥4 Haiku, ≥5 Equinox, unique keys', () => {
  const m = loadManifest().models;
  assert.ok(m.length >= 30, `${m.length} models`);
  const per = (fw: string) => m.filter((e) => e.framework === fw).length;
  assert.ok(per('torch') >= 14 && per('flax') >= 5 && per('haiku') >= 4 && per('equinox') >= 5);
  assert.equal(new Set(m.map(entryKey)).size, m.length, 'duplicate file::name::index keys');
  for (const e of m) {
    if (e.framework !== 'torch') assert.ok(Number.isInteger(e.truth.params) && e.truth.params! > 0, `${entryKey(e)} has no truth`);
    else assert.equal(e.truth.params, null, `${entryKey(e)}: torch truths must come from PyTorch, not the manifest`);
  }
});

test('corpus: PyTorch truths were computed by PyTorch (python3 with torch ran torch_truth.py)', () => {
  assert.ok(torch.ok, torch.error);
  assert.match(torch.torch ?? '', /^\d+\.\d+/);
  for (const e of loadManifest().models.filter((x) => x.framework === 'torch')) {
    const t = torch.entries[entryKey(e)];
    assert.ok(t && !t.error, `${entryKey(e)}: ${t?.error ?? 'not computed'}`);
    assert.ok(t.params! > 0);
    // The manifest name must be the class PyTorch actually built, and nothing may have been allocated for real.
    assert.equal(t.class, e.name, `${entryKey(e)} builds ${t.class}`);
    assert.deepEqual(t.devices, ['meta']);
  }
});

test('corpus: JAX arithmetic agrees with PyTorch where the architecture is the same', () => {
  assert.ok(torch.ok, torch.error);
  const jax = new Map(loadManifest().models.map((e) => [entryKey(e), e.truth.params]));
  // flax/resnet.py mirrors torchvision resnet18; flax/mnist.py MLP has torch/mnist.py MLP's layer sizes.
  assert.equal(jax.get('flax/resnet.py::ResNet::0'), torch.entries['torch/resnet.py::ResNet::0'].params);
  assert.equal(jax.get('flax/mnist.py::MLP::0'), torch.entries['torch/mnist.py::MLP::0'].params);
});

test('corpus: no model gets a wrong parameter count', async () => {
  const wrong = (await corpus()).rows.filter((r) => r.status === 'wrong');
  assert.deepEqual(wrong.map(describeRow), []);
});

test('corpus: every model in baseline.json is still exact', async () => {
  const rows = new Map((await corpus()).rows.map((r) => [r.key, r]));
  const regressed = loadBaseline().filter((k) => rows.get(k)?.status !== 'exact');
  assert.deepEqual(regressed.map((k) => (rows.has(k) ? describeRow(rows.get(k)!) : `${k}: no longer in the manifest`)), []);
});

test('corpus: buffers of every PyTorch model equal PyTorch\'s, counted apart from parameters', async () => {
  // torch_truth.py sums model.buffers() (BatchNorm running stats, registered masks, rotary caches);
  // oomlens reports buffers separately from the parameter count, and they must agree.
  const rows = (await corpus()).rows.filter((r) => r.entry.framework === 'torch' && r.status === 'exact');
  assert.ok(rows.length > 0);
  const off = rows.filter((r) => r.expectedBuffers === null || r.predictedBuffers !== r.expectedBuffers);
  assert.deepEqual(off.map((r) => `${r.key}: PyTorch ${r.expectedBuffers} buffer elements, predicted ${r.predictedBuffers}`), []);
});

test('corpus: unknown counts name the construct that stopped the analysis', async () => {
  const silent = (await corpus()).rows.filter((r) => (r.status === 'unknown' || r.status === 'missing') && r.reasons.length === 0);
  assert.deepEqual(silent.map(describeRow), []);
});

test('corpus: no unexpected OOM1xx/OOM2xx/OOM9xx finding fires on the corpus', async () => {
  const alarms = (await corpus()).falseAlarms;
  assert.deepEqual(alarms.map((a) => `${a.file} ${a.code} (${a.severity}): ${a.message}`), []);
});

test('corpus: the exact share never falls below the recorded baseline', async () => {
  // baseline.json holds the models exact when it was last recorded (`npm run corpus -- --update-baseline`);
  // with the per-model check above, the share may only grow.
  const t = totals(await corpus());
  const floor = loadBaseline().length / (t.total - t.noTruth);
  assert.ok(t.exactShare >= floor, `${t.exact}/${t.total - t.noTruth} exact, below the recorded ${(100 * floor).toFixed(1)}%`);
});

test('corpus: at least 95% of the models with a truth are exact (issue 4 acceptance bar)', async () => {
  const r = await corpus();
  const t = totals(r);
  const notExact = r.rows.filter((x) => x.status !== 'exact' && x.status !== 'no-truth').map(describeRow);
  assert.ok(t.exactShare >= 0.95, `${t.exact}/${t.total - t.noTruth} exact (${(100 * t.exactShare).toFixed(1)}%); not exact:\n${notExact.join('\n')}`);
});
