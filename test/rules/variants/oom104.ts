/**
 * OOM104 spellings, from eager inits of a 1,000,000 × 1024 float32 table
 * (4.096 GB; the eager initializer keeps its sample alive, see
 * frameworks/modules.ts EAGER_INIT_COPIES): Flax and Haiku, import aliases,
 * keyword vs positional arguments, the init called on a name, an attribute
 * or a transformed lambda, inside a function or at module level. Quiet: the
 * same inits under jax.jit, and a table small enough not to matter.
 */
import type { Family, Variant } from './check';

interface O { fw: 'flax' | 'haiku'; imp: 0 | 1 | 2; kw: boolean; where: 'module' | 'function'; jit: boolean; rows: number }

function program(o: O): string {
  const lines: string[] = [];
  let make: string;
  let init: string;
  const sz = (a: string, b: string): string => (o.kw ? `${a}=${o.rows}, ${b}=1024` : `${o.rows}, 1024`);
  if (o.fw === 'flax') {
    lines.push(['import flax.linen as nn', 'from flax import linen as fl', 'import flax.linen'][o.imp]);
    const mod = ['nn', 'fl', 'flax.linen'][o.imp];
    make = `table = ${mod}.Embed(${sz('num_embeddings', 'features')})`;
    init = 'table.init';
  } else {
    lines.push(['import haiku as hk', 'import haiku', 'from haiku import Embed, transform'][o.imp]);
    const emb = ['hk.Embed', 'haiku.Embed', 'Embed'][o.imp];
    const tr = ['hk.transform', 'haiku.transform', 'transform'][o.imp];
    make = `table = ${tr}(lambda ids: ${emb}(${sz('vocab_size', 'embed_dim')})(ids))`;
    init = 'table.init';
  }
  lines.push('import jax', 'import jax.numpy as jnp', '', '');
  const call = `${o.jit ? `jax.jit(${init})` : init}(jax.random.PRNGKey(0), jnp.zeros((1,), jnp.int32))`;
  if (o.where === 'module') lines.push(make, `params = ${call}`);
  else lines.push('def build():', `    ${make}`, `    return ${call}`, '', '', 'params = build()');
  return lines.join('\n') + '\n';
}

/**
 * Equinox: a Module whose table is drawn with a jax.random sampler and scaled in its constructor, built
 * outside jit: the sample and the product are alive together (2 × 8.2 GB for a 1,000,000 × 2048 float32
 * table; test/truth/programs/eqx_custom_eager_init.py measures the same at 65536 × 256). Fixed by
 * `eqx.filter_jit(Table)(key)`.
 */
interface E { imp: 0 | 1 | 2; sampler: 'normal' | 'truncated_normal' | 'uniform'; where: 'module' | 'function'; jit: boolean; rows: number }

function eqxProgram(o: E): string {
  const [imp, Module] = [['import equinox as eqx', 'eqx.Module'], ['import equinox', 'equinox.Module'], ['from equinox import Module', 'Module']][o.imp];
  const draw = { normal: `jax.random.normal(key, (${o.rows}, 2048)) * 0.02`, truncated_normal: `jax.random.truncated_normal(key, -2.0, 2.0, (${o.rows}, 2048)) * 0.02`, uniform: `jax.random.uniform(key, (${o.rows}, 2048), minval=-1.0, maxval=1.0) * 0.05` }[o.sampler];
  const jit = o.imp === 2 ? 'filter_jit' : o.imp === 1 ? 'equinox.filter_jit' : 'eqx.filter_jit';
  const lines = [imp, ...(o.imp === 2 && o.jit ? ['from equinox import filter_jit'] : []), 'import jax', '', '',
    `class Table(${Module}):`, '    weight: jax.Array', '', '    def __init__(self, key):', `        self.weight = ${draw}`, '', ''];
  const call = `${o.jit ? `${jit}(Table)` : 'Table'}(jax.random.PRNGKey(0))`;
  if (o.where === 'module') lines.push(`model = ${call}`);
  else lines.push('def build():', `    return ${call}`, '', '', 'model = build()');
  return lines.join('\n') + '\n';
}

