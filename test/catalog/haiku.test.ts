// The Haiku layer catalogue against shapes derived by hand from
// haiku/_src/basic.py, conv.py, embed.py, layer_norm.py, batch_norm.py,
// moving_averages.py and attention.py (dm-haiku v0.0.12).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HAIKU_LAYERS } from '../../server/src/frameworks/haiku/catalog';
import type { UnknownValue } from '../../server/src/interp/catalog-types';
import { arr, catalogue, count, shapes } from './helpers';

const { specs, unknownOf, out } = catalogue(HAIKU_LAYERS);

test('Linear: w (in, out) random, b zeros, in the input dtype', () => {
  // Scenario s3: hk.Linear(128) on [414, 64]: 64*128 + 128 = 8,320.
  const ps = specs('haiku.Linear', arr([414, 64]), [128]);
  assert.equal(count(ps), 8_320);
  assert.deepEqual(ps.map((p) => [p.name, p.shape, p.init, p.dtype]), [['w', [64, 128], 'random', 'float32'], ['b', [128], 'zeros', 'float32']]);
  assert.ok(specs('haiku.Linear', arr([2, 8], 'bfloat16'), [4]).every((p) => p.dtype === 'bfloat16'));
  assert.deepEqual(shapes(specs('haiku.Linear', arr([2, 8]), [4], { with_bias: false })), { w: [8, 4] });
  assert.deepEqual(out('haiku.Linear', arr([414, 64]), [128]), arr([414, 128]));
  assert.match(unknownOf('haiku.Linear', undefined, [128]).reason, /input/);
  assert.match(unknownOf('haiku.Linear', arr([2, 8]), []).reason, /output_size/);
});

test('LayerNorm: scale/offset over param_axis (default -1), create_* required', () => {
  // Scenario s3: LayerNorm(-1, create_scale=True, create_offset=True) on last dim 128 = 256.
  const ps = specs('haiku.LayerNorm', arr([414, 128]), [-1, true, true]);
  assert.equal(count(ps), 256);
  assert.deepEqual(ps.map((p) => [p.name, p.init]), [['scale', 'ones'], ['offset', 'zeros']]);
  assert.deepEqual(shapes(specs('haiku.LayerNorm', arr([4, 6, 8]), [-1, true, false], { param_axis: [1, 2] })), { scale: [6, 8] });
  assert.deepEqual(specs('haiku.LayerNorm', arr([4, 8]), [-1, false, false]), []);
  assert.match(unknownOf('haiku.LayerNorm', arr([4, 8]), [-1]).reason, /create_scale/);
  assert.deepEqual(shapes(specs('haiku.RMSNorm', arr([4, 8]), [-1])), { scale: [8] });
});

test('Conv1D/2D/3D: w (*k, in//groups, out), b (out,), SAME output', () => {
  assert.deepEqual(shapes(specs('haiku.Conv2D', arr([1, 32, 32, 3]), [16, 3])), { w: [3, 3, 3, 16], b: [16] });
  assert.deepEqual(shapes(specs('haiku.Conv1D', arr([1, 100, 8]), [4, 5], { feature_group_count: 2, with_bias: false })), { w: [5, 4, 4] });
  assert.deepEqual(shapes(specs('haiku.Conv3D', arr([1, 4, 4, 4, 2]), [6, [1, 2, 3]])), { w: [1, 2, 3, 2, 6], b: [6] });
  // NCHW: channels at axis 1.
  assert.deepEqual(shapes(specs('haiku.Conv2D', arr([1, 3, 32, 32]), [16, 3], { data_format: 'NCHW' })), { w: [3, 3, 3, 16], b: [16] });
  // SAME, stride 2: ceil(32/2) = 16.
  assert.deepEqual(out('haiku.Conv2D', arr([1, 32, 32, 3]), [16, 3], { stride: 2 }), arr([1, 16, 16, 16]));
  assert.match(unknownOf('haiku.Conv2D', arr([1, 32, 32, 3]), [16]).reason, /kernel_shape/);
});

test('Embed: embeddings (vocab, dim) float32', () => {
  assert.deepEqual(specs('haiku.Embed', undefined, [1000, 32]), [{ name: 'embeddings', shape: [1000, 32], dtype: 'float32', role: 'param', init: 'random' }]);
  assert.deepEqual(out('haiku.Embed', arr([4, 10], 'int32'), [1000, 32]), arr([4, 10, 32]));
  assert.match(unknownOf('haiku.Embed', undefined, [1000]).reason, /embed_dim/);
});

