// Shape propagation and dtype promotion rules against hand-derived NumPy/JAX
// results (numpy broadcasting, indexing, reshape, matmul and einsum docs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  broadcastShapes, concatShape, dotShape, einsumShape, expandDimsShape, indexShape, matmulShape, moveaxisShape, numElements,
  promoteTypes, reduceShape, reshapeShape, resultType, splitShapes, squeezeShape, stackShape, swapaxesShape, tensordotShape, transposeShape,
} from '../../server/src/interp/shapes';

const U = { unknown: 'batch' };
const isUnk = (x: unknown) => typeof x === 'object' && x !== null && (x as { kind?: string }).kind === 'unknown';

test('broadcasting follows NumPy rules and explains mismatches', () => {
  assert.deepEqual(broadcastShapes([414, 1, 128], [1, 414, 128]), [414, 414, 128]);
  assert.deepEqual(broadcastShapes([8, 1, 6, 1], [7, 1, 5]), [8, 7, 6, 5]);
  assert.deepEqual(broadcastShapes([U, 3], [3]), [U, 3]);
  const bad = broadcastShapes([3, 4], [5]);
  assert.ok(isUnk(bad));
  assert.match((bad as { reason: string }).reason, /cannot broadcast \[3,4\] with \[5\]/);
});

test('indexing: None, slices, ints, ellipsis, arrays', () => {
  const s = [414, 128];
  const sl = { kind: 'slice' as const, start: null, stop: null, step: null };
  assert.deepEqual(indexShape(s, [sl, { kind: 'newaxis' }, sl]), [414, 1, 128]);
  assert.deepEqual(indexShape(s, [{ kind: 'newaxis' }, sl, sl]), [1, 414, 128]);
  assert.deepEqual(indexShape([414, 414, 128], [sl, { kind: 'newaxis' }, sl, sl]), [414, 1, 414, 128]);
  assert.deepEqual(indexShape([10, 20, 30], [{ kind: 'ellipsis' }, { kind: 'int', value: 0 }]), [10, 20]);
  assert.deepEqual(indexShape([10], [{ kind: 'slice', start: 2, stop: null, step: 3 }]), [3]);
  assert.deepEqual(indexShape([10], [{ kind: 'slice', start: -3, stop: null, step: null }]), [3]);
  assert.deepEqual(indexShape([10], [{ kind: 'slice', start: null, stop: null, step: -1 }]), [10]);
  assert.deepEqual(indexShape([10, 20, 30], [sl, { kind: 'array', shape: [5], dtype: 'int32' }]), [10, 5, 30]);
  // Advanced indices separated by a slice move to the front (numpy indexing docs).
  assert.deepEqual(indexShape([10, 20, 30], [{ kind: 'array', shape: [5], dtype: 'int32' }, sl, { kind: 'array', shape: [5], dtype: 'int32' }]), [5, 20]);
  assert.ok(isUnk(indexShape([3], [{ kind: 'int', value: 0 }, { kind: 'int', value: 0 }])));
  assert.deepEqual(indexShape([U, 4], [{ kind: 'slice', start: 0, stop: { unknown: 'n' }, step: null }]), [{ unknown: 'slice bound not known' }, 4]);
});

test('reshape infers one -1 and rejects size changes', () => {
  assert.deepEqual(reshapeShape([4, 6, 8], [-1, 8]), [24, 8]);
  assert.deepEqual(reshapeShape([2, 3, 4], [6, -1]), [6, 4]);
  assert.ok(isUnk(reshapeShape([2, 3], [4, 2])));
  assert.ok(isUnk(reshapeShape([2, 3], [4, -1])));
  assert.ok(isUnk(reshapeShape([2, 3], [-1, -1])));
  const r = reshapeShape([U, 8], [-1, 2, 4]);
  assert.ok(Array.isArray(r) && typeof r[0] === 'object' && r[1] === 2);
});

test('transpose, swapaxes, moveaxis, expand_dims, squeeze', () => {
  assert.deepEqual(transposeShape([2, 3, 4]), [4, 3, 2]);
  assert.deepEqual(transposeShape([2, 3, 4], [0, 2, 1]), [2, 4, 3]);
  assert.ok(isUnk(transposeShape([2, 3], [0, 0])));
  assert.deepEqual(swapaxesShape([2, 3, 4], 0, -1), [4, 3, 2]);
  assert.deepEqual(moveaxisShape([2, 3, 4], 0, -1), [3, 4, 2]);
  assert.deepEqual(expandDimsShape([2, 3], 0), [1, 2, 3]);
  assert.deepEqual(expandDimsShape([2, 3], -1), [2, 3, 1]);
  assert.deepEqual(squeezeShape([1, 2, 1]), [2]);
  assert.deepEqual(squeezeShape([1, 2, 1], 0), [2, 1]);
  assert.ok(isUnk(squeezeShape([1, 2, 1], 1)));
});

