// The array-operation catalogue: exact result shapes and dtypes for the
// operations the scenarios and common model code use, and refusals for bad
// inputs. Entries are called the way the interpreter calls them: arguments
// bound by signature name, arrays as ArrayValue, Python values as plain data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPS } from '../../server/src/frameworks/ops';
import type { Args, ArrayValue, CatValue, Dim, OpResult } from '../../server/src/interp/catalog-types';
import type { DType } from '../../shared/src/facts';

const byName = new Map<string, (typeof OPS)[number]>();
for (const o of OPS) for (const n of o.names) {
  assert.ok(!byName.has(n), `duplicate catalogue name ${n}`);
  byName.set(n, o);
}

/** Binds positional then keyword arguments the way Interpreter.bindCatalogue does. */
function call(name: string, pos: CatValue[], kw: Args = {}): OpResult {
  const op = byName.get(name);
  assert.ok(op, `${name} is catalogued`);
  const args: Args = { ...(op.defaults ?? {}) };
  pos.forEach((v, i) => { if (i < op.signature.length) args[op.signature[i]] = v; });
  Object.assign(args, kw);
  return op.result(args);
}
const A = (shape: Dim[], dtype: DType = 'float32'): ArrayValue => ({ kind: 'array', shape, dtype });
const dt = (d: DType): CatValue => ({ kind: 'dtype', dtype: d });
function arr(r: OpResult): { shape: Dim[]; dtype: DType; view?: boolean; random?: boolean } {
  assert.equal(r.kind, 'array', JSON.stringify(r));
  return r as { kind: 'array'; shape: Dim[]; dtype: DType };
}

test('every entry cites its source and has a signature', () => {
  for (const o of OPS) {
    assert.ok(o.citation.length > 5, o.names[0]);
    assert.ok(o.names.length > 0);
  }
});

test('scenario s3: pairwise outer products and the gated sum', () => {
  const left = A([414, 128], 'float32');
  const sl = { kind: 'array' as const };
  void sl;
  // left[:, None, :] * right[None, :, :]: the indexing is indexShape's job; the multiply broadcasts.
  const pair = arr(call('jax.numpy.multiply', [A([414, 1, 128]), A([1, 414, 128])]));
  assert.deepEqual(pair.shape, [414, 414, 128]);
  const quad = arr(call('jax.numpy.multiply', [A([414, 1, 414, 128]), A([1, 414, 414, 128])]));
  assert.deepEqual(quad.shape, [414, 414, 414, 128]);
  const gate = arr(call('jax.nn.gelu', [A(quad.shape)]));
  assert.deepEqual(gate.shape, [414, 414, 414, 128]);
  assert.deepEqual(arr(call('jax.numpy.sum', [A(gate.shape)], { axis: 2 })).shape, [414, 414, 128]);
  void left;
});

test('constructors: shapes and default dtypes', () => {
  assert.deepEqual(arr(call('jax.numpy.zeros', [[3, 4]])), { kind: 'array', shape: [3, 4], dtype: 'float32', random: undefined });
  assert.equal(arr(call('jax.numpy.ones', [5], { dtype: dt('bfloat16') })).dtype, 'bfloat16');
  assert.deepEqual(arr(call('jax.numpy.full', [[2, 2], 7])).dtype, 'int32');
  assert.deepEqual(arr(call('jax.numpy.arange', [10])).shape, [10]);
  assert.equal(arr(call('jax.numpy.arange', [10])).dtype, 'int32');
  assert.equal(arr(call('torch.arange', [10])).dtype, 'int64');
  assert.deepEqual(arr(call('jax.numpy.arange', [2, 11, 3])).shape, [3]);
  assert.deepEqual(arr(call('jax.numpy.linspace', [0, 1])).shape, [50]);
  assert.deepEqual(arr(call('jax.numpy.eye', [4])).shape, [4, 4]);
  assert.deepEqual(arr(call('jax.numpy.array', [[[1, 2, 3], [4, 5, 6]]])), { kind: 'array', shape: [2, 3], dtype: 'int32' });
  assert.equal(arr(call('jax.numpy.array', [[1.5, 2]])).dtype, 'float32');
  assert.equal(arr(call('torch.tensor', [[1, 2]])).dtype, 'int64');
  assert.equal(call('jax.numpy.array', [[[1, 2], [3]]]).kind, 'unknown');
  assert.deepEqual(arr(call('jax.numpy.zeros_like', [A([2, 3], 'float16')])).dtype, 'float16');
  assert.deepEqual(arr(call('torch.zeros', [2, 3])).shape, [2, 3]);
  assert.deepEqual(arr(call('torch.zeros', [[2, 3]])).shape, [2, 3]);
  const r = arr(call('torch.randn', [4, 5], { dtype: dt('float16') }));
  assert.deepEqual([r.shape, r.dtype, r.random], [[4, 5], 'float16', true]);
  assert.equal(arr(call('torch.randint', [0, 10, [3]])).dtype, 'int64');
  assert.equal(arr(call('torch.full', [[2], 1.5])).dtype, 'float32');
});