test('BatchNorm: scale/offset [1..C], EMA state counter + hidden + average per statistic', () => {
  const ps = specs('haiku.BatchNorm', arr([16, 8, 8, 64]), [true, true, 0.99]);
  assert.deepEqual(shapes(ps).scale, [1, 1, 1, 64]);
  assert.equal(count(ps), 128);
  // 2 EMAs × (64 hidden + 64 average + 1 counter) = 258.
  assert.equal(count(ps, 'buffer'), 258);
  assert.match(unknownOf('haiku.BatchNorm', arr([16, 64]), []).reason, /create_scale/);
});

test('MultiHeadAttention: value_size → key_size, model_size → key_size * num_heads', () => {
  // 8 heads, key_size 64, input 512: q/k/v 512*512 + 512 each, linear 512*512 + 512: 4 × 262,656 = 1,050,624.
  const ps = specs('haiku.MultiHeadAttention', arr([10, 512]), [8, 64]);
  assert.equal(count(ps), 1_050_624);
  assert.deepEqual(shapes(ps)['linear.w'], [512, 512]);
  // value_size 32, model_size 256: value w (512, 256), linear w (256, 256).
  const ps2 = specs('haiku.MultiHeadAttention', arr([10, 512]), [8, 64], { value_size: 32, model_size: 256 });
  assert.deepEqual(shapes(ps2)['value.w'], [512, 256]);
  assert.deepEqual(shapes(ps2)['linear.w'], [256, 256]);
  assert.deepEqual(out('haiku.MultiHeadAttention', arr([10, 512]), [8, 64], { model_size: 256 }), arr([10, 256]));
  assert.match(unknownOf('haiku.MultiHeadAttention', arr([10, 512]), [8]).reason, /key_size/);
});

test('every entry cites haiku source and version', () => {
  for (const e of HAIKU_LAYERS) {
    assert.match(e.citation, /haiku\/_src\/\w+\.py.*\(dm-haiku v\d/);
    assert.ok(e.names.every((n) => n.startsWith('haiku.')));
  }
});

test('GroupNorm: scale/offset (C,) channels_last, (C, 1, 1) channels_first; C must divide by groups', () => {
  // group_norm.py: params_shape = (x.shape[-1],) for channels_last → (32,), two of them: 64 parameters.
  const last = specs('haiku.GroupNorm', arr([8, 16, 16, 32], 'bfloat16'), [4]);
  assert.deepEqual(shapes(last), { scale: [32], offset: [32] });
  assert.equal(count(last), 64);
  assert.ok(last.every((p) => p.dtype === 'bfloat16'));
  // channels_first on NCHW: (x.shape[1],) + (1,) * (rank - 2) = (32, 1, 1).
  assert.deepEqual(shapes(specs('haiku.GroupNorm', arr([8, 32, 16, 16]), [4], { data_format: 'channels_first' })), { scale: [32, 1, 1], offset: [32, 1, 1] });
  assert.deepEqual(shapes(specs('haiku.GroupNorm', arr([8, 32, 16, 16]), [4], { data_format: 'NCHW', create_offset: false })), { scale: [32, 1, 1] });
  // 32 channels into 5 groups raises in haiku.
  assert.match(unknownOf('haiku.GroupNorm', arr([8, 16, 16, 32]), [5]).reason, /divide/);
  assert.match(unknownOf('haiku.GroupNorm', undefined, [4]).reason, /needs its input/);
  assert.deepEqual(out('haiku.GroupNorm', arr([2, 4, 4, 8]), [2]), arr([2, 4, 4, 8]));
});

test('MaxPool / AvgPool modules: no parameters, output from max_pool / avg_pool', () => {
  assert.deepEqual(specs('haiku.MaxPool', arr([8, 28, 28, 16]), [2, 2, 'VALID']), []);
  // int 2 → window (1, 2, 2, 1): floor((28 - 2) / 2) + 1 = 14.
  assert.deepEqual(out('haiku.MaxPool', arr([8, 28, 28, 16]), [2, 2, 'VALID']), arr([8, 14, 14, 16]));
  // SAME, window 3, stride 2: ceil(7 / 2) = 4.
  assert.deepEqual(out('haiku.AvgPool', arr([8, 7, 7, 4]), [3, 2, 'SAME']), arr([8, 4, 4, 4]));
  assert.equal((out('haiku.AvgPool', arr([8, 7, 7, 4]), [3, 2, 'same']) as UnknownValue).kind, 'unknown');
  assert.equal((out('haiku.MaxPool', arr([8, 7, 7, 4]), [3, 2, 'SAME'], { channel_axis: 1 }) as UnknownValue).kind, 'unknown');
});
