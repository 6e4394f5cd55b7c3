/**
 * Modules and models: how user classes and catalogue layers turn into
 * parameters, and which constructions and init calls are "models" with a
 * memory timeline of their own.
 * - Equinox and PyTorch build parameters in constructors (eager).
 * - Flax linen and Haiku build them at the first call inside `init`, from
 *   the input's shape (lazy).
 * The outermost construction or init call starts a model record; nested ones
 * contribute to it.
 */
import type { DType, Placement } from '../../../shared/src/facts';
import { threefryTemporaries } from '../../../shared/src/threefry';
import { nnxEagerSharding } from '../phases/sharding';
import { dtypeBytes as dtypeSize } from '../../../shared/src/dtypes';
import type { Args, ArrayValue, LayerEntry, ParamSpec } from '../interp/catalog-types';
import type { CallArgs, Interpreter } from '../interp/interp';
import { linearize } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import { visitTensors } from '../interp/memory';
import type { SyntaxNode } from '../interp/parser';
import { type ClassV, type InstV, type TensorV, type Value, NONE, describe, int, str, unknown } from '../interp/values';
import { placementFor } from './jax/semantics';
import { unmodelledBase } from './unmodelled';
import { spellOrImport } from './jax/stack-sites';
import { markBackendStart, configSets } from './jax/runtime';
import { absorbTorchParts, torchBaseLayer } from './torch/semantics';
import { absorbNnxParts, installNnx, setRole } from './nnx/semantics';

const LAZY = new Set(['flax', 'haiku']);

interface LazyCtx { framework: 'flax' | 'haiku'; params: Map<string, TensorV>; counters: Map<string, number>; /** Layers that made their parameters in this init. */ built?: WeakSet<InstV> }

export function lazyCtx(it: Interpreter): LazyCtx | undefined {
  return it.state.get('lazyCtx') as LazyCtx | undefined;
}

/** Synthetic class standing for a catalogue layer (so attribute access and isinstance work). */
function layerClass(it: Interpreter, entry: LayerEntry): ClassV {
  let m = it.state.get('layerClasses') as Map<LayerEntry, ClassV> | undefined;
  if (!m) it.state.set('layerClasses', (m = new Map()));
  let c = m.get(entry);
  if (!c) {
    c = { t: 'class', name: entry.names[0].split('.').pop()!, bases: [], ns: new Map(), kind: entry.framework, dataclass: false, fields: [], entry };
    m.set(entry, c);
  }
  return c;
}

/** Whether random draws are partitionable: `jax.config.update(...)` in the program, else the pinned jax version's default. */
export function threefryPartitionable(it: Interpreter): { value: boolean; why: string } {
  const set = [...configSets(it)].reverse().find((c) => c.name === 'jax_threefry_partitionable');
  if (set && set.value.t === 'bool') return { value: set.value.v, why: 'set by jax.config.update in the program' };
  const v = (it.state.get('versions') as Record<string, string> | undefined)?.jax;
  if (v) {
    // jax_threefry_partitionable defaults to False through jax 0.4.38 and True from jax 0.5.0
    // (jax/_src/config.py at the jax-v0.4.38 and jax-v0.5.0 tags; CHANGELOG 0.5.0).
    const [maj, min] = v.split('.').map(Number);
    const on = maj > 0 || min >= 5;
    return { value: on, why: `default of the pinned jax==${v}` };
  }
  return { value: true, why: 'jax version not pinned: assuming jax ≥ 0.5.0, where it is the default' };
}

function startModel(it: Interpreter, node: SyntaxNode, name: string, framework: ModelRecord['framework'], cls?: ClassV): ModelRecord | undefined {
  // Under accelerate's init_empty_weights() a model holds no memory: it is loaded later (load_checkpoint_and_dispatch,
  // to_empty), where its record starts. A plain `with torch.device("meta")` build stays a model: its parameter
  // count is why programs write it (the load itself is abstract there).
  if (framework === 'torch' && it.state.get('emptyWeights') === true && !it.memory.current && cls?.node) {
    // Built, on the meta device: program/defaults.ts must not build it again from its defaults.
    const made = (it.state.get('metaBuiltClasses') as Set<number> | undefined) ?? new Set<number>();
    made.add(it.span(cls.node).start);
    it.state.set('metaBuiltClasses', made);
  }
  it.memory.abortPlainInit();
  if (it.memory.current || it.memory.abstractDepth > 0 || (framework === 'torch' && it.state.get('emptyWeights') === true)) return undefined;
  return it.memory.begin({
    name, framework, span: it.span(node), definitionSpan: cls?.node ? it.span(cls.node) : undefined,
    phase: framework === 'torch' || framework === 'transformers' ? 'load' : 'init',
    jitted: it.memory.jitDepth > 0, gc: framework !== 'torch' && framework !== 'transformers' && it.memory.jitDepth === 0,
  });
}

function finishModel(it: Interpreter, rec: ModelRecord | undefined, result: Value): void {
  if (!rec) return;
  rec.result = result;
  it.memory.atJitExit(() => { it.memory.end(rec); absorbTorchParts(it, rec); absorbNnxParts(it, rec); });
}

const flaxSetupDone = new WeakSet<InstV>();
/** Runs a flax module's setup() once per instance (flax/linen/module.py `_try_setup`, flax 0.8.5). */
function runFlaxSetup(it: Interpreter, inst: InstV, node: SyntaxNode): void {
  if (flaxSetupDone.has(inst)) return;
  flaxSetupDone.add(inst);
  const setup = it.classAttr(inst.cls, 'setup');
  if (setup?.t === 'func') it.callFunction({ ...setup, self: inst }, { args: [], kw: new Map() }, node);
}

/**
 * Leading axes that parameters created now get: inside `hk.layer_stack(n)(f)` every parameter of f is
 * stacked n times (haiku/_src/layer_stack.py, dm-haiku 0.0.12: the init is vmapped over n keys and the
 * apply is a scan), while activations keep one layer's shape. Set by frameworks/haiku.ts.
 */
export const STACK_STATE = 'haikuLayerStack';
/** Set while a Flax lifted vmap broadcasts its parameters (variable_axes 'params': None): they get no batch axis. */
const BROADCAST_PARAMS = 'flaxBroadcastParams';
/** Instances whose lifted call is running (the call inside it is the class's own). */
const liftedRunning = new WeakSet<InstV>();

/**
 * Calls `run` as a Flax lifted transform of the instance's class runs its __call__ (flax/linen/transforms.py
 * `vmap`, `scan`, flax 0.10):
 * - nn.vmap: the mapped arguments (in_axes, default 0) lose their mapped axis inside; its size (or axis_size=) is
 *   the batch, which what the call makes gets (memory.vmap), its parameters too when variable_axes maps 'params'
 *   to an axis, not when it broadcasts them (None, or 'params' not listed);
 * - nn.scan: __call__(carry, *xs) runs once per step on xs sliced along in_axes (default 0); length= or the
 *   scanned axis gives the steps; the parameters get a leading axis of that length when variable_axes maps
 *   'params' (not with variable_broadcast='params'), the per-step outputs (ys) too; the carry keeps its shape.
 * The axis a collection is mapped to does not change its bytes, only where the new axis sits.
 */
