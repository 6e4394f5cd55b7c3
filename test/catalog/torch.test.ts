// The PyTorch layer catalogue against real PyTorch: each constructor call in
// the grid below is built by test/catalog/torch_truth.py (meta device) and by
// the catalogue, and the parameter and buffer names, shapes and dtypes must be
// identical. Python with torch is required (CI installs Debian python3-torch);
// without it the test fails and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TORCH_LAYERS, torchLayer } from '../../server/src/frameworks/torch/catalog';
import type { Args, CatValue } from '../../server/src/interp/catalog-types';
import type { DType } from '../../shared/src/facts';

type Json = number | string | boolean | null | Json[] | { dtype: string };
interface Case { qualname: string; args?: Json[]; kwargs?: Record<string, Json>; min?: [number, number] }

const f16 = { dtype: 'float16' };
const bf16 = { dtype: 'bfloat16' };

const CASES: Case[] = [
  { qualname: 'torch.nn.Linear', args: [20, 30] },
  { qualname: 'torch.nn.Linear', args: [20, 30, false] },
  { qualname: 'torch.nn.modules.linear.Linear', args: [7, 3], kwargs: { dtype: bf16 } },
  { qualname: 'torch.nn.Bilinear', args: [5, 6, 7] },
  { qualname: 'torch.nn.Bilinear', args: [5, 6, 7], kwargs: { bias: false } },
  { qualname: 'torch.nn.Embedding', args: [100, 16] },
  { qualname: 'torch.nn.Embedding', args: [100, 16], kwargs: { padding_idx: 0, dtype: f16 } },
  { qualname: 'torch.nn.EmbeddingBag', args: [50, 8], kwargs: { mode: 'sum' } },
  { qualname: 'torch.nn.Conv1d', args: [4, 8, 3] },
  { qualname: 'torch.nn.Conv1d', args: [4, 8, 3], kwargs: { groups: 2, bias: false } },
  { qualname: 'torch.nn.Conv2d', args: [3, 16, [3, 5]], kwargs: { stride: 2, padding: 1 } },
  { qualname: 'torch.nn.Conv2d', args: [8, 8, 3], kwargs: { groups: 8 } },
  { qualname: 'torch.nn.Conv3d', args: [2, 4, 3], kwargs: { dtype: f16 } },
  { qualname: 'torch.nn.ConvTranspose1d', args: [4, 6, 3] },
  { qualname: 'torch.nn.ConvTranspose2d', args: [4, 6, 3], kwargs: { groups: 2 } },
  { qualname: 'torch.nn.ConvTranspose2d', args: [4, 6, [2, 3]], kwargs: { bias: false } },
  { qualname: 'torch.nn.ConvTranspose3d', args: [6, 9, 2], kwargs: { groups: 3 } },
  { qualname: 'torch.nn.LayerNorm', args: [32] },
  { qualname: 'torch.nn.LayerNorm', args: [[4, 8]] },
  { qualname: 'torch.nn.LayerNorm', args: [32], kwargs: { elementwise_affine: false } },
  { qualname: 'torch.nn.LayerNorm', args: [32], kwargs: { bias: false }, min: [2, 1] },
  { qualname: 'torch.nn.RMSNorm', args: [32], min: [2, 4] },
  { qualname: 'torch.nn.RMSNorm', args: [[4, 8]], kwargs: { elementwise_affine: false }, min: [2, 4] },
  { qualname: 'torch.nn.GroupNorm', args: [4, 16] },
  { qualname: 'torch.nn.GroupNorm', args: [4, 16], kwargs: { affine: false } },
  { qualname: 'torch.nn.BatchNorm1d', args: [10] },
  { qualname: 'torch.nn.BatchNorm2d', args: [10], kwargs: { affine: false } },
  { qualname: 'torch.nn.BatchNorm3d', args: [10], kwargs: { track_running_stats: false } },
  { qualname: 'torch.nn.BatchNorm2d', args: [10], kwargs: { dtype: f16 } },
  // Private bases user norms derive from (class SyncBN(_BatchNorm)), built directly as PyTorch allows.
  { qualname: 'torch.nn.modules.batchnorm._BatchNorm', args: [12] },
  { qualname: 'torch.nn.modules.batchnorm._NormBase', args: [12], kwargs: { affine: false } },
  { qualname: 'torch.nn.InstanceNorm1d', args: [6] },
  { qualname: 'torch.nn.InstanceNorm2d', args: [6], kwargs: { affine: true } },
  { qualname: 'torch.nn.InstanceNorm3d', args: [6], kwargs: { affine: true, track_running_stats: true } },
  { qualname: 'torch.nn.PReLU', args: [] },
  { qualname: 'torch.nn.PReLU', args: [12] },
  { qualname: 'torch.nn.MultiheadAttention', args: [64, 8] },
  { qualname: 'torch.nn.MultiheadAttention', args: [64, 8], kwargs: { bias: false } },
  { qualname: 'torch.nn.MultiheadAttention', args: [64, 8], kwargs: { kdim: 32, vdim: 48 } },
  { qualname: 'torch.nn.MultiheadAttention', args: [64, 4], kwargs: { add_bias_kv: true, kdim: 64 } },
  { qualname: 'torch.nn.RNN', args: [10, 20] },
  { qualname: 'torch.nn.RNN', args: [10, 20, 3], kwargs: { bias: false, nonlinearity: 'relu' } },
  { qualname: 'torch.nn.LSTM', args: [10, 20] },
  { qualname: 'torch.nn.LSTM', args: [10, 20, 2], kwargs: { bidirectional: true } },
  { qualname: 'torch.nn.LSTM', args: [10, 20], kwargs: { num_layers: 3, proj_size: 7, bidirectional: true } },
  { qualname: 'torch.nn.LSTM', args: [10, 20], kwargs: { proj_size: 5, bias: false, dtype: f16 } },
  { qualname: 'torch.nn.GRU', args: [12, 9, 2] },
  { qualname: 'torch.nn.GRU', args: [12, 9], kwargs: { bidirectional: true, num_layers: 2, batch_first: true } },
  { qualname: 'torch.nn.RNNCell', args: [10, 20] },
  { qualname: 'torch.nn.LSTMCell', args: [10, 20], kwargs: { bias: false } },
  { qualname: 'torch.nn.GRUCell', args: [10, 20] },
  { qualname: 'torch.nn.TransformerEncoderLayer', args: [64, 4] },
  { qualname: 'torch.nn.TransformerEncoderLayer', args: [64, 8, 256], kwargs: { batch_first: true } },
  { qualname: 'torch.nn.TransformerEncoderLayer', args: [64, 8, 256], kwargs: { bias: false }, min: [2, 1] },
  { qualname: 'torch.nn.TransformerDecoderLayer', args: [32, 4, 128] },
  { qualname: 'torch.nn.TransformerDecoderLayer', args: [32, 4], kwargs: { bias: false }, min: [2, 1] },
  { qualname: 'torch.nn.Transformer' },
  { qualname: 'torch.nn.Transformer', args: [32, 4, 2, 1, 64] },
  { qualname: 'torch.nn.Transformer', kwargs: { d_model: 16, nhead: 2, num_encoder_layers: 1, num_decoder_layers: 3, dim_feedforward: 24, dtype: f16 } },
  { qualname: 'torch.nn.Transformer', kwargs: { d_model: 16, nhead: 2, num_encoder_layers: 2, num_decoder_layers: 1, bias: false }, min: [2, 1] },
  { qualname: 'torch.nn.ReLU' }, { qualname: 'torch.nn.GELU' }, { qualname: 'torch.nn.Dropout', args: [0.1] },
  { qualname: 'torch.nn.Identity' }, { qualname: 'torch.nn.Flatten' }, { qualname: 'torch.nn.MaxPool2d', args: [2] },
  { qualname: 'torch.nn.AdaptiveAvgPool2d', args: [1] }, { qualname: 'torch.nn.LocalResponseNorm', args: [2] },
  { qualname: 'torch.nn.Softmax', args: [-1] }, { qualname: 'torch.nn.SiLU' },
];

