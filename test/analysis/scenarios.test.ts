// The five seed scenarios (copied into test/fixtures/scenarios so the suite
// does not depend on ../shared): exact parameter counts, phase peaks against
// the device budget, and the diagnostic each README describes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const dir = join(__dirname, '..', 'fixtures', 'scenarios');
const GB = 1e9;
const GiB = 2 ** 30;

async function run(rel: string, device: string) {
  const path = join(dir, rel);
  return analyze(readFileSync(path, 'utf8'), { path, device });
}

test('s1 equinox mistral: 7,241,732,096 params, init peak above 40 GB on a100-40gb, OOM101', async () => {
  const r = await run('s1_equinox_mistral/model.py', 'a100-40gb');
  const m = r.models.find((x) => x.facts.name === 'Transformer');
  assert.ok(m, JSON.stringify(r.unknowns));
  assert.equal(m.facts.paramCount, 7_241_732_096);
  const init = m.estimate.phases.find((p) => p.phase === 'init')!;
  // fp32 stack (6,979,588,096 block params × 4 B = 27.9 GB) + its fp16 copy (14.0 GB) + fp32 embedding (0.52 GB).
  assert.ok(init.peakBytes! > 40 * GB && init.peakBytes! < 45 * GB, `init peak ${init.peakBytes}`);
  // 75% of what CUDA reports for an A100 40GB, 42,298,834,944 B (devices.ts) = 31,724,126,208 B (29.55 GiB).
  assert.equal(init.budgetBytes, 31_724_126_208);
  assert.equal(init.fits, false);
  assert.ok(r.findings.some((f) => f.code === 'OOM101'));
  assert.ok(r.findings.some((f) => f.code === 'OOM001'));
});

test('s2 flax sharded dense: 8,589,934,592 params, ~100 GiB per device on 8xh100-80gb, OOM103', async () => {
  const r = await run('s2_flax_sharded_dense/train.py', '8xh100-80gb');
  const m = r.models.find((x) => x.facts.name === 'WideProjection');
  assert.ok(m, JSON.stringify(r.unknowns));
  assert.equal(m.facts.paramCount, 8_589_934_592);
  const init = m.estimate.phases.find((p) => p.phase === 'init')!;
  // 4 GiB output shard + 3 × 32 GiB Threefry temporaries = 100 GiB per device (flax#3701).
  assert.equal(init.peakBytes, 100 * GiB);
  assert.equal(init.fits, false);
  assert.ok(r.findings.some((f) => f.code === 'OOM103'));
});

test('s3 haiku pair init: 33,408 params, eager init in the tens of GB on a100-80gb, OOM104', async () => {
  const r = await run('s3_haiku_pair_init/model.py', 'a100-80gb');
  const m = r.models.find((x) => x.facts.name === 'forward');
  assert.ok(m, JSON.stringify(r.unknowns));
  assert.equal(m.facts.paramCount, 33_408);
  const init = m.estimate.phases.find((p) => p.phase === 'init')!;
  // The product and its gelu, each [414,414,414,128] float32 = 36.3 GB, exist together.
  assert.ok(init.peakBytes! > 72 * GB && init.peakBytes! < 75 * GB, `init peak ${init.peakBytes}`);
  assert.equal(init.fits, false);
  assert.ok(r.findings.some((f) => f.code === 'OOM104'));
});

test('s4 equinox mlp prealloc: 9,450,497 params, OOM901 on the late setting, T4 reservation shown', async () => {
  const r = await run('s4_equinox_mlp_prealloc/infer.py', 't4');
  const m = r.models.find((x) => x.facts.name === 'MLP');
  assert.ok(m, JSON.stringify(r.unknowns));
  assert.equal(m.facts.paramCount, 9_450_497);
  // JAX reserves 75% of CUDA's total for a T4, 14.56 GiB (devices.ts): floor(0.75 × 15,633,680,957) B.
  assert.equal(m.estimate.budget.reservedAtStartBytes, Math.floor(0.75 * Math.round(14.56 * 2 ** 30)));
  assert.equal(m.estimate.budget.reservedAtStartBytes, 11_725_260_717);
  const f = r.findings.find((x) => x.code === 'OOM901');
  assert.ok(f);
  assert.match(r.text.slice(f.span.start, f.span.end), /XLA_PYTHON_CLIENT_PREALLOCATE/);
});

test('s5 hf llama edit: 6,738,415,616 params loading in float32 over 2xv100-32gb, OOM201', async () => {
  const r = await run('s5_hf_llama_edit/edit.py', '2xv100-32gb');
  const m = r.models.find((x) => x.facts.name === 'meta-llama/Llama-2-7b-hf');
  assert.ok(m, JSON.stringify(r.unknowns));
  assert.equal(m.facts.paramCount, 6_738_415_616);
  assert.equal(m.estimate.paramBytes, 6_738_415_616 * 4);
  const load = m.estimate.phases.find((p) => p.phase === 'load')!;
  // Split over two cards: each holds about half of the 26.95 GB.
  assert.ok(load.perDeviceBytes.length === 2 && load.perDeviceBytes.every((b) => b > 10 * GB && b < 17 * GB), JSON.stringify(load.perDeviceBytes));
  const f = r.findings.find((x) => x.code === 'OOM201');
  assert.ok(f);
  assert.match(f.fixes[0].edits[0].newText, /torch_dtype=torch\.float16/);
});
