/**
 * PyTorch module semantics: `nn.Parameter`, `register_buffer`, the module
 * containers (ModuleList, Sequential, ModuleDict, ParameterList), moving and
 * casting modules (`.to`, `.cuda`, `.half`), and device scopes
 * (`with torch.device("meta")`). Modules are built on the host by default;
 * their accelerator cost is the load phase, when they are moved.
 */
import type { DType, Span } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../../interp/interp';
import { linearize } from '../../interp/interp';
import { tensorValues } from '../../interp/arrays';
import type { LayerEntry } from '../../interp/catalog-types';
import { callLayer } from '../modules';
import type { SyntaxNode } from '../../interp/parser';
import { type ModelRecord, visitTensors } from '../../interp/memory';
import { type ClassV, type InstV, type TensorV, type Value, NONE, describe, int, str, unknown } from '../../interp/values';
import { TORCH_API_SINCE, torchLayerAttr, versionAtLeast } from './catalog';
import { hfLoadOf } from '../transformers/semantics';
import { liveAtStep } from '../../phases/training';
import { noteLiveAtLoad } from '../../phases/heldAtLoad';

const FLOAT = new Set<DType>(['float64', 'float32', 'float16', 'bfloat16']);

export function containerClass(it: Interpreter, name: string): ClassV {
  let m = it.state.get('torchContainers') as Map<string, ClassV> | undefined;
  if (!m) it.state.set('torchContainers', (m = new Map()));
  let c = m.get(name);
  if (!c) {
    c = { t: 'class', name, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] };
    m.set(name, c);
  }
  return c;
}

/**
 * The module's tensors, each once (tied weights share one tensor). A PyTorch
 * module owns only what `Module.__setattr__` registers (torch/nn/modules/module.py:
 * Parameters go to `_parameters`, Modules to `_modules`, `register_buffer` to
 * `_buffers`): a plain list or dict of layers, a function kept as an attribute,
 * or anything its closure reaches are not part of `parameters()`. Other
 * frameworks (Equinox pytrees) own every array leaf they reach.
 */
/** One `Module.to(device)` / `.cuda()` / `.cpu()` the program made, in order; `device` '?' when not resolved (phases/handPlacement.ts). */
export interface TorchMove { module: Value; device: string; span: Span }
export const TORCH_MOVES = 'torchMoves';

export function moduleTensors(v: Value): { params: TensorV[]; buffers: TensorV[] } {
  const params: TensorV[] = [];
  const buffers: TensorV[] = [];
  const seen = new Set<number>();
  const add = (t: TensorV) => {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    if (t.role === 'param') params.push(t);
    else if (t.role === 'buffer') buffers.push(t);
  };
  if (v.t === 'inst' && v.cls.kind === 'torch') torchRegistered(v, add, new Set());
  else if (v.t === 'inst' && v.cls.kind === 'equinox') pytreeLeaves(v, add);
  else visitTensors(v, add);
  return { params, buffers };
}

/**
 * The array leaves of an Equinox Module's pytree: its fields, recursively through modules, lists, tuples and dicts
 * (equinox/_module.py: a Module is a dataclass pytree). A function held in a field is a leaf that is not an array
 * (`eqx.filter(m, eqx.is_array)` drops it): what its closure reaches (the program's globals, another model) is not
 * the module's.
 */
