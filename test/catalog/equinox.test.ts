// The Equinox layer catalogue against counts derived by hand from
// equinox/nn/*.py (v0.11.4); every expected number is worked out in the
// comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EQUINOX_LAYERS } from '../../server/src/frameworks/equinox/catalog';
import type { Args, ParamSpec, UnknownValue } from '../../server/src/interp/catalog-types';
import { arr, catalogue, count, shapes } from './helpers';

const cat = catalogue(EQUINOX_LAYERS);
const { entry, bind } = cat;
/** Equinox layers are sized from their constructor arguments alone (no input). */
const specs = (name: string, pos: Args[string][], kw: Args = {}): ParamSpec[] => cat.specs(name, undefined, pos, kw);
const unknownOf = (name: string, pos: Args[string][], kw: Args = {}): UnknownValue => cat.unknownOf(name, undefined, pos, kw);

test('Linear: weight (out, in), bias (out,), random, float32 by default', () => {
  const ps = specs('equinox.nn.Linear', [3, 5]);
  assert.deepEqual(shapes(ps), { weight: [5, 3], bias: [5] });
  assert.ok(ps.every((p) => p.init === 'random' && p.dtype === 'float32' && p.role === 'param'));
  assert.deepEqual(shapes(specs('equinox.nn.Linear', [3, 5, false])), { weight: [5, 3] });
  assert.deepEqual(specs('equinox.nn.Linear', [3, 5], { dtype: { kind: 'dtype', dtype: 'bfloat16' } })[0].dtype, 'bfloat16');
  // "scalar" drops the dimension: Linear("scalar", 4) has weight (4,), bias (4,).
  assert.deepEqual(shapes(specs('equinox.nn.Linear', ['scalar', 4])), { weight: [4], bias: [4] });
  assert.deepEqual(shapes(specs('equinox.nn._linear.Linear', [4, 'scalar'])), { weight: [4], bias: [] });
  assert.deepEqual(entry('equinox.nn.Linear').output!(bind(entry('equinox.nn.Linear'), [3, 5]), arr([3])), arr([5]));
  assert.match(unknownOf('equinox.nn.Linear', [{ kind: 'unknown', reason: 'x' }, 5]).reason, /in_features/);
  assert.match(unknownOf('equinox.nn.Linear', [3]).reason, /out_features/);
});

test('MLP: depth+1 Linear layers; MLP(2, 1, 1024, depth=10) = 9,450,497 parameters', () => {
  // 2*1024+1024 = 3,072; 9 × (1024*1024+1024) = 9,446,400; 1024+1 = 1,025;
  // total 3,072 + 9,446,400 + 1,025 = 9,450,497.
  const ps = specs('equinox.nn.MLP', [2, 1, 1024, 10]);
  assert.equal(count(ps), 9_450_497);
  assert.equal(ps.filter((p) => p.name.endsWith('weight')).length, 11);
  assert.deepEqual(ps[0], { name: 'layers.0.weight', shape: [1024, 2], dtype: 'float32', role: 'param', init: 'random' });
  assert.deepEqual(ps[ps.length - 1].name, 'layers.10.bias');
  // depth=0: one Linear in → out with the final bias: 2*1+1 = 3.
  assert.deepEqual(shapes(specs('equinox.nn.MLP', [2, 1, 8, 0])), { 'layers.0.weight': [1, 2], 'layers.0.bias': [1] });
  // use_final_bias=False, use_bias=False: 2*4 + 4*4 + 4*3 = 36.
  assert.equal(count(specs('equinox.nn.MLP', [2, 3, 4, 2], { use_bias: false, use_final_bias: false })), 36);
  // "scalar" in/out: MLP('scalar', 'scalar', 4, 1): 4+4 + 4+1 = 13.
  assert.equal(count(specs('equinox.nn.MLP', ['scalar', 'scalar', 4, 1])), 13);
  assert.match(unknownOf('equinox.nn.MLP', [2, 1, 1024]).reason, /depth/);
  assert.match(unknownOf('equinox.nn.MLP', [2, 1, null, 3]).reason, /width_size/);
});

test('Embedding: weight (num, size) random normal', () => {
  const ps = specs('equinox.nn.Embedding', [1000, 64]);
  assert.deepEqual(ps, [{ name: 'weight', shape: [1000, 64], dtype: 'float32', role: 'param', init: 'random' }]);
  const e = entry('equinox.nn.Embedding');
  assert.deepEqual(e.output!(bind(e, [1000, 64]), arr([], 'int32')), arr([64]));
  assert.match(unknownOf('equinox.nn.Embedding', [1000]).reason, /embedding_size/);
});