function liftedCall(it: Interpreter, inst: InstV, c: CallArgs, node: SyntaxNode, run: (c: CallArgs) => Value): Value {
  const l = inst.cls.lifted!;
  const kw = l.kw;
  const va = kw.get('variable_axes');
  let paramsAxis: Value | undefined;
  if (va?.t === 'dict') {
    const i = va.keys.findIndex((k) => k.t === 'str' && k.v === 'params');
    paramsAxis = i >= 0 ? va.vals[i] : undefined;
  } else if (va && va.t !== 'none') return it.note(`nn.${l.kind} of ${inst.cls.name}: variable_axes (${describe(va)}) is not known`, node);
  if (paramsAxis?.t === 'unknown') return it.note(`nn.${l.kind} of ${inst.cls.name}: the axis of its parameters is not known`, node);
  const vb = kw.get('variable_broadcast');
  const broadcastNamed = (vb?.t === 'str' && vb.v === 'params') || ((vb?.t === 'tuple' || vb?.t === 'list') && vb.items.some((x) => x.t === 'str' && x.v === 'params'));
  const mapsParams = paramsAxis !== undefined && paramsAxis.t !== 'none' && !broadcastNamed;
  const inAxes = kw.get('in_axes');
  const axisOf = (i: number): number | null | undefined => {
    if (!inAxes) return 0;
    if (inAxes.t === 'int') return inAxes.v;
    if (inAxes.t === 'none') return null;
    if (inAxes.t === 'tuple' || inAxes.t === 'list') { const a = inAxes.items[i]; return a === undefined ? 0 : a.t === 'int' ? a.v : a.t === 'none' ? null : undefined; }
    return undefined;
  };
  const first = l.kind === 'scan' ? 1 : 0;
  const given = kw.get(l.kind === 'scan' ? 'length' : 'axis_size');
  let n: number | undefined = given && given.t === 'int' ? given.v : undefined;
  if (given && given.t !== 'int' && given.t !== 'none') return it.note(`nn.${l.kind} of ${inst.cls.name}: ${l.kind === 'scan' ? 'length' : 'axis_size'} is not known`, node);
  const args: Value[] = [];
  for (const [i, a] of c.args.entries()) {
    if (i < first || a.t !== 'tensor') { args.push(a); continue; }
    const ax = axisOf(i - first);
    if (ax === undefined) return it.note(`nn.${l.kind} of ${inst.cls.name}: in_axes (${describe(inAxes!)}) is not known`, node);
    if (ax === null) { args.push(a); continue; }
    const at = ax < 0 ? a.shape.length + ax : ax;
    const d = a.shape[at];
    if (typeof d === 'number') n ??= d;
    args.push({ ...a, id: -a.id, shape: [...a.shape.slice(0, at), ...a.shape.slice(at + 1)], batched: undefined } as TensorV);
  }
  if (n === undefined) {
    if (l.kind !== 'vmap' || mapsParams) return it.note(`nn.${l.kind} of ${inst.cls.name}: the size of the mapped axis is not known`, node);
    // Shared parameters do not depend on the axis: made once, as the class makes them; what the mapped call makes
    // per element is sized once and the number of elements is an unknown of the phase.
    it.note(`nn.vmap of ${inst.cls.name}: the size of the mapped axis is not known (its parameters are shared, so they are counted; the mapped activations are not)`, node);
    liftedRunning.add(inst);
    try { return run({ args, kw: c.kw }); } finally { liftedRunning.delete(inst); }
  }
  liftedRunning.add(inst);
  try {
    if (l.kind === 'vmap') {
      const prevB = it.state.get(BROADCAST_PARAMS);
      it.memory.vmap.push(n);
      if (!mapsParams) it.state.set(BROADCAST_PARAMS, true);
      try { return run({ args, kw: c.kw }); } finally { it.memory.vmap.pop(); it.state.set(BROADCAST_PARAMS, prevB); }
    }
    const prev = it.state.get(STACK_STATE) as number[] | undefined;
    if (mapsParams) it.state.set(STACK_STATE, [...(prev ?? []), n]);
    let out: Value;
    try { out = run({ args, kw: c.kw }); } finally { it.state.set(STACK_STATE, prev); }
    // (carry, ys): each per-step output stacked along a new leading axis of the steps.
    const steps = n;
    const stack = (v: Value): Value => (v.t === 'tensor' ? { ...v, shape: [steps, ...v.shape] } as TensorV : v.t === 'tuple' ? { t: 'tuple', items: v.items.map(stack) } : v);
    return out.t === 'tuple' && out.items.length === 2 ? { t: 'tuple', items: [out.items[0], stack(out.items[1])] } : out;
  } finally { liftedRunning.delete(inst); }
}

function stackedAxes(it: Interpreter): number[] {
  return (it.state.get(STACK_STATE) as number[] | undefined) ?? [];
}

/** Creates the tensors of one catalogue layer's ParamSpecs. */
function makeParams(it: Interpreter, entry: LayerEntry, specs: ParamSpec[], node: SyntaxNode, lib: 'jax' | 'torch', placement?: Placement, path?: string[]): Map<string, TensorV> {
  const out = new Map<string, TensorV>();
  for (const p of specs) {
    const t = it.memory.alloc({
      shape: [...stackedAxes(it), ...p.shape], dtype: p.dtype, role: p.role, name: p.name, span: it.span(node), random: p.init === 'random', sampler: p.sampler,
      partition: p.partition, citation: entry.citation, lib, placement, path, ...(p.role === 'param' && it.state.get(BROADCAST_PARAMS) ? { noBatch: true } : {}),
    });
    if (p.init === 'random' && lib === 'jax') { randomInitCost(it, t, node); eagerInitCost(it, entry, t, node); }
    if (entry.framework === 'nnx') nnxEagerSharding(it, t, node);
    out.set(p.name, t);
  }
  return out;
}

/**
 * Threefry temporaries for a random parameter drawn inside a jitted init
 * whose output is sharded over a mesh (see shared/src/threefry.ts for the
 * formula and its sources).
 */
function randomInitCost(it: Interpreter, t: TensorV, node: SyntaxNode): void {
  const mesh = it.memory.jitMesh;
  if (!mesh || !t.partition) return;
  const p = placementFor(t, mesh, { t: 'sharding', mesh });
  const shards = p?.kind === 'sharded' ? p.over : 1;
  if (shards <= 1) return;
  const elements = t.shape.reduce<number>((a, d) => a * (typeof d === 'number' ? d : NaN), 1);
  if (!Number.isFinite(elements)) return;
  const part = threefryPartitionable(it);
  const bitWidth = t.dtype === 'float16' || t.dtype === 'bfloat16' ? 16 : t.dtype === 'float64' ? 64 : 32;
  const cost = threefryTemporaries({ elements, bitWidth, partitionable: part.value, shards, jitted: true });
  if (cost.bytesPerDevice > 0) {
    it.memory.transient({
      op: 'transient', label: `Threefry random bits for ${t.label} (${part.value ? 'partitionable' : 'not partitionable: every device draws all of them'})`,
      bytesPerDevice: cost.bytesPerDevice, role: 'rng', span: it.span(node), formula: cost.formula, citation: cost.citation,
    });
  }
  it.memory.observe({ kind: 'random-sharded', span: it.span(node), elements, shards, partitionable: part.value, transientBytes: cost.bytesPerDevice, label: t.label });
}

