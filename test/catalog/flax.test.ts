// The Flax linen layer catalogue against shapes derived by hand from
// flax/linen/linear.py, normalization.py and attention.py (flax v0.8.5);
// every expected number is worked out in the comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLAX_LAYERS } from '../../server/src/frameworks/flax/catalog';
import { withPartitioning } from '../../server/src/frameworks/initializers';
import type { InitValue } from '../../server/src/interp/catalog-types';
import { arr, catalogue, count, shapes } from './helpers';

const { specs, unknownOf, out } = catalogue(FLAX_LAYERS);
const init = (name: string, random: boolean): InitValue => ({ kind: 'init', name, random });

test('Dense: kernel (in, features) random, bias zeros, float32 params whatever the input dtype', () => {
  const ps = specs('flax.linen.Dense', arr([8, 16], 'bfloat16'), [32]);
  assert.deepEqual(ps, [
    { name: 'kernel', shape: [16, 32], dtype: 'float32', role: 'param', init: 'random' },
    { name: 'bias', shape: [32], dtype: 'float32', role: 'param', init: 'zeros' },
  ]);
  // Dense(262144, use_bias=False) on [.., 32768]: 32768 * 262144 = 8,589,934,592.
  assert.equal(count(specs('flax.linen.linear.Dense', arr([1, 32768]), [262144], { use_bias: false })), 8_589_934_592);
  assert.equal(specs('flax.linen.Dense', arr([4]), [4], { param_dtype: { kind: 'dtype', dtype: 'bfloat16' } })[0].dtype, 'bfloat16');
  assert.deepEqual(out('flax.linen.Dense', arr([8, 16], 'bfloat16'), [32]), arr([8, 32], 'bfloat16'));
  assert.match(unknownOf('flax.linen.Dense', undefined, [32]).reason, /input/);
  assert.match(unknownOf('flax.linen.Dense', arr([4]), []).reason, /features/);
});

test('Dense: with_partitioning names and non-random initialisers reach the ParamSpec', () => {
  const k = withPartitioning(init('flax.linen.initializers.lecun_normal', true), ['embed', 'mlp']);
  const ps = specs('flax.linen.Dense', arr([2, 4]), [8], { kernel_init: k, bias_init: withPartitioning(init('flax.linen.initializers.zeros', false), ['mlp']) });
  assert.deepEqual(ps[0].partition, ['embed', 'mlp']);
  assert.equal(ps[0].init, 'random');
  assert.deepEqual(ps[1].partition, ['mlp']);
  const ones = specs('flax.linen.Dense', arr([4]), [4], { kernel_init: init('jax.nn.initializers.ones', false) });
  assert.equal(ones[0].init, 'ones');
});

test('DenseGeneral: kernel (*in[axis], *features), bias features', () => {
  // features (8, 64) on [2, 10, 512]: kernel (512, 8, 64), bias (8, 64).
  assert.deepEqual(shapes(specs('flax.linen.DenseGeneral', arr([2, 10, 512]), [[8, 64]])), { kernel: [512, 8, 64], bias: [8, 64] });
  // axis (-2, -1) on [2, 10, 8, 64] to 512: kernel (8, 64, 512).
  assert.deepEqual(shapes(specs('flax.linen.DenseGeneral', arr([2, 10, 8, 64]), [512], { axis: [-2, -1] })), { kernel: [8, 64, 512], bias: [512] });
  assert.deepEqual(out('flax.linen.DenseGeneral', arr([2, 10, 8, 64]), [512], { axis: [-2, -1] }), arr([2, 10, 512]));
});

test('Embed: embedding (num_embeddings, features), independent of the input', () => {
  assert.deepEqual(specs('flax.linen.Embed', undefined, [50257, 768]), [{ name: 'embedding', shape: [50257, 768], dtype: 'float32', role: 'param', init: 'random' }]);
  assert.deepEqual(out('flax.linen.Embed', arr([4, 128], 'int32'), [50257, 768]), arr([4, 128, 768]));
  assert.match(unknownOf('flax.linen.Embed', undefined, [50257]).reason, /features/);
});

test('Conv / ConvTranspose: kernel (*k, in//groups, features), SAME output', () => {
  assert.deepEqual(shapes(specs('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]])), { kernel: [3, 3, 3, 16], bias: [16] });
  assert.deepEqual(shapes(specs('flax.linen.Conv', arr([1, 32, 32, 8]), [16, [3, 3]], { feature_group_count: 4, use_bias: false })), { kernel: [3, 3, 2, 16] });
  // SAME with stride 2: ceil(32 / 2) = 16.
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { strides: 2 }), arr([1, 16, 16, 16]));
  // VALID: floor((32 - 3) / 1) + 1 = 30.
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { padding: 'VALID' }), arr([1, 30, 30, 16]));
  assert.deepEqual(shapes(specs('flax.linen.ConvTranspose', arr([1, 8, 8, 4]), [6, [2, 2]])), { kernel: [2, 2, 4, 6], bias: [6] });
  assert.deepEqual(out('flax.linen.ConvTranspose', arr([1, 8, 8, 4]), [6, [2, 2]], { strides: [2, 2] }), arr([1, 16, 16, 6]));
  assert.match(unknownOf('flax.linen.Conv', arr([1, 8, 8, 4]), [6]).reason, /kernel_size/);
});

