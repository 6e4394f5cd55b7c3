/**
 * Python builtins and standard-library helpers that model code uses to
 * compute sizes: range, len, int, min/max, zip, enumerate, math.*,
 * dataclasses.field, functools.partial, containers' methods.
 */
import type { CallArgs, Interpreter } from './interp';
import { canonical, isDictClass, keyEq, linearize, pathText } from './interp';
import type { SyntaxNode } from './parser';
import { literal } from '../program/argv';
import { type FuncV, type Value, NONE, describe, int, num, str, truthy, unknown } from './values';

const MAX_RANGE = 100_000;

function numbers(it: Interpreter, vals: Value[], node: SyntaxNode): number[] | Value {
  const out: number[] = [];
  for (const v of vals) {
    const n = num(v);
    if (n === undefined) return v.t === 'unknown' ? v : unknown(`${describe(v)} is not a number`, it.span(node));
    out.push(n);
  }
  return out;
}

function seqArg(it: Interpreter, c: CallArgs, node: SyntaxNode): Value[] | undefined {
  if (c.args.length === 1) return it.iterate(c.args[0], node);
  return c.args;
}

export function installPython(it: Interpreter): void {
  const reg = (name: string, fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) =>
    it.externs.set(name, (i, self, c, node) => fn(self, c, node));

  reg('builtins.range', (_s, c, node) => {
    const ns = numbers(it, c.args, node);
    if (!Array.isArray(ns)) return unknown(`range bound is not known: ${describe(ns)}`, it.span(node));
    const [a, b, step] = ns.length === 1 ? [0, ns[0], 1] : [ns[0], ns[1], ns[2] ?? 1];
    if (step === 0) return unknown('range step 0', it.span(node));
    const n = Math.max(0, Math.ceil((b - a) / step));
    if (n > MAX_RANGE) return unknown(`range of ${n} items is too long to unroll`, it.span(node));
    const items: Value[] = [];
    for (let i = 0; i < n; i++) items.push(int(a + i * step));
    return { t: 'list', items };
  });
  reg('builtins.len', (_s, c, node) => {
    const v = c.args[0];
    if (!v) return unknown('len()', it.span(node));
    if (v.t === 'tuple' || v.t === 'list') return int(v.items.length);
    if (v.t === 'dict') return int(v.keys.length);
    if (v.t === 'str') return int(v.v.length);
    if (v.t === 'tensor') return typeof v.shape[0] === 'number' ? int(v.shape[0]) : unknown('len of an array with unknown leading size', it.span(node));
    const items = it.iterate(v, node);
    return items ? int(items.length) : unknown(`len(${describe(v)})`, it.span(node));
  });
  reg('builtins.int', (_s, c, node) => {
    const v = c.args[0] ?? int(0);
    // int(str) accepts an optionally signed run of decimal digits (underscores between them), with whitespace
    // around; anything else ("3.5", "1e3", "") raises ValueError (Python docs, int()).
    if (v.t === 'str' && c.args.length === 1) {
      return /^\s*[+-]?\d+(_\d+)*\s*$/.test(v.v) ? int(Number(v.v.replace(/_/g, ''))) : it.raise('ValueError', `int(${JSON.stringify(v.v)})`, node);
    }
    if (v.t === 'str') return unknown(`int(${JSON.stringify(v.v)}, base)`, it.span(node));
    const n = num(v);
    return n === undefined ? (v.t === 'unknown' ? v : unknown(`int(${describe(v)})`, it.span(node))) : int(Math.trunc(n));
  });
  reg('builtins.float', (_s, c, node) => {
    const v = c.args[0] ?? { t: 'float', v: 0 };
    // float(str): a decimal or exponent number, inf/infinity/nan with a sign, whitespace around; else ValueError.
    if (v.t === 'str') {
      const w = v.v.trim();
      if (/^[+-]?(inf|infinity)$/i.test(w)) return { t: 'float', v: w.startsWith('-') ? -Infinity : Infinity };
      if (/^[+-]?nan$/i.test(w)) return { t: 'float', v: NaN };
      return /^[+-]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)([eE][+-]?\d+(_\d+)*)?$/.test(w) ? { t: 'float', v: Number(w.replace(/_/g, '')) } : it.raise('ValueError', `float(${JSON.stringify(v.v)})`, node);
    }
    const n = num(v);
    return n === undefined ? unknown(`float(${describe(v)})`, it.span(node)) : { t: 'float', v: n };
  });
  reg('builtins.bool', (_s, c, node) => {
    const t = c.args[0] ? truthy(c.args[0]) : false;
    return t === undefined ? unknown('bool() of an unknown value', it.span(node)) : { t: 'bool', v: t };
  });
  reg('builtins.str', (_s, c) => {
    const v = c.args[0];
    if (!v) return str('');
    if (v.t === 'str') return v;
    if (v.t === 'int' || v.t === 'float') return str(String(v.v));
    const path = pathText(v);
    if (path !== undefined) return str(path);
    return unknown('str() of a non-literal');
  });
  for (const [name, f] of [['builtins.min', Math.min], ['builtins.max', Math.max]] as const) {
    reg(name, (_s, c, node) => {
      const items = seqArg(it, c, node);
      if (!items || items.length === 0) return unknown(`${name.slice(9)}() of an unknown sequence`, it.span(node));
      const ns = numbers(it, items, node);
      if (!Array.isArray(ns)) return unknown(`${name.slice(9)}(): ${describe(ns)}`, it.span(node));
      const r = f(...ns);
      return items.every((x) => x.t === 'int' || x.t === 'bool') ? int(r) : { t: 'float', v: r };
    });
  }
  reg('builtins.sum', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('sum() of an unknown sequence', it.span(node));
    let acc: Value = c.args[1] ?? int(0);
    for (const x of items) acc = it.binop('+', acc, x, node);
    return acc;
  });
  reg('builtins.abs', (_s, c, node) => { const n = num(c.args[0] ?? NONE); return n === undefined ? unknown('abs()', it.span(node)) : { t: c.args[0].t === 'float' ? 'float' : 'int', v: Math.abs(n) } as Value; });
  reg('builtins.round', (_s, c, node) => {
    const n = num(c.args[0] ?? NONE);
    if (n === undefined) return unknown('round()', it.span(node));
    const d = c.args[1] ? num(c.args[1]) : undefined;
    if (d === undefined) return int(roundHalfEven(n));
    const f = 10 ** d;
    return { t: 'float', v: roundHalfEven(n * f) / f };
  });
  reg('builtins.divmod', (_s, c, node) => {
    const [a, b] = c.args.map((x) => num(x));
    if (a === undefined || b === undefined || b === 0) return unknown('divmod()', it.span(node));
    return { t: 'tuple', items: [int(Math.floor(a / b)), int(((a % b) + b) % b)] };
  });
  reg('builtins.pow', (_s, c, node) => it.binop('**', c.args[0] ?? NONE, c.args[1] ?? NONE, node));
  reg('builtins.list', (_s, c, node) => {
    if (!c.args[0]) return { t: 'list', items: [] };
    const items = it.iterate(c.args[0], node);
    return items ? { t: 'list', items: [...items] } : unknown(`list(${describe(c.args[0])})`, it.span(node));
  });
  reg('builtins.tuple', (_s, c, node) => {
    if (!c.args[0]) return { t: 'tuple', items: [] };
    const items = it.iterate(c.args[0], node);
    return items ? { t: 'tuple', items: [...items] } : unknown(`tuple(${describe(c.args[0])})`, it.span(node));
  });
  reg('builtins.set', (_s, c, node) => {
    if (!c.args[0]) return { t: 'list', items: [] };
    // The characters of a string, in first-seen order (a character vocabulary: `sorted(set(text))` of a whole
    // corpus file), without one value per character of the text.
    if (c.args[0].t === 'str') return { t: 'list', items: [...new Set(c.args[0].v)].map(str) };
    const items = it.iterate(c.args[0], node);
    if (!items) return unknown('set()', it.span(node));
    const out: Value[] = [];
    for (const x of items) if (!out.some((y) => keyEq(x, y))) out.push(x);
    return { t: 'list', items: out };
  });
  const newDict = (c: CallArgs, node: SyntaxNode): Value => {
    const d: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
    if (c.args[0]?.t === 'dict') { d.keys.push(...c.args[0].keys); d.vals.push(...c.args[0].vals); }
    else if (c.args[0]?.t === 'inst' && c.args[0].attrs.get('__dict__')?.t === 'dict' && isDictClass(c.args[0].cls)) {
      const m = c.args[0].attrs.get('__dict__') as Value & { t: 'dict' };
      d.keys.push(...m.keys); d.vals.push(...m.vals);
    } else if (c.args[0] && c.args[0].t !== 'none') {
      const pairs = it.iterate(c.args[0], node);
      // dict() of a value oomlens cannot read is not known: an empty dict would drop every key.
      if (!pairs) return unknown(`dict() of ${describe(c.args[0])}`, it.span(node));
      for (const p of pairs) {
        const kv = it.iterate(p, node);
        if (kv && kv.length === 2) it.setItem(d, kv[0], kv[1], node);
        else return unknown(`dict() of an item that is not a known key/value pair (${describe(p)})`, it.span(node));
      }
    }
    if (c.kw.has('**')) return unknown('dict() with **kwargs that could not be expanded', it.span(node));
    for (const [k, v] of c.kw) it.setItem(d, str(k), v, node);
    return d;
  };
  reg('builtins.dict', (_s, c, node) => newDict(c, node));
  // A dict subclass's `super().__init__(*args, **kwargs)` (class AttrDict(dict)): the instance's mapping, kept as
  // its `__dict__` entry (item access, iteration, len and dict methods read it; see Interpreter.getAttr).
  reg('builtins.dict.__init__', (self, c, node) => {
    if (self?.t !== 'inst') return unknown('dict.__init__ of a value that is not an instance', it.span(node));
    const d = newDict(c, node);
    self.attrs.set('__dict__', d);
    return NONE;
  });
  reg('builtins.zip', (_s, c, node) => {
    const seqs = c.args.map((a) => it.iterate(a, node));
    if (seqs.some((s) => !s)) return unknown('zip() of an unknown sequence', it.span(node));
    // zip() with no sequences (zip(*[])) is empty; Math.min() of nothing is Infinity.
    if (!seqs.length) return { t: 'list', items: [] };
    const n = Math.min(...seqs.map((s) => s!.length));
    return { t: 'list', items: Array.from({ length: n }, (_, i) => ({ t: 'tuple' as const, items: seqs.map((s) => s![i]) })) };
  });
  // itertools.chain(*iterables) / chain.from_iterable(iterable): the items of each in turn (itertools docs).
  const chained = (seqs: Value[], node: SyntaxNode): Value => {
    const out: Value[] = [];
    for (const q of seqs) {
      const items = it.iterate(q, node);
      if (!items) return unknown('itertools.chain of an unknown sequence', it.span(node));
      if (it.overCap(out.length, items.length, node)) return unknown('itertools.chain over the analysis size cap', it.span(node));
      out.push(...items);
    }
    return { t: 'list', items: out };
  };
  reg('itertools.chain', (_s, c, node) => chained(c.args, node));
  // itertools.repeat(object, times): `times` references to the object (itertools docs); without `times` it repeats
  // forever, which only zip() or islice() can bound: not followed.
  reg('itertools.repeat', (_s, c, node) => {
    const obj = c.args[0] ?? c.kw.get('object');
    const times = c.args[1] ?? c.kw.get('times');
    if (!obj || times?.t !== 'int') return unknown(`itertools.repeat(${times ? describe(times) : 'without times'}): the count is not known`, it.span(node));
    if (it.overCap(0, Math.max(0, times.v), node)) return unknown('itertools.repeat over the analysis size cap', it.span(node));
    return { t: 'list', items: Array.from({ length: Math.max(0, times.v) }, () => obj) };
  });
  reg('itertools.chain.from_iterable', (_s, c, node) => {
    const outer = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    return outer ? chained(outer, node) : unknown('itertools.chain.from_iterable of an unknown sequence', it.span(node));
  });
  // itertools.product(*iterables, repeat=1): the cartesian product of the iterables, repeated `repeat` times,
  // as tuples in lexicographic order (itertools docs: product(A, repeat=4) is product(A, A, A, A)).
  reg('itertools.product', (_s, c, node) => {
    const rep = c.kw.get('repeat') ?? int(1);
    if (rep.t !== 'int' || rep.v < 0) return unknown(`itertools.product with repeat=${describe(rep)}`, it.span(node));
    const pools: Value[][] = [];
    for (const a of c.args) {
      const items = it.iterate(a, node);
      if (!items) return unknown('itertools.product of an unknown sequence', it.span(node));
      pools.push(items);
    }
    let out: Value[][] = [[]];
    for (let r = 0; r < rep.v; r++) {
      for (const pool of pools) {
        if (it.overCap(0, out.length * pool.length, node)) return unknown('itertools.product over the analysis size cap', it.span(node));
        out = out.flatMap((prefix) => pool.map((x) => [...prefix, x]));
      }
    }
    return { t: 'list', items: out.map((items) => ({ t: 'tuple' as const, items })) };
  });
  reg('builtins.enumerate', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('enumerate() of an unknown sequence', it.span(node));
    const start = num(c.args[1] ?? c.kw.get('start') ?? int(0)) ?? 0;
    return { t: 'list', items: items.map((x, i) => ({ t: 'tuple' as const, items: [int(start + i), x] })) };
  });
  reg('builtins.reversed', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    return items ? { t: 'list', items: [...items].reverse() } : unknown('reversed()', it.span(node));
  });
  // sorted(iterable, key=None, reverse=False): numbers by value, strings by character (Python's str ordering);
  // other items keep their order (what is built from them does not depend on it), unless key= or reverse= asks
  // for an order that cannot be computed, which is an unknown.
  reg('builtins.sorted', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('sorted()', it.span(node));
    const keyFn = c.kw.get('key');
    const rev = c.kw.get('reverse');
    const reverse = rev === undefined ? false : truthy(rev);
    if (reverse === undefined) return unknown('sorted(reverse=<unknown>)', it.span(node));
    const keys = keyFn && keyFn.t !== 'none' ? items.map((x) => it.call(keyFn, { args: [x], kw: new Map() }, node)) : items;
    let cmp: ((a: number, b: number) => number) | undefined;
    if (keys.every((k) => num(k) !== undefined)) cmp = (a, b) => num(keys[a])! - num(keys[b])!;
    else if (keys.every((k) => k.t === 'str')) {
      const sv = (i: number) => (keys[i] as { v: string }).v;
      cmp = (a, b) => (sv(a) < sv(b) ? -1 : sv(a) > sv(b) ? 1 : 0);
    } else if (keyFn || reverse) return unknown('sorted() by keys that are not known numbers or strings', it.span(node));
    const order = items.map((_, i) => i);
    // Stable either way: reverse=True keeps equal items in their original order (Python's list.sort).
    if (cmp) order.sort((a, b) => (reverse ? cmp!(b, a) : cmp!(a, b)));
    return { t: 'list', items: order.map((i) => items[i]) };
  });
  reg('builtins.map', (_s, c, node) => {
    const seqs = c.args.slice(1).map((a) => it.iterate(a, node));
    if (!c.args[0] || seqs.some((s) => !s)) return unknown('map() over an unknown sequence', it.span(node));
    // map(f) with no iterable raises TypeError in Python.
    if (!seqs.length) return unknown('map() needs at least one iterable', it.span(node));
    const n = Math.min(...seqs.map((s) => s!.length));
    const out: Value[] = [];
    for (let i = 0; i < n; i++) out.push(it.call(c.args[0], { args: seqs.map((s) => s![i]), kw: new Map() }, node));
    return { t: 'list', items: out };
  });
  reg('builtins.filter', (_s, c, node) => {
    const items = c.args[1] ? it.iterate(c.args[1], node) : undefined;
    if (!items) return unknown('filter()', it.span(node));
    return { t: 'list', items: items.filter((x) => (c.args[0].t === 'none' ? truthy(x) : truthy(it.call(c.args[0], { args: [x], kw: new Map() }, node))) !== false) };
  });
  reg('builtins.any', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('any()', it.span(node));
    const ts = items.map(truthy);
    return ts.some((x) => x === true) ? { t: 'bool', v: true } : ts.some((x) => x === undefined) ? unknown('any() of unknown values') : { t: 'bool', v: false };
  });
  reg('builtins.all', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('all()', it.span(node));
    const ts = items.map(truthy);
    return ts.some((x) => x === false) ? { t: 'bool', v: false } : ts.some((x) => x === undefined) ? unknown('all() of unknown values') : { t: 'bool', v: true };
  });
  reg('builtins.isinstance', (_s, c) => {
    const [v, cls] = c.args;
    if (!v || !cls) return unknown('isinstance()');
    const names = cls.t === 'tuple' ? cls.items : [cls];
    for (const n of names) {
      if (n.t === 'extern') {
        const nm = n.name.replace(/^builtins\./, '');
        if ((nm === 'int' && v.t === 'int') || (nm === 'float' && v.t === 'float') || (nm === 'str' && v.t === 'str') ||
            (nm === 'bool' && v.t === 'bool') || ((nm === 'tuple' || nm === 'list' || nm === 'typing.Sequence' || nm === 'collections.abc.Sequence') && (v.t === 'tuple' || v.t === 'list')) ||
            (nm === 'dict' && v.t === 'dict')) return { t: 'bool', v: true };
        // Arrays: a torch tensor is a torch.Tensor, a parameter also an nn.Parameter
        // (torch/nn/parameter.py: Parameter subclasses Tensor); a JAX array is a jax.Array.
        if (v.t === 'tensor') {
          if (v.lib === 'torch' && (nm === 'torch.Tensor' || (/^torch\.nn\.(parameter\.)?Parameter$/.test(nm) && v.role === 'param'))) return { t: 'bool', v: true };
          if (v.lib === 'jax' && (nm === 'jax.Array' || nm === 'jax.numpy.ndarray')) return { t: 'bool', v: true };
        }
      }
      if (n.t === 'class' && v.t === 'inst' && linearIncludes(v.cls, n)) return { t: 'bool', v: true };
    }
    if (v.t === 'unknown') return unknown('isinstance of an unknown value');
    // A library constant the analysis does not model (`logging.INFO`, `mod.DEFAULT_SIZE`): a value of some type,
    // not a class or function, so what it is an instance of is not known.
    if (v.t === 'extern' && !v.self && !v.args && /^[A-Z][A-Z0-9_]*$/.test(v.name.split('.').pop() ?? '')) return unknown(`isinstance of ${v.name}, a library value that is not modelled`);
    return { t: 'bool', v: false };
  });
  reg('builtins.callable', (_s, c) => ({ t: 'bool', v: ['func', 'class', 'extern'].includes(c.args[0]?.t ?? '') }));
  // inspect.getfullargspec(f) of a function of the program (Python docs, inspect): (args, varargs, varkw, defaults,
  // kwonlyargs, kwonlydefaults, annotations); `args` are the positional-or-keyword parameters' names in order
  // (improved-diffusion keeps the defaults its builder takes: `if k not in getfullargspec(f)[0]: del res[k]`).
  reg('inspect.getfullargspec', (_s, c, node) => {
    const f = c.args[0];
    const fn = f?.t === 'func' ? f : f?.t === 'class' ? it.classAttr(f, '__init__') : undefined;
    if (fn?.t !== 'func') return unknown('inspect.getfullargspec of a callable that is not a function of the program', it.span(node));
    const params = (fn.node.childForFieldName('parameters')?.namedChildren ?? []).filter((p): p is SyntaxNode => !!p);
    const args: Value[] = [];
    const kwonly: Value[] = [];
    let varargs: Value = NONE;
    let varkw: Value = NONE;
    let afterStar = false;
    for (const p of params) {
      if (p.type === 'list_splat_pattern') { varargs = str(p.namedChildren[0]?.text ?? ''); afterStar = true; continue; }
      if (p.type === 'dictionary_splat_pattern') { varkw = str(p.namedChildren[0]?.text ?? ''); continue; }
      if (p.type === 'keyword_separator') { afterStar = true; continue; }
      if (p.type === 'positional_separator') continue;
      const name = p.type === 'identifier' ? p.text : (p.childForFieldName('name') ?? p.namedChildren[0])?.text;
      if (!name) return unknown('inspect.getfullargspec: a parameter is not read', it.span(node));
      (afterStar ? kwonly : args).push(str(name));
    }
    return { t: 'tuple', items: [{ t: 'list', items: args }, varargs, varkw, unknown('defaults'), { t: 'list', items: kwonly }, unknown('kwonlydefaults'), unknown('annotations')] };
  });
  reg('builtins.print', () => NONE);
  reg('builtins.super', (_s, c, node) => {
    // Zero-argument super(): the class whose method is running and its self.
    const frame = it.currentFrame();
    const self = frame.vars.get('self') ?? c.args[1];
    let cls = c.args[0]?.t === 'class' ? c.args[0] : undefined;
    if (!cls) {
      for (let p: SyntaxNode | null = node.parent; p; p = p.parent) {
        if (p.type === 'class_definition') {
          // The class the method is written in (Python's __class__ cell), found in self's class hierarchy by its
          // definition; a lookup by name would find whatever the name is bound to now (a class swapped in later).
          const def = p;
          const own = self?.t === 'inst' ? linearize(self.cls).find((k) => k.node?.id === def.id) : undefined;
          const v = own ?? it.lookup(p.childForFieldName('name')!.text, p);
          if (v.t === 'class') cls = v;
          break;
        }
      }
    }
    if (!cls || !self) return unknown('super() outside a method', it.span(node));
    return { t: 'super', cls, self };
  });
  reg('builtins.getattr', (_s, c, node) => {
    const [o, n, d] = c.args;
    if (!o || n?.t !== 'str') return unknown('getattr with a dynamic name', it.span(node));
    const v = it.getAttr(o, n.v, node);
    return v.t === 'unknown' && d ? d : v;
  });
  reg('builtins.hasattr', (_s, c, node) => {
    const [o, n] = c.args;
    if (!o || n?.t !== 'str') return unknown('hasattr with a dynamic name', it.span(node));
    if (o.t === 'inst') return { t: 'bool', v: o.attrs.has(n.v) || it.classAttr(o.cls, n.v) !== undefined };
    return unknown(`hasattr on ${describe(o)}`, it.span(node));
  });
  reg('builtins.setattr', (_s, c, node) => {
    const [o, n, v] = c.args;
    if (o && n?.t === 'str' && v) it.setAttr(o, n.v, v, node);
    else if (o?.t === 'inst') it.completeAttrs.delete(o);
    return NONE;
  });
  // type(x): the class of an object; for builtin values their builtin type (compared by name in interp.ts).
  const BUILTIN_OF: Partial<Record<Value['t'], string>> = { int: 'int', float: 'float', str: 'str', bool: 'bool', none: 'NoneType', list: 'list', tuple: 'tuple', dict: 'dict' };
  reg('builtins.type', (_s, c) => {
    const v = c.args[0];
    if (v?.t === 'inst') return v.cls;
    const b = v ? BUILTIN_OF[v.t] : undefined;
    if (b && !(v?.t === 'dict' && v.attrs)) return { t: 'extern', name: `builtins.${b}` };
    return unknown('type()');
  });
  reg('builtins.iter', (_s, c) => c.args[0] ?? NONE);
  reg('builtins.next', (_s, c, node) => {
    // A generator paused at its first yield (interp.ts runGenerator): that item.
    const g = c.args[0];
    if (g?.t === 'extern' && g.name === '__generator__' && g.args?.[0]) return g.args[0];
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    return items?.[0] ?? c.args[1] ?? unknown('next()', it.span(node));
  });
  // vars(obj) is obj.__dict__ (builtins docs): a program's instance gives its attributes, a namespace-like mapping
  // (SimpleNamespace, argparse.Namespace) itself; anything else (a module, a library object) is not known.
  // The instance's dict is handed out as a copy: the program may change the object through it, so its attributes
  // are no longer known complete (`**vars(x)` in interp.ts), and a second vars(x) is unknown, never the stale copy.
  reg('builtins.vars', (_s, c, node) => {
    const o = c.args[0];
    if (o?.t === 'inst') {
      it.completeAttrs.delete(o);
      if (handedOut.has(o)) return unknown(`vars(${describe(o)}) after its __dict__ was handed out: changes made through it are not followed`, it.span(node));
      handedOut.add(o);
      return { t: 'dict', keys: [...o.attrs.keys()].map((k) => str(k)), vals: [...o.attrs.values()] };
    }
    if (o?.t === 'dict' && o.attrs) return o;
    return unknown(o ? `vars(${describe(o)})` : 'vars() of the local scope', it.span(node));
  });
  const handedOut = new WeakSet<object>();
  reg('builtins.open', () => unknown('file I/O is not followed'));

  // math
  const math1: Record<string, (x: number) => number> = {
    ceil: Math.ceil, floor: Math.floor, sqrt: Math.sqrt, log: Math.log, log2: Math.log2, log10: Math.log10, exp: Math.exp, trunc: Math.trunc, fabs: Math.abs,
  };
  for (const [n, f] of Object.entries(math1)) {
    reg(`math.${n}`, (_s, c, node) => {
      const x = num(c.args[0] ?? NONE);
      if (x === undefined) return unknown(`math.${n} of an unknown value`, it.span(node));
      // math.log(x, base) = log(x) / log(base), computed so, in doubles (CPython mathmodule.c math_log_impl):
      // `int(math.log(8, 2))` is 3 and `int(math.log(1000, 10))` 2, as in Python.
      if (n === 'log' && c.args.length > 1) {
        const b = num(c.args[1]);
        return b === undefined ? unknown('math.log with a base that is not known', it.span(node)) : { t: 'float', v: Math.log(x) / Math.log(b) };
      }
      const r = f(x);
      return n === 'ceil' || n === 'floor' || n === 'trunc' ? int(r) : { t: 'float', v: r };
    });
  }
  // numpy's ufuncs on a Python number give a numpy float64 scalar with the same value as math's (numpy docs,
  // "Universal functions": a scalar input gives a scalar output; np.floor / np.ceil / np.trunc stay floats).
  // On arrays (not modelled as numpy values here) the result stays unknown.
  for (const [n, f] of Object.entries(math1)) {
    if (n === 'fabs') continue;
    reg(`numpy.${n}`, (_s, c, node) => {
      const a = c.args[0] ?? NONE;
      const x = a.t === 'int' || a.t === 'float' ? a.v : undefined;
      if (x === undefined) return unknown(`numpy.${n} of a value that is not a known number (${describe(a)})`, it.span(node));
      return { t: 'float', v: f(x) };
    });
  }
  reg('math.prod', (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : undefined;
    if (!items) return unknown('math.prod of an unknown sequence', it.span(node));
    let acc: Value = int(1);
    for (const x of items) acc = it.binop('*', acc, x, node);
    return acc;
  });
  reg('numpy.prod', (_s, c, node) => it.callExtern({ t: 'extern', name: 'math.prod' }, c, node));
  reg('math.gcd', (_s, c) => { let [a, b] = c.args.map((x) => num(x) ?? 0); while (b) [a, b] = [b, a % b]; return int(Math.abs(a)); });
  // Module constants are values, not functions (`math.pi * 0.5`, `from math import pi`): Python docs, math module
  // "Constants" (pi, e, tau, inf, nan); numpy's are the same doubles (numpy docs "Constants").
  const constants: [string, number][] = [['pi', Math.PI], ['e', Math.E], ['tau', 2 * Math.PI], ['inf', Infinity], ['nan', NaN]];
  for (const mod of ['math', 'numpy']) for (const [k, v] of constants) it.externValues.set(`${mod}.${k}`, () => ({ t: 'float', v }));
  // logging's levels (Python docs, logging "Logging Levels"): `getattr(logging, args.verbose.upper(), None)` then
  // `if not isinstance(level, int): raise ValueError(...)` is how scripts check a --verbose flag.
  const levels: [string, number][] = [['NOTSET', 0], ['DEBUG', 10], ['INFO', 20], ['WARNING', 30], ['WARN', 30], ['ERROR', 40], ['CRITICAL', 50], ['FATAL', 50]];
  for (const [k, v] of levels) it.externValues.set(`logging.${k}`, () => int(v));

  // dataclasses / typing / functools
  const field = (_s: Value | undefined, c: CallArgs): Value => ({ t: 'extern', name: '__field__', kw: c.kw });
  reg('dataclasses.field', field);
  reg('equinox.field', field);
  reg('equinox.static_field', field);
  reg('flax.struct.field', field);
  reg('functools.partial', (_s, c, node) => {
    const [f, ...rest] = c.args;
    if (!f) return unknown('partial()', it.span(node));
    if (f.t === 'func') return { ...f, partialArgs: [...(f.partialArgs ?? []), ...rest], partialKw: new Map([...(f.partialKw ?? []), ...c.kw]) } as FuncV;
    if (f.t === 'extern' || f.t === 'class') {
      return { t: 'extern', name: '__partial__', self: f, args: rest, kw: c.kw };
    }
    return unknown('partial() of an unknown callable', it.span(node));
  });
  it.externs.set('__partial__', (_i, self, c, node, fnv) => {
    if (!self) return unknown('partial()', it.span(node));
    return it.call(self, { args: [...(fnv.args ?? []), ...c.args], kw: new Map([...(fnv.kw ?? []), ...c.kw]) }, node);
  });
  for (const n of ['typing.cast']) reg(n, (_s, c) => c.args[1] ?? NONE);
  // dataclasses.replace(obj, **changes) (cpython Lib/dataclasses.py `replace`): a new object of the same
  // class built by `obj.__class__(**changes)`, every init field not in `changes` passed as obj's value;
  // __init__ / __post_init__ run again. flax.struct.dataclass's and chex.dataclass's `obj.replace(**changes)`
  // and NamedTuple's `obj._replace(**changes)` are the same (flax/struct.py `replace`: dataclasses.replace).
  const dataclassReplace = (obj: Value | undefined, changes: Map<string, Value>, node: SyntaxNode): Value => {
    if (obj?.t !== 'inst' || !obj.cls.dataclass) return unknown(`replace() of ${obj ? describe(obj) : 'nothing'}`, it.span(node));
    const kw = new Map<string, Value>();
    for (const f of obj.cls.fields) {
      const d = it.classAttr(obj.cls, f);
      if (d?.t === 'extern' && d.name === '__field__' && d.kw?.get('init')?.t === 'bool' && !truthy(d.kw.get('init')!)) continue;
      const v = changes.get(f) ?? (changes.has('**') ? undefined : obj.attrs.get(f));
      if (v !== undefined) kw.set(f, v);
    }
    // `**d` that could not be expanded may change any field: fields not named take its value (unknown).
    if (changes.has('**')) kw.set('**', changes.get('**')!);
    for (const k of changes.keys()) {
      if (k !== '**' && !obj.cls.fields.includes(k)) return unknown(`replace(): \`${k}\` is not a field of ${obj.cls.name}`, it.span(node));
    }
    return it.call(obj.cls, { args: [], kw }, node);
  };
  reg('dataclasses.replace', (_s, c, node) => dataclassReplace(c.args[0], c.kw, node));
  it.externs.set('__dataclass_replace__', (_i, self, c, node) => dataclassReplace(self, c.kw, node));
  reg('copy.deepcopy', (_s, c) => c.args[0] ?? NONE);
  reg('copy.copy', (_s, c) => c.args[0] ?? NONE);

  // collections.namedtuple(typename, field_names, defaults=...) (cpython Lib/collections/__init__.py):
  // field_names is a sequence or one string split on commas and whitespace; `defaults` apply to the
  // rightmost fields. The class behaves as a dataclass with those fields.
  reg('collections.namedtuple', (_s, c, node) => {
    const name = c.args[0] ?? c.kw.get('typename');
    const fieldsV = c.args[1] ?? c.kw.get('field_names');
    let fields: string[] | undefined;
    if (fieldsV?.t === 'str') fields = fieldsV.v.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
    else if (fieldsV && (fieldsV.t === 'list' || fieldsV.t === 'tuple') && fieldsV.items.every((x) => x.t === 'str')) fields = fieldsV.items.map((x) => (x as { v: string }).v);
    if (name?.t !== 'str' || !fields) return unknown('namedtuple with fields that are not known', it.span(node));
    const cls: Value = { t: 'class', name: name.v, bases: [], ns: new Map([['_replace', { t: 'extern', name: '__dataclass_replace__' }]]), kind: 'plain', dataclass: true, fields };
    const d = c.kw.get('defaults');
    if (d && (d.t === 'list' || d.t === 'tuple')) {
      const off = fields.length - d.items.length;
      d.items.forEach((v, i) => { if (off + i >= 0) cls.ns.set(fields![off + i], v); });
    }
    return cls;
  });
  // `exec(open("configurator.py").read())`: a config override run from a file is not followed (it
  // reads the command line); the program's own defaults stand.
  // exec(open("configurator.py").read()): the text read from a workspace .py file (program/configfiles.ts
  // `__file_handle__.read`) runs in the caller's frame; other code text is not followed.
  reg('builtins.exec', (_s, c, node) => {
    const code = c.args[0];
    const from = code?.t === 'str' ? (it.state.get('pySourceRead') as Map<string, string> | undefined)?.get(code.v) : undefined;
    if (from !== undefined && c.args.length === 1 && it.execFile(from)) return NONE;
    it.note('exec() of code text is not followed: the values it would override keep the defaults written in the program', node);
    return NONE;
  });
  // importlib.import_module(name) (importlib docs: returns the module `name`, importing it as `import name`
  // would, the package argument only for relative names): a workspace module, else the library by its name.
  reg('importlib.import_module', (_s, c, node) => {
    const n = c.args[0] ?? c.kw.get('name');
    if (n?.t !== 'str') return unknown('importlib.import_module of a name that is not known', it.span(node));
    if (n.v.startsWith('.')) return unknown(`importlib.import_module(${JSON.stringify(n.v)}): relative names are not followed`, it.span(node));
    const chain = it.importChain(n.v, node);
    return chain ? chain[chain.length - 1] : { t: 'extern', name: canonical(n.v) };
  });
  // __import__(name, globals, locals, fromlist=(), level=0) (builtins docs): imports `name` as `import name` does and
  // returns the top-level package, or the named module itself when fromlist is not empty (`__import__(args.model)`,
  // a model file chosen on the command line).
  reg('builtins.__import__', (_s, c, node) => {
    const n = c.args[0] ?? c.kw.get('name');
    const level = c.args[4] ?? c.kw.get('level');
    if (n?.t !== 'str') return unknown('__import__ of a name that is not known', it.span(node));
    if (level && !(level.t === 'int' && level.v === 0)) return unknown(`__import__(${JSON.stringify(n.v)}) with a relative level is not followed`, it.span(node));
    const fromlist = c.args[3] ?? c.kw.get('fromlist');
    const wantsLeaf = !!fromlist && ((fromlist.t === 'list' || fromlist.t === 'tuple') ? fromlist.items.length > 0 : fromlist.t !== 'none');
    const chain = it.importChain(n.v, node);
    if (chain) return wantsLeaf ? chain[chain.length - 1] : chain[0];
    return { t: 'extern', name: canonical(wantsLeaf ? n.v : n.v.split('.')[0]) };
  });
  // globals() (builtins docs: "the dictionary implementing the current module namespace"): the module frame's
  // names; setting an item binds the name (interp.ts setItem, `scope`).
  reg('builtins.globals', () => {
    let env = it.currentFrame();
    while (env.parent) env = env.parent;
    const keys: Value[] = [], vals: Value[] = [];
    for (const [k, v] of env.vars) { keys.push(str(k)); vals.push(v); }
    return { t: 'dict', keys, vals, scope: env };
  });
  // ast.literal_eval of a word (Python literals: numbers, True/False/None, quoted strings, containers of them);
  // anything else raises (ast.py: a name is a "malformed node" ValueError; text that does not parse a SyntaxError):
  // inside a try of the same frame its handler runs (interp.raise), elsewhere the value is unknown.
  reg('ast.literal_eval', (_s, c, node) => {
    const a = c.args[0];
    if (a?.t !== 'str') return unknown('ast.literal_eval of text that is not known', it.span(node));
    const v = literal(a.v);
    const w = a.v.trim();
    const isLiteral = v.t !== 'str' || /^(['"]).*\1$/s.test(w);
    if (isLiteral) return v;
    const type = /^[A-Za-z_][\w.]*$/.test(w) ? 'ValueError' : 'ValueError|SyntaxError';
    return it.raise(type, `ast.literal_eval(${JSON.stringify(a.v)}) (not a Python literal)`, node);
  });
}

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function linearIncludes(a: { bases: Value[] } & Value, b: Value): boolean {
  if (a === b) return true;
  for (const x of a.bases) if (x.t === 'class' && linearIncludes(x, b)) return true;
  return false;
}
