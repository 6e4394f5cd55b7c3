/**
 * Flax NNX: eager modules whose state is `nnx.Variable`s (flax 0.12.8).
 * - `nnx.Param(x)` marks x as a trainable parameter; `nnx.BatchStat`,
 *   `nnx.Cache`, `nnx.Variable` and a plain array attribute are state that is
 *   kept but not trained (flax/nnx/variablelib.py; flax/nnx/pytreelib.py
 *   `is_data`: arrays assigned to a Module attribute are data).
 * - `nnx.Rngs(...)` and its streams hand out keys (flax/nnx/rnglib.py).
 * - `nnx.Sequential(*fns)` stores `List(fns)` and applies them in order,
 *   passing a tuple output as *args and a dict as **kwargs
 *   (flax/nnx/helpers.py Sequential.__call__); `nnx.List` / `nnx.Dict` hold
 *   their items (helpers.py).
 * - `nnx.split` / `nnx.state` / `nnx.graphdef` / `nnx.merge` move the same
 *   buffers between a module and its state (flax/nnx/graphlib.py): no copies.
 * - `nnx.jit`, `nnx.vmap`, `nnx.eval_shape` are the JAX transforms over the
 *   module's state (flax/nnx/transforms/): modelled as jax.jit / jax.vmap /
 *   jax.eval_shape.
 * nnx.Optimizer is in phases/training.ts.
 */
import { type Interpreter, linearize } from '../../interp/interp';
import type { ModelRecord } from '../../interp/memory';
import type { SyntaxNode } from '../../interp/parser';
import { type ClassV, type InstV, type TensorV, type Value, NONE, str, unknown } from '../../interp/values';
import { visitTensors } from '../../interp/memory';

const NNX_VARIABLES: Record<string, TensorV['role']> = { Param: 'param', BatchStat: 'buffer', Cache: 'buffer', Variable: 'buffer', Intermediate: 'buffer', OptState: 'buffer' };

/**
 * Gives a tensor its NNX role and relabels the allocation already recorded for it
 * (the record copies the role at allocation time).
 */
export function setRole(it: Interpreter, t: TensorV, role: TensorV['role']): void {
  if (t.role === role || t.role === 'param') return;
  t.role = role;
  const head = t.label.split('.')[0] || t.label;
  t.group = `${head} (${t.dtype})`;
  for (const r of [...it.memory.recorders, ...it.memory.finished]) {
    for (const ev of r.events) if (ev.op === 'alloc' && ev.tensor.id === t.id) { ev.tensor.role = role; ev.tensor.group = t.group; }
  }
}

/** The tensors of an NNX state selected by Variable-type filters (`nnx.Param`, `nnx.BatchStat`, `...`). */
function filterRoles(filters: Value[]): Set<TensorV['role']> | undefined {
  if (!filters.length) return undefined;
  const roles = new Set<TensorV['role']>();
  for (const f of filters) {
    if (f.t === 'extern') {
      const m = /^flax\.nnx\.(?:variablelib\.)?(\w+)$/.exec(f.name);
      const role = m ? NNX_VARIABLES[m[1]] : undefined;
      if (role) { roles.add(role); continue; }
    }
    // `...`, True, a path or tag filter: everything (filterlib.py), counted as the whole state.
    return undefined;
  }
  return roles;
}

function stateOf(v: Value, roles: Set<TensorV['role']> | undefined): Value {
  const out: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
  const seen = new Set<number>();
  visitTensors(v, (t) => {
    if (seen.has(t.id) || (roles && !roles.has(t.role))) return;
    if (!roles && t.role !== 'param' && t.role !== 'buffer') return;
    seen.add(t.id);
    out.keys.push(str(t.label));
    out.vals.push(t);
  });
  return out;
}

/**
 * When an NNX model finishes construction, the layers built before it and handed in
 * (`nnx.Sequential(nnx.Linear(...), ...)`, a backbone passed to a wrapper) are part of it:
 * their allocations and unknowns move into its record, and catalogue layers and containers
 * recorded as models of their own are dropped (user-defined classes keep their own entry).
 */
