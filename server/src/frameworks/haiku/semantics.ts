/**
 * Haiku containers and helpers that are plain Python over hk.Linear & co.,
 * read from dm-haiku 0.0.12:
 * - `hk.Sequential(layers)` applies its callables in order
 *   (haiku/_src/basic.py Sequential.__call__: the first layer gets the extra
 *   arguments, each next one the previous output);
 * - `hk.nets.MLP(output_sizes, w_init, b_init, with_bias, activation,
 *   activate_final)` is hk.Linear(output_size, name=f"linear_{i}") per size,
 *   with `activation` (default jax.nn.relu) between them and after the last
 *   one only if activate_final (haiku/_src/nets/mlp.py);
 * - `hk.Reshape(output_shape, preserve_dims=1)` reshapes to
 *   x.shape[:preserve_dims] + output_shape, `hk.Flatten(preserve_dims=1)` to
 *   x.shape[:preserve_dims] + (-1,), both leaving inputs of rank <=
 *   preserve_dims as they are (haiku/_src/reshape.py Reshape / Flatten);
 * - `hk.dropout(rng, rate, x)` has the shape of x (haiku/_src/basic.py dropout);
 * - `hk.layer_stack(n)(f)` runs f once per layer with every parameter
 *   stacked n times along a new leading axis, activations keeping one
 *   layer's shape (haiku/_src/layer_stack.py).
 */
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type ClassV, type InstV, type Value, NONE, int, str, unknown } from '../../interp/values';
import { STACK_STATE } from '../modules';

const SEQUENTIAL: ClassV = { t: 'class', name: 'Sequential', bases: [], ns: new Map(), kind: 'haiku', dataclass: false, fields: [] };
const MLP: ClassV = { ...SEQUENTIAL, name: 'MLP' };

