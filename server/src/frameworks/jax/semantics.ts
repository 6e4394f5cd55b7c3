/**
 * JAX transformations and helpers as memory sees them:
 * - `jax.random.PRNGKey/key/split`: keys; `split(k, n)` is a stack of n keys,
 *   which is what sets the leading axis of a vmapped construction.
 * - `jax.vmap` / `eqx.filter_vmap`: every buffer created inside gets the
 *   batch axis (filter_vmap's default out_axes stacks all array outputs on
 *   axis 0: equinox/_vmap_pmap.py, `out_axes=if_array(0)`).
 * - `jax.jit` / `eqx.filter_jit`: intermediates are virtual, outputs real.
 * - `jax.eval_shape`: abstract, no memory.
 * - tree maps: rebuild the pytree leaf by leaf while the old tree is alive.
 * - meshes and shardings: mesh axis sizes, for per-device bytes.
 */
import type { DType, Placement } from '../../../../shared/src/facts';
import type { Dim } from '../../interp/catalog-types';
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { visitTensors } from '../../interp/memory';
import { type ClassV, type InstV, type TensorV, type Value, NONE, describe, int, num, unknown } from '../../interp/values';
import { markBackendStart } from './runtime';
import { vmapSite } from './stack-sites';
import { specShards } from '../../phases/sharding';
import { JIT_RANDOM_DRAWS, type JitDraw } from '../../interp/arrays';
import { threefryPartitionable } from '../modules';
import { threefryTemporaries } from '../../../../shared/src/threefry';

const FLOATS = new Set(['float64', 'float32', 'float16', 'bfloat16', 'float8', 'complex64']);