export function absorbNnxParts(it: Interpreter, rec: ModelRecord): void {
  if (rec.result?.t !== 'inst' || rec.result.cls.kind !== 'nnx') return;
  const parts = new Set<object>();
  const walk = (x: Value): void => {
    if (x.t === 'list' || x.t === 'tuple') { for (const i of x.items) walk(i); return; }
    if (x.t === 'dict') { for (const i of x.vals) walk(i); return; }
    if (x.t !== 'inst' || x.cls.kind !== 'nnx' || parts.has(x)) return;
    parts.add(x);
    for (const a of x.attrs.values()) walk(a);
    for (const i of x.items ?? []) walk(i);
  };
  walk(rec.result);
  const finished = it.memory.finished;
  const moved: ModelRecord['events'] = [];
  for (let i = finished.length - 1; i >= 0; i--) {
    const r = finished[i];
    if (r === rec || !r.result || !parts.has(r.result)) continue;
    rec.unknowns.push(...r.unknowns);
    rec.observations.push(...r.observations);
    moved.unshift(...r.events);
    if (!(r.result as InstV).cls.node) it.memory.removeFinished(i);
  }
  rec.events.unshift(...moved);
}

export function installNnx(it: Interpreter, model: { start(node: SyntaxNode, name: string, cls: ClassV): ModelRecord | undefined; finish(rec: ModelRecord | undefined, result: Value): void }): void {
  const reg = (names: string[], fn: (self: Value | undefined, c: { args: Value[]; kw: Map<string, Value> }, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };

  // Variables: the wrapped array takes the Variable's role (variablelib.py Param / BatchStat / Cache / Variable).
  for (const [kind, role] of Object.entries(NNX_VARIABLES)) {
    reg([`flax.nnx.${kind}`, `flax.nnx.variablelib.${kind}`], (_s, c, node) => {
      const v = c.args[0] ?? c.kw.get('value');
      if (!v) return unknown(`nnx.${kind}() without a value`, it.span(node));
      if (v.t === 'tensor') { setRole(it, v, role); return v; }
      if (v.t === 'unknown' && it.memory.current) return it.note(`nnx.${kind} of a value that is not known (${v.reason})`, node);
      return v;
    });
  }
  // A Variable type of the program's own (class Count(nnx.Variable[nnx.A]): pass) is a Variable of its
  // library base's kind (variablelib.py: the type tags the state; nnx.Param subclasses are params).
  const prevInst = it.externs.get('__instantiate__');
  it.externs.set('__instantiate__', (i, self, c, node, fnv) => {
    const cls = self as ClassV;
    const mro = linearize(cls);
    const base = mro.flatMap((k) => k.bases).find((b) => b.t === 'extern' && /^flax\.nnx\.(?:variablelib\.)?(\w+)$/.test(b.name) && Object.hasOwn(NNX_VARIABLES, /(\w+)$/.exec(b.name)![1]));
    if (base?.t === 'extern') {
      if (mro.some((k) => k.ns.has('__init__'))) return unknown(`${cls.name} (an nnx Variable type) has an __init__ of its own, not followed`, it.span(node));
      return it.call({ t: 'extern', name: base.name }, c, node);
    }
    return prevInst ? prevInst(i, self, c, node, fnv) : it.instantiatePlain(cls, c, node);
  });
  // pytreelib.py data / static: annotations that return their argument.
  reg(['flax.nnx.data', 'flax.nnx.static', 'flax.nnx.pytreelib.data', 'flax.nnx.pytreelib.static'], (_s, c) => c.args[0] ?? NONE);

  // Rngs: every stream and every call hands out keys (rnglib.py Rngs / RngStream).
  const rngs: Value = { t: 'extern', name: '__nnx_rngs__', kw: new Map() };
  reg(['flax.nnx.Rngs', 'flax.nnx.rnglib.Rngs', 'flax.nnx.RngStream'], () => rngs);
  it.externs.set('__nnx_rngs__', (_i, _s, c) => (c.args.length || c.kw.size ? rngs : { t: 'key' }));
  const prevGet = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__nnx_rngs__') return rngs;
    return prevGet ? prevGet(i, self, c, node, f) : unknown('__pass__');
  });

  // Containers.
  const seqCls: ClassV = { t: 'class', name: 'Sequential', bases: [], ns: new Map(), kind: 'nnx', dataclass: false, fields: ['layers'] };
  reg(['flax.nnx.Sequential', 'flax.nnx.helpers.Sequential'], (_s, c, node) => {
    const lost = c.args.find((x) => x.t === 'unknown');
    const rec = model.start(node, 'Sequential', seqCls);
    if (lost && lost.t === 'unknown') it.note(`nnx.Sequential holds a layer that is not known (${lost.reason})`, node);
    const inst = it.newInst(seqCls);
    inst.items = [...c.args];
    inst.attrs.set('layers', { t: 'list', items: [...c.args] });
    model.finish(rec, inst);
    return inst;
  });
  reg(['flax.nnx.List', 'flax.nnx.helpers.List'], (_s, c, node) => {
    const items = c.args[0] ? it.iterate(c.args[0], node) : [];
    return items ? { t: 'list', items: [...items] } : unknown('nnx.List of items that are not known', it.span(node));
  });
  reg(['flax.nnx.Dict', 'flax.nnx.helpers.Dict'], (_s, c) => {
    const d = c.args[0];
    const out: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
    if (d?.t === 'dict') { out.keys.push(...d.keys); out.vals.push(...d.vals); }
    for (const [k, v] of c.kw) { out.keys.push(str(k)); out.vals.push(v); }
    return out;
  });

  // Graph and state: the same buffers, regrouped (graphlib.py split / state / graphdef / merge).
  const graphdef = (m: Value): Value => ({ t: 'extern', name: '__nnx_graphdef__', kw: new Map(), args: [m] });
  reg(['flax.nnx.split', 'flax.nnx.graphlib.split'], (_s, c) => {
    const [m, ...filters] = c.args;
    if (!m) return unknown('nnx.split()');
    const states = filters.length ? filters.map((f) => stateOf(m, filterRoles([f]))) : [stateOf(m, undefined)];
    return { t: 'tuple', items: [graphdef(m), ...states] };
  });
  reg(['flax.nnx.state', 'flax.nnx.graphlib.state'], (_s, c) => {
    const [m, ...filters] = c.args;
    if (!m) return unknown('nnx.state()');
    if (filters.length > 1) return { t: 'tuple', items: filters.map((f) => stateOf(m, filterRoles([f]))) };
    return stateOf(m, filterRoles(filters));
  });
  reg(['flax.nnx.graphdef', 'flax.nnx.graphlib.graphdef'], (_s, c) => graphdef(c.args[0] ?? NONE));
  reg(['flax.nnx.merge', 'flax.nnx.graphlib.merge'], (_s, c, node) => {
    const g = c.args[0];
    return g?.t === 'extern' && g.name === '__nnx_graphdef__' && g.args?.[0] ? g.args[0] : unknown('nnx.merge of a graphdef that is not known', it.span(node));
  });
  reg(['flax.nnx.update', 'flax.nnx.graphlib.update', 'flax.nnx.display'], () => NONE);
  // nnx.get_partition_spec(state): each Variable's `sharding` metadata as a PartitionSpec
  // (flax/nnx/spmd.py get_partition_spec). Kept as a marker: jax.lax.with_sharding_constraint reads each
  // leaf's own partition names from it (phases/sharding.ts).
  reg(['flax.nnx.get_partition_spec', 'flax.nnx.spmd.get_partition_spec'], (_s, c) => ({ t: 'extern', name: '__partition_specs__', args: [c.args[0] ?? NONE] }));
  reg(['flax.nnx.clone', 'flax.nnx.graphlib.clone'], (_s, _c, node) => unknown('nnx.clone (a copy of every Variable) is not modelled', it.span(node)));
  // Module methods that only switch flags (module.py Module.train / eval / set_attributes).
  reg(['flax.nnx.Module.train', 'flax.nnx.Module.eval', 'flax.nnx.Module.set_attributes'], () => NONE);

  // Transforms: the JAX ones over the module's state (flax/nnx/transforms/compilation.py jit, iteration.py vmap,
  // transforms.py eval_shape).
  const alias = (from: string[], to: string) => {
    for (const n of from) {
      it.externs.set(n, (i, self, c, node, f) => {
        const h = it.externs.get(to);
        return h ? h(i, self, c, node, { ...f, name: to }) : unknown(`${n} is not modelled`, it.span(node));
      });
    }
  };
  alias(['flax.nnx.jit', 'flax.nnx.transforms.compilation.jit'], 'jax.jit');
  alias(['flax.nnx.vmap', 'flax.nnx.transforms.iteration.vmap'], 'jax.vmap');
  alias(['flax.nnx.eval_shape', 'flax.nnx.transforms.transforms.eval_shape'], 'jax.eval_shape');
  alias(['flax.nnx.grad'], 'jax.grad');
  alias(['flax.nnx.value_and_grad'], 'jax.value_and_grad');
  alias(['flax.nnx.remat'], 'jax.checkpoint');
  // A def decorated with @nnx.vmap creates what it builds once per mapped element (like jax.vmap).
  const applied = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  applied.add('flax.nnx.vmap');
  it.state.set('applyDecorators', applied);
}