test('reductions with axis and keepdims', () => {
  assert.deepEqual(reduceShape([414, 414, 414, 128], 2, false), [414, 414, 128]);
  assert.deepEqual(reduceShape([2, 3, 4], [0, -1], true), [1, 3, 1]);
  assert.deepEqual(reduceShape([2, 3, 4], null, false), []);
  assert.ok(isUnk(reduceShape([2, 3], 2, false)));
});

test('matmul: 1-D promotion and batch broadcasting', () => {
  assert.deepEqual(matmulShape([8, 1, 5, 6], [3, 6, 7]), [8, 3, 5, 7]);
  assert.deepEqual(matmulShape([5, 6], [6]), [5]);
  assert.deepEqual(matmulShape([6], [6, 7]), [7]);
  assert.deepEqual(matmulShape([6], [6]), []);
  assert.ok(isUnk(matmulShape([5, 6], [7, 8])));
  assert.deepEqual(matmulShape([U, 16, 64], [64, 32]), [U, 16, 32]);
  assert.deepEqual(dotShape([2, 3, 4], [5, 4, 6]), [2, 3, 5, 6]);
  assert.deepEqual(tensordotShape([3, 4, 5], [4, 5, 6]), [3, 6]);
  assert.deepEqual(tensordotShape([3, 4, 5], [5, 4, 6], [[1, 2], [1, 0]]), [3, 6]);
});

test('einsum: explicit, ellipsis, implicit, and mismatches', () => {
  assert.deepEqual(einsumShape('bqhd,bkhd->bhqk', [[2, 10, 8, 64], [2, 12, 8, 64]]), [2, 8, 10, 12]);
  assert.deepEqual(einsumShape('...ij,...jk->...ik', [[5, 2, 3, 4], [2, 4, 6]]), [5, 2, 3, 6]);
  // Implicit mode: labels appearing once, alphabetically (numpy.einsum docs).
  assert.deepEqual(einsumShape('ij,jk', [[3, 4], [4, 5]]), [3, 5]);
  assert.deepEqual(einsumShape('ba,ac', [[3, 4], [4, 5]]), [3, 5]);
  assert.deepEqual(einsumShape('ii', [[4, 4]]), []);
  assert.deepEqual(einsumShape('ij->', [[4, 5]]), []);
  assert.ok(isUnk(einsumShape('ij,jk->ik', [[3, 4], [5, 6]])));
  assert.ok(isUnk(einsumShape('ij,jk->ik', [[3, 4]])));
});

test('concatenate, stack, split', () => {
  assert.deepEqual(concatShape([[2, 3], [4, 3]], 0), [6, 3]);
  assert.ok(isUnk(concatShape([[2, 3], [4, 5]], 0)));
  assert.deepEqual(stackShape([[2, 3], [2, 3], [2, 3]], 1), [2, 3, 3]);
  assert.deepEqual(splitShapes([10, 4], 2, 0), [[5, 4], [5, 4]]);
  assert.ok(isUnk(splitShapes([10, 4], 3, 0)));
  assert.deepEqual(splitShapes([10, 4], [3, 7], 0), [[3, 4], [4, 4], [3, 4]]);
});

test('numElements refuses absurd or invalid sizes instead of Infinity', () => {
  assert.equal(numElements([414, 414, 414, 128]), 414 * 414 * 414 * 128);
  assert.equal(numElements([]), 1);
  const huge = numElements([1e12, 1e12]);
  assert.equal(typeof huge, 'object');
  assert.equal(typeof numElements([1e200, 1e200, 1e200]), 'object');
  assert.equal(typeof numElements([-1, 3]), 'object');
  assert.equal(typeof numElements([2.5]), 'object');
  assert.equal(typeof numElements([U, 3]), 'object');
});

test('dtype promotion: JAX lattice, weak Python scalars, torch', () => {
  assert.equal(resultType(['float16', 'py-float']), 'float16');
  assert.equal(resultType(['bfloat16', 'py-float']), 'bfloat16');
  assert.equal(resultType(['int32', 'py-float']), 'float32');
  assert.equal(resultType(['int8', 'py-int']), 'int8');
  assert.equal(promoteTypes('float16', 'float32'), 'float32');
  assert.equal(promoteTypes('bfloat16', 'float16'), 'float32');
  assert.equal(promoteTypes('bfloat16', 'float16', 'torch'), 'float32');
  assert.equal(promoteTypes('uint8', 'int8'), 'int16');
  assert.equal(promoteTypes('int32', 'float16'), 'float16');
  assert.equal(promoteTypes('bool', 'int32'), 'int32');
  assert.equal(promoteTypes('uint32', 'int32'), 'int32');
  assert.equal(promoteTypes('uint32', 'int32', 'torch'), 'int64');
  assert.equal(resultType(['py-int'], 'torch'), 'int64');
});
