// Flax and Haiku pooling, flax activations and make_causal_mask in the
// array-operation catalogue. Every expected shape is derived by hand in the
// comment next to it from the rules the entries cite:
// - lax.reduce_window per axis: VALID floor((n - w) / s) + 1, SAME ceil(n / s),
//   explicit pads floor((n + lo + hi - w) / s) + 1 (jax/_src/lax/lax.py padtype_to_pads);
// - flax/linen/pooling.py pool: the window covers the axes before the trailing
//   feature axis, everything in front is batch;
// - haiku/_src/pool.py _infer_shape: an int becomes (1, n, ..., n, 1); a shorter
//   sequence gets leading 1s; padding must be exactly 'SAME' or 'VALID'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPS } from '../../server/src/frameworks/ops';
import type { Args, ArrayValue, CatValue, Dim, OpResult } from '../../server/src/interp/catalog-types';
import type { DType } from '../../shared/src/facts';

function call(name: string, pos: CatValue[], kw: Args = {}): OpResult {
  const op = OPS.find((o) => o.names.includes(name));
  assert.ok(op, `${name} is catalogued`);
  const args: Args = { ...(op.defaults ?? {}) };
  pos.forEach((v, i) => { if (i < op.signature.length) args[op.signature[i]] = v; });
  Object.assign(args, kw);
  return op.result(args);
}
const A = (shape: Dim[], dtype: DType = 'float32'): ArrayValue => ({ kind: 'array', shape, dtype });
function shape(r: OpResult): Dim[] {
  assert.equal(r.kind, 'array', JSON.stringify(r));
  return (r as { shape: Dim[] }).shape;
}
function unknownReason(r: OpResult): string {
  assert.equal(r.kind, 'unknown', JSON.stringify(r));
  return (r as { reason: string }).reason;
}

test('flax avg_pool/max_pool/min_pool: VALID by default, SAME, strides default to 1', () => {
  // (4, 28, 28, 32), window (2, 2), strides (2, 2), VALID: floor((28 - 2) / 2) + 1 = 14.
  assert.deepEqual(shape(call('flax.linen.avg_pool', [A([4, 28, 28, 32]), [2, 2]], { strides: [2, 2] })), [4, 14, 14, 32]);
  // SAME: ceil(14 / 2) = 7; padtype_to_pads upper-cases the string, so 'same' is the same.
  assert.deepEqual(shape(call('flax.linen.max_pool', [A([4, 14, 14, 32]), [3, 3], [2, 2], 'SAME'])), [4, 7, 7, 32]);
  assert.deepEqual(shape(call('flax.linen.max_pool', [A([4, 14, 14, 32]), [3, 3], [2, 2], 'same'])), [4, 7, 7, 32]);
  // No strides: (1, ..., 1): floor((10 - 3) / 1) + 1 = 8.
  assert.deepEqual(shape(call('flax.linen.min_pool', [A([1, 10, 10, 3]), [3, 3]])), [1, 8, 8, 3]);
  // dtype passes through.
  assert.equal((call('flax.linen.pooling.avg_pool', [A([2, 8, 8, 4], 'bfloat16'), [2, 2], [2, 2]]) as { dtype: DType }).dtype, 'bfloat16');
});

test('flax pooling: the window covers the axes just before the features, the rest are batch', () => {
  // No batch axis (num_batch_dims = 3 - (2 + 1) = 0): (28, 28, 3) → (14, 14, 3).
  assert.deepEqual(shape(call('flax.linen.avg_pool', [A([28, 28, 3]), [2, 2], [2, 2]])), [14, 14, 3]);
  // Two batch axes (5 - (2 + 1) = 2): (2, 4, 28, 28, 3) → (2, 4, 14, 14, 3).
  assert.deepEqual(shape(call('flax.linen.avg_pool', [A([2, 4, 28, 28, 3]), [2, 2], [2, 2]])), [2, 4, 14, 14, 3]);
  // A 1-D window over a sequence: (8, 100, 16), window (4,), strides (4,): floor((100 - 4) / 4) + 1 = 25.
  assert.deepEqual(shape(call('flax.linen.max_pool', [A([8, 100, 16]), [4], [4]])), [8, 25, 16]);
  // Explicit pads ((1, 1), (1, 1)), window 3, stride 2 on 28: floor((28 + 2 - 3) / 2) + 1 = 14.
  assert.deepEqual(shape(call('flax.linen.max_pool', [A([4, 28, 28, 8]), [3, 3], [2, 2], [[1, 1], [1, 1]]])), [4, 14, 14, 8]);
  // ((0, 1), (2, 0)), window 2, stride 1 on 5: floor((5 + 1 - 2) / 1) + 1 = 5 and floor((5 + 2 - 2) / 1) + 1 = 6.
  assert.deepEqual(shape(call('flax.linen.avg_pool', [A([1, 5, 5, 2]), [2, 2], [1, 1], [[0, 1], [2, 0]]])), [1, 5, 6, 2]);
});