/**
 * Outside jit an initializer runs op by op: its random sampler is jitted
 * inside jax.random, the arithmetic after it is not, so the full-size sample
 * (and, for Haiku, the scaled product) is alive while the parameter is made.
 * Full-size arrays alive besides the parameter at that instant, for each
 * framework's default random initializer:
 * - flax (linen and nnx): 1. Dense/Conv/Embed (nnx Linear/Conv/Embed) default to jax.nn.initializers.variance_scaling
 *   (lecun_normal, or normal for Embed), which returns
 *   `random.truncated_normal(...) * stddev` / `random.normal(...) * jnp.sqrt(variance)`
 *   (jax/_src/nn/initializers.py, jax 0.10.2, variance_scaling.init).
 * - haiku: 2. TruncatedNormal (the default of hk.Linear, hk.Conv*, hk.Embed)
 *   returns `s * unscaled + m`, RandomNormal `m + s * jax.random.normal(...)`:
 *   the sample and the product are alive while the sum is made
 *   (haiku/_src/initializers.py, dm-haiku 0.0.17).
 * - equinox: 0. default_init returns `jrandom.uniform(key, shape, dtype, minval=-lim, maxval=lim)`,
 *   one jitted call (equinox/nn/_misc.py, equinox 0.13.8).
 * Under jit XLA fuses sample and scale: nothing extra.
 */
const EAGER_INIT_COPIES: Partial<Record<LayerEntry['framework'], number>> = { flax: 1, nnx: 1, haiku: 2, equinox: 0 };

function eagerInitCost(it: Interpreter, entry: LayerEntry, t: TensorV, node: SyntaxNode): void {
  // Parameters restored, not drawn (a Flax apply with restored variables, sized by an init on its input).
  if (t.virtual || t.abstract || it.state.get('sizingRestored') === true) return;
  const copies = EAGER_INIT_COPIES[entry.framework] ?? 0;
  const elements = t.shape.reduce<number>((a, d) => a * (typeof d === 'number' ? d : NaN), 1);
  if (!copies || !Number.isFinite(elements)) return;
  const bytes = elements * dtypeSize(t.dtype);
  it.memory.transient({
    op: 'transient', label: `eager init of ${t.label}: random sample${copies > 1 ? ' and scaled copy' : ''} alive with it`,
    bytesPerDevice: copies * bytes, role: 'temporary', span: it.span(node),
    formula: `${copies} × ${elements} elements × ${dtypeSize(t.dtype)} B (${t.dtype})`,
    citation: entry.framework === 'haiku' ? 'haiku/_src/initializers.py (dm-haiku 0.0.17) TruncatedNormal: s * unscaled + m' : 'jax/_src/nn/initializers.py (jax 0.10.2) variance_scaling: random.truncated_normal(...) * stddev',
  });
}

/** Builds nested attributes from dotted parameter names ('layers.0.weight'). */
function attachParams(it: Interpreter, inst: InstV, params: Map<string, TensorV>): void {
  for (const [name, t] of params) {
    const parts = name.split('.');
    let cur: InstV = inst;
    for (let i = 0; i < parts.length - 1; i++) {
      const key = parts[i];
      const isIndex = /^\d+$/.test(parts[i + 1]);
      let next = cur.attrs.get(key);
      if (isIndex) {
        if (!next || next.t !== 'list') { next = { t: 'list', items: [] }; cur.attrs.set(key, next); }
        const idx = Number(parts[i + 1]);
        let child = (next as { items: Value[] }).items[idx];
        if (!child || child.t !== 'inst') {
          child = it.newInst({ t: 'class', name: key, bases: [], ns: new Map(), kind: inst.cls.kind, dataclass: false, fields: [] });
          (next as { items: Value[] }).items[idx] = child;
        }
        cur = child as InstV;
        i++;
        if (i === parts.length - 1) { cur.attrs.set(parts[i], t); break; }
        continue;
      }
      if (!next || next.t !== 'inst') {
        next = it.newInst({ t: 'class', name: key, bases: [], ns: new Map(), kind: inst.cls.kind, dataclass: false, fields: [] });
        cur.attrs.set(key, next);
      }
      cur = next as InstV;
    }
    if (!/^\d+$/.test(parts[parts.length - 1]) || parts.length === 1) cur.attrs.set(parts[parts.length - 1], t);
  }
}

function torchPlacement(it: Interpreter, args: Args): Placement {
  const dev = args.device;
  if (typeof dev === 'string' && /^cuda/.test(dev)) return { kind: 'device', index: Number(dev.split(':')[1] ?? 0) || 0 };
  const scope = it.state.get('torchDevice') as string | undefined;
  if (scope && /^cuda/.test(scope)) return { kind: 'device', index: 0 };
  return { kind: 'host' };
}

function torchDtype(it: Interpreter): DType | undefined {
  return it.state.get('torchDefaultDtype') as DType | undefined;
}

