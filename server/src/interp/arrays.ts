/**
 * Arrays in the interpreter: applying op-catalogue entries (every eager JAX
 * operation materialises its result; torch views do not), array attributes
 * (`x.shape`, `x.dtype`, `x.T`), indexing, and the attribute protocol for
 * non-user values (containers' methods, module methods).
 */
import { castSite } from '../frameworks/jax/stack-sites';
import type { DType, Span } from '../../../shared/src/facts';
import type { CatValue, Dim } from './catalog-types';
import type { CallArgs, Interpreter } from './interp';
import type { SyntaxNode } from './parser';
import { indexShape, type Index } from './shapes';
import { type InstV, type TensorV, type Value, NONE, describe, int, num, str, unknown } from './values';
import { markBackendStart } from '../frameworks/jax/runtime';
import { strFormat } from './strings';
import { keyEq, linearize } from './interp';

/** Random draws made inside the outermost jitted call now running (set by jax.jit's handler). */
export const JIT_RANDOM_DRAWS = 'jitRandomDraws';
export interface JitDraw { shape: Dim[]; dtype: DType; span: Span; name: string }
import { MAX_STR } from './limits';
import { PARAM_SAMPLERS } from '../frameworks/jax/plain-init';

const PASS = unknown('__pass__');

function dimValue(d: Dim): Value {
  return typeof d === 'number' ? int(d) : unknown(d.unknown);
}