test('Conv family: weight (out, in//groups, *k), bias (out, *(1,)*n)', () => {
  assert.deepEqual(shapes(specs('equinox.nn.Conv2d', [3, 16, 3])), { weight: [16, 3, 3, 3], bias: [16, 1, 1] });
  assert.deepEqual(shapes(specs('equinox.nn.Conv1d', [8, 4, 5], { groups: 2, use_bias: false })), { weight: [4, 4, 5] });
  assert.deepEqual(shapes(specs('equinox.nn.Conv3d', [2, 4, [1, 2, 3]])), { weight: [4, 2, 1, 2, 3], bias: [4, 1, 1, 1] });
  assert.deepEqual(shapes(specs('equinox.nn.Conv', [2, 3, 6, 3])), { weight: [6, 3, 3, 3], bias: [6, 1, 1] });
  assert.deepEqual(shapes(specs('equinox.nn.ConvTranspose2d', [4, 6, 3])), { weight: [6, 4, 3, 3], bias: [6, 1, 1] });
  const c = entry('equinox.nn.Conv2d');
  // 32 → floor((32 + 2 - 2 - 1)/2) + 1 = 16.
  assert.deepEqual(c.output!(bind(c, [3, 16, 3], { stride: 2, padding: 1 }), arr([3, 32, 32])), arr([16, 16, 16]));
  const t = entry('equinox.nn.ConvTranspose2d');
  // (16 - 1)*2 - 2 + 2 + 1 + 1 = 32 with output_padding 1.
  assert.deepEqual(t.output!(bind(t, [16, 3, 3], { stride: 2, padding: 1, output_padding: 1 }), arr([16, 16, 16])), arr([3, 32, 32]));
  assert.match(unknownOf('equinox.nn.Conv2d', [3, 16]).reason, /kernel_size/);
});

test('Norms: LayerNorm / RMSNorm weight ones + bias zeros; GroupNorm; BatchNorm state', () => {
  const ln = specs('equinox.nn.LayerNorm', [[4, 8]]);
  assert.deepEqual(ln.map((p) => [p.name, p.shape, p.init]), [['weight', [4, 8], 'ones'], ['bias', [4, 8], 'zeros']]);
  assert.equal(specs('equinox.nn.LayerNorm', [16], { use_bias: false }).length, 1);
  // RMSNorm in v0.11.4 defaults use_weight=True, use_bias=True.
  assert.deepEqual(shapes(specs('equinox.nn.RMSNorm', [32])), { weight: [32], bias: [32] });
  assert.deepEqual(specs('equinox.nn.LayerNorm', [8], { use_weight: false, use_bias: false }), []);
  // The deprecated elementwise_affine= overrides use_weight / use_bias (_normalisation.py LayerNorm.__init__).
  assert.deepEqual(specs('equinox.nn.LayerNorm', [8], { elementwise_affine: false }), []);
  assert.equal(specs('equinox.nn.LayerNorm', [8], { use_bias: false, elementwise_affine: true }).length, 2);
  assert.deepEqual(shapes(specs('equinox.nn.GroupNorm', [4, 32])), { weight: [32], bias: [32] });
  assert.match(unknownOf('equinox.nn.GroupNorm', [4]).reason, /channels/);
  const bn = specs('equinox.nn.BatchNorm', [64]);
  assert.equal(count(bn), 128);
  assert.equal(count(bn, 'buffer'), 128);
  assert.match(unknownOf('equinox.nn.LayerNorm', [null]).reason, /shape/);
});

test('MultiheadAttention: four projections, no biases by default', () => {
  // query_size 512, 8 heads: qk = vo = 64; 4 × 512*512 = 1,048,576.
  const ps = specs('equinox.nn.MultiheadAttention', [8, 512]);
  assert.equal(count(ps), 1_048_576);
  assert.deepEqual(ps.map((p) => p.name), ['query_proj.weight', 'key_proj.weight', 'value_proj.weight', 'output_proj.weight']);
  // key_size 256, output 128, qk 32, vo 16, all biases: q 512*256+256, k 256*256+256, v 512*128+128, o 128*128+128.
  const ps2 = specs('equinox.nn.MultiheadAttention', [8, 512, 256, null, 128, 32, 16, true, true, true, true]);
  assert.deepEqual(shapes(ps2)['value_proj.weight'], [128, 512]);
  assert.equal(count(ps2), 512 * 256 + 256 + 256 * 256 + 256 + 512 * 128 + 128 + 128 * 128 + 128);
  assert.match(unknownOf('equinox.nn.MultiheadAttention', [8]).reason, /query_size/);
});

test('GRUCell / LSTMCell / parameter-free layers', () => {
  assert.deepEqual(shapes(specs('equinox.nn.GRUCell', [10, 20])), { weight_ih: [60, 10], weight_hh: [60, 20], bias: [60], bias_n: [20] });
  assert.deepEqual(shapes(specs('equinox.nn.LSTMCell', [10, 20])), { weight_ih: [80, 10], weight_hh: [80, 20], bias: [80] });
  assert.deepEqual(shapes(specs('equinox.nn.LSTMCell', [10, 20], { use_bias: false })), { weight_ih: [80, 10], weight_hh: [80, 20] });
  for (const n of ['equinox.nn.Dropout', 'equinox.nn.Identity', 'equinox.nn.Lambda', 'equinox.nn.MaxPool2d', 'equinox.nn.AdaptiveAvgPool1d']) assert.deepEqual(specs(n, []), []);
  // PReLU: negative_slope = jnp.asarray(init_alpha): 0-d for the default float 0.25, else the array's shape.
  assert.deepEqual(shapes(specs('equinox.nn.PReLU', [])), { negative_slope: [] });
  assert.deepEqual(shapes(specs('equinox.nn.PReLU', [{ kind: 'array', shape: [16], dtype: 'float32' }])), { negative_slope: [16] });
  assert.match(unknownOf('equinox.nn.GRUCell', [10]).reason, /hidden_size/);
});

test('every entry cites its source file and version', () => {
  for (const e of EQUINOX_LAYERS) {
    assert.match(e.citation, /equinox\/nn\/_\w+\.py \(equinox v\d/);
    assert.equal(e.framework, 'equinox');
    assert.ok(e.names.every((n) => n.startsWith('equinox.nn.')));
  }
});