export function installModules(it: Interpreter): void {
  // ---------------------------------------------------------- catalogue layers
  it.externs.set('__layer__', (_i, _self, c, node, fnv) => {
    const entry = it.cat.layers.get(fnv.name)!;
    const args = it.bindCatalogue(entry.signature, entry.defaults, c);
    const cls = layerClass(it, entry);
    const inst = it.newInst(cls);
    inst.catArgs = args;
    if (LAZY.has(entry.framework)) return inst;
    const lib = entry.framework === 'torch' ? 'torch' : 'jax';
    if (lib === 'jax') markBackendStart(it, node, `creating ${cls.name} parameters`);
    const rec = startModel(it, node, cls.name, entry.framework === 'torch' ? 'torch' : entry.framework === 'nnx' ? 'flax' : 'equinox');
    if (lib === 'torch' && torchDtype(it) && args.dtype === undefined) args.dtype = { kind: 'dtype', dtype: torchDtype(it)! };
    const specs = entry.params(args);
    if (!Array.isArray(specs)) {
      it.note(`${cls.name}: ${specs.reason}`, node);
    } else {
      const placement = lib === 'torch' ? torchPlacement(it, args) : undefined;
      const abstract = it.state.get('torchMeta') === true;
      if (abstract) it.memory.abstractDepth++;
      try {
        attachParams(it, inst, makeParams(it, entry, specs, node, lib, placement));
      } finally {
        if (abstract) it.memory.abstractDepth--;
      }
    }
    finishModel(it, rec, inst);
    return inst;
  });

  // ------------------------------------------------------------- user classes
  it.externs.set('__instantiate__', (_i, self, c, node) => {
    const cls = self as ClassV;
    // A base class that could not be resolved (imported from a file that is not followed) may create
    // parameters in its constructor: inside a model, the count cannot be exact.
    const lost = linearize(cls).flatMap((k) => k.bases).find((b) => b.t === 'unknown');
    if (lost && it.memory.current) it.note(`${cls.name} derives from a class that is not known (${describe(lost)}): the parameters it creates are not known`, node);
    if (cls.kind === 'flax') {
      const inst = it.newInst(cls);
      const kw = new Map(c.kw);
      kw.delete('name'); kw.delete('parent');
      it.bindFields(inst, { args: c.args, kw }, node);
      return inst;
    }
    if (cls.kind === 'equinox' || cls.kind === 'torch' || cls.kind === 'nnx') {
      if (cls.kind !== 'torch') markBackendStart(it, node, `constructing ${cls.name}`);
      // A Module given arrays that code outside any constructor built (a layer stack from a builder function)
      // continues their record: its parameters were made there.
      it.memory.abortPlainInit();
      if (!it.memory.current) for (const a of [...c.args, ...c.kw.values()]) visitTensors(a, (t) => it.memory.resumeLoose(t));
      const rec = lazyCtx(it) ? undefined : startModel(it, node, cls.name, cls.kind === 'nnx' ? 'flax' : cls.kind, cls);
      // An Equinox Module built outside jit runs its constructor op by op (a sample and its scaled product
      // alive together); `eqx.filter_jit(Model)(...)` returns the same Module with only its arrays made.
      if (rec && !rec.jitted && cls.kind === 'equinox') {
        const f = node.childForFieldName('function');
        rec.observations.push({ kind: 'eager-init', span: it.span(node), framework: 'equinox', callee: f ? it.span(f) : undefined, ...spellOrImport(it, 'equinox.filter_jit') });
      }
      const inst = it.instantiatePlain(cls, c, node);
      finishModel(it, rec, inst);
      return inst;
    }
    if (cls.bases.some((b) => b.t === 'extern') || linearize(cls).length > 1) unmodelledBase(it, cls, node);
    return it.instantiatePlain(cls, c, node);
  });

  it.externs.set('__setattr__', (_i, self, c, node) => {
    const inst = self as InstV;
    const name = (c.args[0] as { v: string }).v;
    const value = c.args[1];
    const kind = inst.cls.kind;
    // A tensor assigned to a registered buffer's name replaces the buffer (torch/nn/modules/module.py
    // Module.__setattr__: `buffers[name] = value`): `self.queue = F.normalize(self.queue, dim=0)` in MoCo.
    const old = inst.attrs.get(name);
    if (kind === 'torch' && old?.t === 'tensor' && old.role === 'buffer' && value?.t === 'tensor' && value.role !== 'param' && value.role !== 'buffer' && it.memory.current) setRole(it, value, 'buffer');
    inst.attrs.set(name, value);
    // Every array leaf of an Equinox module is a parameter (equinox treats all
    // inexact arrays as trainable leaves); static fields are not leaves.
    if (kind === 'equinox' && !isStaticField(it, inst.cls, name)) {
      visitTensors(value, (t) => { if (t.role === 'activation' || t.role === 'input') t.role = 'param'; });
    }
    // An array assigned to an NNX Module attribute is state (flax/nnx/pytreelib.py `is_data`), trained only
    // when wrapped in nnx.Param.
    if (kind === 'nnx' && value.t === 'tensor' && (value.role === 'activation' || value.role === 'input') && it.memory.current) setRole(it, value, 'buffer');
    // A module attribute that could not be resolved may hide parameters: the count cannot be exact.
    if ((kind === 'equinox' || kind === 'torch' || kind === 'haiku' || kind === 'nnx') && value.t === 'unknown' && it.memory.current && !value.reason.startsWith('__')) {
      it.note(`self.${name} could not be resolved (${value.reason})`, node);
    }
    return NONE;
  });

  // ----------------------------------------------------------- calling modules
  it.externs.set('__call_inst__', (_i, self, c, node, fnv) => {
    const inst = self as InstV;
    if (inst.cls?.lifted && !liftedRunning.has(inst)) return liftedCall(it, inst, c, node, (c2) => it.externs.get('__call_inst__')!(it, inst, c2, node, fnv));
    if (inst.items && !inst.cls.entry && !(inst.cls.kind === 'torch' && it.classAttr(inst.cls, 'forward'))) {
      // Sequential containers apply their items in order (a subclass with its own forward runs that instead).
      let x = c.args[0] ?? NONE;
      for (const m of inst.items) x = it.call(m, { args: [x], kw: new Map() }, node);
      return x;
    }
    const entry = inst.cls.entry;
    if (entry) return callLayer(it, inst, entry, c, node);
    // Flax runs a submodule's setup() lazily, when the bound module is first used (flax/linen/module.py
    // `_try_setup`, flax 0.8.5): a child defined in a parent's setup() gets its own layers now.
    if (inst.cls.kind === 'flax') runFlaxSetup(it, inst, node);
    const method = inst.cls.kind === 'torch' ? it.classAttr(inst.cls, 'forward') ?? it.classAttr(inst.cls, '__call__') : it.classAttr(inst.cls, '__call__');
    if (method?.t === 'func') return it.callFunction({ ...method, self: inst }, c, node);
    if (method?.t === 'extern' && method.self?.t === 'func') return it.callFunction({ ...method.self, self: inst }, c, node);
    // A subclass of a catalogue layer without its own forward runs the layer's (class Norm(nn.LayerNorm): ...).
    const base = inst.catArgs ? torchBaseLayer(it, inst) : undefined;
    if (base) return callLayer(it, inst, base, c, node);
    return unknown(`${inst.cls.name} has no __call__ that could be followed`, it.span(node));
  });

  // --------------------------------------------------------------- flax init
  /**
   * An init run to size parameters the program restores (a Flax or Haiku apply with variables it did not make with
   * init): they are concrete arrays made before the call, even when apply runs under jax.jit, and nothing is drawn.
   */
  const sizeRestored = (run: () => void): void => {
    const depth = it.memory.jitDepth;
    it.memory.jitDepth = 0;
    it.state.set('sizingRestored', true);
    try { run(); } finally {
      it.memory.jitDepth = depth;
      it.state.delete('sizingRestored');
    }
  };
  /** What such a record holds: the parameters alone, as restored (no eager-init finding, no forward arrays); apply's forward an unknown of its phase. */
  const restoredOnly = (rec: ModelRecord, name: string, node: SyntaxNode): void => {
    rec.observations = rec.observations.filter((o) => o.kind !== 'eager-init' && o.kind !== 'jit-init');
    const drawn = new Set(rec.events.flatMap((e) => (e.op === 'alloc' && e.tensor.role !== 'param' && e.tensor.role !== 'buffer' ? [e.tensor.id] : [])));
    rec.events = rec.events.filter((e) => !((e.op === 'alloc' || e.op === 'free') && drawn.has(e.op === 'alloc' ? e.tensor.id : e.id)));
    rec.notes.push(`${name}.apply with parameters the program restores (not made by init here): sized by the shapes init makes for apply's input (flax/linen/module.py apply, haiku/_src/transform.py apply: the parameters must be those init makes); the phase holds them as restored`);
    (rec.phaseUnknowns ??= []).push({ what: 'forward', reason: `${name}.apply's forward pass (its activations) is not estimated: the phase holds the restored parameters only`, span: it.span(node) });
  };
  const flaxInit = (self: Value | undefined, c: CallArgs, node: SyntaxNode, withOutput: boolean, restored = false): Value => {
    const inst = self as InstV;
    const [, ...inputs] = c.args;
    markBackendStart(it, node, 'flax Module.init');
    const rec = startModel(it, node, inst.cls.name, 'flax', inst.cls);
    if (rec && !rec.jitted) rec.observations.push({ kind: 'eager-init', span: it.span(node), framework: 'flax', callee: node.childForFieldName('function') ? it.span(node.childForFieldName('function')!) : undefined, ...spellOrImport(it, 'jax.jit') });
    if (rec?.jitted) rec.observations.push({ kind: 'jit-init', span: it.span(node) });
    const prev = it.state.get('lazyCtx');
    const ctx: LazyCtx = { framework: 'flax', params: new Map(), counters: new Map() };
    it.state.set('lazyCtx', ctx);
    const root = () => [...ctx.params.values()];
    it.memory.rootProviders.push(root);
    let out: Value;
    try {
      flaxSetupDone.delete(inst); // each init binds the module afresh
      runFlaxSetup(it, inst, node);
      const methodName = c.kw.get('method');
      const kw = new Map(c.kw); kw.delete('method'); kw.delete('mutable'); kw.delete('rngs');
      const method = methodName?.t === 'func' ? methodName : it.classAttr(inst.cls, methodName?.t === 'str' ? methodName.v : '__call__');
      // A catalogue layer initialised on its own (`nn.Dense(4).init(key, x)`) creates its parameters from x.
      const call = (c2: CallArgs): Value => (method?.t === 'func' ? it.callFunction({ ...method, self: inst }, c2, node)
        : inst.cls.entry && !methodName ? callLayer(it, inst, inst.cls.entry, c2, node)
          : unknown(`${inst.cls.name}.__call__ not found`, it.span(node)));
      out = inst.cls.lifted && !methodName ? liftedCall(it, inst, { args: inputs, kw }, node, call) : call({ args: inputs, kw });
      // Flax creates parameters while the forward pass runs: when its output could not be followed,
      // a layer on the way may have been skipped, so the count cannot be called exact.
      if (rec && out.t === 'unknown') it.note(`the init forward pass of ${inst.cls.name} could not be followed to its end (${out.reason})`, node);
    } finally {
      it.state.set('lazyCtx', prev);
      it.memory.rootProviders.splice(it.memory.rootProviders.indexOf(root), 1);
    }
    const params: Value = paramsDict(ctx);
    const result: Value = withOutput ? { t: 'tuple', items: [out, params] } : params;
    if (restored && rec) restoredOnly(rec, inst.cls.name, node);
    // The record keeps its own outer dict: the program may pop collections from the one it gets back
    // (`rest, params = variables.pop("params")`), which must not take the parameters out of the model's count.
    finishModel(it, rec, result.t === 'dict' ? { ...result, keys: [...result.keys], vals: [...result.vals] } : result);
    return result;
  };
  // flax.linen.merge_param(name, a, b) (flax/linen/module.py): the one of a / b that is not None; both or neither
  // set raises ValueError (an unknown here).
  it.externs.set('flax.linen.merge_param', (_i, _self, c, node) => {
    const [name, a, b] = [c.args[0], c.args[1] ?? c.kw.get('a'), c.args[2] ?? c.kw.get('b')];
    const label = name?.t === 'str' ? name.v : 'parameter';
    if (!a || !b || a.t === 'unknown' || b.t === 'unknown') return unknown(`merge_param(${label}): a value is not known`, it.span(node));
    if ((a.t === 'none') === (b.t === 'none')) return unknown(`merge_param(${label}): ${a.t === 'none' ? 'neither' : 'both'} given (ValueError)`, it.span(node));
    return a.t === 'none' ? b : a;
  });
  // Embed.attend(query) (flax/linen/linear.py Embed.attend: `jnp.dot(query, embedding.T)` after promote_dtype):
  // query's shape with its last axis replaced by num_embeddings, in the layer's dtype (else the query's).
  it.externs.set('flax.linen.Module.attend', (_i, self, c, node) => {
    const q = c.args[0] ?? c.kw.get('query');
    const a = self?.t === 'inst' ? self.catArgs : undefined;
    const n = a?.num_embeddings;
    if (self?.t !== 'inst' || !/^(flax\.linen\.(linear\.)?)?Embed$/.test(self.cls.name) || typeof n !== 'number' || q?.t !== 'tensor') {
      return unknown(`attend of ${self ? describe(self) : 'nothing'} on ${q ? describe(q) : 'nothing'} is not known`, it.span(node));
    }
    const dt = a?.dtype;
    const dtype: DType = typeof dt === 'object' && dt !== null && !Array.isArray(dt) && (dt as { kind?: string }).kind === 'dtype' ? (dt as { dtype: DType }).dtype : q.dtype;
    return it.memory.alloc({ shape: [...q.shape.slice(0, -1), n], dtype, role: 'activation', name: 'attend', span: it.span(node), from: [q], lib: 'jax' });
  });
  it.externs.set('flax.linen.Module.init', (_i, self, c, node) => flaxInit(self, c, node, false));
  it.externs.set('flax.linen.Module.init_with_output', (_i, self, c, node) => flaxInit(self, c, node, true));
  // Module.apply(variables, *inputs) with parameters the program did not make with init (restored from a checkpoint:
  // orbax, flax.serialization, a pickle): apply needs exactly the parameters init makes for the same input
  // (flax/linen/module.py apply binds `variables` and runs the method; a missing or misshapen one raises), so the
  // model is sized by an init on apply's input, once per module, and reported where apply is called. The restored
  // parameters are on the default device like init's; what init would have drawn at random is not drawn.
  const sizedByApply = new WeakSet<object>();
  it.externs.set('flax.linen.Module.apply', (_i, self, c, node) => {
    const vars = c.args[0] ?? c.kw.get('variables');
    const restored = !vars || vars.t === 'unknown' || (vars.t === 'dict' && vars.keys.some((k, i) => k.t === 'str' && k.v === 'params' && vars.vals[i].t === 'unknown'));
    if (self?.t === 'inst' && self.cls.kind === 'flax' && restored && !sizedByApply.has(self) && !it.memory.current && c.args.length > 1) {
      sizedByApply.add(self);
      sizeRestored(() => flaxInit(self, { args: [unknown('a PRNG key (parameters restored, not drawn)'), ...c.args.slice(1)], kw: c.kw }, node, false, true));
    }
    return unknown('Module.apply (a forward pass) is not part of the init estimate', it.span(node));
  });
  it.externs.set('flax.linen.Module.param', (_i, self, c, node) => {
    const ctx = lazyCtx(it);
    const name = c.args[0]?.t === 'str' ? c.args[0].v : 'param';
    const init = c.args[1] ?? c.kw.get('init_fn');
    // `self.param(name, init_fn, *init_args, **init_kwargs)` (flax/linen/module.py Module.param): the parameter is what
    // `init_fn(rng, *init_args, **init_kwargs)` returns. A function of the program (`lambda key: jnp.full((), 1.0)`)
    // is run on shapes only (no memory of its own) for the shape and dtype it returns.
    if (init?.t === 'func') {
      const kw = new Map([...c.kw].filter(([k]) => k !== 'init_fn' && k !== 'unbox'));
      it.memory.abstractDepth++;
      let v: Value;
      try { v = it.call(init, { args: [{ t: 'key' }, ...c.args.slice(2)], kw }, node); } finally { it.memory.abstractDepth--; }
      if (v.t === 'tensor' && v.shape.every((d) => typeof d === 'number')) {
        const flat: Value = v.random ? NONE : { t: 'extern', name: 'jax.nn.initializers.zeros' };
        return makeRawParam(it, ctx, `${(self as InstV)?.cls?.name ?? ''}.${name}`, { t: 'tuple', items: (v.shape as number[]).map((d) => ({ t: 'int', v: d })) }, v.dtype, flat, node);
      }
      return it.note(`shape of parameter ${name} is not known: its init function returned ${describe(v)}`, node);
    }
    const shape = c.args[2] ?? c.kw.get('shape');
    const dt = c.args[3] ?? c.kw.get('dtype');
    return makeRawParam(it, ctx, `${(self as InstV)?.cls?.name ?? ''}.${name}`, shape, dt?.t === 'dtype' ? dt.dtype : 'float32', init, node);
  });
  // self.variable(col, name, init_fn, *init_args) (flax/linen/module.py Module.variable): during init, a Variable whose
  // `.value` is `init_fn(*init_args)` (a running mean: `jnp.zeros, (n,)`), made once per module and name;
  // self.has_variable(col, name) is whether it exists yet. A collection other than "params" holds state, not parameters.
  const VARS = new WeakMap<LazyCtx, Map<string, Value>>();
  const varKey = (self: Value | undefined, c: CallArgs) => `${self?.t === 'inst' ? self.id : '?'}/${describe(c.args[0] ?? c.kw.get('col') ?? NONE)}/${describe(c.args[1] ?? c.kw.get('name') ?? NONE)}`;
  it.externs.set('flax.linen.Module.has_variable', (_i, self, c, node) => {
    const ctx = lazyCtx(it);
    if (!ctx) return unknown('self.has_variable() outside init: the variables given to apply decide', it.span(node));
    return { t: 'bool', v: VARS.get(ctx)?.has(varKey(self, c)) ?? false };
  });
  it.externs.set('flax.linen.Module.variable', (_i, self, c, node) => {
    const ctx = lazyCtx(it);
    if (!ctx) return unknown('self.variable() outside init: the variable comes from the variables given to apply', it.span(node));
    let vars = VARS.get(ctx);
    if (!vars) VARS.set(ctx, (vars = new Map()));
    const key = varKey(self, c);
    const had = vars.get(key);
    if (had) return had;
    const col = c.args[0] ?? c.kw.get('col');
    const name = c.args[1] ?? c.kw.get('name');
    const init = c.args[2] ?? c.kw.get('init_fn');
    if (!init || init.t === 'none') return unknown('self.variable() with no init function: its value is not known', it.span(node));
    it.memory.abstractDepth++;
    let v: Value;
    try { v = it.call(init, { args: c.args.slice(3), kw: new Map([...c.kw].filter(([k]) => !['col', 'name', 'init_fn', 'unbox'].includes(k))) }, node); } finally { it.memory.abstractDepth--; }
    if (v.t !== 'tensor' || !v.shape.every((d) => typeof d === 'number')) return it.note(`self.variable(${describe(col ?? NONE)}, ${describe(name ?? NONE)}): its init function returned ${describe(v)}`, node);
    const label = `${(self as InstV)?.cls?.name ?? ''}.${name?.t === 'str' ? name.v : 'variable'}`;
    const t = makeRawParam(it, ctx, label, { t: 'tuple', items: (v.shape as number[]).map((d) => ({ t: 'int', v: d })) }, v.dtype, v.random ? NONE : { t: 'extern', name: 'jax.nn.initializers.zeros' }, node, col?.t === 'str' && col.v === 'params' ? 'param' : 'buffer');
    const holder = it.newInst({ t: 'class', name: 'Variable', bases: [], ns: new Map(), kind: 'plain', dataclass: false, fields: [] });
    holder.attrs.set('value', t);
    vars.set(key, holder);
    return holder;
  });
  it.externs.set('flax.linen.Module.is_initializing', () => ({ t: 'bool', v: !!lazyCtx(it) }));
  it.externs.set('flax.linen.Module.make_rng', () => ({ t: 'key' }));
  // nn.Sequential(layers) (flax/linen/combinators.py, flax 0.8.5): __call__ passes its arguments to the first
  // layer, then each output to the next one, a tuple as *args and a dict as **kwargs.
  for (const n of ['flax.linen.Sequential', 'flax.linen.combinators.Sequential']) {
    it.externs.set(n, (_i, _self, c, node) => {
      const layers = c.args[0] ?? c.kw.get('layers');
      const items = layers ? it.iterate(layers, node) : undefined;
      if (!items) return unknown('nn.Sequential of layers that are not known', it.span(node));
      if (!items.length) return unknown('nn.Sequential with no layers (flax raises)', it.span(node));
      return { t: 'extern', name: '__flax_sequential__', args: [...items] };
    });
  }
  it.externs.set('__flax_sequential__', (_i, _self, c, node, fn) => {
    const [first, ...rest] = fn.args!;
    let out = it.call(first, c, node);
    for (const layer of rest) {
      const o = out;
      const call: CallArgs = o.t === 'tuple' ? { args: o.items, kw: new Map() }
        : o.t === 'dict' && o.keys.every((k) => k.t === 'str') ? { args: [], kw: new Map(o.keys.map((k, i) => [(k as { v: string }).v, o.vals[i]])) }
          : { args: [o], kw: new Map() };
      out = it.call(layer, call, node);
    }
    return out;
  });

  // ------------------------------------------------------------------ haiku
  // As decorators too (`@hk.transform def loss_fn(...)`, haiku's examples): applied, so the name is the Transformed.
  const applyHaiku = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  for (const n of ['haiku.transform', 'haiku.without_apply_rng', 'haiku.transform_with_state']) applyHaiku.add(n);
  it.state.set('applyDecorators', applyHaiku);
  for (const n of ['haiku.transform', 'haiku.without_apply_rng', 'haiku.transform_with_state', 'haiku.multi_transform']) {
    it.externs.set(n, (_i, _self, c, node) => {
      const f = c.args[0];
      if (!f) return unknown(`${n}()`, it.span(node));
      // apply's arguments (haiku/_src/transform.py): `apply(params, rng, *args)`; without_apply_rng drops `rng`;
      // transform_with_state adds `state` after params.
      if (f.t === 'transformed') return n === 'haiku.without_apply_rng' ? { ...f, noRng: true } : f;
      return { t: 'transformed', fn: f, name: f.t === 'func' ? f.name : describe(f), span: it.span(node), ...(n === 'haiku.transform_with_state' ? { withState: true } : {}) };
    });
  }
  const haikuInit = (self: Value | undefined, c: CallArgs, node: SyntaxNode, restored = false): Value => {
    const tr = self as Value & { t: 'transformed' };
    const [, ...inputs] = c.args;
    markBackendStart(it, node, 'haiku init');
    const rec = startModel(it, node, tr.name, 'haiku');
    if (rec && !rec.jitted) rec.observations.push({ kind: 'eager-init', span: it.span(node), framework: 'haiku', callee: node.childForFieldName('function') ? it.span(node.childForFieldName('function')!) : undefined, ...spellOrImport(it, 'jax.jit') });
    if (rec?.jitted) rec.observations.push({ kind: 'jit-init', span: it.span(node) });
    const prev = it.state.get('lazyCtx');
    const ctx: LazyCtx = { framework: 'haiku', params: new Map(), counters: new Map() };
    it.state.set('lazyCtx', ctx);
    const root = () => [...ctx.params.values()];
    it.memory.rootProviders.push(root);
    try {
      const out = it.call(tr.fn, { args: inputs, kw: c.kw }, node);
      // Haiku creates parameters while the forward pass runs (hk.transform): an output that could not
      // be followed means a module on the way may have been skipped, so the count is not exact.
      if (rec && out.t === 'unknown') it.note(`the init forward pass of ${tr.name} could not be followed to its end (${out.reason})`, node);
    } finally {
      it.state.set('lazyCtx', prev);
      it.memory.rootProviders.splice(it.memory.rootProviders.indexOf(root), 1);
    }
    const params = paramsDict(ctx);
    if (restored && rec) restoredOnly(rec, tr.name, node);
    finishModel(it, rec, params);
    return params;
  };
  it.externs.set('haiku.Transformed.init', (_i, self, c, node) => haikuInit(self, c, node));
  // apply with parameters the program restores (not made by init): sized by an init on apply's input, as for Flax.
  const haikuSized = new WeakSet<object>();
  it.externs.set('haiku.Transformed.apply', (_i, self, c, node) => {
    const p = c.args[0] ?? c.kw.get('params');
    if (self?.t === 'transformed' && (!p || p.t === 'unknown') && !haikuSized.has(self.fn) && !it.memory.current) {
      haikuSized.add(self.fn);
      const skip = 1 + (self.withState ? 1 : 0) + (self.noRng ? 0 : 1);
      if (c.args.length > skip) sizeRestored(() => haikuInit(self, { args: [unknown('a PRNG key (parameters restored, not drawn)'), ...c.args.slice(skip)], kw: c.kw }, node, true));
    }
    return unknown('apply (a forward pass) is not part of the init estimate', it.span(node));
  });
  it.externs.set('haiku.get_parameter', (_i, _self, c, node) => {
    const ctx = lazyCtx(it);
    const name = c.args[0]?.t === 'str' ? c.args[0].v : 'param';
    const shape = c.args[1] ?? c.kw.get('shape');
    const dt = c.args[2] ?? c.kw.get('dtype');
    const init = c.args[3] ?? c.kw.get('init');
    return makeRawParam(it, ctx, name, shape, dt?.t === 'dtype' ? dt.dtype : 'float32', init, node);
  });
  it.externs.set('haiku.get_state', (_i, _self, c, node) => {
    const name = c.args[0]?.t === 'str' ? c.args[0].v : 'state';
    const shape = c.args[1] ?? c.kw.get('shape');
    const dt = c.args[2] ?? c.kw.get('dtype');
    const t = makeRawParam(it, lazyCtx(it), name, shape, dt?.t === 'dtype' ? dt.dtype : 'float32', c.kw.get('init'), node);
    if (t.t === 'tensor') t.role = 'buffer';
    return t;
  });
  installNnx(it, { start: (node, name, cls) => startModel(it, node, name, 'flax', cls), finish: (rec, result) => finishModel(it, rec, result) });
  for (const n of ['haiku.Module.__init__', 'torch.nn.Module.__init__', 'flax.linen.Module.__init__', 'flax.nnx.Module.__init__', 'equinox.Module.__init__', 'object.__init__']) {
    it.externs.set(n, () => NONE);
  }
  it.externs.set('haiku.next_rng_key', () => ({ t: 'key' }));
  it.externs.set('haiku.PRNGSequence', () => ({ t: 'key' }));
}