test('flax pooling that flax itself rejects, or that is not known, stays unknown', () => {
  // An int window raises in flax (len(window_shape)).
  assert.match(unknownReason(call('flax.linen.max_pool', [A([4, 28, 28, 1]), 2, [2, 2]])), /tuple/);
  // strides of another length than the window (flax asserts).
  unknownReason(call('flax.linen.max_pool', [A([4, 28, 28, 1]), [2, 2], [2]]));
  // A window with as many axes as the input leaves no feature axis.
  unknownReason(call('flax.linen.max_pool', [A([28, 28]), [2, 2]]));
  unknownReason(call('flax.linen.max_pool', [A([4, 28, 28, 1]), [2, 2], [2, 2], 'FULL']));
  unknownReason(call('flax.linen.max_pool', [A([4, 28, 28, 1]), [2, 2], [2, 2], { kind: 'unknown', reason: 'x' }]));
  unknownReason(call('flax.linen.max_pool', [{ kind: 'unknown', reason: 'x' }, [2, 2]]));
});

test('haiku max_pool/avg_pool: int sizes skip the batch and channel axes, short sequences get leading 1s', () => {
  // int 2 on rank 4 → (1, 2, 2, 1): 28 → floor((28 - 2) / 2) + 1 = 14, channels untouched.
  assert.deepEqual(shape(call('haiku.max_pool', [A([8, 28, 28, 1]), 2, 2, 'VALID'])), [8, 14, 14, 1]);
  // Full-rank (1, 2, 2, 1) as haiku/convnet-style code writes it.
  assert.deepEqual(shape(call('haiku.max_pool', [A([8, 28, 28, 16]), [1, 2, 2, 1], [1, 2, 2, 1], 'VALID'])), [8, 14, 14, 16]);
  // A 2-sequence on rank 4 becomes (1, 1, 2, 2): haiku pools the LAST two axes (28 stays, 28 → 14, 16 → 8).
  assert.deepEqual(shape(call('haiku.avg_pool', [A([8, 28, 28, 16]), [2, 2], [2, 2], 'VALID'])), [8, 28, 14, 8]);
  // SAME: ceil(7 / 2) = 4.
  assert.deepEqual(shape(call('haiku.avg_pool', [A([8, 7, 7, 4]), 3, 2, 'SAME'])), [8, 4, 4, 4]);
});

test('haiku pooling that haiku rejects, or that is not modelled, stays unknown', () => {
  // haiku raises ValueError on anything but exactly 'SAME' / 'VALID'.
  assert.match(unknownReason(call('haiku.max_pool', [A([8, 28, 28, 1]), 2, 2, 'same'])), /'SAME' or 'VALID'/);
  unknownReason(call('haiku.max_pool', [A([8, 28, 28, 1]), 2, 2]));
  unknownReason(call('haiku.max_pool', [A([8, 28, 28, 1]), [1, 1, 2, 2, 1], 2, 'VALID']));
  unknownReason(call('haiku.max_pool', [A([8, 28, 28, 1]), 2, 2, 'VALID'], { channel_axis: 1 }));
});

test('flax.linen activations are jax.nn re-exports: same shape and dtype', () => {
  for (const f of ['relu', 'gelu', 'silu', 'sigmoid', 'tanh', 'softmax', 'log_softmax']) {
    const r = call(`flax.linen.${f}`, [A([3, 5, 7], 'bfloat16')]);
    assert.deepEqual(r, { kind: 'array', shape: [3, 5, 7], dtype: 'bfloat16' }, f);
  }
});

test('flax make_causal_mask: x.shape[:-1] + (1, L, L), float32 by default', () => {
  // x (2, 16) token ids → (2, 1, 16, 16).
  assert.deepEqual(call('flax.linen.make_causal_mask', [A([2, 16], 'int32')]), { kind: 'array', shape: [2, 1, 16, 16], dtype: 'float32' });
  assert.deepEqual(call('flax.linen.make_causal_mask', [A([2, 16], 'int32')], { dtype: { kind: 'dtype', dtype: 'bool' } }), { kind: 'array', shape: [2, 1, 16, 16], dtype: 'bool' });
});