export function installArrays(it: Interpreter): void {
  it.externs.set('__op__', (_i, _self, c, node, fnv) => applyOp(it, fnv.name, c, node));

  // numpy.finfo / jax.numpy.finfo / torch.finfo(dtype): the float type's limits (IEEE 754 binary16/32/64; bfloat16
  // as ml_dtypes.finfo(bfloat16): 8 exponent bits, 7 mantissa bits), as an object with .min .max .eps .tiny .bits.
  const FINFO: Partial<Record<string, { max: number; eps: number; tiny: number; bits: number; resolution: number }>> = {
    float16: { max: 65504, eps: 0.0009765625, tiny: 6.103515625e-05, bits: 16, resolution: 0.001 },
    bfloat16: { max: 3.3895313892515355e38, eps: 0.0078125, tiny: 1.1754943508222875e-38, bits: 16, resolution: 0.01 },
    float32: { max: 3.4028234663852886e38, eps: 1.1920928955078125e-07, tiny: 1.1754943508222875e-38, bits: 32, resolution: 1e-06 },
    float64: { max: 1.7976931348623157e308, eps: 2.220446049250313e-16, tiny: 2.2250738585072014e-308, bits: 64, resolution: 1e-15 },
  };
  for (const n of ['numpy.finfo', 'jax.numpy.finfo', 'torch.finfo']) {
    it.externs.set(n, (_i, _self, c, node) => {
      const a = c.args[0] ?? c.kw.get('dtype') ?? c.kw.get('type');
      const name = a?.t === 'dtype' ? a.dtype : a?.t === 'tensor' ? a.dtype : a?.t === 'str' ? a.v : a === undefined && n === 'torch.finfo' ? 'float32' : undefined;
      const f = name ? FINFO[name] : undefined;
      if (!f) return unknown(`${n} of ${a ? describe(a) : 'nothing'} is not known`, it.span(node));
      const fl = (v: number): Value => ({ t: 'float', v });
      const entries: [string, Value][] = [['min', fl(-f.max)], ['max', fl(f.max)], ['eps', fl(f.eps)], ['tiny', fl(f.tiny)], ['smallest_normal', fl(f.tiny)], ['resolution', fl(f.resolution)], ['bits', int(f.bits)]];
      return { t: 'dict', keys: entries.map(([k]) => str(k)), vals: entries.map(([, v]) => v), attrs: true };
    });
  }
  it.externs.set('__getitem__', (_i, self, c, node) => {
    const obj = self!;
    const key = c.args[0];
    if (obj.t === 'tensor') return indexTensor(it, obj, key, node);
    if (obj.t === 'key') {
      // Slicing a batch of keys (`keys = jax.random.split(key, n); keys[4:]`) keeps a batch of the slice's length.
      if (obj.batch !== undefined && key.t === 'slice') {
        const n = sliceLength(obj.batch, key);
        return n === undefined ? unknown('slice of a key batch with bounds that are not known', it.span(node)) : { t: 'key', batch: n };
      }
      return { t: 'key' };
    }
    if (obj.t === 'inst' && obj.items) {
      const i = num(key);
      if (i !== undefined) return obj.items[i < 0 ? obj.items.length + i : i] ?? unknown('index out of range', it.span(node));
      if (key.t === 'slice') {
        const part = it.getItem({ t: 'list', items: obj.items }, key, node);
        // A slice of an nn.Sequential / nn.ModuleList is a new container of the same class holding those modules
        // (torch/nn/modules/container.py Sequential.__getitem__: `self.__class__(OrderedDict(list(self._modules.items())[idx]))`;
        // ModuleList: `self.__class__(list(self._modules.values())[idx])`): assigned to an attribute, it registers
        // them. Made here as that container (no constructor runs: it makes no tensor and is no model of its own,
        // `out_rest = self.out_layers[1:]` in a forward).
        const isContainer = linearize(obj.cls).some((k) => k.name === 'Sequential' || k.name === 'ModuleList' || k.bases.some((b) => b.t === 'extern' && /^torch\.nn\.(modules\.container\.)?(Sequential|ModuleList)$/.test(b.name)));
        if (part.t === 'list' && isContainer) {
          const inst = it.newInst(obj.cls);
          inst.items = [...part.items];
          part.items.forEach((m, k) => inst.attrs.set(String(k), m));
          return inst;
        }
        return part;
      }
    }
    if (obj.t === 'inst' && obj.attrs.has('__dict__')) return it.getItem(obj.attrs.get('__dict__')!, key, node);
    if (obj.t === 'extern' && obj.name === '__devices__') return obj;
    return unknown(`indexing ${describe(obj)} is not modelled`, it.span(node));
  });

  it.externs.set('__iter__', (_i, self) => {
    if (self?.t === 'inst' && self.items) return { t: 'list', items: self.items };
    if (self?.t === 'inst' && self.attrs.has('__dict__')) {
      const d = self.attrs.get('__dict__')!;
      if (d.t === 'dict') return { t: 'list', items: d.keys };
    }
    return NONE;
  });

  it.externs.set('__getattr__', (_i, self, c, node) => {
    const obj = self!;
    const name = (c.args[0] as { v: string }).v;
    switch (obj.t) {
      case 'tensor': return tensorAttr(it, obj, name, node);
      case 'environ': return { t: 'extern', name: `os.environ.${name}` };
      case 'dict': case 'list': case 'tuple': case 'str':
        return { t: 'extern', name: `builtins.${obj.t}.${name}`, self: obj };
      case 'dtype':
        if (name === 'itemsize') return int(dtypeBytes(obj.dtype));
        return PASS;
      case 'transformed': return { t: 'extern', name: `haiku.Transformed.${name}`, self: obj };
      case 'mesh': {
        if (name === 'shape') return { t: 'dict', keys: [...obj.axes.keys()].map((k) => ({ t: 'str', v: k })), vals: [...obj.axes.values()].map((v) => (v === undefined ? unknown('mesh axis size') : int(v))) };
        if (name === 'size') { let n = 1; for (const v of obj.axes.values()) { if (v === undefined) return unknown('mesh size'); n *= v; } return int(n); }
        return PASS;
      }
      case 'extern':
        if (obj.name === '__devices__' && name === 'reshape') return { t: 'extern', name: '__devices_reshape__', self: obj };
        if (obj.name === '__devices__' && name === 'shape') return obj.args?.[0] ?? unknown('device count depends on the machine');
        return { t: 'extern', name: `${obj.name}.${name}`, self: obj };
      case 'inst': return instAttr(it, obj, name, node);
      case 'class': {
        if (obj.kind === 'torch') return { t: 'extern', name: `torch.nn.Module.${name}`, self: obj };
        return PASS;
      }
      case 'hfmodel': return { t: 'extern', name: `transformers.PreTrainedModel.${name}`, self: obj };
      default: return PASS;
    }
  });

  it.externs.set('__devices_reshape__', (_i, self, c) => ({ t: 'extern', name: '__devices__', args: [c.args.length === 1 ? c.args[0] : { t: 'tuple', items: c.args }] }));

  // Container methods (mutating ones change the receiver, as in Python).
  const m = (name: string, fn: (self: Value, c: CallArgs, node: SyntaxNode) => Value) => it.externs.set(name, (_i, self, c, node) => fn(self!, c, node));
  m('builtins.list.append', (s, c, node) => { if (s.t === 'list' && !it.overCap(s.items.length, 1, node)) s.items.push(c.args[0] ?? NONE); return NONE; });
  m('builtins.list.extend', (s, c, node) => {
    const more = (it.iterate(c.args[0] ?? NONE, node) ?? []).slice(); // a copy: `xs.extend(xs)` iterates the list it grows
    if (s.t === 'list' && !it.overCap(s.items.length, more.length, node)) for (const x of more) s.items.push(x);
    return NONE;
  });
  m('builtins.list.insert', (s, c, node) => { if (s.t === 'list' && !it.overCap(s.items.length, 1, node)) s.items.splice(num(c.args[0]) ?? 0, 0, c.args[1] ?? NONE); return NONE; });
  // list.pop(i=-1): removes and returns the item at i (negative from the end); an empty list or an index out of
  // range raises IndexError (Python docs, "Mutable Sequence Types").
  m('builtins.list.pop', (s, c, node) => {
    if (s.t !== 'list') return PASS;
    const iv = c.args[0] ?? c.kw.get('index');
    const i = iv === undefined ? -1 : num(iv);
    if (i === undefined) return unknown('list.pop with an index that is not known', it.span(node));
    const at = i < 0 ? s.items.length + i : i;
    if (at < 0 || at >= s.items.length) return unknown(`list.pop(${i}): index out of range`, it.span(node));
    return s.items.splice(at, 1)[0];
  });
  // set.add / set.remove / set.discard (a set is a list of distinct items here, builtins.set): items compare by
  // value (keyEq). An unknown item cannot be matched: remove/discard of one is noted as an unknown.
  m('builtins.list.add', (s, c, node) => {
    if (s.t !== 'list') return PASS;
    const x = c.args[0] ?? NONE;
    if (!s.items.some((y) => keyEq(x, y)) && !it.overCap(s.items.length, 1, node)) s.items.push(x);
    return NONE;
  });
  for (const name of ['remove', 'discard'] as const) {
    m(`builtins.list.${name}`, (s, c, node) => {
      if (s.t !== 'list') return PASS;
      const x = c.args[0] ?? NONE;
      if (x.t === 'unknown') return it.note(`${name}() of an unknown item: the set's contents are not known after it`, node);
      const i = s.items.findIndex((y) => keyEq(x, y));
      if (i >= 0) s.items.splice(i, 1);
      return NONE;
    });
  }
  // list.reverse() / list.sort(key=None, reverse=False) reorder in place (Python docs, "Mutable Sequence Types",
  // list.sort): the order sorted() computes, else every item unknown (the length is kept: sort keeps every item).
  m('builtins.list.reverse', (s) => { if (s.t === 'list') s.items.reverse(); return NONE; });
  m('builtins.list.sort', (s, c, node) => {
    if (s.t !== 'list') return PASS;
    const r = it.callExtern({ t: 'extern', name: 'builtins.sorted' }, { args: [s], kw: c.kw }, node);
    if (r.t === 'list') s.items = r.items;
    else { const u = unknown(`list.sort(): ${r.t === 'unknown' ? r.reason : 'the order is not known'}`, it.span(node)); s.items = s.items.map(() => u); }
    return NONE;
  });
  m('builtins.list.clear', (s) => { if (s.t === 'list') s.items = []; return NONE; });
  // dict.popitem(): removes and returns the last inserted pair (LIFO since Python 3.7); KeyError when empty.
  m('builtins.dict.popitem', (s, _c, node) => {
    if (s.t !== 'dict') return PASS;
    if (!s.keys.length) return unknown('dict.popitem() of an empty dict (KeyError)', it.span(node));
    return { t: 'tuple', items: [s.keys.pop()!, s.vals.pop()!] };
  });
  m('builtins.dict.clear', (s) => { if (s.t === 'dict') { s.keys = []; s.vals = []; } return NONE; });
  m('builtins.list.copy', (s) => (s.t === 'list' ? { t: 'list', items: [...s.items] } : PASS));
  m('builtins.list.count', (s, c, node) => {
    if (s.t !== 'list') return PASS;
    const x = c.args[0] ?? NONE;
    if (x.t === 'unknown' || s.items.some((y) => y.t === 'unknown')) return unknown('list.count of items that are not known', it.span(node));
    return int(s.items.filter((y) => keyEq(x, y)).length);
  });
  m('builtins.list.index', (s, c, node) => {
    if (s.t !== 'list') return PASS;
    const i = s.items.findIndex((x) => describe(x) === describe(c.args[0] ?? NONE));
    return i >= 0 ? int(i) : unknown('list.index', it.span(node));
  });
  m('builtins.dict.get', (s, c, node) => {
    if (s.t !== 'dict') return PASS;
    const v = it.getItem(s, c.args[0] ?? NONE, node);
    return v.t === 'unknown' && v.reason.startsWith('key ') ? c.args[1] ?? NONE : v;
  });
  m('builtins.dict.items', (s) => (s.t === 'dict' ? { t: 'list', items: s.keys.map((k, i) => ({ t: 'tuple' as const, items: [k, s.vals[i]] })) } : PASS));
  m('builtins.dict.keys', (s) => (s.t === 'dict' ? { t: 'list', items: [...s.keys] } : PASS));
  m('builtins.dict.values', (s) => (s.t === 'dict' ? { t: 'list', items: [...s.vals] } : PASS));
  m('builtins.dict.update', (s, c, node) => {
    if (s.t !== 'dict') return PASS;
    const o = c.args[0];
    if (o?.t === 'dict') o.keys.forEach((k, i) => it.setItem(s, k, o.vals[i], node));
    else if (o) {
      // An iterable of (key, value) pairs; anything else leaves every value of the dict unknown (it may have replaced it).
      const pairs = it.iterate(o, node)?.map((p) => it.iterate(p, node));
      if (pairs && pairs.every((p) => p?.length === 2)) for (const p of pairs) it.setItem(s, p![0], p![1], node);
      else {
        const u = unknown(`dict.update with ${describe(o)}: the values it sets are not known`, it.span(node));
        s.vals = s.vals.map(() => u);
      }
    }
    for (const [k, v] of c.kw) it.setItem(s, { t: 'str', v: k }, v, node);
    return NONE;
  });
  m('builtins.dict.pop', (s, c, node) => {
    if (s.t !== 'dict') return PASS;
    const v = it.getItem(s, c.args[0] ?? NONE, node);
    const i = s.keys.findIndex((k) => describe(k) === describe(c.args[0] ?? NONE));
    if (i >= 0) { s.keys.splice(i, 1); s.vals.splice(i, 1); }
    return v.t === 'unknown' ? c.args[1] ?? v : v;
  });
  m('builtins.dict.setdefault', (s, c, node) => {
    if (s.t !== 'dict') return PASS;
    const v = it.getItem(s, c.args[0] ?? NONE, node);
    if (v.t === 'unknown') { it.setItem(s, c.args[0] ?? NONE, c.args[1] ?? NONE, node); return c.args[1] ?? NONE; }
    return v;
  });
  m('builtins.dict.copy', (s) => (s.t === 'dict' ? { t: 'dict', keys: [...s.keys], vals: [...s.vals] } : PASS));
  m('builtins.str.format', (s, c, node) => {
    if (s.t !== 'str') return PASS;
    const f = strFormat(s.v, c.args, c.kw);
    return f.t === 'unknown' ? unknown(f.reason, it.span(node)) : f;
  });
  m('builtins.str.upper', (s) => (s.t === 'str' ? { t: 'str', v: s.v.toUpperCase() } : PASS));
  m('builtins.str.lower', (s) => (s.t === 'str' ? { t: 'str', v: s.v.toLowerCase() } : PASS));
  m('builtins.str.startswith', (s, c) => (s.t === 'str' && c.args[0]?.t === 'str' ? { t: 'bool', v: s.v.startsWith(c.args[0].v) } : PASS));
  m('builtins.str.endswith', (s, c) => (s.t === 'str' && c.args[0]?.t === 'str' ? { t: 'bool', v: s.v.endsWith(c.args[0].v) } : PASS));
  // str.split / str.rsplit(sep=None, maxsplit=-1) (Python docs: at most maxsplit splits, from the left or the right;
  // without sep, runs of whitespace separate and leading/trailing whitespace is dropped).
  for (const right of [false, true]) {
    m(`builtins.str.${right ? 'rsplit' : 'split'}`, (s, c) => {
      if (s.t !== 'str') return PASS;
      const sepV = c.args[0] ?? c.kw.get('sep');
      const maxV = c.args[1] ?? c.kw.get('maxsplit');
      const max = maxV === undefined ? -1 : num(maxV);
      if (max === undefined || (sepV && sepV.t !== 'str' && sepV.t !== 'none')) return PASS;
      const sep = sepV?.t === 'str' ? sepV.v : undefined;
      if (sep === '') return PASS;
      let parts = sep === undefined ? s.v.trim().split(/\s+/).filter((x) => x !== '') : s.v.split(sep);
      const glue = sep ?? ' ';
      if (max >= 0 && parts.length > max + 1) {
        parts = right ? [parts.slice(0, parts.length - max).join(glue), ...parts.slice(parts.length - max)] : [...parts.slice(0, max), parts.slice(max).join(glue)];
        // Without sep, the unsplit rest keeps its own whitespace in Python; joined with one space here, it is only
        // approximated: leave such cases to the unknown path.
        if (sep === undefined) return PASS;
      }
      return { t: 'list', items: parts.map((v) => ({ t: 'str' as const, v })) };
    });
  }
  // str.strip / lstrip / rstrip(chars=None): without chars, whitespace; with chars, any of them, from that end
  // (Python docs, str.strip). str.replace(old, new, count=-1). str.splitlines() (line ends dropped).
  const WS = ' \t\n\r\v\f';
  for (const [name, left, right] of [['strip', true, true], ['lstrip', true, false], ['rstrip', false, true]] as const) {
    m(`builtins.str.${name}`, (s, c) => {
      const charsV = c.args[0] ?? c.kw.get('chars');
      if (s.t !== 'str' || (charsV && charsV.t !== 'str' && charsV.t !== 'none')) return PASS;
      const chars = charsV?.t === 'str' ? charsV.v : WS;
      let a = 0;
      let b = s.v.length;
      if (left) while (a < b && chars.includes(s.v[a])) a++;
      if (right) while (b > a && chars.includes(s.v[b - 1])) b--;
      return { t: 'str', v: s.v.slice(a, b) };
    });
  }
  m('builtins.str.replace', (s, c, node) => {
    const [a, b] = [c.args[0] ?? c.kw.get('old'), c.args[1] ?? c.kw.get('new')];
    const countV = c.args[2] ?? c.kw.get('count');
    const count = countV === undefined ? -1 : num(countV);
    if (s.t !== 'str' || a?.t !== 'str' || b?.t !== 'str' || count === undefined) return PASS;
    if (a.v === '') return PASS;
    const parts = s.v.split(a.v);
    const n = count < 0 ? parts.length - 1 : Math.min(count, parts.length - 1);
    const out = parts.slice(0, n + 1).join(b.v) + (n + 1 < parts.length ? a.v + parts.slice(n + 1).join(a.v) : '');
    if (out.length > MAX_STR) return it.note(`str.replace result of ${out.length} characters is over the analysis size cap (${MAX_STR} characters)`, node);
    return { t: 'str', v: out };
  });
  m('builtins.str.splitlines', (s) => (s.t === 'str' ? { t: 'list', items: s.v.split(/\r\n|\r|\n/).filter((x, i, all) => !(x === '' && i === all.length - 1)).map((v) => ({ t: 'str' as const, v })) } : PASS));
  m('builtins.str.join', (s, c, node) => {
    const items = it.iterate(c.args[0] ?? NONE, node);
    if (s.t !== 'str' || !items || items.some((x) => x.t !== 'str')) return unknown('str.join', it.span(node));
    let total = s.v.length * Math.max(0, items.length - 1);
    for (const x of items) total += (x as { v: string }).v.length;
    if (total > MAX_STR) return it.note(`str.join result of ${total} characters is over the analysis size cap (${MAX_STR} characters)`, node);
    return { t: 'str', v: items.map((x) => (x as { v: string }).v).join(s.v) };
  });
}

