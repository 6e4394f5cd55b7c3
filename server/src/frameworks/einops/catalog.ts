/**
 * einops (0.8.2): `rearrange` / `repeat` / `reduce` and the `Rearrange` /
 * `Reduce` layers (einops/layers/torch.py, einops/layers/flax.py), which hold
 * no parameters. The output shape follows the pattern as einops computes it
 * (einops/parsing.py ParsedExpression; einops/einops.py
 * `_prepare_transformation_recipe` and `_reconstruct_from_shape`): the left
 * side is matched against the input's axes, an ellipsis takes the axes no
 * name claims, a parenthesised group is the product of its axes (one unknown
 * member is solved by division), and the right side's groups are the
 * products of their axes' lengths. `repeat` takes new axes' lengths from its
 * keyword arguments; `reduce` drops the axes its right side leaves out.
 */
import { PY_FLOATS, type ArrayValue, type Args, type CatValue, type Dim, type LayerEntry, type OpEntry, type OpResult, type UnknownValue } from '../../interp/catalog-types';
import { isUnknown, unknown } from '../args';

const V = 'einops 0.8.2';

type Atom = { name: string } | { num: number } | { ellipsis: true };
/** One axis of a side: a bare atom, or a parenthesised group of atoms (composite). */
interface Group { atoms: Atom[]; composite: boolean }

/** parsing.py ParsedExpression: names, anonymous numbers, `...`, and one level of parentheses. */
export function parseSide(s: string): Group[] | UnknownValue {
  const out: Group[] = [];
  let cur: Atom[] | undefined;
  for (const tok of s.match(/\.\.\.|…|\(|\)|[^\s()]+/g) ?? []) {
    if (tok === '(') { if (cur) return unknown('nested parentheses in an einops pattern'); cur = []; continue; }
    if (tok === ')') { if (!cur) return unknown('unbalanced parentheses in an einops pattern'); out.push({ atoms: cur, composite: true }); cur = undefined; continue; }
    const atom: Atom | undefined = tok === '...' || tok === '…' ? { ellipsis: true } : /^\d+$/.test(tok) ? { num: Number(tok) } : /^[A-Za-z_]\w*$/.test(tok) ? { name: tok } : undefined;
    if (!atom) return unknown(`einops axis \`${tok}\` is not understood`);
    if (cur) cur.push(atom); else out.push({ atoms: [atom], composite: false });
  }
  if (cur) return unknown('unbalanced parentheses in an einops pattern');
  return out;
}

const mul = (a: Dim, b: Dim): Dim => (typeof a === 'number' && typeof b === 'number' ? a * b : typeof a === 'number' ? b : a);

/** The output shape of `pattern` applied to `shape`, with named axis lengths from `sizes`. */
export function einopsShape(shape: Dim[], pattern: string, sizes: Record<string, CatValue | undefined>, op: 'rearrange' | 'repeat' | 'reduce'): Dim[] | UnknownValue {
  const sides = pattern.split('->');
  if (sides.length !== 2) return unknown(`einops pattern \`${pattern}\` has no single "->"`);
  const left = parseSide(sides[0]); if (isUnknown(left)) return left;
  const right = parseSide(sides[1]); if (isUnknown(right)) return right;
  const lengths = new Map<string, Dim>();
  for (const [k, v] of Object.entries(sizes)) if (typeof v === 'number') lengths.set(k, v);
  const ellipsisAt = left.findIndex((g) => g.atoms.some((a) => 'ellipsis' in a));
  if (ellipsisAt >= 0 && left[ellipsisAt].composite) return unknown('an ellipsis inside parentheses on the left of an einops pattern (einops raises)');
  const named = left.length - (ellipsisAt >= 0 ? 1 : 0);
  if (ellipsisAt < 0 ? shape.length !== left.length : shape.length < named) return unknown(`einops pattern \`${sides[0].trim()}\` does not match an input of rank ${shape.length}`);
  const ellipsisDims = ellipsisAt >= 0 ? shape.slice(ellipsisAt, ellipsisAt + shape.length - named) : [];
  const dimsOfGroup = (i: number): Dim => (ellipsisAt < 0 || i < ellipsisAt ? shape[i] : shape[i + shape.length - named - 1]);
  for (let i = 0; i < left.length; i++) {
    if (i === ellipsisAt) continue;
    const d = dimsOfGroup(i);
    const g = left[i];
    let known: Dim = 1;
    const open: string[] = [];
    for (const a of g.atoms) {
      if ('num' in a) known = mul(known, a.num);
      else if ('name' in a) { const l = lengths.get(a.name); if (l === undefined) open.push(a.name); else known = mul(known, l); }
    }
    if (open.length === 0) continue;
    if (open.length > 1) return unknown(`einops cannot infer the lengths of ${open.join(', ')} from one axis (give all but one as keyword arguments)`);
    if (typeof d !== 'number' || typeof known !== 'number') { lengths.set(open[0], typeof d === 'number' ? known : d); continue; }
    if (known === 0 || d % known !== 0) return unknown(`einops axis of length ${d} cannot be split by ${known}`);
    lengths.set(open[0], d / known);
  }
  const out: Dim[] = [];
  for (const g of right) {
    if (!g.composite && 'ellipsis' in g.atoms[0]) { out.push(...ellipsisDims); continue; }
    let d: Dim = 1;
    for (const a of g.atoms) {
      if ('num' in a) d = mul(d, a.num);
      else if ('ellipsis' in a) for (const e of ellipsisDims) d = mul(d, e);
      else {
        const l = lengths.get(a.name);
        if (l === undefined) return unknown(op === 'repeat' ? `einops.repeat: the length of new axis \`${a.name}\` is not given` : `einops axis \`${a.name}\` is not on the left side`);
        d = mul(d, l);
      }
    }
    out.push(d);
  }
  return out;
}

