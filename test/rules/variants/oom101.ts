/**
 * OOM101 spellings, from the rule's Example (a float32 stack of 64 Linear
 * layers built with a vmap, then cast tree-wide to a 16-bit dtype) and its
 * Use instead (the cast inside the jitted, vmapped constructor; or each layer
 * built in the small dtype). One axis changes at a time from the Example,
 * then a few changes together.
 */
import type { Family, Variant } from './check';

interface O {
  imp: 'eqx' | 'equinox' | 'from';
  vmap: 'filter_vmap' | 'jax.vmap' | 'decorator' | 'in_axes';
  make: 'lambda' | 'def' | 'inline' | 'partial';
  cast: 'jtu' | 'jax.tree.map' | 'jax.tree_util.tree_map' | 'helper' | 'partial' | 'filter' | 'to_dtype' | 'def-leaf';
  flow: 'attr' | 'local' | 'local-then-attr' | 'nested';
  where: 'init' | 'builder' | 'module';
  dtype: 'jnp.float16' | 'jnp.bfloat16' | 'string';
  kw: boolean;
}

const BASE: O = { imp: 'eqx', vmap: 'filter_vmap', make: 'lambda', cast: 'jtu', flow: 'attr', where: 'init', dtype: 'jnp.float16', kw: false };

function program(o: O): string {
  const eq = o.imp === 'equinox' ? 'equinox' : 'eqx';
  const imports = ['import functools', 'import jax', 'import jax.numpy as jnp', 'import jax.tree_util as jtu'];
  let Linear: string; let Module: string; let filterVmap: string; let isArray: string;
  if (o.imp === 'from') {
    imports.push('from equinox import Module, filter_vmap, is_array, nn');
    Linear = 'nn.Linear'; Module = 'Module'; filterVmap = 'filter_vmap'; isArray = 'is_array';
  } else {
    imports.push(o.imp === 'eqx' ? 'import equinox as eqx' : 'import equinox');
    Linear = `${eq}.nn.Linear`; Module = `${eq}.Module`; filterVmap = `${eq}.filter_vmap`; isArray = `${eq}.is_array`;
  }
  const dt = o.dtype === 'string' ? '"bfloat16"' : o.dtype;
  const layer = (k: string): string => (o.kw ? `${Linear}(in_features=8192, out_features=8192, key=${k})` : `${Linear}(8192, 8192, key=${k})`);
  const vm = o.vmap === 'jax.vmap' ? 'jax.vmap' : filterVmap;
  const helpers: string[] = [];
  // The function that builds one layer and the expression that builds the stack.
  let makeExpr: string;
  if (o.make === 'lambda' || o.make === 'inline') makeExpr = `lambda k: ${layer('k')}`;
  else if (o.make === 'def') { helpers.push(`def make_layer(k):\n    return ${layer('k')}`); makeExpr = 'make_layer'; }
  else { helpers.push(`def make_layer(dim, k):\n    return ${o.kw ? `${Linear}(in_features=dim, out_features=dim, key=k)` : `${Linear}(dim, dim, key=k)`}`); makeExpr = 'functools.partial(make_layer, 8192)'; }
  let stack: (keys: string) => string;
  let pre = '';
  if (o.vmap === 'decorator') {
    helpers.push(`@${vm}\ndef make_stack(k):\n    return ${layer('k')}`);
    stack = (keys) => `make_stack(${keys})`;
  } else if (o.make === 'lambda') {
    pre = `make = ${makeExpr}\n`;
    stack = (keys) => (o.vmap === 'in_axes' ? `${vm}(make, in_axes=0)(${keys})` : `${vm}(make)(${keys})`);
  } else {
    stack = (keys) => (o.vmap === 'in_axes' ? `${vm}(${makeExpr}, in_axes=0)(${keys})` : `${vm}(${makeExpr})(${keys})`);
  }
  // The tree-wide cast, as an expression of the tree.
  let cast: (tree: string) => string;
  switch (o.cast) {
    case 'jtu': cast = (t) => `jtu.tree_map(lambda x: x.astype(${dt}), ${t})`; break;
    case 'jax.tree.map': cast = (t) => `jax.tree.map(lambda x: x.astype(${dt}), ${t})`; break;
    case 'jax.tree_util.tree_map': cast = (t) => `jax.tree_util.tree_map(lambda x: x.astype(${dt}), ${t})`; break;
    case 'helper': helpers.push(`def to_half(tree):\n    return jtu.tree_map(lambda x: x.astype(${dt}), tree)`); cast = (t) => `to_half(${t})`; break;
    case 'partial': helpers.push('def cast_leaf(x, dtype):\n    return x.astype(dtype)'); cast = (t) => `jax.tree.map(functools.partial(cast_leaf, dtype=${dt}), ${t})`; break;
    case 'filter': cast = (t) => `jtu.tree_map(lambda x: x.astype(${dt}) if ${isArray}(x) else x, ${t})`; break;
    case 'to_dtype': helpers.push('def to_dtype(tree, dtype):\n    return jax.tree.map(lambda x: x.astype(dtype), tree)'); cast = (t) => `to_dtype(${t}, ${dt})`; break;
    case 'def-leaf': helpers.push(`def half(x):\n    return x.astype(${dt})`); cast = (t) => `jtu.tree_map(half, ${t})`; break;
  }
  // The statements that build and cast, with `out` the name (or attribute) that ends up holding the stack.
  const body = (out: string, keys: string): string => {
    switch (o.flow) {
      case 'attr': return `${out} = ${stack(keys)}\n${out} = ${cast(out)}`;
      case 'local': return `layers = ${stack(keys)}\nlayers = ${cast('layers')}\n${out} = layers`;
      case 'local-then-attr': return `layers = ${stack(keys)}\n${out} = ${cast('layers')}`;
      case 'nested': return `${out} = ${cast(stack(keys))}`;
    }
  };
  const indent = (s: string, n: number): string => s.split('\n').map((l) => (l ? ' '.repeat(n) + l : l)).join('\n');
  let main: string;
  if (o.where === 'init') {
    main = `class Stack(${Module}):\n    layers: ${Linear}\n\n    def __init__(self, key):\n${indent(pre + body('self.layers', 'jax.random.split(key, 64)'), 8)}\n\n\nmodel = Stack(jax.random.PRNGKey(0))\n`;
  } else if (o.where === 'builder') {
    main = `class Stack(${Module}):\n    layers: ${Linear}\n\n    def __init__(self, layers):\n        self.layers = layers\n\n\ndef build(key):\n${indent(pre + body('stack', 'jax.random.split(key, 64)'), 4)}\n    return stack\n\n\nmodel = Stack(build(jax.random.PRNGKey(0)))\n`;
  } else {
    main = `key = jax.random.PRNGKey(0)\n${pre}${body('model', 'jax.random.split(key, 64)')}\n`;
  }
  return `${imports.join('\n')}\n\n\n${helpers.length ? helpers.join('\n\n\n') + '\n\n\n' : ''}${main}`;
}