test('Norms: LayerNorm, RMSNorm, GroupNorm, BatchNorm (batch_stats as buffers)', () => {
  const ln = specs('flax.linen.LayerNorm', arr([4, 10, 128], 'bfloat16'), []);
  assert.deepEqual(ln.map((p) => [p.name, p.shape, p.init, p.dtype]), [['scale', [128], 'ones', 'float32'], ['bias', [128], 'zeros', 'float32']]);
  assert.equal(specs('flax.linen.LayerNorm', arr([4, 8]), [], { use_bias: false }).length, 1);
  assert.deepEqual(shapes(specs('flax.linen.RMSNorm', arr([4, 64]), [])), { scale: [64] });
  assert.deepEqual(shapes(specs('flax.linen.GroupNorm', arr([2, 8, 8, 32]), [])), { scale: [32], bias: [32] });
  const bn = specs('flax.linen.BatchNorm', arr([16, 8, 8, 64]), []);
  assert.equal(count(bn), 128);
  assert.equal(count(bn, 'buffer'), 128);
  assert.deepEqual(bn.filter((p) => p.role === 'buffer').map((p) => [p.name, p.init]), [['batch_stats.mean', 'zeros'], ['batch_stats.var', 'ones']]);
  assert.match(unknownOf('flax.linen.LayerNorm', undefined, []).reason, /input/);
});

test('MultiHeadDotProductAttention: DenseGeneral kernels (in, heads, head_dim) and (heads, head_dim, out)', () => {
  // 8 heads, in 512: q/k/v kernel 512*8*64 = 262,144 + bias 512 each; out 262,144 + 512:
  // 4 × 262,656 = 1,050,624.
  for (const n of ['flax.linen.MultiHeadDotProductAttention', 'flax.linen.MultiHeadAttention', 'flax.linen.SelfAttention']) {
    const ps = specs(n, arr([2, 10, 512]), [8]);
    assert.equal(count(ps), 1_050_624);
    assert.deepEqual(shapes(ps)['query.kernel'], [512, 8, 64]);
    assert.deepEqual(shapes(ps)['out.kernel'], [8, 64, 512]);
  }
  // qkv_features 256, out_features 128, no bias: 3 × 512*256 + 256*128 = 425,984.
  assert.equal(count(specs('flax.linen.MultiHeadDotProductAttention', arr([2, 10, 512]), [8], { qkv_features: 256, out_features: 128, use_bias: false })), 425_984);
  assert.deepEqual(out('flax.linen.SelfAttention', arr([2, 10, 512]), [8], { out_features: 128 }), arr([2, 10, 128]));
  assert.match(unknownOf('flax.linen.MultiHeadDotProductAttention', arr([2, 10, 512]), []).reason, /num_heads/);
});

test('Dropout has no parameters; every entry cites flax source and version', () => {
  assert.deepEqual(specs('flax.linen.Dropout', arr([4]), [0.1]), []);
  for (const e of FLAX_LAYERS) {
    assert.match(e.citation, /flax\/linen\/\w+\.py \(flax v\d/);
    assert.ok(e.names.every((n) => n.startsWith('flax.linen.')));
  }
});

test('Conv output: padding strings as lax reads them, CIRCULAR/REFLECT/CAUSAL keep SAME\'s shape', () => {
  // 'valid' is upper-cased by lax padtype_to_pads: 32 - 3 + 1 = 30.
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { padding: 'valid' }), arr([1, 30, 30, 16]));
  // 'same' with stride 2: ceil(32 / 2) = 16.
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { padding: 'same', strides: 2 }), arr([1, 16, 16, 16]));
  // CIRCULAR, kernel 4 stride 3: pads (1, 2) then VALID: floor((32 + 3 - 4) / 3) + 1 = 11 = ceil(32 / 3).
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [4, 4]], { padding: 'CIRCULAR', strides: 3 }), arr([1, 11, 11, 16]));
  assert.deepEqual(out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { padding: 'REFLECT' }), arr([1, 32, 32, 16]));
  // CAUSAL 1-D, kernel 5 dilation 2: left pad 8, VALID with effective kernel 9: 100 + 8 - 9 + 1 = 100.
  assert.deepEqual(out('flax.linen.Conv', arr([2, 100, 8]), [4, [5]], { padding: 'CAUSAL', kernel_dilation: 2 }), arr([2, 100, 4]));
  // CAUSAL on 2-D raises in flax: not a shape.
  const r = out('flax.linen.Conv', arr([1, 32, 32, 3]), [16, [3, 3]], { padding: 'CAUSAL' }) as { shape: unknown[] };
  assert.ok(r.shape.slice(1, 3).every((d) => typeof d === 'object'), JSON.stringify(r));
});