function isStaticField(it: Interpreter, cls: ClassV, name: string): boolean {
  const d = it.classAttr(cls, name);
  if (d?.t === 'extern' && d.name === '__field__') {
    const st = d.kw?.get('static');
    return st?.t === 'bool' && st.v;
  }
  return false;
}

function paramsDict(ctx: LazyCtx): Value {
  const inner: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
  for (const [k, v] of ctx.params) { inner.keys.push(str(k)); inner.vals.push(v); }
  return ctx.framework === 'flax' ? { t: 'dict', keys: [str('params')], vals: [inner] } : inner;
}

function makeRawParam(it: Interpreter, ctx: LazyCtx | undefined, name: string, shape: Value | undefined, dtype: DType, init: Value | undefined, node: SyntaxNode, role: 'param' | 'buffer' = 'param'): Value {
  const dims = shape && (shape.t === 'tuple' || shape.t === 'list') ? shape.items.map((d) => (d.t === 'int' ? d.v : { unknown: `dimension ${describe(d)} of ${name} is not known` })) : undefined;
  if (!dims) return it.note(`shape of parameter ${name} is not known`, node);
  const random = init?.t === 'init' ? init.init.random : init?.t === 'extern' ? it.cat.inits.get(init.name)?.random ?? true : init === undefined || init.t === 'none';
  const partition = init?.t === 'init' ? init.init.partition : undefined;
  const t = it.memory.alloc({ shape: [...stackedAxes(it), ...dims], dtype, role, name, span: it.span(node), random, partition, ...(it.state.get(BROADCAST_PARAMS) ? { noBatch: true } : {}) });
  if (random) randomInitCost(it, t, node);
  if (ctx) ctx.params.set(uniqueName(ctx, name), t);
  return t;
}