export function oom104(): Family {
  const variants: Variant[] = [];
  for (const fw of ['flax', 'haiku'] as const) {
    for (const imp of [0, 1, 2] as const) {
      for (const kw of [true, false]) {
        for (const where of ['module', 'function'] as const) {
          const o: O = { fw, imp, kw, where, jit: false, rows: 1_000_000 };
          variants.push({ name: `${fw} import#${imp} ${kw ? 'keywords' : 'positional'} ${where}`, text: program(o), fires: true });
        }
      }
      variants.push({ name: `quiet: ${fw} import#${imp} under jax.jit`, text: program({ fw, imp, kw: true, where: 'module', jit: true, rows: 1_000_000 }), fires: false });
      variants.push({ name: `quiet: ${fw} import#${imp} small table`, text: program({ fw, imp, kw: true, where: 'module', jit: false, rows: 10_000 }), fires: false });
    }
  }
  for (const imp of [0, 1, 2] as const) {
    for (const sampler of ['normal', 'truncated_normal', 'uniform'] as const) {
      const where = sampler === 'truncated_normal' ? 'function' : 'module';
      variants.push({ name: `equinox import#${imp} ${sampler} ${where}`, text: eqxProgram({ imp, sampler, where, jit: false, rows: 1_000_000 }), fires: true, fixed: 'filter_jit(Table)' });
    }
    variants.push({ name: `quiet: equinox import#${imp} under filter_jit`, text: eqxProgram({ imp, sampler: 'normal', where: 'module', jit: true, rows: 1_000_000 }), fires: false });
    variants.push({ name: `quiet: equinox import#${imp} small table`, text: eqxProgram({ imp, sampler: 'normal', where: 'module', jit: false, rows: 10_000 }), fires: false });
  }
  variants.push(...oom104Jax());
  return { code: 'OOM104', device: 'a100-40gb', unsafe: true, variants };
}

/**
 * Plain JAX (no framework Module): a params tree built eagerly by an init function from jax.random samplers and
 * jax.nn.initializers — a 1,000,000 × 2048 float32 embedding (8.192 GB) drawn and scaled (sample and scaled copy
 * alive together) after four 2048 × 2048 layers: eager peak 8,259,141,632 + 8,192,000,000 B, jitted 8,259,141,632 B. Spellings: jax and its initializers
 * imported five ways, the embedding drawn by `jax.random.normal(...) * 0.02`, `truncated_normal(...) * 0.02`,
 * an initializer (`normal(0.02)`, `variance_scaling(...)`) called on (key, shape); the sizes passed positionally
 * (static_argnums), by keyword (static_argnames), bound by functools.partial or module constants; layers in a
 * dict, a list of (w, b) tuples, built by an init_layer helper or vmapped over a stack of keys; at module level or
 * in main(). Fixed by
 * `jax.jit(init, static_argnums=...)`. Quiet: the init already jitted, a 10,000-row table.
 */
interface J {
  imp: 'jax' | 'jr' | 'from-random' | 'initializers' | 'jinit';
  draw: 'normal-mul' | 'truncated-mul' | 'init-normal' | 'init-vs';
  args: 'pos' | 'kw' | 'partial' | 'constants';
  layers: 'dict' | 'tuples' | 'helper' | 'vmap';
  where: 'module' | 'main';
  jit?: boolean;
  rows?: number;
}

