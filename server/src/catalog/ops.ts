/**
 * Array operations: result shapes and dtypes of jnp / jax.nn / lax / torch
 * calls and array methods. (Bootstrap version covering the operations the
 * scenarios use; the full catalogue is being written by its owner.)
 */
import type { DType } from '../../../shared/src/facts';
import { broadcastShapes, reduceShape } from '../analysis/shapes';
import type { Args, ArrayValue, CatValue, Dim, OpEntry, OpResult } from './types';

const isArr = (v: CatValue | undefined): v is ArrayValue => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'array';
const unk = (reason: string): OpResult => ({ kind: 'unknown', reason });

function shapeArg(v: CatValue | undefined): Dim[] | undefined {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.map((d) => (typeof d === 'number' ? d : { unknown: 'dimension not known' }));
  return undefined;
}

function dtypeArg(v: CatValue | undefined, dflt: DType): DType {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype') return v.dtype;
  return dflt;
}

const RANK: DType[] = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64'];
function promote(a: DType, b: DType): DType {
  if ((a === 'float16' && b === 'bfloat16') || (a === 'bfloat16' && b === 'float16')) return 'float32';
  return RANK.indexOf(a) >= RANK.indexOf(b) ? a : b;
}

function constructor(names: string[], dflt: DType, citation: string, random = false): OpEntry {
  return {
    names, citation, signature: ['shape', 'dtype'],
    result: (a: Args) => {
      const s = shapeArg(a.shape);
      return s ? { kind: 'array', shape: s, dtype: dtypeArg(a.dtype, dflt), random } : unk('shape argument not known');
    },
  };
}

function elementwise(names: string[], citation: string, n = 2): OpEntry {
  const sig = n === 1 ? ['x'] : ['x', 'y'];
  return {
    names, citation, signature: sig,
    result: (a: Args) => {
      const arrs = sig.map((k) => a[k]).filter(isArr);
      if (arrs.length === 0) return unk('no array operand');
      const s = broadcastShapes(...arrs.map((x) => x.shape));
      if (!Array.isArray(s)) return s;
      const dt = arrs.map((x) => x.dtype).reduce(promote);
      return { kind: 'array', shape: s, dtype: dt };
    },
  };
}

function reduction(names: string[], citation: string): OpEntry {
  return {
    names, citation, signature: ['a', 'axis', 'dtype', 'out', 'keepdims'],
    result: (a: Args) => {
      if (!isArr(a.a)) return unk('no array operand');
      const axis = a.axis === undefined || a.axis === null ? null : typeof a.axis === 'number' ? a.axis : Array.isArray(a.axis) ? (a.axis as number[]) : null;
      const s = reduceShape(a.a.shape, axis, a.keepdims === true);
      return Array.isArray(s) ? { kind: 'array', shape: s, dtype: a.a.dtype } : s;
    },
  };
}

const J = 'jax.numpy docs (jax 0.4.30)';
export const OPS: OpEntry[] = [
  constructor(['jax.numpy.zeros', 'jax.numpy.empty'], 'float32', J),
  constructor(['jax.numpy.ones'], 'float32', J),
  constructor(['torch.zeros', 'torch.ones', 'torch.empty'], 'float32', 'torch.zeros docs (2.1)'),
  constructor(['torch.randn', 'torch.rand'], 'float32', 'torch.randn docs (2.1)', true),
  elementwise(['jax.numpy.add', 'jax.numpy.subtract', 'jax.numpy.multiply', 'jax.numpy.divide', 'jax.numpy.power', 'jax.numpy.maximum', 'jax.numpy.minimum', 'torch.add', 'torch.mul'], J),
  elementwise(['jax.numpy.negative', 'jax.numpy.sqrt', 'jax.numpy.exp', 'jax.numpy.tanh', 'jax.nn.gelu', 'jax.nn.relu', 'jax.nn.silu', 'jax.nn.sigmoid', 'jax.nn.softmax', 'torch.relu'], J, 1),
  reduction(['jax.numpy.sum', 'jax.numpy.mean', 'jax.numpy.max', 'jax.numpy.min', 'jax.Array.sum', 'jax.Array.mean'], J),
  {
    names: ['jax.Array.astype', 'jax.numpy.astype'], citation: 'jax.Array.astype', signature: ['self', 'dtype'],
    result: (a: Args) => (isArr(a.self) ? { kind: 'array', shape: a.self.shape, dtype: dtypeArg(a.dtype, a.self.dtype) } : unk('no array')),
  },
];