export function installJax(it: Interpreter): void {
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode, fnv: Value & { t: 'extern' }) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node, fnv) => fn(self, c, node, fnv));
  };

  reg(['jax.random.PRNGKey', 'jax.random.key', 'jax.random.wrap_key_data'], (_s, _c, node) => {
    markBackendStart(it, node, 'creating a PRNG key');
    return { t: 'key' };
  });
  reg(['jax.random.split'], (_s, c, node) => {
    const n = c.args[1] ?? c.kw.get('num') ?? int(2);
    const k = num(n);
    if (k === undefined) return unknown(`number of keys ${describe(n)} is not known`, it.span(node));
    return { t: 'key', batch: k };
  });
  reg(['jax.random.fold_in', 'jax.random.clone'], () => ({ t: 'key' }));

  // vmap. As a decorator on a def (`@eqx.filter_vmap def make(k): return eqx.nn.Linear(..., key=k)`) it is applied
  // too (interp.ts execDecorated, state 'applyDecorators'): what the def creates gets the batch axis.
  const applied = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  for (const n of ['jax.vmap', 'equinox.filter_vmap', '__vmap_factory__']) applied.add(n);
  it.state.set('applyDecorators', applied);
  reg(['jax.vmap', 'equinox.filter_vmap', 'flax.linen.vmap'], (_s, c, node, fnv) => {
    if (!c.args[0]) {
      // Used as a decorator factory: eqx.filter_vmap(in_axes=...)(f)
      return { t: 'extern', name: '__vmap_factory__', kw: c.kw };
    }
    // nn.vmap(ModuleClass, variable_axes=..., split_rngs=...) is a lifted transform returning a new Module class
    // whose variables are mapped or shared per collection (flax/linen/transforms.py vmap): not modelled.
    if (fnv.name === 'flax.linen.vmap' && c.args[0].t === 'class') return liftedClass(c.args[0], 'vmap', c.kw);
    return { t: 'extern', name: '__vmapped__', self: c.args[0], kw: c.kw, args: [{ t: 'str', v: fnv.name }] };
  });
  // nn.scan(Block, variable_axes={'params': 0}, split_rngs={'params': True}, length=n): a Module class whose
  // __call__(carry, *xs) runs once per step (frameworks/modules.ts liftedCall).
  reg(['flax.linen.scan'], (_s, c, node) => {
    const target = c.args[0] ?? c.kw.get('target');
    if (target?.t === 'class') return liftedClass(target, 'scan', c.kw);
    return unknown(`nn.scan of ${target ? describe(target) : 'nothing'} (a lifted transform of a function) is not modelled`, it.span(node));
  });
  reg(['__vmap_factory__'], (_s, c, node, fnv) => ({ t: 'extern', name: '__vmapped__', self: c.args[0], kw: fnv.kw, args: [{ t: 'str', v: 'jax.vmap' }] }));
  reg(['__vmapped__'], (self, c, node, fnv) => {
    if (!self) return unknown('vmap of nothing', it.span(node));
    // The batch size: a stack of keys, or the leading axis of the first mapped array.
    let batch: number | undefined;
    const inAxes = fnv.kw?.get('in_axes');
    const mapped = (i: number): boolean => {
      if (!inAxes || inAxes.t === 'int') return true;
      if (inAxes.t === 'tuple' || inAxes.t === 'list') return inAxes.items[i]?.t !== 'none';
      return true;
    };
    const args = c.args.map((a, i) => {
      if (!mapped(i)) return a;
      if (a.t === 'key' && a.batch !== undefined) { batch ??= a.batch; return { t: 'key' } as Value; }
      // An array made inside an enclosing vmap carries that vmap's batch axes first (memory.ts alloc: `batched`):
      // the axis this vmap maps is the one after them, and inside, the array is one example of every level (the
      // enclosing axes are added back by what is made from it). An array passed in from outside has none.
      const outer = a.t === 'tensor' ? Math.min(a.batched ?? 0, it.memory.vmap.length) : 0;
      if (a.t === 'tensor' && typeof a.shape[outer] === 'number') {
        batch ??= a.shape[outer] as number;
        return { ...a, id: -a.id, shape: a.shape.slice(outer + 1), batched: undefined } as TensorV;
      }
      return a;
    });
    if (batch === undefined) return unknown('vmapped call: the batch size could not be found from its arguments', it.span(node));
    // A stack built outside any Module constructor (a builder function, module-level code) is a model of its
    // own from here to the end of the module-level statement (memory.ts beginLoose).
    const loose = !it.memory.current && it.memory.abstractDepth === 0 && it.importDepth === 0
      ? it.memory.beginLoose({ name: 'stack', framework: 'jax', span: it.span(node), phase: 'init', jitted: it.memory.jitDepth > 0, gc: it.memory.jitDepth === 0 })
      : undefined;
    const rec = it.memory.current;
    const before = rec?.events.length ?? 0;
    it.memory.vmap.push(batch);
    let out: Value;
    // Whether the mapped function made parameters (virtual ones under jit too): else the loose record is no model.
    let madeParams = false;
    const stop = loose ? it.memory.watchAllocs((t) => { if (t.role === 'param') madeParams = true; }) : undefined;
    try {
      out = it.call(self, { args, kw: c.kw }, node);
    } finally {
      it.memory.vmap.pop();
      stop?.();
    }
    if (rec) {
      let bytes = 0;
      const dtypes = new Set<string>();
      let group = '';
      const ids: number[] = [];
      for (const ev of rec.events.slice(before)) {
        if (ev.op === 'alloc' && ev.tensor.role === 'param') {
          bytes += ev.tensor.shape.reduce((a, b) => a * b, 1) * dtypeSize(ev.tensor.dtype);
          dtypes.add(ev.tensor.dtype);
          group ||= ev.tensor.group ?? '';
          ids.push(ev.tensor.id);
        }
      }
      if (loose) {
        // Plain arrays drawn as parameters keep the record as a params candidate (frameworks/jax/plain-init.ts):
        // the statement that binds them decides.
        if (!madeParams) {
          if (!loose.plainInit) it.memory.dropLoose(loose);
        } else {
          loose.result = out;
          // The framework of the layers it built (an Equinox or NNX module, else plain JAX arrays).
          if (out.t === 'inst') loose.framework = out.cls.kind === 'equinox' ? 'equinox' : out.cls.kind === 'nnx' || out.cls.kind === 'flax' ? 'flax' : out.cls.kind === 'haiku' ? 'haiku' : 'jax';
          if (out.t === 'inst') loose.name = out.cls.name;
        }
      }
      if (bytes > 0) {
        const vmapName = fnv.args?.[0]?.t === 'str' ? fnv.args[0].v : 'jax.vmap';
        rec.observations.push({
          kind: 'vmap-construct', span: it.span(node), batch, bytes, dtypes: [...dtypes] as never, target: it.memory.labelPath()[0], group,
          jitted: it.memory.jitDepth > 0, ids,
          site: vmapSite(it, node, vmapName, rec.framework === 'equinox'),
        });
      }
    }
    return out;
  });

  // jit
  reg(['jax.jit', 'equinox.filter_jit', 'jax.pjit', 'jax.experimental.pjit.pjit', 'flax.linen.jit'], (_s, c, node) => {
    if (!c.args[0]) return { t: 'extern', name: '__jit_factory__', kw: c.kw };
    return { t: 'extern', name: '__jitted__', self: c.args[0], kw: c.kw };
  });
  reg(['__jit_factory__'], (_s, c, _n, fnv) => ({ t: 'extern', name: '__jitted__', self: c.args[0], kw: fnv.kw }));
  reg(['__jitted__'], (self, c, node, fnv) => {
    if (!self) return unknown('jit of nothing', it.span(node));
    if (it.memory.jitDepth > 0) return it.call(self, c, node);
    const outSh = fnv.kw?.get('out_shardings') ?? fnv.kw?.get('out_axis_resources');
    const mesh = outSh?.t === 'sharding' ? outSh.mesh : undefined;
    it.state.set('jitOutShardings', outSh);
    it.memory.enterJit(node, mesh);
    const draws: JitDraw[] = [];
    it.state.set(JIT_RANDOM_DRAWS, draws);
    let out: Value;
    try {
      out = it.call(self, c, node);
    } catch (e) {
      it.memory.exitJit(NONE, node);
      throw e;
    } finally {
      it.state.delete(JIT_RANDOM_DRAWS);
    }
    const perLeaf = new Map<number, Placement>();
    if (outSh) outShardingsByLeaf(out, outSh, perLeaf);
    shardedDrawBits(it, draws, perLeaf);
    return it.memory.exitJit(out, node, (t) => perLeaf.get(t.id) ?? placementFor(t, mesh, outSh));
  });
  reg(['jax.block_until_ready', 'jax.device_get'], (_s, c) => c.args[0] ?? NONE);
  // jax.device_put and jax.sharding.NamedSharding: frameworks/sharding.ts.

  // eval_shape: abstract evaluation, no buffers.
  reg(['jax.eval_shape', 'equinox.filter_eval_shape'], (_s, c, node) => {
    const [f, ...rest] = c.args;
    if (!f) return unknown('eval_shape()', it.span(node));
    it.memory.abstractDepth++;
    const rec = it.memory.current;
    const detached = it.memory.recorders.splice(0);
    try {
      const r = it.call(f, { args: rest, kw: c.kw }, node);
      visitTensors(r, (t) => { t.abstract = true; t.virtual = undefined; });
      return r;
    } finally {
      it.memory.recorders.push(...detached);
      void rec;
      it.memory.abstractDepth--;
      // The abstract pass may have recorded finished models; they are not real models.
      for (let i = it.memory.finished.length - 1; i >= 0; i--) if (it.memory.finished[i].span.start >= node.startIndex && it.memory.finished[i].span.end <= node.endIndex) it.memory.removeFinished(i);
    }
  });
  reg(['jax.ShapeDtypeStruct'], (_s, c, node) => {
    const shape = c.args[0] ?? c.kw.get('shape');
    const dt = c.args[1] ?? c.kw.get('dtype');
    const dims = shape && (shape.t === 'tuple' || shape.t === 'list') ? shape.items.map((d) => num(d) ?? { unknown: 'dimension not known' }) : [];
    return { t: 'tensor', id: 0, shape: dims, dtype: dt?.t === 'dtype' ? dt.dtype : 'float32', abstract: true, placement: { kind: 'device', index: 0 }, label: 'ShapeDtypeStruct', group: 'abstract', role: 'input', lib: 'jax' };
  });

  // tree maps
  reg(['jax.tree_util.tree_map', 'jax.tree.map', 'jax.tree_map', 'equinox.tree_at'], (_s, c, node, fnv) => {
    if (fnv.name === 'equinox.tree_at') return unknown('eqx.tree_at is not modelled', it.span(node));
    const [f, tree, ...rest] = c.args;
    if (!f || !tree) return unknown('tree_map()', it.span(node));
    const isLeaf = c.kw.get('is_leaf');
    return treeMap(it, tree, (leaf, i) => it.call(f, { args: [leaf, ...rest.map((r) => leafAt(r, i))], kw: new Map() }, node), node, isLeaf);
  });
  reg(['jax.tree_util.tree_leaves', 'jax.tree.leaves'], (_s, c) => {
    const leaves: Value[] = [];
    if (c.args[0]) visitTensors(c.args[0], (t) => leaves.push(t));
    return { t: 'list', items: leaves };
  });

  // equinox predicates and helpers
  reg(['equinox.is_array', 'equinox.is_array_like'], (_s, c) => ({ t: 'bool', v: c.args[0]?.t === 'tensor' }));
  reg(['equinox.is_inexact_array', 'equinox.is_inexact_array_like'], (_s, c) => {
    const v = c.args[0];
    return { t: 'bool', v: v?.t === 'tensor' && FLOATS.has(v.dtype) };
  });
  reg(['equinox.filter', 'equinox.partition', 'equinox.combine'], (_s, c, node, fnv) => {
    if (fnv.name === 'equinox.partition') return { t: 'tuple', items: [c.args[0] ?? NONE, c.args[0] ?? NONE] };
    return c.args[0] ?? unknown(fnv.name, it.span(node));
  });
  reg(['equinox.tree_deserialise_leaves'], (_s, c, node) => {
    // Loading fills a new pytree shaped like `like`: each leaf is a new buffer while `like` is still referenced.
    const like = c.args[1] ?? c.kw.get('like');
    if (!like) return unknown('tree_deserialise_leaves without a template', it.span(node));
    return treeMap(it, like, (leaf) => leaf.t === 'tensor'
      ? it.memory.alloc({ shape: leaf.shape, dtype: leaf.dtype, role: leaf.role, name: leaf.label.split('.').pop(), span: it.span(node), noBatch: true, note: 'loaded from file' })
      : leaf, node);
  });
  reg(['equinox.nn.inference_mode', 'equinox.tree_inference'], (_s, c) => c.args[0] ?? NONE);
  reg(['jax.devices', 'jax.local_devices'], (_s, _c, node) => {
    markBackendStart(it, node, 'jax.devices()');
    return { t: 'extern', name: '__devices__', args: [] };
  });
  reg(['jax.device_count', 'jax.local_device_count'], (_s, _c, node) => {
    markBackendStart(it, node, 'jax.device_count()');
    const n = it.state.get('deviceCount') as number | undefined;
    return n !== undefined ? int(n) : unknown('device count depends on the machine', it.span(node));
  });
  // Arrays read from a file (numpy 1.26 docs): `np.memmap(filename, dtype=uint8, mode, offset, shape=None)`
  // ("If shape is None, the file is interpreted as a flat 1-D array"), `np.fromfile(file, dtype=float, count=-1)`
  // and `np.frombuffer(buffer, dtype=float, count=-1)` give a 1-D array whose length is the file's or buffer's:
  // unknown here (oomlens reads no data file). A memmap is the file's pages, in host memory only.
  const fileArray = (name: string, dflt: DType) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const dv = c.kw.get('dtype') ?? c.args[1];
    const dtype = dv === undefined ? dflt : dv.t === 'dtype' ? dv.dtype : undefined;
    if (!dtype) return unknown(`${name}: dtype ${describe(dv!)} is not known`, it.span(node));
    const sv = name === 'numpy.memmap' ? c.kw.get('shape') ?? c.args[4] : undefined;
    let shape: Dim[] = [{ unknown: `the length of the data ${name} reads (not read by oomlens)` }];
    if (sv && sv.t !== 'none') {
      const items = sv.t === 'tuple' || sv.t === 'list' ? sv.items : [sv];
      shape = items.map((d) => num(d) ?? { unknown: `${name} shape ${describe(d)} not known` });
    }
    const count = name !== 'numpy.memmap' ? num(c.kw.get('count') ?? c.args[2] ?? int(-1)) : undefined;
    if (count !== undefined && count >= 0) shape = [count];
    return it.memory.alloc({ shape, dtype, role: 'input', span: it.span(node), lib: 'jax', placement: { kind: 'host' }, name: name.split('.').pop(), citation: 'numpy 1.26 docs: numpy.memmap / fromfile / frombuffer give a 1-D array of the data\'s length' });
  };
  reg(['numpy.memmap'], fileArray('numpy.memmap', 'uint8'));
  reg(['numpy.fromfile'], fileArray('numpy.fromfile', 'float64'));
  reg(['numpy.frombuffer'], fileArray('numpy.frombuffer', 'float64'));
  // torch.from_numpy (torch 2.1 docs): "The returned tensor and ndarray share the same memory".
  reg(['torch.from_numpy'], (_s, c, node) => {
    const a = c.args[0];
    return a?.t === 'tensor' ? { ...a, lib: 'torch' } : unknown(`torch.from_numpy of ${a ? describe(a) : 'nothing'}`, it.span(node));
  });
  reg(['numpy.array', 'numpy.asarray'], (_s, c, node) => {
    const a = c.args[0];
    if (a?.t === 'extern' && a.name === '__devices__') return a;
    return it.arrayOp('jax.numpy.array', c.args, c.kw, node);
  });
  reg(['jax.experimental.mesh_utils.create_device_mesh'], (_s, c) => ({ t: 'extern', name: '__devices__', args: [c.args[0] ?? NONE] }));
  // A mesh's axis types (jax/_src/mesh.py, jax 0.10.2): `Mesh(...)` without axis_types makes every axis
  // Auto (`_normalize_axis_types`). `jax.make_mesh` without them makes every axis Explicit from jax 0.9.0
  // (jax/_src/sharding_impls.py make_mesh at the jax-v0.9.0 tag: `axis_types = (AxisType.Explicit,) * ...`;
  // CHANGELOG 0.8.1: "Default axis_types of jax.make_mesh will change in JAX v0.9.0 to return
  // jax.sharding.AxisType.Explicit") and Auto before (through jax-v0.8.3 it passes None on to `Mesh`, with a
  // DeprecationWarning from 0.8.1). So its default follows the pinned jax version, and is unknown without one.
  const makeMeshDefault = (): 'auto' | 'explicit' | undefined => {
    const v = (it.state.get('versions') as Record<string, string> | undefined)?.jax;
    const m = v ? /^(\d+)\.(\d+)/.exec(v) : null;
    if (!m) return undefined;
    const [maj, min] = [Number(m[1]), Number(m[2])];
    return maj > 0 || min >= 9 ? 'explicit' : 'auto';
  };
  const axisTypes = (v: Value | undefined, dflt: 'auto' | 'explicit' | undefined): 'auto' | 'explicit' | undefined => {
    if (!v || v.t === 'none') return dflt;
    const items = v.t === 'tuple' || v.t === 'list' ? v.items : [v];
    const kinds = new Set(items.map((x) => (x.t === 'extern' ? /\.AxisType\.(Auto|Explicit|Manual)$/.exec(x.name)?.[1] : undefined)));
    if (kinds.size === 1 && kinds.has('Auto')) return 'auto';
    if (kinds.has('Explicit')) return 'explicit';
    return undefined;
  };
  reg(['jax.sharding.Mesh', 'jax.experimental.maps.Mesh'], (_s, c, node) => {
    const devs = c.args[0];
    const names = c.args[1] ?? c.kw.get('axis_names');
    const nameList = names?.t === 'tuple' || names?.t === 'list' ? names.items : names ? [names] : [];
    const shape = devs?.t === 'extern' && devs.name === '__devices__' ? devs.args?.[0] : undefined;
    const dims = shape?.t === 'tuple' || shape?.t === 'list' ? shape.items.map((d) => num(d)) : shape ? [num(shape)] : [];
    const axes = new Map<string, number | undefined>();
    nameList.forEach((n, i) => { if (n.t === 'str') axes.set(n.v, dims[i] ?? (nameList.length === 1 ? (it.state.get('deviceCount') as number | undefined) : undefined)); });
    return { t: 'mesh', axes, axisTypes: axisTypes(c.kw.get('axis_types') ?? c.args[2], 'auto') };
  });
  reg(['jax.make_mesh'], (_s, c) => {
    const shape = c.args[0];
    const names = c.args[1];
    const axes = new Map<string, number | undefined>();
    if ((shape?.t === 'tuple' || shape?.t === 'list') && (names?.t === 'tuple' || names?.t === 'list')) {
      names.items.forEach((n, i) => { if (n.t === 'str') axes.set(n.v, num(shape.items[i] ?? NONE)); });
    }
    return { t: 'mesh', axes, axisTypes: axisTypes(c.kw.get('axis_types') ?? c.args[2], makeMeshDefault()) };
  });
  // Logical axis rules: ((logical, mesh_axis | None | (mesh_axes...)), ...) (flax/linen/spmd.py, flax 0.12.8,
  // `_logical_to_mesh_axes`: the first rule naming a logical axis gives its mesh axes; None replicates it).
  // They are folded into the sharding's mesh as extra names, so a parameter partitioned over logical
  // names (with_logical_partitioning) is divided by the sizes of the mesh axes they stand for.
  const withRules = (axes: Map<string, number | undefined>, rules: Value | undefined): Map<string, number | undefined> => {
    const list = rules?.t === 'tuple' || rules?.t === 'list' ? rules.items : undefined;
    if (!list) return axes;
    const out = new Map(axes);
    for (const r of list) {
      if ((r.t !== 'tuple' && r.t !== 'list') || r.items[0]?.t !== 'str' || out.has(r.items[0].v)) continue;
      const target = r.items[1];
      const names = target?.t === 'str' ? [target.v] : target?.t === 'tuple' || target?.t === 'list' ? target.items.map((x) => (x.t === 'str' ? x.v : '')) : target?.t === 'none' ? [] : undefined;
      if (!names) continue;
      let size: number | undefined = 1;
      for (const n of names) { const k = axes.get(n); size = k === undefined || size === undefined ? undefined : size * k; }
      out.set(r.items[0].v, size);
    }
    return out;
  };
  reg(['flax.linen.set_logical_axis_rules', 'flax.linen.spmd.set_logical_axis_rules'], (_s, c) => { it.state.set('flaxLogicalRules', c.args[0] ?? c.kw.get('rules')); return NONE; });
  reg(['flax.linen.get_sharding', 'flax.linen.logical_to_mesh_sharding', 'flax.linen.spmd.logical_to_mesh_sharding'], (_s, c, _node, fnv) => {
    const mesh = [c.args[0], c.args[1], c.kw.get('mesh')].find((v) => v?.t === 'mesh');
    if (mesh?.t !== 'mesh') return { t: 'sharding', mesh: undefined };
    const rules = /logical_to_mesh_sharding$/.test(fnv.name) ? c.args[2] ?? c.kw.get('rules') ?? (it.state.get('flaxLogicalRules') as Value | undefined) : undefined;
    return { t: 'sharding', mesh: withRules(mesh.axes, rules) };
  });
  // with_logical_constraint(x, names) is a sharding constraint on an activation: the same array.
  reg(['flax.linen.with_logical_constraint', 'flax.linen.spmd.with_logical_constraint'], (_s, c) => c.args[0] ?? NONE);
  // with_logical_partitioning(fn, names) wraps the initializer like with_partitioning, with logical names
  // (flax/linen/spmd.py with_logical_partitioning → LogicallyPartitioned): values unchanged.
  reg(['flax.linen.with_partitioning', 'flax.linen.spmd.with_partitioning', 'flax.linen.with_logical_partitioning', 'flax.linen.spmd.with_logical_partitioning', 'flax.nnx.with_partitioning', 'flax.nnx.spmd.with_partitioning'], (_s, c, node) => {
    const f = c.args[0];
    const names = c.args[1] ?? c.kw.get('names') ?? c.kw.get('sharding');
    const list = names?.t === 'tuple' || names?.t === 'list' ? names.items.map((n) => (n.t === 'str' ? n.v : null)) : undefined;
    const cv = f ? it.toCat(f) : undefined;
    const init = typeof cv === 'object' && cv !== null && !Array.isArray(cv) && cv.kind === 'init' ? cv : { kind: 'init' as const, name: f?.t === 'func' ? f.name : 'initializer', random: true };
    if (!list) return unknown('with_partitioning names are not known', it.span(node));
    return { t: 'init', init: { ...init, partition: list } };
  });
  reg(['jax.sharding.PartitionSpec', 'jax.sharding.PositionalSharding'], (_s, c) => ({ t: 'tuple', items: c.args }));
}