function dtypeBytes(d: DType): number {
  return d === 'float64' || d === 'int64' || d === 'complex64' ? 8 : d === 'float16' || d === 'bfloat16' || d === 'int16' ? 2 : d === 'int8' || d === 'uint8' || d === 'bool' || d === 'float8' ? 1 : d === 'int4' ? 0.5 : 4;
}

function instAttr(it: Interpreter, obj: InstV, name: string, node: SyntaxNode): Value {
  const kind = obj.cls.kind;
  if (kind === 'torch') return { t: 'extern', name: `torch.nn.Module.${name}`, self: obj };
  if (kind === 'flax') return { t: 'extern', name: `flax.linen.Module.${name}`, self: obj };
  if (kind === 'haiku') return { t: 'extern', name: `haiku.Module.${name}`, self: obj };
  if (kind === 'equinox') return { t: 'extern', name: `equinox.Module.${name}`, self: obj };
  if (kind === 'nnx') return { t: 'extern', name: `flax.nnx.Module.${name}`, self: obj };
  void node;
  return PASS;
}

function tensorAttr(it: Interpreter, t: TensorV, name: string, node: SyntaxNode): Value {
  switch (name) {
    case 'shape': return { t: 'tuple', items: t.shape.map(dimValue) };
    case 'dtype': return { t: 'dtype', dtype: t.dtype };
    case 'ndim': return int(t.shape.length);
    case 'size': {
      if (t.lib === 'torch') break;
      let n = 1;
      for (const d of t.shape) { if (typeof d !== 'number') return unknown('size of an array with an unknown dimension', it.span(node)); n *= d; }
      return int(n);
    }
    case 'T': case 'mT': case 'real': case 'imag': case 'data':
      if (name === 'data') return t;
      return applyOp(it, `${t.lib === 'torch' ? 'torch.Tensor' : 'jax.Array'}.${name}`, { args: [t], kw: new Map() }, node);
    case 'device': return { t: 'str', v: t.placement.kind === 'host' ? 'cpu' : 'cuda' };
    case 'at': return unknown('x.at[...] updates are not modelled', it.span(node));
    // An nnx.Variable is modelled as its array: `.value` / `.raw_value` is the array itself (flax/nnx/variablelib.py).
    case 'value': case 'raw_value': if (t.lib === 'jax') return t; break;
    case 'requires_grad': return { t: 'bool', v: t.role === 'param' && t.note !== 'requires_grad=False: no gradient' };
  }
  return { t: 'extern', name: `${t.lib === 'torch' ? 'torch.Tensor' : 'jax.Array'}.${name}`, self: t };
}

