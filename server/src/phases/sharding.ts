/**
 * Explicit placement of JAX arrays across devices:
 * - `jax.sharding.NamedSharding(mesh, PartitionSpec(...))` keeps its spec, and
 *   `jax.device_put(x, sharding)` puts each leaf of x on the mesh: an axis
 *   partitioned over mesh axes ("data", ("data", "model")) is split over the
 *   product of their sizes, None axes are replicated (jax/_src/sharding_impls.py
 *   NamedSharding; JAX docs "Distributed arrays and automatic parallelization").
 *   A device_put makes a new array; the old one is freed when nothing refers to it.
 * - `flax.jax_utils.replicate(tree)` and `jax.device_put_replicated(x, devices)`
 *   stack one full copy per local device along a new leading axis, as pmap
 *   expects (flax/jax_utils.py replicate → jax.device_put_replicated): every
 *   device holds the whole tree.
 * - `jax.lax.with_sharding_constraint(tree, shardings)` on the parameters a jitted computation has just
 *   built (a model created inside `jax.jit` / `nnx.jit`, then constrained to its partition specs): each device
 *   keeps its shard of every leaf; what it holds while the parameters are drawn depends on the mesh's axis
 *   types. With Auto axes XLA's partitioner pushes the constraint back to the draw and each device makes only
 *   its shard (measured on 8 CPU devices: 8.4 MB per device for 67.1 MB of parameters; test/truth
 *   nnx_sharded_init_auto). With Explicit axes (`jax.make_mesh`'s default from jax 0.9.0: frameworks/jax/
 *   semantics.ts) an array made inside `jit` without an `out_sharding` of its own is replicated by type, and
 *   the reshard (flax NNX does it as each Variable with sharding metadata is made, flax/core/spmd.py
 *   `_apply_sharding`: `jax.sharding.reshard` on an Explicit mesh, flax 0.12.8) slices each device's shard out
 *   of a draw every device made whole: the temporaries XLA keeps of those whole draws
 *   (shared/src/threefry.ts `explicitReshardDrawTemporaries`: float32 normal / truncated_normal 2 × elements
 *   × 4 B, float32 uniform and fills nothing; measured 142.6 MB per device, test/truth nnx_sharded_init) are
 *   added, all at once. A draw whose sampler or dtype is not covered, or a mesh whose axis types are not
 *   known, leaves the shards as a lower bound, never the replicated size presented as the answer.
 * - flax NNX (≥ 0.12.0) reshards a Variable with sharding metadata as it is made under a mesh, without any
 *   constraint in the program (`nnxEagerSharding`, called as an NNX layer's parameters are made): the same
 *   shards and, on Explicit axes, the same whole draws, each counted once.
 * Unknown sizes or specs leave the placement unknown with a note; nothing is guessed.
 */