export function installHaiku(it: Interpreter): void {
  const container = (cls: ClassV, items: Value[]): InstV => {
    const inst = it.newInst(cls);
    inst.items = items;
    inst.attrs.set('layers', { t: 'tuple', items });
    return inst;
  };
  const span = (node: SyntaxNode) => it.span(node);

  for (const name of ['haiku.Sequential', 'haiku._src.basic.Sequential']) {
    it.externs.set(name, (_i, _self, c, node) => {
      const layers = c.args[0] ?? c.kw.get('layers');
      const items = layers ? it.iterate(layers, node) : undefined;
      if (!items) return unknown('hk.Sequential of layers that are not known', span(node));
      const lost = items.find((x) => x.t === 'unknown');
      if (lost?.t === 'unknown') it.note(`hk.Sequential holds a layer that is not known (${lost.reason})`, node);
      return container(SEQUENTIAL, [...items]);
    });
  }

  for (const name of ['haiku.nets.MLP', 'haiku._src.nets.mlp.MLP']) {
    it.externs.set(name, (_i, _self, c, node) => {
      // MLP(output_sizes, w_init=None, b_init=None, with_bias=True, activation=jax.nn.relu, activate_final=False, name=None)
      const arg = (i: number, k: string): Value | undefined => c.kw.get(k) ?? c.args[i];
      const sizesV = arg(0, 'output_sizes');
      const sizes = sizesV ? it.iterate(sizesV, node) : undefined;
      if (!sizes) return unknown('hk.nets.MLP output_sizes are not known', span(node));
      const activation: Value = arg(4, 'activation') ?? { t: 'extern', name: 'jax.nn.relu' };
      const final = arg(5, 'activate_final');
      const activateFinal = final?.t === 'bool' ? final.v : false;
      const items: Value[] = [];
      sizes.forEach((size, i) => {
        const kw = new Map<string, Value>([['name', str(`linear_${i}`)]]);
        for (const [k, at] of [['w_init', 1], ['b_init', 2], ['with_bias', 3]] as const) {
          const v = arg(at, k);
          if (v) kw.set(k, v);
        }
        items.push(it.call({ t: 'extern', name: 'haiku.Linear' }, { args: [size], kw }, node));
        if (i < sizes.length - 1 || activateFinal) items.push(activation);
      });
      return container(MLP, items);
    });
  }

  // hk.Reshape(output_shape, preserve_dims=1) and hk.Flatten(preserve_dims=1) = Reshape((-1,), preserve_dims)
  // (haiku/_src/reshape.py): an input of rank <= preserve_dims is returned as is; otherwise
  // jnp.reshape(x, x.shape[:preserve_dims] + output_shape), -1 standing for the rest (a negative preserve_dims
  // keeps all but that many trailing axes); preserve_dims == 0 raises.
  const reshaper = (c: { args: Value[]; kw: Map<string, Value> }, flatten: boolean): Value => {
    const out: Value = flatten ? { t: 'tuple', items: [int(-1)] } : (c.kw.get('output_shape') ?? c.args[0] ?? NONE);
    const keep = c.kw.get('preserve_dims') ?? (flatten ? c.args[0] : c.args[1]) ?? int(1);
    return { t: 'extern', name: '__haiku_reshape__', args: [keep, out] };
  };
  for (const name of ['haiku.Flatten', 'haiku._src.reshape.Flatten']) it.externs.set(name, (_i, _self, c) => reshaper(c, true));
  for (const name of ['haiku.Reshape', 'haiku._src.reshape.Reshape']) it.externs.set(name, (_i, _self, c) => reshaper(c, false));
  it.externs.set('__haiku_reshape__', (_i, _self, c, node, fn) => {
    const x = c.args[0];
    const [keep, outShape] = fn.args!;
    if (x?.t !== 'tensor') return unknown('hk.Reshape / hk.Flatten called on an input that is not known', span(node));
    if (keep?.t !== 'int') return unknown('hk.Reshape / hk.Flatten preserve_dims is not known', span(node));
    if (keep.v === 0) return unknown('hk.Reshape / hk.Flatten with preserve_dims=0 (haiku raises)', span(node));
    const dims = outShape && (outShape.t === 'tuple' || outShape.t === 'list') ? outShape.items : undefined;
    if (!dims || dims.some((d) => d.t !== 'int')) return unknown('hk.Reshape output_shape is not known', span(node));
    if (x.shape.length <= keep.v) return x;
    const lead = x.shape.slice(0, keep.v);
    if (lead.some((d) => typeof d !== 'number')) return unknown('hk.Reshape / hk.Flatten of an input whose leading axes are not known', span(node));
    return it.arrayOp('jax.numpy.reshape', [x, { t: 'tuple', items: [...(lead as number[]).map(int), ...dims] }], new Map(), node);
  });

  for (const name of ['haiku.dropout', 'haiku._src.basic.dropout']) {
    // dropout(rng, rate, x, broadcast_dims=()): x * keep_mask / keep_rate, the shape of x. The mask is a
    // temporary of the same shape; XLA fuses it under jit, so the value itself stands for the output.
    it.externs.set(name, (_i, _self, c, node) => c.args[2] ?? c.kw.get('x') ?? unknown('hk.dropout without an input', span(node)));
  }

  // `@hk.layer_stack(n)` on a def is applied too (interp.ts execDecorated, state 'applyDecorators').
  const applied = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  applied.add('__haiku_layer_stack__');
  it.state.set('applyDecorators', applied);
  // hk.experimental.layer_stack is the same function (haiku/experimental/__init__.py imports it from _src.layer_stack).
  for (const name of ['haiku.layer_stack', 'haiku.experimental.layer_stack', 'haiku._src.layer_stack.layer_stack']) {
    it.externs.set(name, (_i, _self, c, node) => {
      const n = c.args[0] ?? c.kw.get('num_layers');
      const perLayer = c.kw.get('with_per_layer_inputs');
      if (n?.t !== 'int') return unknown('hk.layer_stack num_layers is not known', span(node));
      if (perLayer?.t === 'bool' && perLayer.v) return unknown('hk.layer_stack with_per_layer_inputs is not modelled', span(node));
      return { t: 'extern', name: '__haiku_layer_stack__', args: [n] };
    });
  }
  it.externs.set('__haiku_layer_stack__', (_i, _self, c, node, fn) => {
    const f = c.args[0];
    if (!f) return unknown('hk.layer_stack(...) applied to nothing', span(node));
    return { t: 'extern', name: '__haiku_stacked__', args: [fn.args![0], f] };
  });
  it.externs.set('__haiku_stacked__', (_i, _self, c, node, fn) => {
    const [n, f] = fn.args!;
    const prev = it.state.get(STACK_STATE) as number[] | undefined;
    it.state.set(STACK_STATE, [...(prev ?? []), (n as { v: number }).v]);
    try {
      return it.call(f, c, node);
    } finally {
      it.state.set(STACK_STATE, prev);
    }
  });
}