/** len(range(*slice(start, stop, step).indices(n))): Python's slice.indices clamping (Objects/sliceobject.c PySlice_AdjustIndices). */
function sliceLength(n: number, s: Value & { t: 'slice' }): number | undefined {
  const get = (v: Value): number | null | undefined => (v.t === 'none' ? null : v.t === 'int' ? v.v : undefined);
  const start = get(s.start), stop = get(s.stop), step = get(s.step) ?? 1;
  if (start === undefined || stop === undefined || step === undefined || step === 0) return undefined;
  const adjust = (v: number | null, dflt: number): number => {
    if (v === null) return dflt;
    if (v < 0) return Math.max(v + n, step < 0 ? -1 : 0);
    return Math.min(v, step < 0 ? n - 1 : n);
  };
  const lo = adjust(start, step < 0 ? n - 1 : 0);
  const hi = adjust(stop, step < 0 ? -1 : n);
  const len = step > 0 ? Math.ceil((hi - lo) / step) : Math.ceil((lo - hi) / -step);
  return Math.max(0, len);
}

function toIndex(it: Interpreter, v: Value): Index {
  switch (v.t) {
    case 'none': return { kind: 'newaxis' };
    case 'ellipsis': return { kind: 'ellipsis' };
    case 'slice': return { kind: 'slice', start: sliceNum(v.start), stop: sliceNum(v.stop), step: sliceNum(v.step), ...(v.width !== undefined ? { width: v.width } : {}) };
    case 'tensor': return { kind: 'array', shape: v.shape, dtype: v.dtype };
    case 'int': return { kind: 'int', value: v.v };
    case 'list': return { kind: 'array', shape: [v.items.length], dtype: 'int32' };
    default: return { kind: 'int', value: { unknown: `index ${describe(v)}` } };
  }
}