function dtypeSize(d: string): number {
  return d === 'float64' || d === 'int64' ? 8 : d === 'float16' || d === 'bfloat16' || d === 'int16' ? 2 : d === 'int8' || d === 'uint8' || d === 'bool' || d === 'float8' ? 1 : 4;
}

function leafAt(tree: Value, i: number): Value {
  const leaves: Value[] = [];
  visitTensors(tree, (t) => leaves.push(t));
  return leaves[i] ?? NONE;
}

/**
 * Rebuilds a pytree with `f` applied to each array/number leaf, keeping the
 * partial result pinned so both trees count while the map runs (as in
 * jax.tree_util.tree_map, which builds the full list of new leaves before
 * unflattening).
 */
export function treeMap(it: Interpreter, tree: Value, f: (leaf: Value, i: number) => Value, node: SyntaxNode, isLeaf?: Value): Value {
  const made: Value[] = [];
  let i = 0;
  const seen = new Map<object, Value>();
  const go = (v: Value): Value => {
    if (isLeaf && isLeaf.t !== 'none') {
      const t = it.call(isLeaf, { args: [v], kw: new Map() }, node);
      if (t.t === 'bool' && t.v) { const r = f(v, i++); made.push(r); return r; }
    }
    switch (v.t) {
      case 'tensor': case 'int': case 'float': {
        const r = f(v, i++);
        made.push(r);
        return r;
      }
      case 'tuple': case 'list': return { t: v.t, items: v.items.map(go) };
      case 'dict': return { t: 'dict', keys: v.keys, vals: v.vals.map(go) };
      case 'inst': {
        if (seen.has(v)) return seen.get(v)!;
        const copy: InstV = { ...v, attrs: new Map() };
        seen.set(v, copy);
        for (const [k, a] of v.attrs) copy.attrs.set(k, isStatic(it, v, k) ? a : go(a));
        return copy;
      }
      default: return v;
    }
  };
  return it.withTemps([{ t: 'list', items: made }], () => go(tree));
}