function flaxAutoName(ctx: LazyCtx, base: string): string {
  const n = ctx.counters.get(base) ?? 0;
  ctx.counters.set(base, n + 1);
  return `${base}_${n}`;
}

function uniqueName(ctx: LazyCtx, base: string): string {
  const n = ctx.counters.get(base) ?? 0;
  ctx.counters.set(base, n + 1);
  return n === 0 ? base : `${base}_${n}`;
}

/** A catalogue layer's parameters, its sub-layers' included (MultiheadAttention's out_proj). */
function layerParams(inst: InstV, seen = new Set<number>()): TensorV[] {
  if (seen.has(inst.id)) return [];
  seen.add(inst.id);
  const out: TensorV[] = [];
  for (const v of [...inst.attrs.values(), ...(inst.items ?? [])]) {
    if (v.t === 'tensor' && v.role === 'param') out.push(v);
    else if (v.t === 'inst') out.push(...layerParams(v, seen));
  }
  return out;
}

/** A catalogue layer called on an input: lazy layers create their parameters now; all produce an output. */
export function callLayer(it: Interpreter, inst: InstV, entry: LayerEntry, c: CallArgs, node: SyntaxNode): Value {
  const x = c.args[0];
  const input: ArrayValue | undefined = x?.t === 'tensor' ? { kind: 'array', shape: x.shape, dtype: x.dtype } : undefined;
  const args = inst.catArgs ?? {};
  // Each init makes the module's parameters afresh (flax/linen/module.py Module.init → apply with empty variables;
  // haiku transform's init likewise): a layer is built once per init, and called again within it, shares them.
  const lazy = LAZY.has(entry.framework) ? lazyCtx(it) : undefined;
  if (LAZY.has(entry.framework) && (lazy ? !(lazy.built ??= new WeakSet()).has(inst) : !inst.built)) {
    const ctx = lazy;
    if (!ctx) return unknown(`${inst.cls.name} called outside init: parameters are not created here`, it.span(node));
    ctx.built!.add(inst);
    const specs = entry.params(args, input);
    if (!Array.isArray(specs)) {
      it.note(`${inst.cls.name}: ${specs.reason}`, node);
    } else {
      const explicit = typeof args.name === 'string' ? args.name : undefined;
      const base = explicit ?? inst.cls.name;
      // Flax auto-names submodules `{ClassName}_{n}` from 0 (flax/linen/module.py, Module.__post_init__:
      // `f'{prefix}{cursor}'` with prefix `ClassName_`); haiku names the first one plainly.
      const prefix = ctx.framework === 'flax' && !explicit ? flaxAutoName(ctx, base) : uniqueName(ctx, base);
      // Labelled by their parameter scope ("Dense_0.kernel"), as flax/haiku name them, not by the statement.
      const made = makeParams(it, entry, specs, node, 'jax', undefined, [prefix]);
      for (const [k, t] of made) ctx.params.set(`${prefix}/${k}`, t);
      attachParams(it, inst, made);
    }
    inst.built = true;
  }
  const res = layerResult(it, inst, entry, c, node, input);
  if (entry.framework === 'torch') {
    const kw: Record<string, unknown> = {};
    for (const [k, v] of c.kw) if (v.t === 'bool' || v.t === 'int' || v.t === 'float') kw[k] = v.v;
    it.memory.op(inst.cls.name, [...c.args, ...c.kw.values()], res, { ...args, ...kw }, layerParams(inst));
  }
  return res;
}