function sliceNum(v: Value): number | null | { unknown: string } {
  if (v.t === 'none') return null;
  const n = num(v);
  return n === undefined ? { unknown: `slice bound ${describe(v)}` } : n;
}

/**
 * The element values of a 1-D tensor whose values are known exactly (so far only torch.linspace with known
 * bounds, `linspaceValues`), keyed by the tensor value itself: any other operation makes a new value that is
 * not in the map, so its elements are unknown, never stale.
 */
const knownValues = new WeakMap<TensorV, number[]>();

/** The values of a known-valued tensor of at most this many elements are recorded (a drop-path schedule is ~depth long). */
const MAX_KNOWN_VALUES = 4096;

/**
 * torch.linspace(start, end, steps) element values, as the CPU kernel computes them in the result's dtype
 * (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp LinspaceKernel, torch 2.x: step = (end - start) / (steps - 1);
 * index < steps / 2 gives start + step * index, the rest end - step * (steps - index - 1)). float32 results are
 * rounded with Math.fround; other dtypes are left unknown.
 */
export function recordLinspace(t: Value, c: CallArgs): void {
  if (t.t !== 'tensor' || t.dtype !== 'float32' || t.shape.length !== 1) return;
  const start = num(c.args[0] ?? c.kw.get('start') ?? NONE), end = num(c.args[1] ?? c.kw.get('end') ?? NONE), steps = num(c.args[2] ?? c.kw.get('steps') ?? NONE);
  if (start === undefined || end === undefined || steps === undefined || !Number.isInteger(steps) || steps < 1 || steps > MAX_KNOWN_VALUES) return;
  if (steps === 1) { knownValues.set(t, [Math.fround(start)]); return; }
  const f = Math.fround;
  const step = f(f(f(end) - f(start)) / (steps - 1));
  const half = Math.floor(steps / 2);
  knownValues.set(t, Array.from({ length: steps }, (_, i) => (i < half ? f(f(start) + f(step * i)) : f(f(end) - f(step * (steps - i - 1))))));
}