function jaxProgram(o: J): string {
  const lines = ['import jax'];
  if (o.args === 'partial') lines.unshift('import functools');
  if (o.imp === 'jr') lines.push('import jax.random as jr');
  if (o.imp === 'from-random') lines.push('from jax import random');
  if (o.imp === 'initializers') lines.push('from jax.nn import initializers');
  if (o.imp === 'jinit') lines.push('import jax.nn.initializers as jinit');
  lines.push('import jax.numpy as jnp');
  const rnd = { jax: 'jax.random', jr: 'jr', 'from-random': 'random', initializers: 'jax.random', jinit: 'jax.random' }[o.imp];
  const ini = { jax: 'jax.nn.initializers', jr: 'jax.nn.initializers', 'from-random': 'jax.nn.initializers', initializers: 'initializers', jinit: 'jinit' }[o.imp];
  const rows = o.rows ?? 1_000_000;
  if (o.args === 'constants') lines.push('', `VOCAB = ${rows}`, 'DIM = 2048');
  const [V, D] = o.args === 'constants' ? ['VOCAB', 'DIM'] : ['vocab', 'dim'];
  const draw = {
    'normal-mul': `${rnd}.normal(k_embed, (${V}, ${D})) * 0.02`,
    'truncated-mul': `${rnd}.truncated_normal(k_embed, -2.0, 2.0, (${V}, ${D})) * 0.02`,
    'init-normal': `${ini}.normal(0.02)(k_embed, (${V}, ${D}))`,
    'init-vs': `${ini}.variance_scaling(1.0, "fan_in", "normal", out_axis=0)(k_embed, (${V}, ${D}))`,
  }[o.draw];
  const sig = o.args === 'constants' ? 'key' : 'key, vocab, dim';
  lines.push('', '');
  if (o.layers === 'helper' || o.layers === 'vmap') {
    lines.push('def init_layer(key, n):', `    w = ${ini}.lecun_normal()(key, (n, n))`, '    return {"w": w, "b": jnp.zeros((n,))}', '', '');
  }
  lines.push(`def init_params(${sig}):`, `    k_embed, *k_layers = ${rnd}.split(key, 5)`);
  if (o.layers === 'dict') lines.push(`    layers = [{"w": ${ini}.lecun_normal()(k, (${D}, ${D})), "b": jnp.zeros((${D},))} for k in k_layers]`);
  if (o.layers === 'tuples') {
    lines.push('    layers = []', '    for k in k_layers:', `        w = ${rnd}.normal(k, (${D}, ${D})) / jnp.sqrt(${D})`, `        layers.append((w, jnp.zeros((${D},))))`);
  }
  if (o.layers === 'helper') lines.push(`    layers = [init_layer(k, ${D}) for k in k_layers]`);
  if (o.layers === 'vmap') lines.push(`    layers = jax.vmap(lambda k: init_layer(k, ${D}))(${rnd}.split(k_layers[0], 4))`);
  // The table is drawn last: its sample is then alive next to every other parameter, and jitting saves all of it.
  lines.push(`    embed = ${draw}`, '    return {"embed": embed, "layers": layers}', '', '');
  const body: string[] = [];
  const key = 'jax.random.PRNGKey(0)';
  let fn = 'init_params';
  let args = `${key}, ${rows}, 2048`;
  let statics = '';
  if (o.args === 'kw') { args = `${key}, vocab=${rows}, dim=2048`; statics = ', static_argnames=("vocab", "dim")'; }
  if (o.args === 'pos') statics = ', static_argnums=(1, 2)';
  if (o.args === 'partial') { body.push(`init_fn = functools.partial(init_params, vocab=${rows}, dim=2048)`); fn = 'init_fn'; args = key; }
  if (o.args === 'constants') args = key;
  body.push(`params = ${o.jit ? `jax.jit(${fn}${statics})` : fn}(${args})`);
  body.push('print(jax.tree_util.tree_map(jnp.shape, params))');
  if (o.where === 'module') lines.push(...body);
  else lines.push('def main():', ...body.map((l) => `    ${l}`), '', '', 'if __name__ == "__main__":', '    main()');
  return lines.join('\n') + '\n';
}