/**
 * torch.nn.LSTM / GRU / RNN (rnn.py forward): `output, h_n` (LSTM: `output, (h_n, c_n)`); output is
 * (N, L, D·H_out) with batch_first, else (L, N, D·H_out); h_n / c_n are (D·num_layers, N, H).
 * MultiheadAttention (activation.py forward): `attn_output, attn_output_weights` with the query's shape
 * and (N, L, S) averaged weights when need_weights (the default), else None.
 */
function torchMultiOutput(it: Interpreter, inst: InstV, c: CallArgs, node: SyntaxNode, x: TensorV): Value | undefined {
  const a = inst.catArgs ?? {};
  const mk = (shape: (number | { unknown: string })[], name: string) => it.memory.alloc({ shape, dtype: x.dtype, role: 'activation', name, span: it.span(node), from: [x], lib: 'torch' });
  const n = (k: string, d: number) => (typeof a[k] === 'number' ? a[k] as number : d);
  if (/^(LSTM|GRU|RNN)$/.test(inst.cls.name)) {
    const h = n('hidden_size', NaN);
    if (!Number.isFinite(h) || x.shape.length !== 3) return undefined;
    const proj = inst.cls.name === 'LSTM' ? n('proj_size', 0) : 0;
    const dirs = a.bidirectional === true ? 2 : 1;
    const layers = n('num_layers', 1);
    const bf = a.batch_first === true;
    const [d0, d1] = x.shape;
    const batch = bf ? d0 : d1;
    const out = mk([d0, d1, dirs * (proj || h)], `${inst.cls.name} output`);
    const hn = mk([dirs * layers, batch, proj || h], 'h_n');
    if (inst.cls.name !== 'LSTM') return { t: 'tuple', items: [out, hn] };
    const cn = mk([dirs * layers, batch, h], 'c_n');
    return { t: 'tuple', items: [out, { t: 'tuple', items: [hn, cn] }] };
  }
  if (inst.cls.name === 'MultiheadAttention') {
    const nw = c.kw.get('need_weights') ?? c.args[4];
    const avg = c.kw.get('average_attn_weights') ?? c.args[6];
    const k = c.args[1] ?? c.kw.get('key');
    if (x.shape.length !== 3 || (k && k.t !== 'tensor')) return undefined;
    const out = mk(x.shape, 'MultiheadAttention output');
    if (nw?.t === 'bool' && !nw.v) return { t: 'tuple', items: [out, { t: 'none' }] };
    const bf = a.batch_first === true;
    const S = k?.t === 'tensor' ? (bf ? k.shape[1] : k.shape[0]) : (bf ? x.shape[1] : x.shape[0]);
    const N = bf ? x.shape[0] : x.shape[1];
    const L = bf ? x.shape[1] : x.shape[0];
    const heads = n('num_heads', NaN);
    const w = avg?.t === 'bool' && !avg.v ? mk([N, heads, L, S], 'attention weights') : mk([N, L, S], 'attention weights');
    return { t: 'tuple', items: [out, w] };
  }
  return undefined;
}