/** Finds a python3 with torch: $OOMLENS_PYTHON, then python3 on PATH, then /usr/bin/python3 (Debian's python3-torch). */
function findPython(): { exe: string; version: string } | { error: string } {
  const tried: string[] = [];
  for (const exe of [process.env.OOMLENS_PYTHON, 'python3', '/usr/bin/python3'].filter((x): x is string => !!x)) {
    const r = spawnSync(exe, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
    if (r.status === 0) return { exe, version: r.stdout.trim() };
    tried.push(`${exe}: ${r.error ? r.error.message : r.stderr.trim().split('\n').pop()}`);
  }
  return { error: `no python3 with torch found (install Debian python3-torch or set OOMLENS_PYTHON); tried ${tried.join('; ')}` };
}

function toCat(v: Json): CatValue {
  if (Array.isArray(v)) return v.map(toCat);
  if (v !== null && typeof v === 'object') return { kind: 'dtype', dtype: v.dtype as DType };
  return v;
}

/** Binds a call as the interpreter does: positionals by signature, then keywords, then defaults. */
function bind(c: Case): Args {
  const e = torchLayer(c.qualname);
  assert.ok(e, `${c.qualname} is not in the catalogue`);
  const a: Args = {};
  (c.args ?? []).forEach((v, i) => { a[e.signature[i]] = toCat(v); });
  for (const [k, v] of Object.entries(c.kwargs ?? {})) a[k] = toCat(v);
  for (const [k, v] of Object.entries(e.defaults)) if (!(k in a)) a[k] = v;
  return a;
}

type Desc = Record<string, [number[], string]>;
interface Truth { params: Desc; buffers: Desc; error?: string }

function sorted(d: Desc): Desc {
  return Object.fromEntries(Object.entries(d).sort(([x], [y]) => x.localeCompare(y)));
}

test('every torch catalogue entry is named torch.nn.X and cites its source', () => {
  for (const e of TORCH_LAYERS) {
    // Public layers, or a private base of them (torch.nn.modules.batchnorm._BatchNorm, named torch.nn._BatchNorm too).
    assert.ok(e.names.some((n) => /^torch\.nn\._?[A-Z]\w*$/.test(n)), e.names.join());
    assert.match(e.citation, /torch\/nn\/modules\/\w+\.py/);
  }
  // Every entry with parameters appears in the grid at least once.
  for (const e of TORCH_LAYERS) {
    const hasParams = e.citation.indexOf('no parameters') < 0;
    if (hasParams && !e.names.includes('torch.nn.LazyLinear') && !e.names.includes('torch.nn.SyncBatchNorm')) {
      assert.ok(CASES.some((c) => e.names.includes(c.qualname)), `${e.names[0]} has no case in the grid`);
    }
  }
});

test('catalogue parameters and buffers match real PyTorch', async (t) => {
  const py = findPython();
  if ('error' in py) assert.fail(py.error);
  const [maj, min] = py.version.split('.').map((x) => Number.parseInt(x, 10));
  const runnable = CASES.filter((c) => !c.min || maj > c.min[0] || (maj === c.min[0] && min >= c.min[1]));
  const r = spawnSync(py.exe, [join(__dirname, 'torch_truth.py')], { input: JSON.stringify(runnable), encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `torch_truth.py failed: ${r.stderr}`);
  const truth = JSON.parse(r.stdout) as { version: string; results: Truth[] };
  assert.equal(truth.results.length, runnable.length);
  for (const c of CASES) {
    const label = `${c.qualname}(${JSON.stringify(c.args ?? [])}, ${JSON.stringify(c.kwargs ?? {})})`;
    const i = runnable.indexOf(c);
    if (i < 0) {
      // Honest skip: the installed torch predates the argument or module.
      await t.test(label, { skip: `needs torch >= ${c.min!.join('.')}, installed ${py.version}` }, () => {});
      continue;
    }
    await t.test(label, () => {
      const want = truth.results[i];
      assert.equal(want.error, undefined, `PyTorch ${truth.version} could not build it: ${want.error}`);
      const got = torchLayer(c.qualname)!.params(bind(c));
      assert.ok(Array.isArray(got), `catalogue returned ${JSON.stringify(got)}`);
      const desc = (role: 'param' | 'buffer'): Desc => Object.fromEntries(got.filter((s) => s.role === role).map((s) => [s.name, [s.shape as number[], s.dtype]]));
      assert.deepEqual(sorted(desc('param')), sorted(want.params), 'parameters');
      assert.deepEqual(sorted(desc('buffer')), sorted(want.buffers), 'buffers');
    });
  }
});

test('unknown arguments give an honest unknown, not a guess', () => {
  const lin = torchLayer('torch.nn.Linear')!;
  const r = lin.params({ in_features: { kind: 'unknown', reason: 'x' }, out_features: 4, bias: true });
  assert.ok(!Array.isArray(r) && r.kind === 'unknown');
  const conv = torchLayer('torch.nn.Conv2d')!;
  const bad = conv.params({ in_channels: 6, out_channels: 4, kernel_size: 3, groups: 4 });
  assert.ok(!Array.isArray(bad) && bad.kind === 'unknown' && /divisible/.test(bad.reason));
});

test('output shapes: Linear, Embedding, Conv2d, ConvTranspose2d', () => {
  const x = { kind: 'array' as const, shape: [8, 20], dtype: 'float32' as const };
  assert.deepEqual(torchLayer('torch.nn.Linear')!.output!({ in_features: 20, out_features: 30 }, x), { kind: 'array', shape: [8, 30], dtype: 'float32' });
  const ids = { kind: 'array' as const, shape: [2, 5], dtype: 'int64' as const };
  assert.deepEqual(torchLayer('torch.nn.Embedding')!.output!({ num_embeddings: 100, embedding_dim: 16 }, ids), { kind: 'array', shape: [2, 5, 16], dtype: 'float32' });
  // (32 + 2*1 - 1*(3-1) - 1)/2 + 1 = 16.5 -> 16 (floor).
  const img = { kind: 'array' as const, shape: [1, 3, 32, 32], dtype: 'float32' as const };
  const conv = torchLayer('torch.nn.Conv2d')!;
  assert.deepEqual(conv.output!({ ...conv.defaults, in_channels: 3, out_channels: 16, kernel_size: 3, stride: 2, padding: 1 }, img), { kind: 'array', shape: [1, 16, 16, 16], dtype: 'float32' });
  // (32-1)*2 - 0 + 1*(2-1) + 0 + 1 = 64.
  const tc = torchLayer('torch.nn.ConvTranspose2d')!;
  assert.deepEqual(tc.output!({ ...tc.defaults, in_channels: 3, out_channels: 4, kernel_size: 2, stride: 2 }, img), { kind: 'array', shape: [1, 4, 64, 64], dtype: 'float32' });
});