export function oom104Jax(): Variant[] {
  const variants: Variant[] = [];
  const J0: J = { imp: 'jax', draw: 'normal-mul', args: 'pos', layers: 'dict', where: 'module' };
  const add = (name: string, c: Partial<J>, fixed: string): void => { variants.push({ name: `plain jax: ${name}`, text: jaxProgram({ ...J0, ...c }), fires: true, fixed }); };
  const POS = 'jax.jit(init_params, static_argnums=(1, 2))';
  add('Example', {}, POS);
  for (const imp of ['jr', 'from-random', 'initializers', 'jinit'] as const) add(`import: ${imp}`, { imp }, POS);
  for (const draw of ['truncated-mul', 'init-normal', 'init-vs'] as const) add(`draw: ${draw}`, { draw }, POS);
  add('keyword sizes', { args: 'kw' }, 'jax.jit(init_params, static_argnames=("vocab", "dim"))');
  add('functools.partial', { args: 'partial' }, 'jax.jit(init_fn)(');
  add('module constants', { args: 'constants' }, 'jax.jit(init_params)(');
  for (const layers of ['tuples', 'helper', 'vmap'] as const) add(`layers: ${layers}`, { layers }, POS);
  add('vmapped layers, keyword sizes, main', { layers: 'vmap', args: 'kw', where: 'main' }, 'jax.jit(init_params, static_argnames=("vocab", "dim"))');
  add('in main()', { where: 'main' }, POS);
  add('main, helper, keyword sizes', { where: 'main', layers: 'helper', args: 'kw' }, 'jax.jit(init_params, static_argnames=("vocab", "dim"))');
  add('jr, truncated, tuples', { imp: 'jr', draw: 'truncated-mul', layers: 'tuples' }, POS);
  add('initializers, variance_scaling, partial, main', { imp: 'initializers', draw: 'init-vs', args: 'partial', where: 'main' }, 'jax.jit(init_fn)(');
  add('jinit, normal(0.02), constants, helper', { imp: 'jinit', draw: 'init-normal', args: 'constants', layers: 'helper' }, 'jax.jit(init_params)(');
  add('from random, keyword sizes, tuples', { imp: 'from-random', args: 'kw', layers: 'tuples' }, 'jax.jit(init_params, static_argnames=("vocab", "dim"))');
  add('main, jr, helper, init-normal', { where: 'main', imp: 'jr', layers: 'helper', draw: 'init-normal' }, POS);
  add('constants, main, truncated', { args: 'constants', where: 'main', draw: 'truncated-mul' }, 'jax.jit(init_params)(');
  // The tree built in place (no init function): the expression becomes a jitted lambda called at once.
  const inPlace = (draw: 'init' | 'mul', where: 'module' | 'main', jit = false): string => {
    const embed = draw === 'init' ? 'jax.nn.initializers.normal(0.02)(k2, (1_000_000, 2048))' : 'jax.random.normal(k2, (1_000_000, 2048)) * 0.02';
    const rhs = ['{', '    "w": jax.nn.initializers.lecun_normal()(k1, (2048, 2048)),', `    "embed": ${embed},`, '}'];
    const body = ['k1, k2 = jax.random.split(jax.random.PRNGKey(0))', ...(jit ? [`params = jax.jit(lambda: ${rhs.join('\n')})()`] : [`params = ${rhs.join('\n')}`]), 'print(jax.tree_util.tree_map(jnp.shape, params))'];
    const lines = ['import jax', 'import jax.numpy as jnp', '', ''];
    if (where === 'module') lines.push(...body);
    else lines.push('def main():', ...body.map((l) => l.split('\n').map((x) => `    ${x}`).join('\n')), '', '', 'main()');
    return lines.join('\n') + '\n';
  };
  variants.push({ name: 'plain jax: tree built in place, initializers, module level', text: inPlace('init', 'module'), fires: true, fixed: 'params = jax.jit(lambda: {' });
  variants.push({ name: 'plain jax: tree built in place, draw * 0.02, module level', text: inPlace('mul', 'module'), fires: true, fixed: 'params = jax.jit(lambda: {' });
  variants.push({ name: 'plain jax: tree built in place, initializers, in main()', text: inPlace('init', 'main'), fires: true, fixed: 'params = jax.jit(lambda: {' });
  variants.push({ name: 'quiet: plain jax: tree built in place under jax.jit(lambda: ...)()', text: inPlace('init', 'module', true), fires: false });
  const quiet = (name: string, c: Partial<J>): void => { variants.push({ name: `quiet: plain jax: ${name}`, text: jaxProgram({ ...J0, ...c }), fires: false }); };
  quiet('jitted, static_argnums', { jit: true });
  quiet('jitted, keyword sizes, main', { jit: true, args: 'kw', where: 'main' });
  quiet('jitted partial, helper', { jit: true, args: 'partial', layers: 'helper' });
  quiet('jitted, vmapped layers', { jit: true, layers: 'vmap' });
  quiet('10,000-row table', { rows: 10_000 });
  quiet('10,000-row table, initializer, main', { rows: 10_000, draw: 'init-vs', where: 'main' });
  return variants;
}