/** The known element values of a tensor (flat), or undefined. */
export function tensorValues(t: TensorV): number[] | undefined {
  return knownValues.get(t);
}

function indexTensor(it: Interpreter, t: TensorV, key: Value, node: SyntaxNode): Value {
  const idx = key.t === 'tuple' ? key.items.map((k) => toIndex(it, k)) : [toIndex(it, key)];
  const shape = indexShape(t.shape, idx);
  if ('kind' in shape) return unknown(shape.reason, it.span(node));
  // Basic indexing in torch returns a view; in eager JAX every indexing op makes a new buffer.
  const view = t.lib === 'torch' && !idx.some((i) => i.kind === 'array');
  if (view) {
    const r: TensorV = { ...t, id: t.id, shape };
    // An integer index into a 1-D tensor of known values: a 0-d tensor holding that element.
    const vals = knownValues.get(t);
    if (vals && t.shape.length === 1 && key.t === 'int' && shape.length === 0) {
      const i = key.v < 0 ? vals.length + key.v : key.v;
      if (i >= 0 && i < vals.length) knownValues.set(r, [vals[i]]);
    }
    return r;
  }
  return it.memory.alloc({ shape, dtype: t.dtype, role: 'activation', name: 'index', span: it.span(node), lib: t.lib, from: [t], placement: t.placement });
}