function isStatic(it: Interpreter, inst: InstV, field: string): boolean {
  const d = it.classAttr(inst.cls, field);
  if (d?.t === 'extern' && d.name === '__field__') {
    const s = d.kw?.get('static');
    return s?.t === 'bool' && s.v;
  }
  return false;
}

/** Where a jitted output lives: sharded over the mesh axes its partition names map to. */
/**
 * `out_shardings` of jax.jit as a pytree prefix of the outputs (jax/_src/pjit.py, jax 0.10.2: "a pytree
 * prefix of the output"; a single Sharding applies to every output): each `NamedSharding(mesh, spec)` puts
 * the leaves under it on the mesh by its spec, split over the product of the sizes of the mesh axes it
 * names (phases/sharding.ts specShards). A sharding without a spec (flax's `get_sharding`, one per
 * annotated parameter) and a spec that is not known leave the leaf to `placementFor`.
 */
function outShardingsByLeaf(v: Value, sh: Value, out: Map<number, Placement>): void {
  if (sh.t === 'sharding') {
    if (!sh.spec) return;
    const over = specShards(sh.mesh, sh.spec);
    if (typeof over === 'string') return;
    visitTensors(v, (t) => { out.set(t.id, over > 1 ? { kind: 'sharded', over } : { kind: 'replicated' }); });
    return;
  }
  if (sh.t === 'dict' && v.t === 'dict') {
    const keyOf = (k: Value) => (k.t === 'str' ? `s:${k.v}` : k.t === 'int' ? `i:${k.v}` : undefined);
    sh.keys.forEach((k, i) => {
      const key = keyOf(k);
      const j = key === undefined ? -1 : v.keys.findIndex((vk) => keyOf(vk) === key);
      if (j >= 0) outShardingsByLeaf(v.vals[j], sh.vals[i], out);
    });
    return;
  }
  if ((sh.t === 'tuple' || sh.t === 'list') && (v.t === 'tuple' || v.t === 'list') && sh.items.length === v.items.length) {
    sh.items.forEach((s, i) => outShardingsByLeaf(v.items[i], s, out));
  }
}

