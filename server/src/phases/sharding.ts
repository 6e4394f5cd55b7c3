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
 * Unknown sizes or specs leave the placement unknown with a note; nothing is guessed.
 */
import type { Placement } from '../../../shared/src/facts';
import type { Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { type Value, NONE, unknown } from '../interp/values';
import { treeMap } from '../frameworks/jax/semantics';
import { markBackendStart } from '../frameworks/jax/runtime';

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