/** Applies an op-catalogue entry to evaluated arguments and materialises its result. */
export function applyOp(it: Interpreter, name: string, c: CallArgs, node: SyntaxNode): Value {
  const op = it.cat.ops.get(name);
  if (!op) return unknown(`array operation ${name} is not catalogued`, it.span(node));
  const args = it.bindCatalogue(op.signature, op.defaults, c);
  const r = op.result(args);
  const arrays = c.args.filter((a): a is TensorV => a.t === 'tensor');
  const lib: 'jax' | 'torch' = name.startsWith('torch') ? 'torch' : arrays[0]?.lib ?? 'jax';
  if (lib === 'jax' && !name.startsWith('numpy.')) markBackendStart(it, node, name);
  const placement = arrays[0]?.placement ?? (lib === 'torch' ? torchCreatePlacement(it, args) : undefined);
  // A parameter-like draw outside any model may begin a plain-JAX params record (frameworks/jax/plain-init.ts).
  if (r.kind === 'array' && r.random && lib === 'jax' && PARAM_SAMPLERS.has(name)) it.plainInitDraw?.(node);
  // A draw inside a jitted call: its Threefry bits depend on how the call's outputs are sharded (jax.jit, frameworks/jax/semantics.ts).
  if (r.kind === 'array' && r.random && lib === 'jax' && it.memory.jitDepth > 0) {
    (it.state.get(JIT_RANDOM_DRAWS) as JitDraw[] | undefined)?.push({ shape: r.shape, dtype: r.dtype, span: it.span(node), name: shortOp(name) });
  }
  const res = applyResult(it, name, op, r, arrays, lib, placement, node, c);
  if (name === 'torch.linspace') recordLinspace(res, c);
  // Tensors inside list arguments (torch.cat([a, b])) are inputs too.
  it.memory.op(name, [...c.args, ...c.kw.values()], res, args as Record<string, unknown>);
  return res;
}