import type { Placement } from '../../../shared/src/facts';
import type { Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { type Value, type TensorV, NONE, unknown } from '../interp/values';
import type { MemoryEvent } from '../../../shared/src/facts';
import { visitTensors } from '../interp/memory';
import { treeMap } from '../frameworks/jax/semantics';
import { markBackendStart } from '../frameworks/jax/runtime';
import { explicitReshardDrawTemporaries } from '../../../shared/src/threefry';

const EAGER_SHARDING_UNKNOWN = 'per-device placement (flax eager sharding)';

/**
 * Adds what XLA keeps of the whole draw of `t` (made inside the running jitted call, on an Explicit mesh,
 * resharded to its split) to the one transient of that call that holds every such draw: they are alive at
 * once (shared/src/threefry.ts explicitReshardDrawTemporaries). Each tensor is counted once. Returns why
 * the draw's temporaries are not known, if they are not.
 */
function addWholeDraw(it: Interpreter, t: TensorV, node: SyntaxNode): string | undefined {
  const key = it.memory.outerJitKey();
  if (!key) return undefined;
  let acc = WHOLE_DRAWS.get(key);
  if (acc?.counted.has(t.id)) return undefined;
  const elements = t.shape.reduce<number>((a, d) => a * (typeof d === 'number' ? d : NaN), 1);
  const cost = Number.isFinite(elements)
    ? explicitReshardDrawTemporaries({ sampler: t.random ? t.sampler : 'none', dtype: t.dtype, elements })
    : { unknown: 'its shape is not known' };
  if ('unknown' in cost) return `${t.label} (${cost.unknown})`;
  if (!acc) {
    acc = { counted: new Set(), formulas: [], citations: new Set() };
    WHOLE_DRAWS.set(key, acc);
  }
  acc.counted.add(t.id);
  if (cost.bytesPerDevice <= 0) return undefined;
  acc.formulas.push(`${t.label}: ${cost.formula}`);
  acc.citations.add(cost.citation);
  if (!acc.ev) {
    acc.ev = {
      op: 'transient', label: 'whole random draws on every device before the reshard (Explicit mesh axes)',
      bytesPerDevice: 0, role: 'temporary', span: it.span(node), formula: '', citation: '',
    };
    it.memory.transient(acc.ev);
  }
  acc.ev.bytesPerDevice += cost.bytesPerDevice;
  acc.ev.formula = acc.formulas.join('; ');
  acc.ev.citation = [...acc.citations].join('; ');
  return undefined;
}

type TransientEvent = Extract<MemoryEvent, { op: 'transient' }>;
const WHOLE_DRAWS = new WeakMap<object, { counted: Set<number>; formulas: string[]; citations: Set<string>; ev?: TransientEvent }>();

/**
 * flax NNX shards a Variable with sharding metadata as it is made, under a mesh context (flax/nnx/variablelib.py
 * Variable.__init__ → flax/core/spmd.py shard_value / `_apply_sharding`: `jax.sharding.reshard` on an Explicit
 * mesh, `with_sharding_constraint` on an Auto one), when `flax_always_shard_variable` is on: its default from flax
 * 0.12.0 (flax/configurations.py; absent through v0.11.2). Inside a jitted call each device then keeps its shard;
 * on Explicit axes it first draws the whole parameter (addWholeDraw). With flax not pinned, the shards are the least
 * a device holds, and the phase is a lower bound until a constraint settles the placement.
 */
export function nnxEagerSharding(it: Interpreter, t: TensorV, node: SyntaxNode): void {
  if (!t.partition || !it.memory.jitDepth) return;
  const mesh = it.state.get('activeMesh') as Value | undefined;
  if (mesh?.t !== 'mesh') return;
  const v = (it.state.get('versions') as Record<string, string> | undefined)?.flax;
  const m = v ? /^(\d+)\.(\d+)/.exec(v) : null;
  const on = m ? Number(m[1]) > 0 || Number(m[2]) >= 12 : undefined;
  if (on === false) return;
  const over = specShards(mesh.axes, { t: 'tuple', items: t.partition.map((n) => (n === null ? NONE : { t: 'str', v: n })) });
  if (typeof over !== 'number' || over <= 1) return;
  t.placement = { kind: 'sharded', over };
  const rec = it.memory.current;
  const pending = (what: string, reason: string) => {
    if (rec && !rec.unknowns.some((u) => u.what === what)) rec.unknowns.push({ what, reason, span: it.span(node) });
  };
  if (on === undefined) {
    pending(EAGER_SHARDING_UNKNOWN, 'flax NNX shards a Variable with sharding metadata as it is made under a mesh from flax 0.12.0 (flax_always_shard_variable) and keeps it whole before; the flax version is not pinned, so only the shards are counted');
    return;
  }
  if (mesh.axisTypes === 'auto') return;
  const why = mesh.axisTypes === 'explicit' ? addWholeDraw(it, t, node) : 'the mesh\'s axis types are not known (jax.make_mesh without axis_types: Auto before jax 0.9.0, Explicit from it; pin jax to decide)';
  if (why) pending(EAGER_SHARDING_UNKNOWN, `flax NNX reshards each Variable with sharding metadata as it is made: with Explicit mesh axes every device draws it whole first; ${why}, so only the shards are counted`);
}

export function installSharding(it: Interpreter): void {
  for (const name of ['jax.sharding.NamedSharding']) {
    it.externs.set(name, (_i, _self, c) => {
      const mesh = c.args[0] ?? c.kw.get('mesh');
      const spec = c.args[1] ?? c.kw.get('spec');
      return { t: 'sharding', mesh: mesh?.t === 'mesh' ? mesh.axes : undefined, spec };
    });
  }

  it.externs.set('jax.device_put', (_i, _self, c, node) => {
    markBackendStart(it, node, 'jax.device_put');
    const x = c.args[0];
    const where = c.args[1] ?? c.kw.get('device');
    if (!x) return NONE;
    if (where?.t !== 'sharding' || !where.spec) return x;
    const over = specShards(where.mesh, where.spec);
    if (typeof over === 'string') {
      it.note(`jax.device_put: ${over}`, node);
      return x;
    }
    return copyTo(it, x, node, { kind: over > 1 ? 'sharded' : 'replicated', over } as Placement, 'device_put');
  });

  // jax.set_mesh(mesh) / jax.sharding.use_mesh(mesh): the mesh that PartitionSpecs without one refer to
  // (jax/_src/mesh.py, jax 0.10.2), as a context manager or called once.
  for (const name of ['jax.set_mesh', 'jax.sharding.set_mesh', 'jax.sharding.use_mesh']) {
    it.externs.set(name, (_i, _self, c) => {
      const mesh = c.args[0] ?? c.kw.get('mesh');
      if (mesh?.t === 'mesh') it.state.set('activeMesh', mesh);
      return mesh ?? NONE;
    });
  }

  it.externs.set('jax.lax.with_sharding_constraint', (_i, _self, c, node) => {
    const x = c.args[0] ?? c.kw.get('x');
    if (!x) return NONE;
    if (!it.memory.jitDepth) return x;
    const ids = new Set<number>();
    visitTensors(x, (t) => { ids.add(t.id); });
    // Only a model this same jitted call built: a constraint in a later step leaves the init as it was.
    const built = it.memory.builtInJit().filter((r) => {
      if (r.phase !== 'init') return false;
      let holds = (r.params ?? []).some((p) => ids.has(p.id)) || [...r.live.keys()].some((id) => ids.has(id));
      if (!holds && r.result) visitTensors(r.result, (t) => { if (ids.has(t.id)) holds = true; });
      return holds;
    });
    if (!built.length) return x;
    // The constraint settles where each leaf lives, whatever flax did as the Variables were made.
    for (const r of built) {
      const i = r.unknowns.findIndex((u) => u.what === EAGER_SHARDING_UNKNOWN);
      if (i >= 0) r.unknowns.splice(i, 1);
    }
    // What each device keeps once the call returns: its shard of every leaf. A leaf whose split is not known
    // is counted as split over every device (the least a device can hold), so the known part stays a lower bound.
    const specs = c.args[1] ?? c.kw.get('shardings');
    const mesh = it.state.get('activeMesh') as Value | undefined;
    const devices = it.state.get('deviceCount') as number | undefined;
    // nnx.get_partition_spec gives each Variable its sharding metadata, and PartitionSpec() (replicated) to one
    // without (flax/nnx/spmd.py get_partition_spec). A leaf whose split is not resolved is counted as split over
    // every device, the least a device can hold, and the peak is then a lower bound.
    const fromMetadata = specs?.t === 'extern' && specs.name === '__partition_specs__' && mesh?.t === 'mesh';
    let unresolved = false;
    visitTensors(x, (t) => {
      let over: number | string = 'the sharding is not known';
      if (fromMetadata) over = t.partition ? specShards(mesh.axes, { t: 'tuple', items: t.partition.map((n) => (n === null ? NONE : { t: 'str', v: n })) }) : 1;
      if (typeof over !== 'number') unresolved = true;
      const n = typeof over === 'number' ? over : devices ?? 1;
      if (n > 1) t.placement = { kind: 'sharded', over: n };
    });
    // With Auto axes the partitioner shards the draw itself: each device makes only its shard (measured on 8
    // CPU devices, test/truth).
    if (fromMetadata && mesh.axisTypes === 'auto' && !unresolved) return x;
    // With Explicit axes every split leaf was drawn whole on every device and resharded: what XLA keeps of each
    // whole draw (shared/src/threefry.ts explicitReshardDrawTemporaries), all draws' at once.
    let why = 'the mesh\'s axis types are not known (jax.make_mesh without axis_types: Auto before jax 0.9.0, Explicit from it; pin jax to decide)';
    if (fromMetadata && mesh.axisTypes === 'explicit' && !unresolved) {
      const unknownLeaves: string[] = [];
      visitTensors(x, (t) => {
        // Made by this jitted call (not yet materialised: memory.ts `virtual`) and split by the constraint.
        if (t.placement.kind !== 'sharded' || !t.virtual) return;
        const u = addWholeDraw(it, t, node);
        if (u) unknownLeaves.push(u);
      });
      if (!unknownLeaves.length) return x;
      why = `the mesh's axes are Explicit, so every device draws the split parameters whole first; what XLA keeps of the draw is not known for ${unknownLeaves.join(', ')}`;
    } else if (fromMetadata && mesh.axisTypes === 'explicit') {
      why = 'the mesh\'s axes are Explicit, so every device draws the split parameters whole first, and some leaves\' sharding is not resolved';
    } else if (!fromMetadata || mesh.axisTypes === 'auto') {
      why = 'the sharding of some leaves is not resolved';
    }
    for (const r of built) {
      if (r.unknowns.some((u) => u.what === 'per-device placement')) continue;
      r.unknowns.push({
        what: 'per-device placement',
        reason: `jax.lax.with_sharding_constraint reshards the parameters this jitted call built: with Explicit mesh axes every device draws them whole first, with Auto axes only its shard; ${why}, so only the shards are counted`,
        span: it.span(node),
      });
    }
    return x;
  });

  for (const name of ['flax.jax_utils.replicate', 'jax.device_put_replicated']) {
    it.externs.set(name, (_i, _self, c, node) => {
      markBackendStart(it, node, name);
      const x = c.args[0];
      if (!x) return NONE;
      const n = it.state.get('deviceCount') as number | undefined;
      if (!n) return unknown('number of local devices is not known', it.span(node));
      return treeMap(it, x, (leaf) => (leaf.t === 'tensor'
        ? it.memory.alloc({
          // Held as the per-device copy, replicated: the [n, ...] stack puts one whole copy on each device.
          shape: leaf.shape, dtype: leaf.dtype, role: leaf.role === 'input' ? 'activation' : leaf.role, name: leaf.label.split('.').pop(),
          span: it.span(node), noBatch: true, placement: { kind: 'replicated' }, lib: 'jax',
          note: `stacked [${n}, …] for pmap: one full copy per device (${name})`, citation: 'flax/jax_utils.py replicate; jax.device_put_replicated docs',
        })
        : leaf), node);
    });
  }
}

/** How many devices one leaf is split over under a PartitionSpec, or why that is not known. */
export function specShards(mesh: Map<string, number | undefined> | undefined, spec: Value): number | string {
  if (!mesh) return 'the mesh of the sharding is not known';
  const entries = spec.t === 'tuple' || spec.t === 'list' ? spec.items : spec.t === 'none' ? [] : undefined;
  if (!entries) return 'the PartitionSpec is not known';
  let over = 1;
  for (const e of entries) {
    const names = e.t === 'none' ? [] : e.t === 'str' ? [e] : e.t === 'tuple' || e.t === 'list' ? e.items : undefined;
    if (!names) return 'a PartitionSpec entry is not known';
    for (const nm of names) {
      if (nm.t !== 'str') return 'a PartitionSpec entry is not known';
      const size = mesh.get(nm.v);
      if (size === undefined) return `the size of mesh axis "${nm.v}" is not known`;
      over *= size;
    }
  }
  return over;
}

function copyTo(it: Interpreter, x: Value, node: SyntaxNode, placement: Placement, what: string): Value {
  return treeMap(it, x, (leaf) => (leaf.t === 'tensor'
    ? it.memory.alloc({
      shape: leaf.shape, dtype: leaf.dtype, role: leaf.role === 'input' ? 'activation' : leaf.role, name: leaf.label.split('.').pop(),
      span: it.span(node), noBatch: true, placement, lib: 'jax',
      note: placement.kind === 'sharded' ? `split over ${placement.over} devices by ${what}` : `replicated on every device by ${what}`,
      citation: 'jax.sharding.NamedSharding / jax.device_put docs',
    })
    : leaf), node);
}