test('elementwise dtype promotion', () => {
  assert.equal(arr(call('jax.numpy.multiply', [A([3], 'float16'), 0.5])).dtype, 'float16');
  assert.equal(arr(call('jax.numpy.add', [A([3], 'float16'), A([3], 'float32')])).dtype, 'float32');
  assert.equal(arr(call('jax.numpy.add', [A([3], 'bfloat16'), A([3], 'float16')])).dtype, 'float32');
  assert.equal(arr(call('jax.numpy.divide', [A([3], 'int32'), 2])).dtype, 'float32');
  assert.equal(arr(call('jax.numpy.greater', [A([3]), 0])).dtype, 'bool');
  assert.equal(arr(call('jax.numpy.exp', [A([3], 'int32')])).dtype, 'float32');
  assert.deepEqual(arr(call('jax.numpy.where', [A([4, 1], 'bool'), A([5]), 0])).shape, [4, 5]);
  assert.deepEqual(arr(call('jax.numpy.clip', [A([4, 5])], { a_min: 0, a_max: 1 })).shape, [4, 5]);
  const bad = call('jax.numpy.add', [A([3, 4]), A([5])]);
  assert.equal(bad.kind, 'unknown');
  assert.match((bad as { reason: string }).reason, /cannot broadcast/);
  // Unknown dimensions propagate rather than fail.
  assert.deepEqual(arr(call('jax.numpy.add', [A([{ unknown: 'batch' }, 4]), A([4])])).shape, [{ unknown: 'batch' }, 4]);
});

test('reductions', () => {
  assert.deepEqual(arr(call('jax.numpy.mean', [A([2, 3, 4])], { axis: -1, keepdims: true })).shape, [2, 3, 1]);
  assert.deepEqual(arr(call('jax.numpy.max', [A([2, 3, 4])])).shape, []);
  const am = arr(call('jax.numpy.argmax', [A([2, 3])], { axis: 1 }));
  assert.deepEqual([am.shape, am.dtype], [[2], 'int32']);
  assert.equal(arr(call('torch.argmax', [A([2, 3])], { dim: 1 })).dtype, 'int64');
  assert.deepEqual(arr(call('torch.sum', [A([2, 3])], { dim: 0, keepdim: true })).shape, [1, 3]);
  assert.deepEqual(arr(call('jax.nn.logsumexp', [A([2, 3])], { axis: -1 })).shape, [2]);
  assert.deepEqual(arr(call('jax.Array.sum', [A([2, 3])], { axis: 0 })).shape, [3]);
});

test('linear algebra: matmul, einsum, tensordot, outer, dot_general', () => {
  assert.deepEqual(arr(call('jax.numpy.matmul', [A([8, 1, 5, 6]), A([3, 6, 7])])).shape, [8, 3, 5, 7]);
  assert.deepEqual(arr(call('jax.Array.__matmul__', [A([5, 6]), A([6])])).shape, [5]);
  assert.equal(call('jax.numpy.matmul', [A([5, 6]), A([7, 8])]).kind, 'unknown');
  assert.deepEqual(arr(call('torch.bmm', [A([4, 5, 6]), A([4, 6, 7])])).shape, [4, 5, 7]);
  assert.deepEqual(arr(call('jax.numpy.einsum', ['bqhd,bkhd->bhqk', A([2, 10, 8, 64]), A([2, 12, 8, 64])])).shape, [2, 8, 10, 12]);
  assert.deepEqual(arr(call('jax.numpy.einsum', ['...ij,...jk->...ik', A([5, 2, 3, 4]), A([2, 4, 6])])).shape, [5, 2, 3, 6]);
  assert.deepEqual(arr(call('jax.numpy.einsum', ['ij,jk', A([3, 4]), A([4, 5])])).shape, [3, 5]);
  assert.deepEqual(arr(call('torch.einsum', ['ij,jk->ik', [A([3, 4]), A([4, 5])]])).shape, [3, 5]);
  assert.deepEqual(arr(call('jax.numpy.tensordot', [A([3, 4, 5]), A([4, 5, 6])])).shape, [3, 6]);
  assert.deepEqual(arr(call('jax.numpy.outer', [A([3]), A([4, 2])])).shape, [3, 8]);
  assert.deepEqual(arr(call('jax.lax.dot_general', [A([2, 3, 4]), A([2, 4, 5]), [[[2], [1]], [[0], [0]]]])).shape, [2, 3, 5]);
  assert.deepEqual(arr(call('torch.nn.functional.linear', [A([8, 16, 32]), A([64, 32]), A([64])])).shape, [8, 16, 64]);
  assert.deepEqual(arr(call('torch.nn.functional.scaled_dot_product_attention', [A([2, 8, 10, 64]), A([2, 8, 12, 64]), A([2, 8, 12, 32])])).shape, [2, 8, 10, 32]);
  assert.deepEqual(arr(call('torch.nn.functional.cross_entropy', [A([8, 10]), A([8], 'int64')])).shape, []);
  assert.deepEqual(arr(call('torch.nn.functional.embedding', [A([4, 7], 'int64'), A([100, 32])])).shape, [4, 7, 32]);
});