function applyResult(it: Interpreter, name: string, op: NonNullable<ReturnType<Interpreter['cat']['ops']['get']>>, r: ReturnType<NonNullable<ReturnType<Interpreter['cat']['ops']['get']>>['result']>, arrays: TensorV[], lib: 'jax' | 'torch', placement: TensorV['placement'] | undefined, node: SyntaxNode, c: CallArgs): Value {
  switch (r.kind) {
    case 'unknown': return unknown(`${name}: ${r.reason}`, it.span(node));
    case 'value': return it.fromCat(r.value as CatValue);
    case 'array': {
      if (r.view) {
        const base = arrays[0];
        if (base) return { ...base, shape: r.shape, dtype: r.dtype, dimLits: base.shape.length === r.shape.length && base.shape.every((d, i) => d === r.shape[i]) ? base.dimLits : undefined };
      }
      const isCast = /\.(astype|to|half|float|bfloat16|double|type)$/.test(name) && arrays[0] && arrays[0].dtype !== r.dtype;
      // Casting to the dtype an array already has returns it unchanged: torch `Tensor.to` ("If self already
      // has the correct dtype, self is returned") and jax `lax.convert_element_type`, which jnp astype calls.
      if (/\.(to|type|astype)$/.test(name) && arrays[0] && arrays[0].dtype === r.dtype) return arrays[0];
      // Casting the arrays of a stack that module-level code built continues that stack's record.
      if (isCast && it.memory.jitDepth === 0) it.memory.resumeLoose(arrays[0]);
      const t = it.memory.alloc({
        shape: r.shape, dtype: r.dtype, role: 'activation', span: it.span(node), random: r.random, lib, placement,
        name: isCast ? undefined : shortOp(name), castFrom: isCast ? arrays[0].dtype : undefined,
        citation: op.citation, from: arrays,
      });
      const lits = dimLiterals(c, r.shape.length) ?? (arrays[0]?.dimLits && arrays[0].shape.length === r.shape.length && arrays[0].shape.every((d, i) => d === r.shape[i]) ? arrays[0].dimLits : undefined);
      if (lits) t.dimLits = lits;
      if (isCast && !t.virtual && !t.abstract) {
        const src = arrays[0];
        const stacked = it.memory.current?.observations.some((o) => o.kind === 'vmap-construct' && o.ids.includes(src.id));
        it.memory.observe({
          kind: 'cast-copy', span: it.span(node), from: src.dtype, to: r.dtype, bytes: 0, group: t.group, inVmapGroup: src.group,
          sourceId: src.id, site: stacked ? castSite(it, src) : undefined,
        });
      }
      return t;
    }
    case 'arrays':
      // Views of the operand (unbind): the same storage, no new allocation.
      if (r.view && arrays[0]) return { t: 'tuple', items: r.items.map((a) => ({ ...arrays[0], shape: a.shape, dtype: a.dtype, dimLits: undefined })) };
      return { t: 'tuple', items: r.items.map((a) => it.memory.alloc({ shape: a.shape, dtype: a.dtype, role: 'activation', span: it.span(node), lib, placement, name: shortOp(name), from: arrays })) };
  }
}

/**
 * The integer literals a creation call's shape was written with (`torch.zeros((max_batch_size, 2048, ...))`
 * where max_batch_size holds a literal 32 passed down unchanged): the shape tuple or list given first or as
 * `shape=` / `size=`, or the sizes given one by one (`torch.zeros(32, 2048)`).
 */
function dimLiterals(c: CallArgs, rank: number): (Span | undefined)[] | undefined {
  const first = c.kw.get('shape') ?? c.kw.get('size') ?? c.args[0];
  const items = first && (first.t === 'tuple' || first.t === 'list') ? first.items : c.args.every((a) => a.t === 'int') ? c.args : undefined;
  if (!items || items.length !== rank || !items.every((v) => v.t === 'int')) return undefined;
  const lits = items.map((v) => (v.t === 'int' ? v.lit : undefined));
  return lits.some((l) => l) ? lits : undefined;
}

function torchCreatePlacement(it: Interpreter, args: Record<string, CatValue | undefined>) {
  const dev = args.device;
  if (typeof dev === 'string' && dev.startsWith('cuda')) return { kind: 'device' as const, index: Number(dev.split(':')[1] ?? 0) || 0 };
  const scope = it.state.get('torchDevice') as string | undefined;
  if (scope?.startsWith('cuda')) return { kind: 'device' as const, index: 0 };
  return { kind: 'host' as const };
}

function shortOp(name: string): string {
  return name.split('.').pop()!;
}

export { dtypeBytes };
