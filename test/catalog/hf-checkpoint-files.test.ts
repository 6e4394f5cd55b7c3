// Any checkpoint, offline: exact sizes from the local checkpoint files
// (safetensors headers, sharded indexes) in a folder next to the analysed
// file or in the Hugging Face cache layout, config.json arithmetic when only
// the config is there, and unknown — never 0 — when the architecture cannot
// be sized. The checkpoints are real ones written by transformers itself
// (test/python/make_tiny_checkpoint.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { readLocalWeights, readSafetensorsHeader } from '../../server/src/frameworks/transformers/hf-cache';
import { runPythonJson } from '../python/venv';

const OPT = { model_type: 'opt', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, ffn_dim: 96, num_attention_heads: 4, max_position_embeddings: 128, word_embed_proj_dim: 64 };

function write(dir: string, config: object, extra: Record<string, unknown> = {}): { params: number; bytes: number } {
  return runPythonJson('make_tiny_checkpoint.py', { out: dir, config, ...extra });
}

const src = (id: string, extra = '') => `import torch\nfrom transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("${id}"${extra})\n`;

test('safetensors header: exactly the counts transformers saved, weights never read', () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-st-'));
  try {
    const dir = join(root, 'tiny-opt');
    const truth = write(dir, OPT, { dtype: 'bfloat16' });
    const h = readSafetensorsHeader(join(dir, 'model.safetensors'));
    assert.ok(!('unknown' in h), JSON.stringify(h));
    const n = h.reduce((a, t) => a + t.shape.reduce((x, d) => x * d, 1), 0);
    // Tied lm_head: save_pretrained stores the shared tensor once, as parameters() yields it once.
    assert.equal(n, truth.params);
    assert.ok(h.every((t) => t.dtype === 'BF16'));
    // A truncated file is unknown with the reason, not zero.
    writeFileSync(join(root, 'bad.safetensors'), Buffer.from([1, 2, 3]));
    assert.ok('unknown' in (readSafetensorsHeader(join(root, 'bad.safetensors')) as object));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a local folder next to the analysed file: sized from its safetensors (sharded index too), relative path', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-local-'));
  try {
    const truth = write(join(root, 'ckpt'), OPT, { max_shard_size: '100KB' });
    assert.ok(readdirSync(join(root, 'ckpt')).includes('model.safetensors.index.json'), 'expected a sharded checkpoint');
    const w = readLocalWeights(join(root, 'ckpt'));
    assert.ok(w && 'tensors' in w && w.tensors);
    const path = join(root, 'load.py');
    const r = await analyze(src('./ckpt', ', torch_dtype=torch.float16'), { path, device: 'a100-40gb', versions: { transformers: '4.45.0' } });
    const m = r.models[0];
    assert.equal(m.facts.paramCount, truth.params);
    const load = m.estimate.phases.find((p) => p.phase === 'load')!;
    assert.equal(load.peakBytes, truth.params * 2);
    assert.equal(load.fits, true);
    assert.equal(load.peakIsLowerBound, false);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('HF cache layout (HF_HUB_CACHE, refs/main → snapshot): config.json arithmetic, index total_size, unknown model_type', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-cache-'));
  const saved = process.env.HF_HUB_CACHE;
  try {
    process.env.HF_HUB_CACHE = join(root, 'hub');
    const snap = (id: string, sha: string) => {
      const repo = join(root, 'hub', `models--${id.replace('/', '--')}`);
      mkdirSync(join(repo, 'snapshots', sha), { recursive: true });
      mkdirSync(join(repo, 'refs'), { recursive: true });
      writeFileSync(join(repo, 'refs', 'main'), sha);
      return join(repo, 'snapshots', sha);
    };
    // Config only (an OPT the shipped table does not know): sized by the OPT formula.
    const tmp = join(root, 'tmp-opt');
    const truth = write(tmp, OPT);
    const d1 = snap('acme/Tiny-OPT', 'abc123');
    renameSync(join(tmp, 'config.json'), join(d1, 'config.json'));
    const r1 = await analyze(src('acme/Tiny-OPT', ', torch_dtype=torch.bfloat16'), { path: join(root, 'a.py'), device: 'a100-40gb', versions: { transformers: '4.45.0' } });
    assert.equal(r1.models[0].facts.paramCount, truth.params);
    assert.equal(r1.models[0].estimate.phases[0].peakBytes, truth.params * 2);

    // Unknown architecture (custom code), no weights on disk: unknown with the reason, never 0.
    const d2 = snap('acme/custom-lm', 'def456');
    writeFileSync(join(d2, 'config.json'), JSON.stringify({ model_type: 'internlm2', auto_map: { AutoModelForCausalLM: 'modeling_internlm2.InternLM2ForCausalLM' }, hidden_size: 4096, num_hidden_layers: 32, vocab_size: 92544 }));
    const r2 = await analyze(src('acme/custom-lm', ', torch_dtype=torch.bfloat16, trust_remote_code=True'), { path: join(root, 'b.py'), device: 'a100-40gb', versions: { transformers: '4.45.0' } });
    const m2 = r2.models[0];
    assert.equal(m2.facts.paramCount, null);
    assert.equal(m2.estimate.paramBytes, null);
    const load2 = m2.estimate.phases[0];
    assert.equal(load2.peakBytes, null);
    assert.equal(load2.fits, null);
    assert.match(JSON.stringify(m2.facts.unknowns), /internlm2.*no parameter formula.*trust_remote_code/);

    // Same custom model with safetensors on disk: sized exactly from the headers.
    const tmp3 = join(root, 'tmp3');
    const t3 = write(tmp3, OPT);
    const d3 = snap('acme/custom-with-weights', '0789');
    writeFileSync(join(d3, 'config.json'), JSON.stringify({ model_type: 'internlm2', auto_map: {} }));
    renameSync(join(tmp3, 'model.safetensors'), join(d3, 'model.safetensors'));
    const r3 = await analyze(src('acme/custom-with-weights', ', torch_dtype=torch.float16, trust_remote_code=True'), { path: join(root, 'c.py'), device: 'a100-40gb', versions: { transformers: '4.45.0' } });
    assert.equal(r3.models[0].facts.paramCount, t3.params);

    // An index whose shards are not downloaded: its metadata.total_size is read.
    const d4 = snap('acme/big', '1111');
    writeFileSync(join(d4, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: 13476839424 }, weight_map: { 'a.weight': 'model-00001-of-00002.safetensors' } }));
    const w4 = readLocalWeights(d4);
    assert.deepEqual(w4 && 'totalBytes' in w4 ? w4.totalBytes : undefined, 13476839424);
  } finally {
    if (saved === undefined) delete process.env.HF_HUB_CACHE; else process.env.HF_HUB_CACHE = saved;
    rmSync(root, { recursive: true, force: true });
  }
});