function pytreeLeaves(root: Value, add: (t: TensorV) => void): void {
  const seen = new Set<object>();
  const stack: Value[] = [root];
  while (stack.length) {
    const x = stack.pop()!;
    if (typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (x.t === 'tensor') add(x);
    else if (x.t === 'tuple' || x.t === 'list') for (const y of x.items) stack.push(y);
    else if (x.t === 'dict') for (const y of x.vals) stack.push(y);
    else if (x.t === 'inst') { for (const y of x.attrs.values()) stack.push(y); if (x.lazyArgs) for (const y of x.lazyArgs.values()) stack.push(y); }
    else if (x.t === 'func' && x.partialArgs) for (const y of x.partialArgs) stack.push(y);
  }
}

/**
 * When a PyTorch model finishes construction, the modules built before it and
 * handed in (torchvision's `VGG(make_layers(cfg))`, a backbone passed to a
 * wrapper) are part of it: their unknowns become the model's unknowns (a layer
 * whose size could not be resolved leaves the total unknown), and catalogue
 * layers and containers recorded as models of their own are dropped from the
 * report so they are not listed once per layer. User-defined models keep their
 * own entry.
 */
export function absorbTorchParts(it: Interpreter, rec: ModelRecord): void {
  if (rec.framework !== 'torch' || rec.result?.t !== 'inst' || rec.result.cls.kind !== 'torch') return;
  const parts = new Set<object>();
  const walk = (x: Value): void => {
    if (x.t !== 'inst' || x.cls.kind !== 'torch' || parts.has(x)) return;
    parts.add(x);
    for (const [k, a] of x.attrs) if (k !== '__dict__') walk(a);
  };
  walk(rec.result);
  const finished = it.memory.finished;
  // The finished records whose result is a part, from the last (found by result, not by a scan of every record).
  for (const i of it.memory.finishedIndicesOf(parts)) {
    const r = finished[i];
    if (r === rec || r.framework !== 'torch' || !r.result) continue;
    for (const u of r.unknowns) rec.unknowns.push(u);
    const inst = r.result as InstV;
    if (!inst.cls.node) it.memory.removeFinished(i);
  }
}

function hasTensors(v: Value): boolean {
  let found = false;
  visitTensors(v, () => { found = true; });
  return found;
}

/** Python's copy.deepcopy over the values that hold tensors; functions, classes and externs are shared. */
function copyValue(it: Interpreter, v: Value, memo: Map<object, Value>, node: SyntaxNode): Value {
  const seen = memo.get(v);
  if (seen) return seen;
  switch (v.t) {
    case 'tensor': {
      const t = it.memory.alloc({
        shape: v.shape, dtype: v.dtype, role: v.role, name: v.label.split('.').pop(), span: it.span(node), random: v.random,
        partition: v.partition, citation: v.citation, placement: v.placement, lib: v.lib, noBatch: true,
      });
      memo.set(v, t);
      return t;
    }
    case 'list': case 'tuple': {
      const out: Value & { t: 'list' | 'tuple' } = { t: v.t, items: [] };
      memo.set(v, out);
      out.items.push(...v.items.map((x) => copyValue(it, x, memo, node)));
      return out;
    }
    case 'dict': {
      const out: Value & { t: 'dict' } = { t: 'dict', keys: [...v.keys], vals: [] };
      memo.set(v, out);
      out.vals.push(...v.vals.map((x) => copyValue(it, x, memo, node)));
      return out;
    }
    case 'inst': {
      const out = it.newInst(v.cls);
      memo.set(v, out);
      for (const [k, a] of v.attrs) out.attrs.set(k, copyValue(it, a, memo, node));
      if (v.items) out.items = v.items.map((x) => copyValue(it, x, memo, node));
      if (v.catArgs) out.catArgs = { ...v.catArgs };
      // The copy sits where the original does (copy.deepcopy copies each tensor on its device): a module moved
      // with .to/.cuda before the copy has a copy on the same device.
      const moved = it.state.get(`moved:${v.id}`);
      if (moved !== undefined) it.state.set(`moved:${out.id}`, moved);
      if (v.lazyArgs) out.lazyArgs = new Map([...v.lazyArgs].map(([k, a]) => [k, copyValue(it, a, memo, node)]));
      out.built = v.built;
      return out;
    }
    default: return v;
  }
}

/** The catalogue layer a user class derives from (class Norm(nn.LayerNorm)), if any. */
export function torchBaseLayer(it: Interpreter, inst: InstV): LayerEntry | undefined {
  for (const k of linearize(inst.cls)) {
    for (const b of k.bases) {
      const e = b.t === 'extern' ? it.cat.layers.get(b.name) : undefined;
      if (e?.framework === 'torch') return e;
    }
  }
  return undefined;
}

/**
 * Slots of a model's containers (ModuleList / Sequential items: each is a module, container.py) that hold a
 * value oomlens could not follow (a module loaded from a checkpoint it cannot read): the parameters under
 * them are not known, so the count is not either. Each as "path: reason".
 */
export function unknownModuleSlots(v: Value, changed?: WeakMap<InstV, string>): string[] {
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (x: Value, path: string): void => {
    if (x.t !== 'inst' || x.cls.kind !== 'torch' || seen.has(x)) return;
    seen.add(x);
    x.items?.forEach((m, i) => { if (m.t === 'unknown') out.push(`${path}${path ? '.' : ''}${i}: ${m.reason}`); });
    const why = changed?.get(x);
    if (why) out.push(`${path || x.cls.name} may have been changed by a loop that was not followed: ${why}`);
    for (const [k, a] of x.attrs) if (k !== '__dict__') walk(a, `${path}${path ? '.' : ''}${k}`);
  };
  walk(v, '');
  return out;
}

function torchRegistered(inst: InstV, add: (t: TensorV) => void, seen: Set<object>): void {
  if (seen.has(inst)) return;
  seen.add(inst);
  // Classes without a definition node are the analyzer's own: catalogue layers, containers and the
  // holders attachParams builds for dotted parameter names ('layers.0.weight' -> a list of holders).
  const synthetic = !inst.cls.node;
  const visit = (a: Value): void => {
    if (a.t === 'tensor') add(a);
    else if (a.t === 'inst' && a.cls.kind === 'torch') torchRegistered(a, add, seen);
    else if (synthetic && (a.t === 'list' || a.t === 'tuple')) a.items.forEach(visit);
  };
  for (const [k, a] of inst.attrs) if (k !== '__dict__') visit(a);
}

/**
 * `named_parameters()` / `named_buffers()`: (dotted name, tensor) pairs in
 * registration order, each tensor once under the first name that reaches it
 * (torch/nn/modules/module.py `_named_members` with remove_duplicate=True,
 * so a tied weight is listed once).
 */
export function namedModuleTensors(v: Value, role: 'param' | 'buffer'): [string, TensorV][] {
  const out: [string, TensorV][] = [];
  const seenT = new Set<number>();
  const seenV = new Set<object>();
  const walk = (x: Value, prefix: string): void => {
    if (x.t === 'tensor') {
      if (x.role === role && !seenT.has(x.id)) { seenT.add(x.id); out.push([prefix, x]); }
      return;
    }
    if (seenV.has(x)) return;
    seenV.add(x);
    const join = (k: string) => (prefix ? `${prefix}.${k}` : k);
    if (x.t === 'inst') {
      for (const [k, a] of x.attrs) if (k !== '__dict__') walk(a, join(k));
    } else if (x.t === 'list' || x.t === 'tuple') x.items.forEach((a, i) => walk(a, join(String(i))));
    else if (x.t === 'dict') x.vals.forEach((a, i) => { const k = x.keys[i]; if (k.t === 'str') walk(a, join(k.v)); });
  };
  walk(v, '');
  return out;
}

/** Registered submodules (torch insts held as attributes), each once; `deep` includes self and descendants. */
function namedSubmodules(root: InstV, deep: boolean): [string, InstV][] {
  const out: [string, InstV][] = [];
  const seen = new Set<object>();
  const walk = (m: InstV, prefix: string): void => {
    if (seen.has(m)) return;
    seen.add(m);
    if (deep || m !== root) out.push([prefix, m]);
    if (!deep && m !== root) return;
    for (const [k, a] of m.attrs) {
      if (k === '__dict__' || a.t !== 'inst' || a.cls.kind !== 'torch' || !isModule(a)) continue;
      walk(a, prefix ? `${prefix}.${k}` : k);
    }
  };
  walk(root, '');
  return out;
}

/** Holders that attachParams builds for dotted parameter names are not modules of their own. */
function isModule(inst: InstV): boolean {
  return !!inst.cls.node || !!inst.cls.entry || !!inst.items || inst.attrs.has('__dict__') || /^(Sequential|ModuleList|ModuleDict|ParameterList|ParameterDict)$/.test(inst.cls.name);
}

/** TensorV.note of a parameter that takes no gradient (requires_grad=False / requires_grad_(False)). */
export const FROZEN = 'requires_grad=False: no gradient';

function freeze(t: TensorV, frozen: boolean): void {
  if (frozen) t.note = FROZEN;
  else if (t.note === FROZEN) t.note = undefined;
}

/**
 * In-place tensor methods: they modify `self` and return it (torch/_tensor_docs.py,
 * "In-place version of ..." / "Fills self tensor with ..."), so no storage is made
 * and the tensor keeps its shape, dtype and role (a Parameter stays a Parameter).
 */
const INPLACE_TENSOR_METHODS = [
  'normal_', 'uniform_', 'zero_', 'fill_', 'copy_', 'bernoulli_', 'exponential_', 'geometric_', 'log_normal_',
  'cauchy_', 'random_', 'clamp_', 'clamp_min_', 'clamp_max_', 'mul_', 'add_', 'sub_', 'div_', 'masked_fill_',
  'fill_diagonal_', 'detach_', 'tril_', 'triu_', 'abs_', 'neg_', 'sqrt_', 'exp_',
];

/**
 * torch.nn.init functions fill their first argument in place and return it
 * (torch/nn/init.py: every `*_` initializer ends with `return tensor` or the
 * result of an in-place `tensor.<op>_`).
 */
const NN_INIT = [
  'uniform_', 'normal_', 'trunc_normal_', 'constant_', 'ones_', 'zeros_', 'eye_', 'dirac_', 'xavier_uniform_',
  'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_', 'orthogonal_', 'sparse_',
];

/** A `model.load_state_dict(torch.load(...))`: the checkpoint's tensors as the module's state dict at that call. */
export interface TorchStateDict { module: Value; checkpoint: Value; span: Span; tensors: TensorV[] }

export function installTorch(it: Interpreter): void {
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };

  reg(INPLACE_TENSOR_METHODS.map((m) => `torch.Tensor.${m}`), (self, _c, node) => (self?.t === 'tensor' ? self : unknown('in-place method on a value that is not a known tensor', it.span(node))));
  reg(NN_INIT.map((m) => `torch.nn.init.${m}`), (_s, c, node) => {
    const t = c.args[0] ?? c.kw.get('tensor');
    return t?.t === 'tensor' ? t : unknown('torch.nn.init on a value that is not a known tensor', it.span(node));
  });

  // Attributes of a built catalogue layer (or a subclass of one) that code reads back:
  // `model.fc.in_features`, `self.conv.kernel_size[0]` (catalog/torch.ts torchLayerAttr).
  const getattr = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, fnv) => {
    const name = c.args[0];
    if (self?.t === 'inst' && self.catArgs && name?.t === 'str') {
      const entry = self.cls.entry ?? torchBaseLayer(it, self);
      if (entry?.framework === 'torch') {
        const v = torchLayerAttr(entry, self.catArgs, name.v, (n) => self.attrs.has(n));
        if (v !== undefined) return it.fromCat(v);
      }
    }
    return getattr ? getattr(i, self, c, node, fnv) : unknown('__pass__');
  });

  // copy.deepcopy of a module or tensor (`_get_clones`: nn.ModuleList([copy.deepcopy(layer) for _ in range(N)]))
  // makes independent parameters: new tensors of the same shape, dtype and role; aliasing inside
  // the copied value is kept (Python's deepcopy memo), so tied weights stay tied in the copy.
  const deepcopy = it.externs.get('copy.deepcopy');
  it.externs.set('copy.deepcopy', (i, self, c, node, fnv) => {
    const v = c.args[0];
    if (!v || !hasTensors(v)) return deepcopy ? deepcopy(i, self, c, node, fnv) : v ?? NONE;
    return copyValue(it, v, new Map(), node);
  });

  // hasattr(torch.<module>, "name"): feature detection such as nanoGPT's
  // `hasattr(torch.nn.functional, "scaled_dot_product_attention")`. Answered only
  // for names the catalogues know; the version that introduced a name is taken
  // from TORCH_API_SINCE and compared with the pinned torch (unpinned: the
  // catalogued PyTorch 2.1, which has every name listed there).
  const hasattr = it.externs.get('builtins.hasattr');
  it.externs.set('builtins.hasattr', (i, self, c, node, fnv) => {
    const [o, n] = c.args;
    if (o?.t === 'extern' && /^torch(\.|$)/.test(o.name) && n?.t === 'str') {
      const full = `${o.name}.${n.v}`;
      const known = it.cat.ops.has(full) || it.cat.layers.has(full) || it.externs.has(full);
      const since = TORCH_API_SINCE[full];
      const pinned = (it.state.get('versions') as Record<string, string> | undefined)?.torch;
      if (since && pinned) return { t: 'bool', v: versionAtLeast(pinned, since.version) };
      if (known || since) return { t: 'bool', v: true };
    }
    return hasattr ? hasattr(i, self, c, node, fnv) : unknown('hasattr', it.span(node));
  });

  // torch.compile(model) (torch 2.x docs: returns the module or function optimized by TorchDynamo; calling it runs
  // the same forward, its parameters are the module's): the model itself. Its memory is counted as eager PyTorch's,
  // which Inductor's fusions can only lower (fewer intermediates saved for the backward).
  reg(['torch.compile'], (_s, c, node) => {
    const m = c.args[0] ?? c.kw.get('model');
    return m && m.t !== 'none' ? m : unknown('torch.compile() without a model (a decorator factory) is not followed', it.span(node));
  });

  // torch.autograd.Variable(tensor, requires_grad=False, volatile=False): since PyTorch 0.4 "Variable(tensor)
  // returns Tensors instead of Variables" (torch/autograd/variable.py; 0.4.0 migration guide): the tensor itself.
  reg(['torch.autograd.Variable', 'torch.autograd.variable.Variable'], (_s, c, node) => {
    const t = c.args[0] ?? c.kw.get('data');
    return t?.t === 'tensor' ? t : unknown(`Variable of ${t ? describe(t) : 'nothing'}: not a known tensor`, it.span(node));
  });
  reg(['torch.nn.Parameter', 'torch.nn.parameter.Parameter'], (_s, c, node) => {
    const t = c.args[0] ?? c.kw.get('data');
    if (t?.t !== 'tensor') {
      // Still a parameter, of a shape not known (weights read from a file: `nn.Parameter(torch.tensor(arr))`):
      // assigned to a module it replaces a parameter there, so the module's size becomes unknown instead of
      // silently losing that parameter.
      const why = `nn.Parameter of ${t ? describe(t) : 'nothing'}: its shape is not known`;
      return it.memory.alloc({ shape: [{ unknown: why }], dtype: 'float32', role: 'param', name: 'Parameter', span: it.span(node), lib: 'torch', note: why });
    }
    const rg = c.args[1] ?? c.kw.get('requires_grad');
    // A Parameter with requires_grad=False is still in parameters() (torch/nn/parameter.py): it counts,
    // and is marked frozen (no gradient, no optimizer state).
    t.role = 'param';
    freeze(t, rg?.t === 'bool' && !rg.v);
    return t;
  });
  // Tensor.new_zeros/new_ones/new_empty/new_full(size, *, dtype=None, device=None): a new tensor of that size with
  // self's dtype and device unless given (torch/_tensor_docs.py new_zeros: "By default, the returned Tensor has the
  // same torch.dtype and torch.device as this tensor").
  for (const [m, f] of [['new_zeros', 'torch.zeros'], ['new_ones', 'torch.ones'], ['new_empty', 'torch.empty'], ['new_full', 'torch.full']] as const) {
    reg([`torch.Tensor.${m}`], (self, c, node) => {
      if (self?.t !== 'tensor') return unknown(`${m} of a value that is not a known tensor`, it.span(node));
      const kw = new Map(c.kw);
      if (!kw.has('dtype')) kw.set('dtype', { t: 'dtype', dtype: self.dtype });
      if (!kw.has('device') && self.placement?.kind === 'device') kw.set('device', str('cuda'));
      return it.callExtern({ t: 'extern', name: f }, { args: c.args, kw }, node);
    });
  }
  // Tensor.item(): "Returns the value of this tensor as a standard Python number. This only works for tensors with
  // one element" (torch/_tensor_docs.py); tolist() returns the elements as a (nested) list of Python numbers. Known
  // only where the tensor's values are (interp/arrays.ts tensorValues); a float tensor gives Python floats.
  reg(['torch.Tensor.item'], (self, _c, node) => {
    const vals = self?.t === 'tensor' ? tensorValues(self) : undefined;
    if (!vals || vals.length !== 1) return unknown('the value of the tensor is not known (Tensor.item)', it.span(node));
    return { t: 'float', v: vals[0] };
  });
  reg(['torch.Tensor.tolist'], (self, _c, node) => {
    const vals = self?.t === 'tensor' && self.shape.length === 1 ? tensorValues(self) : undefined;
    if (!vals) return unknown('the values of the tensor are not known (Tensor.tolist)', it.span(node));
    return { t: 'list', items: vals.map((v) => ({ t: 'float' as const, v })) };
  });
  reg(['torch.Tensor.requires_grad_'], (self, c) => {
    const rg = c.args[0] ?? c.kw.get('requires_grad');
    if (self?.t === 'tensor' && self.role === 'param') freeze(self, rg?.t === 'bool' && !rg.v);
    return self ?? NONE;
  });
  // A module, parameter or buffer registered under a name that could not be computed is still part of
  // the module: dropping it would undercount, so the count becomes unknown instead.
  const unnamed = (what: string, name: Value | undefined, node: SyntaxNode): Value =>
    it.note(`${what} registered under a name that is not known (${name ? describe(name) : 'missing'})`, node);
  reg(['torch.nn.Module.register_buffer'], (self, c, node) => {
    const name = c.args[0] ?? c.kw.get('name');
    const t = c.args[1] ?? c.kw.get('tensor');
    if (self?.t === 'inst' && name?.t !== 'str' && t && t.t !== 'none') return unnamed('buffer', name, node);
    if (self?.t === 'inst' && name?.t === 'str') {
      if (t?.t === 'tensor') t.role = 'buffer';
      else if (t && t.t !== 'none') it.note(`buffer ${name.v} is not a known tensor`, node);
      self.attrs.set(name.v, t ?? NONE);
    }
    return NONE;
  });
  reg(['torch.nn.Module.register_parameter'], (self, c, node) => {
    const name = c.args[0] ?? c.kw.get('name');
    const t = c.args[1] ?? c.kw.get('param');
    if (self?.t === 'inst' && name?.t !== 'str' && t && t.t !== 'none') return unnamed('parameter', name, node);
    if (self?.t === 'inst' && name?.t === 'str') {
      if (t?.t === 'tensor') t.role = 'param';
      self.attrs.set(name.v, t ?? NONE);
    }
    return NONE;
  });
  reg(['torch.nn.Module.add_module', 'torch.nn.Module.register_module'], (self, c, node) => {
    const name = c.args[0] ?? c.kw.get('name');
    const m = c.args[1] ?? c.kw.get('module');
    if (self?.t === 'inst' && name?.t !== 'str' && m && m.t !== 'none') return unnamed('module', name, node);
    if (self?.t === 'inst' && m?.t === 'unknown') it.note(`module ${name?.t === 'str' ? name.v : ''} added to ${self.cls.name} is not known (${m.reason})`, node);
    if (self?.t === 'inst' && name?.t === 'str') {
      // A Sequential / ModuleList indexes its modules in _modules order, where add_module appends a new name and
      // keeps an existing name's place (torch/nn/modules/container.py Sequential.__getitem__, module.py add_module).
      const prev = self.attrs.get(name.v);
      if (self.items) {
        const at = prev === undefined ? -1 : self.items.indexOf(prev);
        if (at >= 0) self.items[at] = m ?? NONE;
        else self.items.push(m ?? NONE);
      }
      self.attrs.set(name.v, m ?? NONE);
    }
    return NONE;
  });

  /** A container item that could not be resolved may hold parameters: the count cannot be exact. */
  const lostItems = (container: string, items: Value[], node: SyntaxNode): void => {
    const lost = items.find((x) => x.t === 'unknown');
    if (lost) it.note(`${container} holds a module that is not known (${describe(lost)})`, node);
  };

  /** Fills a container module (a new one, or `self` of a subclass) from the constructor's arguments. */
  const fillList = (inst: InstV, name: string, c: CallArgs, node: SyntaxNode): InstV => {
    const a = c.args;
    let items: Value[] = [];
    if (name === 'Sequential' && a.length === 1 && a[0].t === 'dict') {
      items = a[0].vals;
      a[0].keys.forEach((k, i) => { if (k.t === 'str') inst.attrs.set(k.v, a[0].t === 'dict' ? a[0].vals[i] : NONE); });
    } else if (name === 'Sequential') items = a;
    else if (a[0]) items = it.iterate(a[0], node) ?? [];
    // ParameterList wraps plain tensors as Parameters (container.py ParameterList.__setitem__ / append).
    if (name === 'ParameterList') for (const t of items) if (t.t === 'tensor' && t.role !== 'buffer') t.role = 'param';
    lostItems(name, items, node);
    inst.items = [...items];
    items.forEach((m, i) => inst.attrs.set(String(i), m));
    return inst;
  };
  const fillDict = (inst: InstV, c: CallArgs, node: SyntaxNode, params = false): InstV => {
    const d = c.args[0];
    if (d && d.t !== 'dict' && d.t !== 'none') it.note(`${inst.cls.name} built from a value that is not a known dict (${describe(d)})`, node);
    const dict: Value = d?.t === 'dict' ? d : { t: 'dict', keys: [], vals: [] };
    lostItems(inst.cls.name, dict.vals, node);
    // ParameterDict wraps plain tensors as Parameters (container.py ParameterDict.__setitem__).
    if (params && dict.t === 'dict') for (const t of dict.vals) if (t.t === 'tensor' && t.role !== 'buffer') t.role = 'param';
    inst.attrs.set('__dict__', dict);
    if (dict.t === 'dict') dict.keys.forEach((k, i) => { if (k.t === 'str') inst.attrs.set(k.v, dict.vals[i]); });
    return inst;
  };
  const listLike = (name: string) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => fillList(it.newInst(containerClass(it, name)), name, c, node);
  reg(['torch.nn.ModuleList'], listLike('ModuleList'));
  reg(['torch.nn.ParameterList'], listLike('ParameterList'));
  // A Sequential built at top level is a model (`net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), ...)`):
  // its layers were recorded one by one as their constructors ran; the Sequential's record absorbs them.
  reg(['torch.nn.Sequential'], (s, c, node) => {
    const inst = listLike('Sequential')(s, c, node);
    // A Sequential of layers whose sizes are not known (`nn.Linear(width, width)`, width from the environment) is a
    // model of unknown size, not nothing.
    const unsized = inst.t === 'inst' && !!inst.items?.some((m) => m.t === 'unknown' || (m.t === 'inst' && !!m.cls.entry && !hasTensors(m) && it.memory.finished.some((r) => r.result === m && r.unknowns.length > 0)));
    if (it.memory.current || it.memory.abstractDepth > 0 || it.state.get('torchMeta') === true || inst.t !== 'inst' || (!hasTensors(inst) && !unsized)) return inst;
    const rec = it.memory.begin({ name: 'Sequential', framework: 'torch', span: it.span(node), phase: 'load', jitted: it.memory.jitDepth > 0, gc: false });
    // Layers that are not known (`nn.Sequential(*blocks)`, blocks from a loop not followed) are unknown module slots of the model (analyze.ts).
    rec.result = inst;
    it.memory.end(rec);
    absorbTorchParts(it, rec);
    return inst;
  });
  reg(['collections.OrderedDict'], (_s, c, node) => it.callExtern({ t: 'extern', name: 'builtins.dict' }, c, node));
  reg(['torch.nn.ModuleDict'], (_s, c, node) => fillDict(it.newInst(containerClass(it, 'ModuleDict')), c, node));
  // A bare `nn.Module()` used as a namespace for submodules (`self.temb = nn.Module(); self.temb.dense = ...`, the
  // DDPM / latent-diffusion U-Nets): a module with nothing of its own; what is assigned to it registers as on any
  // module (torch/nn/modules/module.py Module.__setattr__).
  reg(['torch.nn.Module'], (_s, c, node) => {
    if (c.args.length || c.kw.size) return unknown('nn.Module() takes no arguments (TypeError)', it.span(node));
    return it.newInst(containerClass(it, 'Module'));
  });
  reg(['torch.nn.ParameterDict'], (_s, c, node) => fillDict(it.newInst(containerClass(it, 'ParameterDict')), c, node, true));

  // `super().__init__(...)` in a subclass of a torch.nn layer or container
  // (torchvision's `class MLPBlock(nn.Sequential)`, or of a private base:
  // `class SyncBN(_BatchNorm)`): the base constructor fills
  // `self` as it would fill a fresh module. A base the catalogue does not know
  // makes the count unknown rather than silently zero.
  it.externPrefixes.push(['torch.nn.', (_i, bound, call, node, fnv) => {
    // `super().forward(x)` in a subclass of a catalogue layer runs the layer.
    const fwd = /^(torch\.nn\.(?:modules\.\w+\.)?_?[A-Z]\w*)\.(forward|__call__)$/.exec(fnv.name);
    if (fwd && bound?.t === 'inst' && bound.catArgs) {
      const e = it.cat.layers.get(fwd[1]);
      if (e?.framework === 'torch') return callLayer(it, bound, e, call, node);
    }
    const m = /^(torch\.nn\.(?:modules\.\w+\.)?(_?[A-Z]\w*))\.__init__$/.exec(fnv.name);
    // `nn.Sequential.__init__(self, *layers)` passes self explicitly.
    const explicit = bound === undefined && call.args[0]?.t === 'inst';
    const self = explicit ? call.args[0] : bound;
    const c: CallArgs = explicit ? { args: call.args.slice(1), kw: call.kw } : call;
    if (!m || self?.t !== 'inst') return unknown('__pass__');
    const [, base, short] = m;
    if (short === 'Module') return NONE;
    if (['Sequential', 'ModuleList', 'ParameterList'].includes(short)) { fillList(self, short, c, node); return NONE; }
    if (short === 'ModuleDict' || short === 'ParameterDict') { fillDict(self, c, node, short === 'ParameterDict'); return NONE; }
    const entry = it.cat.layers.get(base);
    const make = it.externs.get('__layer__');
    if (entry?.framework === 'torch' && make) {
      const built = make(it, undefined, c, node, { t: 'extern', name: base });
      if (built.t === 'inst') {
        for (const [k, v] of built.attrs) self.attrs.set(k, v);
        self.catArgs = built.catArgs;
      }
      return NONE;
    }
    return it.note(`${base}.__init__ (the base class of ${self.cls.name}) is not modelled: the parameters it creates are not known`, node);
  }]);
  reg(['torch.nn.Module.append'], (self, c, node) => {
    const x = c.args[0];
    if (self?.t === 'inst' && self.items && x) lostItems(self.cls.name, [x], node);
    if (self?.t === 'inst' && self.cls.name === 'ParameterList' && x?.t === 'tensor' && x.role !== 'buffer') x.role = 'param';
    if (self?.t === 'inst' && self.items) { self.attrs.set(String(self.items.length), c.args[0] ?? NONE); self.items.push(c.args[0] ?? NONE); }
    return self ?? NONE;
  });
  reg(['torch.nn.Module.extend'], (self, c, node) => {
    const more = it.iterate(c.args[0] ?? NONE, node);
    if (self?.t === 'inst' && self.items && !more) it.note(`${self.cls.name}.extend with a value that could not be iterated`, node);
    if (self?.t === 'inst' && self.items) lostItems(self.cls.name, more ?? [], node);
    if (self?.t === 'inst' && self.items) for (const m of more ?? []) { self.attrs.set(String(self.items.length), m); self.items.push(m); }
    return self ?? NONE;
  });
  reg(['torch.nn.Module.__len__'], (self) => (self?.t === 'inst' && self.items ? int(self.items.length) : unknown('len of module')));

  // Container edits (torch/nn/modules/container.py): ModuleList.insert / __setitem__, ModuleDict and
  // ParameterDict __setitem__ / update, ParameterList / ParameterDict wrapping plain tensors as Parameters.
  const isParamContainer = (inst: InstV) => /^Parameter(List|Dict)$/.test(inst.cls.name) || linearize(inst.cls).some((k) => k.bases.some((b) => b.t === 'extern' && /\.Parameter(List|Dict)$/.test(b.name)));
  const wrap = (inst: InstV, v: Value) => { if (isParamContainer(inst) && v.t === 'tensor' && v.role !== 'buffer') v.role = 'param'; };
  const renumber = (inst: InstV) => {
    for (const k of [...inst.attrs.keys()]) if (/^\d+$/.test(k)) inst.attrs.delete(k);
    inst.items!.forEach((m, i) => inst.attrs.set(String(i), m));
  };
  const setEntry = (inst: InstV, key: Value, v: Value, node: SyntaxNode): void => {
    wrap(inst, v);
    if (inst.items) {
      const i = key.t === 'int' ? key.v : undefined;
      if (i === undefined || i >= inst.items.length || i < -inst.items.length) { it.note(`${inst.cls.name}[${describe(key)}] = ... with an index that is not known`, node); return; }
      lostItems(inst.cls.name, [v], node);
      inst.items[i < 0 ? inst.items.length + i : i] = v;
      renumber(inst);
      return;
    }
    if (key.t !== 'str') { unnamed('module', key, node); return; }
    lostItems(inst.cls.name, [v], node);
    inst.attrs.set(key.v, v);
    const d = inst.attrs.get('__dict__');
    if (d?.t === 'dict') it.setItem(d, key, v, node);
  };
  const setitem = it.externs.get('__setitem__');
  it.externs.set('__setitem__', (i, self, c, node, fnv) => {
    if (self?.t === 'inst' && self.cls.kind === 'torch') {
      setEntry(self, c.args[0] ?? NONE, c.args[1] ?? NONE, node);
      return NONE;
    }
    return setitem ? setitem(i, self, c, node, fnv) : NONE;
  });
  reg(['torch.nn.Module.insert'], (self, c, node) => {
    const [idx, m] = c.args;
    if (self?.t !== 'inst' || !self.items) return unknown('insert on a module that is not a list', it.span(node));
    if (idx?.t !== 'int' || !m) return it.note(`${self.cls.name}.insert at an index that is not known`, node);
    lostItems(self.cls.name, [m], node);
    wrap(self, m);
    const n = self.items.length;
    self.items.splice(idx.v < 0 ? Math.max(0, n + idx.v) : Math.min(idx.v, n), 0, m);
    renumber(self);
    return NONE;
  });
  reg(['torch.nn.Module.update'], (self, c, node) => {
    const d = c.args[0];
    if (self?.t !== 'inst') return NONE;
    if (d?.t === 'dict') { d.keys.forEach((k, j) => setEntry(self, k, d.vals[j], node)); return NONE; }
    const pairs = d ? it.iterate(d, node) : undefined;
    if (!pairs) return it.note(`${self.cls.name}.update with a value that is not known`, node);
    for (const p of pairs) {
      if ((p.t === 'tuple' || p.t === 'list') && p.items.length === 2) setEntry(self, p.items[0], p.items[1], node);
      else return it.note(`${self.cls.name}.update with an entry that is not a (key, module) pair`, node);
    }
    return NONE;
  });
  // ModuleDict.keys / values / items: the registered entries in insertion order.
  const entries = (inst: InstV): [string, Value][] => [...inst.attrs].filter(([k, v]) => k !== '__dict__' && (v.t === 'inst' || v.t === 'tensor'));
  reg(['torch.nn.Module.keys'], (self) => ({ t: 'list', items: self?.t === 'inst' ? entries(self).map(([k]) => str(k)) : [] }));
  reg(['torch.nn.Module.values'], (self) => ({ t: 'list', items: self?.t === 'inst' ? entries(self).map(([, v]) => v) : [] }));
  reg(['torch.nn.Module.items'], (self) => ({ t: 'list', items: self?.t === 'inst' ? entries(self).map(([k, v]) => ({ t: 'tuple', items: [str(k), v] }) as Value) : [] }));

  // Any other nn.Module method that is not modelled may change what the module holds (pop, clear,
  // __delitem__, a method of a subclass defined elsewhere): inside a model, the count is then unknown.
  // Methods that only read or run the module are listed here and stay silent.
  const READS = new Set(['forward', '__call__', 'state_dict', 'load_state_dict', 'zero_grad', 'extra_repr', 'get_submodule', 'get_parameter',
    'get_buffer', 'register_forward_hook', 'register_forward_pre_hook', 'register_backward_hook', 'register_full_backward_hook',
    'register_full_backward_pre_hook', 'register_load_state_dict_post_hook', 'register_state_dict_pre_hook', 'named_children',
    'named_buffers', 'get_extra_state', 'set_extra_state', 'type', 'ipu', 'xpu', 'mps', '__repr__', '__iter__', '__getitem__', '__contains__',
    'reset_parameters', '_reset_parameters', 'flatten_parameters', 'check_forward_args', 'extra_repr',
    // peft / transformers methods that report and change nothing (peft_model.py, modeling_utils.py).
    'print_trainable_parameters', 'get_nb_trainable_parameters', 'num_parameters', 'get_memory_footprint',
    'get_input_embeddings', 'get_output_embeddings', 'enable_input_require_grads']);
  it.externPrefixes.push(['torch.nn.Module.', (_i, self, _c, node, fnv) => {
    const method = fnv.name.slice('torch.nn.Module.'.length);
    if (READS.has(method) || method.includes('.') || self?.t !== 'inst' || !it.memory.current) return unknown('__pass__');
    return it.note(`${self.cls.name}.${method}() is not modelled: it may change the module's parameters`, node);
  }]);

  // torch.load: a checkpoint whose tensors are known only once a module loads it. `load_state_dict` copies each
  // entry into the module's tensors (torch/nn/modules/module.py `_load_from_state_dict`: `param.copy_(input_param)`),
  // so the checkpoint has the module's state-dict shapes and dtypes, and it is held next to the module for as long
  // as the program keeps a reference to it. Where it lives: map_location (torch/serialization.py `load`).
  reg(['torch.load', 'torch.serialization.load'], (_s, c, node) => ({
    t: 'extern', name: '__torch_checkpoint__', kw: new Map(), args: [c.kw.get('map_location') ?? c.args[1] ?? NONE, str(`${it.span(node).start}`)],
  }));
  // An entry of a loaded checkpoint (`torch.load(path)["model"]`, `ckpt["state_dict"]`, `.get("model")`): what it
  // holds is in the file, not in the workspace, so it is unknown — but when a module loads it, it is that module's
  // state dict from the same file and map_location (a training checkpoint nests it under a key: torch.save of a
  // dict, pytorch docs "Saving & loading a general checkpoint"), so it is sized like the whole checkpoint above.
  const items = new WeakMap<object, Value>();
  const itemOf = (root: Value, key: Value | undefined, node: SyntaxNode): Value => {
    const u = unknown(`${key?.t === 'str' ? `checkpoint["${key.v}"]` : 'an entry of a checkpoint'}: read from a torch.load file, whose contents are not in the workspace`, it.span(node));
    items.set(u, root);
    return u;
  };
  const isCkpt = (v: Value | undefined): v is Value & { t: 'extern' } => v?.t === 'extern' && v.name === '__torch_checkpoint__';
  const prevItem = it.externs.get('__getitem__');
  it.externs.set('__getitem__', (i, self, c, node, fnv) => {
    if (isCkpt(self) && !self.self) return itemOf(self, c.args[0], node);
    return prevItem ? prevItem(i, self, c, node, fnv) : unknown(`indexing ${self ? describe(self) : 'a value'} is not modelled`, it.span(node));
  });
  reg(['__torch_checkpoint__.get', '__torch_checkpoint__.pop'], (self, c, node) => (isCkpt(self) ? itemOf(self, c.args[0], node) : unknown('checkpoint entry', it.span(node))));
  // Module.state_dict(): an OrderedDict of every parameter and buffer by its dotted name (torch/nn/modules/module.py
  // state_dict → _save_to_state_dict), each the module's own tensor (detached, sharing its storage): writing into it
  // (`init.kaiming_normal_(sd[k])`, `sd[k][...] = 1`) changes the module's values and no sizes. Buffers registered
  // with persistent=False are left out by torch and not told apart here. A transformers model is sized from its
  // config, not built tensor by tensor: its state dict is not listed.
  reg(['torch.nn.Module.state_dict'], (self, _c, node) => {
    if (self?.t !== 'inst' || hfLoadOf(self)) return unknown(`state_dict() of ${self ? describe(self) : 'nothing'} is not listed by oomlens`, it.span(node));
    const entries = [...namedModuleTensors(self, 'param'), ...namedModuleTensors(self, 'buffer')];
    return { t: 'dict', keys: entries.map(([k]) => str(k)), vals: entries.map(([, t]) => t) };
  });
  reg(['torch.nn.Module.load_state_dict'], (self, c, node) => {
    const arg = c.args[0] ?? c.kw.get('state_dict');
    const sd = arg && arg.t === 'unknown' ? items.get(arg) ?? arg : arg;
    if (self?.t === 'inst' && sd?.t === 'extern' && sd.name === '__torch_checkpoint__') {
      const { params, buffers } = moduleTensors(self);
      const uses = (it.state.get('torchStateDicts') as TorchStateDict[] | undefined) ?? [];
      uses.push({ module: self, checkpoint: sd, span: it.span(node), tensors: [...params, ...buffers].map((t) => ({ ...t, shape: [...t.shape] })) });
      it.state.set('torchStateDicts', uses);
    }
    return NONE;
  });

  // Moving and casting: Module.to / .cuda / .half act in place and return the module.
  const cast = (self: Value | undefined, dtype: DType | undefined, device: string | undefined, span?: Span, node?: SyntaxNode): Value => {
    if (!self) return NONE;
    // A cast of a module that already sits where it runs (built there, or moved before the cast) makes each
    // new tensor while the old one still exists: Module._apply converts one parameter at a time and frees
    // the old storage when `param.data` is replaced (torch/nn/modules/module.py `_apply`). Remember the dtype
    // each tensor was built in, for the load phase; `.to(device, dtype)` in one call converts on the way.
    const key = `castFrom:${self.t === 'inst' ? self.id : 'hf'}`;
    const where = it.state.get(`moved:${self.t === 'inst' ? self.id : 'hf'}`);
    const before = it.state.get(key) as Map<number, DType> | undefined;
    const orig = before ?? new Map<number, DType>();
    // On the accelerator already (moved, or built under a default device), or never moved at all (the load phase
    // then stands for the module where it was built); a module cast on the host and moved afterwards arrives cast.
    const dflt = it.state.get('torchDevice');
    const onDevice = where !== undefined ? where !== 'cpu' : typeof dflt === 'string' && dflt !== 'cpu' && dflt !== 'meta';
    if (onDevice) it.state.set(`${key}:onDevice`, true);
    const inPlace = !device;
    visitTensors(self, (t) => {
      if (dtype && FLOAT.has(t.dtype) && (t.role === 'param' || t.role === 'buffer')) {
        if (inPlace && t.dtype !== dtype && !orig.has(t.id)) orig.set(t.id, t.dtype);
        // Cast on its way to the device: it exists there only in the new dtype, and its group says so.
        if (!inPlace && t.group && t.dtype !== dtype) t.group = t.group.replace(`(${t.dtype})`, `(${dtype})`);
        t.dtype = dtype;
      }
    });
    if (orig.size && !before && self.t === 'inst') it.state.set(key, orig);
    // A loaded transformers model moved to the accelerator for the first time: what the device already holds then
    // (a model still referenced) is there beside it (phases/heldAtLoad.ts).
    if (device && device !== 'cpu' && device !== 'meta' && self.t === 'inst' && where === undefined && hfLoadOf(self) && it.memory.reportedCount(2) > 1) {
      const rec = [...it.memory.finished].reverse().find((r) => r.result === self);
      if (rec) {
        const snap = node ? liveAtStep(it, node) : undefined;
        if (snap?.tensors.length) noteLiveAtLoad(rec, snap);
      }
    }
    if (device && self.t === 'inst') {
      const moves = (it.state.get(TORCH_MOVES) as TorchMove[] | undefined) ?? [];
      if (moves.length < 100_000) moves.push({ module: self, device, span: span ?? { start: 0, end: 0 } });
      it.state.set(TORCH_MOVES, moves);
    }
    if (device) it.state.set(`moved:${self.t === 'inst' ? self.id : 'hf'}`, device);
    if (device && device !== 'cpu' && device !== 'meta') it.state.set(`deviceOnce:${self.t === 'inst' ? self.id : 'hf'}`, device);
    return self;
  };
  const dtypeOf = (v: Value | undefined): DType | undefined => (v?.t === 'dtype' ? v.dtype : undefined);
  // An int is a CUDA device ordinal (`model.to(0)`, `device = rank % torch.cuda.device_count()`: torch/nn/modules/
  // module.py Module.to → torch._C._nn._parse_to, where an int names "cuda:<n>").
  const deviceOf = (v: Value | undefined): string | undefined => (v?.t === 'str' ? v.v : v?.t === 'int' ? `cuda:${v.v}` : v?.t === 'extern' && v.name === '__device__' && v.args?.[0]?.t === 'str' ? (v.args[0] as { v: string }).v : undefined);
  for (const base of ['torch.nn.Module', 'transformers.PreTrainedModel']) {
    reg([`${base}.to`], (self, c, node) => cast(self, dtypeOf(c.args.find((a) => a.t === 'dtype') ?? c.kw.get('dtype')), deviceOf(c.args.find((a) => a.t === 'str' || a.t === 'extern' || a.t === 'int') ?? c.kw.get('device')), it.span(node), node));
    // Module.cuda(device=None): an int or a device names the GPU (torch/nn/modules/module.py `cuda`).
    reg([`${base}.cuda`], (self, c, node) => cast(self, undefined, deviceOf(c.args[0] ?? c.kw.get('device')) ?? 'cuda', it.span(node), node));
    reg([`${base}.half`], (self) => cast(self, 'float16', undefined));
    reg([`${base}.bfloat16`], (self) => cast(self, 'bfloat16', undefined));
    reg([`${base}.float`], (self) => cast(self, 'float32', undefined));
    reg([`${base}.double`], (self) => cast(self, 'float64', undefined));
    reg([`${base}.cpu`], (self) => cast(self, undefined, 'cpu'));
    for (const same of ['eval', 'train', 'to_empty', 'share_memory', 'apply', 'compile']) reg([`${base}.${same}`], (self) => self ?? NONE);
    // Module.requires_grad_(requires_grad=True) sets the flag of every parameter (torch/nn/modules/module.py).
    reg([`${base}.requires_grad_`], (self, c) => {
      const rg = c.args[0] ?? c.kw.get('requires_grad');
      if (self) for (const t of moduleTensors(self).params) freeze(t, rg?.t === 'bool' && !rg.v);
      return self ?? NONE;
    });
    reg([`${base}.parameters`], (self) => ({ t: 'list', items: self ? moduleTensors(self).params : [] }));
    reg([`${base}.buffers`], (self) => ({ t: 'list', items: self ? moduleTensors(self).buffers : [] }));
    for (const [m, role] of [['named_parameters', 'param'], ['named_buffers', 'buffer']] as const) {
      reg([`${base}.${m}`], (self) => ({
        t: 'list',
        items: self ? namedModuleTensors(self, role).map(([k, t]) => ({ t: 'tuple', items: [str(k), t] }) as Value) : [],
      }));
    }
    if (base === 'torch.nn.Module') {
      // modules() / named_modules(): self and every registered submodule once, depth first in registration
      // order; children() / named_children(): the direct ones (torch/nn/modules/module.py named_modules).
      const listed = (self: Value | undefined, deep: boolean, named: boolean, node: SyntaxNode): Value => {
        if (self?.t !== 'inst') return { t: 'list', items: [] };
        // A from_pretrained model (and a program's subclass of one) is sized from its config: its submodules are not
        // built, so listing only what the program added would silently drop the model's own layers.
        if (hfLoadOf(self)) return unknown(`${named ? 'named_modules' : 'modules'}() of a transformers model: its submodules are not listed by oomlens (it is sized from its config)`, it.span(node));
        const mods = namedSubmodules(self, deep);
        // Composite catalogue layers (MultiheadAttention's out_proj, TransformerEncoderLayer's linear1 ...)
        // are built as one entry: their inner modules cannot be listed as PyTorch lists them.
        const composite = mods.find(([, m]) => m.cls.entry && [...m.attrs.values()].some((a) => a.t === 'inst' || a.t === 'list'));
        if (composite && deep) return unknown(`${named ? 'named_modules' : 'modules'}() reaches ${composite[1].cls.name}, whose inner modules are not listed`, it.span(node));
        return { t: 'list', items: mods.map(([k, m]) => (named ? ({ t: 'tuple', items: [str(k), m] }) as Value : m)) };
      };
      reg([`${base}.modules`], (self, _c, node) => listed(self, true, false, node));
      reg([`${base}.named_modules`], (self, _c, node) => listed(self, true, true, node));
      reg([`${base}.children`], (self, _c, node) => listed(self, false, false, node));
      reg([`${base}.named_children`], (self, _c, node) => listed(self, false, true, node));
    } else {
      // A transformers model is sized from its config, not built module by module: its modules cannot be listed
      // (an empty list would make a loop over them silently do nothing, e.g. find no Linear layer for LoRA).
      reg([`${base}.modules`, `${base}.children`, `${base}.named_modules`, `${base}.named_children`], (_self, _c, node) => unknown('the submodules of a transformers model are not listed by oomlens (it is sized from its config)', it.span(node)));
    }
  }
  // A moving-average copy of a model: torch.optim.swa_utils.AveragedModel (torch 2.13 swa_utils.py:280-284:
  // `self.module = deepcopy(model)`, then `.to(device)` when a device is given) and timm's ModelEma / ModelEmaV2 /
  // ModelEmaV3 (timm/utils/model_ema.py: `deepcopy(model)` kept as `.ema` (ModelEma) or `.module`, moved with
  // `.to(device=device)` only when a device is given). The copy is a second set of the model's parameters and
  // buffers, allocated for as long as the wrapper lives. AveragedModel's `n_averaged` (one int64) is left out.
  const emaWrapper = (cls: string, attr: string, devicePos: number) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const model = c.args[0] ?? c.kw.get('model');
    if (!model) return unknown(`${cls}() without a model`, it.span(node));
    if (!hasTensors(model)) return unknown(`${cls}(${model.t === 'unknown' ? 'an unknown model' : 'a value with no known tensors'}): the averaged copy is not known`, it.span(node));
    const copy = copyValue(it, model, new Map(), node);
    const device = devicePos >= 0 ? deviceOf(c.kw.get('device') ?? c.args[devicePos]) : undefined;
    if (device) cast(copy, undefined, device);
    const inst = it.newInst(containerClass(it, cls));
    inst.attrs.set(attr, copy);
    return inst;
  };
  reg(['torch.optim.swa_utils.AveragedModel'], emaWrapper('AveragedModel', 'module', 1));
  reg(['timm.utils.ModelEma', 'timm.utils.model_ema.ModelEma'], emaWrapper('ModelEma', 'ema', 2));
  reg(['timm.utils.ModelEmaV2', 'timm.utils.model_ema.ModelEmaV2'], emaWrapper('ModelEmaV2', 'module', 2));
  reg(['timm.utils.ModelEmaV3', 'timm.utils.model_ema.ModelEmaV3'], emaWrapper('ModelEmaV3', 'module', 7));
  // diffusers' EMAModel(parameters, ...) (diffusers 0.42 training_utils.py EMAModel.__init__: `parameters =
  // list(parameters)` (a Module is deprecated but taken: its parameters()), `self.shadow_params = [p.clone().detach()
  // for p in parameters]`): a copy of each parameter where the parameter is. It is not an nn.Module, but its
  // `.to(device=…, dtype=…)` moves and casts the copies as Module.to does, and the diffusers training scripts move it
  // to the accelerator before training (examples/text_to_image/train_text_to_image.py `ema_unet.to(accelerator.device)`).
  // Whether the parameters were already on the device when copied is not followed: the copy counts once the program
  // moves it (a lower bound otherwise).
  reg(['diffusers.training_utils.EMAModel', 'diffusers.EMAModel'], (_s, c, node) => {
    let ps = c.args[0] ?? c.kw.get('parameters');
    if (ps?.t === 'inst' && ps.cls.kind === 'torch') ps = { t: 'list', items: moduleTensors(ps).params };
    const items = ps ? it.iterate(ps, node) : undefined;
    if (!items || !items.length || !items.every((x) => x.t === 'tensor')) return unknown(`EMAModel(${ps ? describe(ps) : 'no parameters'}): the parameters it copies are not known`, it.span(node));
    const memo = new Map<object, Value>();
    const inst = it.newInst(containerClass(it, 'EMAModel'));
    inst.attrs.set('shadow_params', { t: 'list', items: items.map((t) => copyValue(it, t, memo, node)) });
    return inst;
  });
  // lucidrains' ema_pytorch.EMA(model, ema_model=None, ...) (ema_pytorch/ema_pytorch.py): `self.ema_model =
  // copy.deepcopy(model)` unless an ema_model is given, on the model's device; the wrapper is an nn.Module, so
  // `ema.to(device)` moves the copy.
  const lucidrains = emaWrapper('EMA', 'ema_model', -1);
  reg(['ema_pytorch.EMA', 'ema_pytorch.ema_pytorch.EMA'], (self, c, node) => {
    const given = c.kw.get('ema_model') ?? c.args[1];
    if (given && given.t !== 'none') {
      const inst = it.newInst(containerClass(it, 'EMA'));
      inst.attrs.set('ema_model', given);
      return inst;
    }
    return lucidrains(self, c, node);
  });

  // torch.autograd.Variable(t) (deprecated since PyTorch 0.4) returns a Tensor that shares t's storage: no new
  // memory (torch 2.13 torch/autograd/variable.py, `_LegacyVariableBase`; checked: same data_ptr). `volatile` has
  // no effect any more; `requires_grad=True` only marks it.
  reg(['torch.autograd.Variable', 'torch.autograd.variable.Variable'], (_s, c, node) => {
    const x = c.args[0] ?? c.kw.get('data');
    return x?.t === 'tensor' ? x : unknown(`torch.autograd.Variable of ${x ? describe(x) : 'nothing'}`, it.span(node));
  });

  // torch.multiprocessing.spawn(fn, args=(), nprocs=1, ...) runs `fn(i, *args)` in each of nprocs processes
  // (torch 2.13 torch/multiprocessing/spawn.py:87, 315); each process holds its own device's memory, so the
  // analysis follows process 0: fn(0, *args). The device count is not changed (the target device says it).
  reg(['torch.multiprocessing.spawn', 'torch.multiprocessing.spawn.spawn', 'torch.multiprocessing.start_processes'], (_s, c, node) => {
    const fn = c.args[0] ?? c.kw.get('fn');
    const a = c.args[1] ?? c.kw.get('args');
    const rest = a === undefined ? [] : a.t === 'tuple' || a.t === 'list' ? a.items : undefined;
    if (!fn || !rest) return unknown(`torch.multiprocessing.spawn: ${fn ? 'its args are not known' : 'no function'}`, it.span(node));
    it.call(fn, { args: [int(0), ...rest], kw: new Map() }, node);
    return NONE;
  });

  reg(['torch.device'], (_s, c) => ({ t: 'extern', name: '__device__', args: c.args.length ? [c.args[0].t === 'int' ? str(`cuda:${c.args[0].v}`) : c.args[0]] : [] }));
  reg(['torch.set_default_dtype'], (_s, c) => { if (c.args[0]?.t === 'dtype') it.state.set('torchDefaultDtype', c.args[0].dtype); return NONE; });
  reg(['torch.set_default_device'], (_s, c) => { if (c.args[0]?.t === 'str') it.state.set('torchDevice', c.args[0].v); return NONE; });
  reg(['torch.cuda.is_available'], () => ({ t: 'bool', v: true }));
  // The target GPU's compute capability (`(8, 0)` on an A100: torch/cuda/__init__.py get_device_capability, the
  // catalogue's figure from developer.nvidia.com/cuda-gpus) and its bfloat16 support (is_bf16_supported): programs
  // pick their compute dtype from them (`torch.bfloat16 if capability >= (8, 0) else torch.float32`). On a ROCm
  // or unlisted device they stay unknown.
  const target = () => it.state.get('deviceInfo') as { vendor?: string; computeCapability?: string; bf16?: boolean } | undefined;
  reg(['torch.cuda.get_device_capability'], (_s, _c, node) => {
    const cc = target()?.vendor === 'nvidia' ? /^(\d+)\.(\d+)$/.exec(target()?.computeCapability ?? '') : null;
    return cc ? { t: 'tuple', items: [int(Number(cc[1])), int(Number(cc[2]))] } : unknown('the compute capability of the target device is not known', it.span(node));
  });
  reg(['torch.cuda.is_bf16_supported'], (_s, _c, node) => {
    const d = target();
    return d?.vendor === 'nvidia' && typeof d.bf16 === 'boolean' ? { t: 'bool', v: d.bf16 } : unknown('bfloat16 support of the target device is not known', it.span(node));
  });
  // torch.cuda.device_count(): the GPUs the process sees (torch/cuda/__init__.py) — the target's device count
  // (every process a launcher starts sees all of them unless CUDA_VISIBLE_DEVICES narrows it).
  reg(['torch.cuda.device_count'], (_s, _c, node) => {
    const n = it.state.get('deviceCount') as number | undefined;
    return n !== undefined ? int(n) : unknown('device count depends on the machine', it.span(node));
  });
  // torch.distributed: initialised once the program calls init_process_group (torch/distributed/distributed_c10d.py);
  // the rank and world size come from the launcher's environment.
  // torch.multiprocessing.spawn(fn, args=(), nprocs=1, ...) runs fn(i, *args) in process i (torch/multiprocessing/spawn.py
  // `_wrap`: `fn(i, *args)`); each process holds its own replica, so the program is followed as process 0 (rank 0).
  reg(['torch.multiprocessing.spawn', 'torch.multiprocessing.spawn.spawn', 'torch.multiprocessing.start_processes'], (_s, c, node) => {
    const fn = c.args[0] ?? c.kw.get('fn');
    const a = c.args[1] ?? c.kw.get('args') ?? { t: 'tuple', items: [] };
    const items = a.t === 'tuple' || a.t === 'list' ? a.items : undefined;
    if (!fn || !items) return it.note(`torch.multiprocessing.spawn with ${!fn ? 'no function' : `args ${describe(a)}`} is not followed`, node);
    it.call(fn, { args: [int(0), ...items], kw: new Map() }, node);
    return NONE;
  });
  reg(['torch.distributed.init_process_group'], () => { it.state.set('distInitialized', true); return NONE; });
  reg(['torch.distributed.is_initialized'], () => ({ t: 'bool', v: it.state.get('distInitialized') === true }));
  reg(['torch.distributed.is_available'], () => ({ t: 'bool', v: true }));
  // Back ends that no device of oomlens's catalogue runs (Intel XPU, Ascend NPU, Apple MPS, Habana HPU, oneCCL):
  // the program runs on a CUDA/ROCm GPU or a TPU, so their probes answer False (accelerate/utils/imports.py).
  reg(['torch.xpu.is_available', 'torch.backends.mps.is_available', 'accelerate.utils.is_xpu_available', 'accelerate.utils.is_npu_available',
    'accelerate.utils.is_mps_available', 'accelerate.utils.is_hpu_available', 'accelerate.utils.is_ccl_available', 'accelerate.utils.is_mlu_available',
    'transformers.utils.is_torch_xpu_available', 'transformers.utils.is_torch_npu_available'], () => ({ t: 'bool', v: false }));
  reg(['torch.manual_seed', 'torch.cuda.manual_seed', 'torch.cuda.empty_cache', 'torch.backends.cuda.matmul.allow_tf32'], () => NONE);
  reg(['torch.no_grad', 'torch.inference_mode', 'torch.enable_grad'], () => ({ t: 'extern', name: '__ctx__' }));

  // Context managers: `with torch.device("meta")`, `with torch.device("cuda")`.
  it.externs.set('__enter__', (_i, self) => {
    if (self?.t === 'extern' && self.name === '__device__') {
      const d = self.args?.[0];
      if (d?.t === 'str') {
        if (d.v === 'meta') it.state.set('torchMeta', true);
        else it.state.set('torchDevice', d.v);
      }
    }
    if (self?.t === 'mesh') it.state.set('activeMesh', self);
    return self ?? NONE;
  });
  it.externs.set('__exit__', (_i, self) => {
    if (self?.t === 'extern' && self.name === '__device__') {
      it.state.delete('torchMeta');
      it.state.delete('torchDevice');
    }
    return NONE;
  });
}

export type { InstV };