/**
 * Threefry bits of the `jax.random` draws of a jitted call whose outputs are sharded by their own
 * `out_shardings` specs (outShardingsByLeaf): with the original, non-partitionable implementation every
 * device hashes the counters of the whole draw and keeps its slice (shared/src/threefry.ts). Catalogue
 * layers annotated with a partitioning get theirs in frameworks/modules.ts randomInitCost.
 */
function shardedDrawBits(it: Interpreter, draws: JitDraw[], perLeaf: Map<number, Placement>): void {
  let shards = 1;
  for (const p of perLeaf.values()) if (p.kind === 'sharded') shards = Math.max(shards, p.over);
  if (shards <= 1 || draws.length === 0) return;
  const part = threefryPartitionable(it);
  if (part.value) return; // partitionable: each device hashes its shard's counters, fused into the sample
  for (const d of draws) {
    const elements = d.shape.reduce<number>((a, x) => a * (typeof x === 'number' ? x : NaN), 1);
    if (!Number.isFinite(elements)) continue;
    const bitWidth = d.dtype === 'float16' || d.dtype === 'bfloat16' ? 16 : d.dtype === 'float64' ? 64 : 32;
    const cost = threefryTemporaries({ elements, bitWidth, partitionable: false, shards, jitted: true });
    if (cost.bytesPerDevice <= 0) continue;
    const label = `jax.random.${d.name} [${d.shape.join(', ')}]`;
    it.memory.transient({
      op: 'transient', label: `Threefry random bits for ${label} (not partitionable: every device draws all of them)`,
      bytesPerDevice: cost.bytesPerDevice, role: 'rng', span: d.span, formula: cost.formula, citation: cost.citation,
    });
    it.memory.observe({ kind: 'random-sharded', span: d.span, elements, shards, partitionable: false, transientBytes: cost.bytesPerDevice, label });
  }
}

function placementFor(t: TensorV, mesh: Map<string, number | undefined> | undefined, outSh: Value | undefined): Placement | undefined {
  if (!mesh || !t.partition) return outSh ? { kind: 'replicated' } : undefined;
  let over = 1;
  for (const name of t.partition) {
    if (!name) continue;
    const n = mesh.get(name);
    if (n === undefined) return undefined;
    over *= n;
  }
  return over > 1 ? { kind: 'sharded', over } : { kind: 'replicated' };
}

export { placementFor, FLOATS };

/**
 * A Flax lifted transform of a Module class (flax/linen/transforms.py `vmap`, `scan`: "a lifted version of the
 * Module class"): a subclass of it that keeps the transform's keywords; calling an instance maps or scans its
 * __call__ (frameworks/modules.ts liftedCall).
 */
function liftedClass(cls: ClassV, kind: 'vmap' | 'scan', kw: Map<string, Value>): ClassV {
  return { t: 'class', name: cls.name, node: cls.node, bases: [cls], ns: new Map(), kind: cls.kind, dataclass: cls.dataclass, fields: [...cls.fields], fieldTypes: cls.fieldTypes, entry: cls.entry, lifted: { kind, kw: new Map(kw) } };
}