function quiet(o: O, how: 'dtype-arg' | 'jit-whole' | 'float32'): string {
  const text = program(o);
  const eq = o.imp === 'equinox' ? 'equinox' : o.imp === 'from' ? '' : 'eqx';
  const jit = eq ? `${eq}.filter_jit` : 'jax.jit';
  switch (how) {
    case 'dtype-arg':
      return text.replace(/key=k\)/g, o.dtype === 'string' ? 'dtype=jnp.bfloat16, key=k)' : `dtype=${o.dtype}, key=k)`).replace(/astype\([^)]*\)/g, 'astype(x.dtype)');
    case 'jit-whole':
      return text.replace(/= (\S*vmap)\(/g, `= ${jit}(lambda ks: $1(`).replace(/\)\(jax\.random\.split\(key, 64\)\)/g, ')(ks))(jax.random.split(key, 64))');
    case 'float32':
      return text.replace(/jnp\.(float16|bfloat16)|"bfloat16"/g, 'jnp.float32');
  }
}

export function oom101(): Family {
  const variants: Variant[] = [];
  // A stack built outside any Module constructor (a builder function or module-level code) does not start a
  // model record, so the vmap and the cast that follows are not observed (frameworks/modules.ts startModel).
  const gap = (o: Partial<O>): string | undefined => (o.where && o.where !== 'init' ? 'a stack built outside a Module constructor is not a model record yet' : undefined);
  const add = (name: string, o: Partial<O>): void => { variants.push({ name, text: program({ ...BASE, ...o }), fires: true }); };
  add('example', {});
  add('import equinox', { imp: 'equinox' });
  add('from equinox import nn, filter_vmap', { imp: 'from' });
  add('jax.vmap', { vmap: 'jax.vmap' });
  add('filter_vmap as a decorator', { vmap: 'decorator' });
  add('vmap with in_axes=0', { vmap: 'in_axes' });
  add('def helper per layer', { make: 'def' });
  add('lambda inline in the vmap', { make: 'inline' });
  add('functools.partial per layer', { make: 'partial' });
  add('jax.tree.map', { cast: 'jax.tree.map' });
  add('jax.tree_util.tree_map', { cast: 'jax.tree_util.tree_map' });
  add('to_half def helper', { cast: 'helper' });
  add('functools.partial leaf cast', { cast: 'partial' });
  add('is_array filter in the cast', { cast: 'filter' });
  add('to_dtype(tree, dtype) helper', { cast: 'to_dtype' });
  add('def leaf cast', { cast: 'def-leaf' });
  add('cast into a local, then the attribute', { flow: 'local' });
  add('stack in a local, cast straight into the attribute', { flow: 'local-then-attr' });
  add('cast of the vmap call in one expression', { flow: 'nested' });
  add('builder function', { where: 'builder' });
  add('module level', { where: 'module' });
  add('bfloat16', { dtype: 'jnp.bfloat16' });
  add('dtype as a string', { dtype: 'string' });
  add('keyword arguments', { kw: true });
  add('jax.vmap + def + jax.tree.map + local', { vmap: 'jax.vmap', make: 'def', cast: 'jax.tree.map', flow: 'local' });
  add('from-import + partial + to_dtype + builder', { imp: 'from', make: 'partial', cast: 'to_dtype', where: 'builder' });
  add('import equinox + decorator + nested + bf16', { imp: 'equinox', vmap: 'decorator', flow: 'nested', dtype: 'jnp.bfloat16' });
  add('module level + jax.vmap + helper + keywords', { where: 'module', vmap: 'jax.vmap', cast: 'helper', kw: true });
  add('in_axes + filter + local-then-attr', { vmap: 'in_axes', cast: 'filter', flow: 'local-then-attr' });
  for (const [name, o] of [['example', {}], ['from-import', { imp: 'from' }], ['jax.vmap + builder', { vmap: 'jax.vmap', where: 'builder' }]] as const) {
    variants.push({ name: `quiet: each layer built with dtype= (${name})`, text: quiet({ ...BASE, ...o }, 'dtype-arg'), fires: false });
    variants.push({ name: `quiet: vmap and cast inside filter_jit (${name})`, text: quiet({ ...BASE, ...o }, 'jit-whole'), fires: false });
    variants.push({ name: `quiet: cast to float32 (${name})`, text: quiet({ ...BASE, ...o }, 'float32'), fires: false });
  }
  return { code: 'OOM101', device: 'a100-40gb', unsafe: true, variants };
}