test('shape manipulation and torch views', () => {
  assert.deepEqual(arr(call('jax.numpy.reshape', [A([4, 6, 8]), [-1, 8]])).shape, [24, 8]);
  assert.equal(call('jax.numpy.reshape', [A([4, 6]), [5, 5]]).kind, 'unknown');
  assert.deepEqual(arr(call('jax.Array.reshape', [A([4, 6]), 3, -1])).shape, [3, 8]);
  const v = arr(call('torch.Tensor.view', [A([4, 6]), 2, -1]));
  assert.deepEqual([v.shape, v.view], [[2, 12], true]);
  const t = arr(call('jax.numpy.transpose', [A([2, 3, 4])]));
  assert.deepEqual([t.shape, t.view], [[4, 3, 2], undefined]);
  const p = arr(call('torch.Tensor.permute', [A([2, 3, 4]), 0, 2, 1]));
  assert.deepEqual([p.shape, p.view], [[2, 4, 3], true]);
  assert.deepEqual(arr(call('torch.Tensor.transpose', [A([2, 3, 4]), 1, 2])).shape, [2, 4, 3]);
  assert.deepEqual(arr(call('jax.Array.T', [A([2, 3])])).shape, [3, 2]);
  assert.equal(arr(call('torch.Tensor.T', [A([2, 3])])).view, true);
  assert.deepEqual(arr(call('torch.Tensor.unsqueeze', [A([2, 3]), 1])).shape, [2, 1, 3]);
  assert.deepEqual(arr(call('torch.Tensor.squeeze', [A([2, 1, 3]), 0])).shape, [2, 1, 3]);
  assert.equal(call('jax.numpy.squeeze', [A([2, 1, 3]), 0]).kind, 'unknown');
  assert.deepEqual(arr(call('torch.Tensor.flatten', [A([2, 3, 4]), 1])).shape, [2, 12]);
  assert.deepEqual(arr(call('jax.numpy.concatenate', [[A([2, 3]), A([4, 3])]])).shape, [6, 3]);
  assert.deepEqual(arr(call('torch.cat', [[A([2, 3]), A([2, 5])]], { dim: 1 })).shape, [2, 8]);
  assert.deepEqual(arr(call('jax.numpy.stack', [[A([2, 3]), A([2, 3])]], { axis: -1 })).shape, [2, 3, 2]);
  const sp = call('jax.numpy.split', [A([10, 4]), 2]);
  assert.deepEqual(sp, { kind: 'arrays', items: [{ shape: [5, 4], dtype: 'float32' }, { shape: [5, 4], dtype: 'float32' }] });
  const ch = call('torch.Tensor.chunk', [A([10, 4]), 3]);
  assert.deepEqual(ch.kind === 'arrays' ? ch.items.map((i) => i.shape) : ch, [[4, 4], [4, 4], [2, 4]]);
  const ts = call('torch.Tensor.split', [A([10, 4]), 4]);
  assert.deepEqual(ts.kind === 'arrays' ? ts.items.map((i) => i.shape) : ts, [[4, 4], [4, 4], [2, 4]]);
  assert.deepEqual(arr(call('jax.numpy.tile', [A([2, 3]), [2, 1, 2]])).shape, [2, 2, 6]);
  assert.deepEqual(arr(call('torch.Tensor.repeat', [A([2, 3]), 4, 1])).shape, [8, 3]);
  assert.deepEqual(arr(call('jax.numpy.repeat', [A([2, 3]), 2], { axis: 1 })).shape, [2, 6]);
  assert.deepEqual(arr(call('jax.numpy.broadcast_to', [A([3, 1]), [2, 3, 4]])).shape, [2, 3, 4]);
  assert.equal(call('jax.numpy.broadcast_to', [A([3, 2]), [3, 4]]).kind, 'unknown');
  const e = arr(call('torch.Tensor.expand', [A([3, 1]), -1, 5]));
  assert.deepEqual([e.shape, e.view], [[3, 5], true]);
  assert.deepEqual(arr(call('jax.numpy.take', [A([10, 4]), A([7], 'int32')], { axis: 0 })).shape, [7, 4]);
  assert.deepEqual(arr(call('jax.numpy.pad', [A([4, 5]), [[1, 1], [2, 0]]])).shape, [6, 7]);
  assert.deepEqual(arr(call('torch.nn.functional.pad', [A([4, 5])], { pad: [1, 2] })).shape, [4, 8]);
  assert.deepEqual(arr(call('jax.numpy.moveaxis', [A([2, 3, 4]), 0, -1])).shape, [3, 4, 2]);
  assert.deepEqual(arr(call('jax.numpy.cumsum', [A([2, 3])], { axis: 1 })).shape, [2, 3]);
  assert.deepEqual(arr(call('jax.numpy.tril', [A([5, 5])])).shape, [5, 5]);
});