function layerResult(it: Interpreter, inst: InstV, entry: LayerEntry, c: CallArgs, node: SyntaxNode, input: ArrayValue | undefined): Value {
  const x = c.args[0];
  const args = inst.catArgs ?? {};
  if (entry.framework === 'torch' && x?.t === 'tensor' && !entry.output) {
    const multi = torchMultiOutput(it, inst, c, node, x);
    if (multi) return multi;
  }
  if (!entry.output) return unknown(`output of ${inst.cls.name} is not modelled`, it.span(node));
  if (!input) return unknown(`${inst.cls.name} called on ${x ? describe(x) : 'nothing'}`, it.span(node));
  const out = entry.output(args, input);
  if ('kind' in out && out.kind === 'unknown') return unknown(out.reason, it.span(node));
  const o = out as ArrayValue;
  // A torch module cast after construction (`.half()`) computes in its weight's current dtype: an embedding
  // lookup returns rows of the weight (torch/nn/functional.py embedding), whatever dtype the constructor named.
  const w = entry.framework === 'torch' && /Embedding/.test(inst.cls.name) ? inst.attrs.get('weight') : undefined;
  const dtype = w?.t === 'tensor' ? w.dtype : o.dtype;
  return it.memory.alloc({ shape: o.shape, dtype, role: 'activation', name: `${inst.cls.name} output`, span: it.span(node), from: x?.t === 'tensor' ? [x] : undefined, lib: entry.framework === 'torch' ? 'torch' : 'jax' });
}

export { linearize, int, visitTensors };