function inputOf(v: CatValue | undefined): ArrayValue | UnknownValue {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'array') return v;
  // A list of arrays is stacked along a new first axis (einops.py `_apply_recipe` on a list: backend.stack_on_zeroth_dimension).
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x) && x.kind === 'array')) {
    const first = v[0] as ArrayValue;
    return { kind: 'array', shape: [v.length, ...first.shape], dtype: first.dtype };
  }
  return unknown('einops input is not a known array');
}

function axesOf(a: Args, skip: string[]): Record<string, CatValue | undefined> {
  return Object.fromEntries(Object.entries(a).filter(([k]) => !skip.includes(k) && k !== PY_FLOATS));
}

function apply(a: Args, op: 'rearrange' | 'repeat' | 'reduce', x: ArrayValue | UnknownValue, sizes: Record<string, CatValue | undefined>): ArrayValue | UnknownValue {
  if (isUnknown(x)) return x;
  if (typeof a.pattern !== 'string') return unknown('einops pattern is not known');
  const s = einopsShape(x.shape, a.pattern, sizes, op);
  return isUnknown(s) ? s : { kind: 'array', shape: s, dtype: x.dtype };
}

function op(fn: 'rearrange' | 'repeat' | 'reduce'): OpEntry {
  const signature = fn === 'reduce' ? ['tensor', 'pattern', 'reduction'] : ['tensor', 'pattern'];
  return {
    names: [`einops.${fn}`, `einops.einops.${fn}`],
    citation: `einops/einops.py (${V}) ${fn}: output axes from the pattern (_reconstruct_from_shape)`,
    signature,
    result: (a: Args): OpResult => {
      const r = apply(a, fn, inputOf(a.tensor), axesOf(a, signature));
      return isUnknown(r) ? r : { kind: 'array', shape: r.shape, dtype: r.dtype };
    },
  };
}

export const EINOPS_OPS: OpEntry[] = [op('rearrange'), op('repeat'), op('reduce')];

/** The sizes dict of einops.layers.flax (a dataclass field): only an absent or empty one is readable here. */
function flaxSizes(a: Args): Record<string, CatValue | undefined> | UnknownValue {
  return a.sizes === undefined || a.sizes === null ? {} : unknown('einops flax layer `sizes` is not modelled');
}

export const EINOPS_LAYERS: LayerEntry[] = [
  {
    names: ['einops.layers.torch.Rearrange'], framework: 'torch',
    citation: `einops/layers/torch.py (${V}) Rearrange(pattern, **axes_lengths): no parameters`,
    signature: ['pattern'], defaults: {}, params: () => [],
    output: (a: Args, x) => apply(a, 'rearrange', x, axesOf(a, ['pattern'])),
  },
  {
    names: ['einops.layers.torch.Reduce'], framework: 'torch',
    citation: `einops/layers/torch.py (${V}) Reduce(pattern, reduction, **axes_lengths): no parameters`,
    signature: ['pattern', 'reduction'], defaults: {}, params: () => [],
    output: (a: Args, x) => apply(a, 'reduce', x, axesOf(a, ['pattern', 'reduction'])),
  },
  {
    names: ['einops.layers.flax.Rearrange'], framework: 'flax',
    citation: `einops/layers/flax.py (${V}) Rearrange(pattern, sizes={}): no parameters`,
    signature: ['pattern', 'sizes'], defaults: {}, params: () => [],
    output: (a: Args, x) => { const s = flaxSizes(a); return isUnknown(s) ? s : apply(a, 'rearrange', x, s); },
  },
  {
    names: ['einops.layers.flax.Reduce'], framework: 'flax',
    citation: `einops/layers/flax.py (${V}) Reduce(pattern, reduction, sizes={}): no parameters`,
    signature: ['pattern', 'reduction', 'sizes'], defaults: {}, params: () => [],
    output: (a: Args, x) => { const s = flaxSizes(a); return isUnknown(s) ? s : apply(a, 'reduce', x, s); },
  },
];