test('casts and plain values', () => {
  assert.equal(arr(call('jax.Array.astype', [A([2]), dt('bfloat16')])).dtype, 'bfloat16');
  assert.equal(arr(call('torch.Tensor.half', [A([2])])).dtype, 'float16');
  assert.equal(arr(call('torch.Tensor.to', [A([2]), dt('bfloat16')])).dtype, 'bfloat16');
  assert.equal(arr(call('torch.Tensor.to', [A([2]), 'cuda'])).dtype, 'float32');
  assert.deepEqual(call('torch.Tensor.size', [A([2, 3])]), { kind: 'value', value: [2, 3] });
  assert.deepEqual(call('torch.Tensor.size', [A([2, 3]), -1]), { kind: 'value', value: 3 });
  assert.deepEqual(call('torch.Tensor.numel', [A([2, 3])]), { kind: 'value', value: 6 });
  assert.equal(call('torch.Tensor.numel', [A([1e12, 1e12])]).kind, 'unknown');
});

test('jax.nn and jax.random', () => {
  assert.deepEqual(arr(call('jax.nn.one_hot', [A([8, 16], 'int32'), 10])).shape, [8, 16, 10]);
  assert.deepEqual(arr(call('jax.nn.softmax', [A([2, 5])], { axis: -1 })).shape, [2, 5]);
  assert.deepEqual(call('jax.random.PRNGKey', [0]), { kind: 'value', value: { kind: 'opaque', name: 'jax.random.key' } });
  const n = arr(call('jax.random.normal', [{ kind: 'opaque', name: 'jax.random.key' }, [3, 4]], { dtype: dt('bfloat16') }));
  assert.deepEqual([n.shape, n.dtype, n.random], [[3, 4], 'bfloat16', true]);
  assert.equal(arr(call('jax.random.bernoulli', [{ kind: 'opaque', name: 'k' }, 0.5, [3]])).dtype, 'bool');
  assert.deepEqual(arr(call('jax.random.categorical', [{ kind: 'opaque', name: 'k' }, A([4, 10])])).shape, [4]);
  assert.deepEqual(arr(call('jax.random.permutation', [{ kind: 'opaque', name: 'k' }, 7])).shape, [7]);
});

test('convolution output sizes', () => {
  assert.deepEqual(arr(call('jax.lax.conv_general_dilated', [A([1, 3, 32, 32]), A([16, 3, 3, 3]), [1, 1], 'SAME'])).shape, [1, 16, 32, 32]);
  assert.deepEqual(arr(call('jax.lax.conv_general_dilated', [A([1, 3, 32, 32]), A([16, 3, 3, 3]), [2, 2], 'VALID'])).shape, [1, 16, 15, 15]);
});

test('qr: Q (…, m, k) and R (…, k, n), k = min(m, n) in the reduced mode; complete makes Q square', () => {
  const r = call('torch.linalg.qr', [A([5, 6, 4])]);
  assert.equal(r.kind, 'arrays');
  assert.deepEqual((r as { items: { shape: Dim[] }[] }).items.map((x) => x.shape), [[5, 6, 4], [5, 4, 4]]);
  const c = call('torch.linalg.qr', [A([6, 4])], { mode: 'complete' });
  assert.deepEqual((c as { items: { shape: Dim[] }[] }).items.map((x) => x.shape), [[6, 6], [6, 4]]);
  assert.equal(call('torch.qr', [A([3])]).kind, 'unknown');
});
