/**
 * OOM103 spellings, from the rule's Example (a 32768 × 262144 float32 kernel
 * drawn by a jitted, sharded Flax init over 8 devices on jax 0.4.30, where
 * Threefry is not partitionable) and its Use instead
 * (`jax.config.update("jax_threefry_partitionable", True)` before the draw):
 * flax.linen imported three ways, jax as `jax` or `jx` or reached only through
 * `import jax.numpy as jnp` / `from jax.sharding import Mesh` first, the
 * initializer normal / lecun_normal / variance_scaling, the partitioned
 * initializer inline or in a local, the mesh from `jax.sharding.Mesh` or
 * `from jax.sharding import Mesh`, the init at module level or in a builder
 * function. Quiet: the flag set (through `jax.config` or `from jax import
 * config`), and jax 0.5.0 (partitionable by default).
 */
import type { Family, Variant } from './check';

interface O { flax: 0 | 1 | 2; jax: 'jax' | 'jx' | 'jnp-first' | 'names'; init: 'normal' | 'lecun' | 'vs'; local: boolean; mesh: 'from' | 'attr'; where: 'module' | 'function'; flag?: 'config' | 'from-config' }

function program(o: O): string {
  const nn = ['nn', 'fl', 'flax.linen'][o.flax];
  const j = o.jax === 'jx' ? 'jx' : 'jax';
  const lines: string[] = [];
  if (o.jax === 'jnp-first') lines.push('import jax.numpy as jnp');
  if (o.mesh === 'from') lines.push('from jax.sharding import Mesh');
  lines.push(['import flax.linen as nn', 'from flax import linen as fl', 'import flax.linen'][o.flax]);
  lines.push(o.jax === 'jx' ? 'import jax as jx' : o.jax === 'names' ? 'from jax import devices, eval_shape, jit, random' : 'import jax');
  if (o.jax !== 'jnp-first') lines.push(`import ${j}.numpy as jnp`.replace('import jx.numpy as jnp', 'import jax.numpy as jnp'));
  lines.push('import numpy as np');
  if (o.flag === 'config') lines.push(`${j}.config.update("jax_threefry_partitionable", True)`);
  if (o.flag === 'from-config') lines.push('from jax import config', 'config.update("jax_threefry_partitionable", True)');
  const init = { normal: `${nn}.initializers.normal(0.02)`, lecun: `${nn}.initializers.lecun_normal()`, vs: `${nn}.initializers.variance_scaling(1.0, "fan_in", "normal")` }[o.init];
  const part = `${nn}.with_partitioning(${init}, (None, "tp"))`;
  lines.push('', '', `class Head(${nn}.Module):`, '    vocab: int = 262144', '', `    @${nn}.compact`, '    def __call__(self, x):');
  if (o.local) lines.push(`        init = ${part}`, `        return ${nn}.Dense(self.vocab, use_bias=False, kernel_init=init)(x)`);
  else lines.push(`        return ${nn}.Dense(self.vocab, use_bias=False, kernel_init=${part})(x)`);
  lines.push('', '');
  const mesh = o.mesh === 'from' ? 'Mesh' : `${j}.sharding.Mesh`;
  const q = (f: string) => (o.jax === 'names' ? f : `${j}.${f}`);
  const body = [
    `mesh = ${mesh}(np.array(${q('devices')}()).reshape(8), ("tp",))`,
    'head = Head()',
    'x = jnp.ones((4, 32768))',
    `abstract = ${q('eval_shape')}(head.init, ${q('random')}.PRNGKey(0), x)`,
    `params = ${q('jit')}(head.init, out_shardings=${nn}.get_sharding(abstract, mesh))(${q('random')}.PRNGKey(0), x)`,
  ];
  if (o.where === 'module') lines.push(...body);
  else lines.push('def build():', ...body.map((l) => `    ${l}`), '    return params', '', '', 'params = build()');
  return lines.join('\n') + '\n';
}

const BASE: O = { flax: 0, jax: 'jax', init: 'normal', local: true, mesh: 'from', where: 'module' };

export function oom103(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => {
    const o = { ...BASE, ...c };
    variants.push({ name, text: program(o), fires: true, fixed: `${o.jax === 'jx' ? 'jx' : 'jax'}.config.update("jax_threefry_partitionable", True)` });
  };
  add('Example', {});
  for (const flax of [1, 2] as const) add(`flax import#${flax}`, { flax });
  for (const jax of ['jx', 'jnp-first'] as const) add(`jax: ${jax}`, { jax });
  for (const init of ['lecun', 'vs'] as const) add(`initializer: ${init}`, { init });
  add('initializer inline', { local: false });
  add('jax.sharding.Mesh', { mesh: 'attr' });
  add('builder function', { where: 'function' });
  add('jx, inline, function', { jax: 'jx', local: false, where: 'function' });
  add('jnp first, lecun, jax.sharding.Mesh', { jax: 'jnp-first', init: 'lecun', mesh: 'attr' });
  add('fl, variance_scaling, function', { flax: 1, init: 'vs', where: 'function' });
  add('flax.linen, jx, Mesh attr', { flax: 2, jax: 'jx', mesh: 'attr' });
  add('fl, jnp first, inline', { flax: 1, jax: 'jnp-first', local: false });
  add('flax.linen, lecun, function', { flax: 2, init: 'lecun', where: 'function' });
  add('jx, variance_scaling, Mesh attr', { jax: 'jx', init: 'vs', mesh: 'attr' });
  add('jnp first, function, fl', { jax: 'jnp-first', where: 'function', flax: 1 });
  add('inline, lecun, Mesh attr', { local: false, init: 'lecun', mesh: 'attr' });
  add('flax.linen, jnp first, variance_scaling', { flax: 2, jax: 'jnp-first', init: 'vs' });
  add('jax by names only (from jax import ...)', { jax: 'names' });
  add('jax by names only, function, jax.sharding attr-free', { jax: 'names', where: 'function', flax: 2 });
  add('jx, fl, lecun, inline', { jax: 'jx', flax: 1, init: 'lecun', local: false });
  const quiet = (name: string, c: Partial<O>, versions?: Record<string, string>): void => {
    const text = program({ ...BASE, ...c });
    variants.push({ name: `quiet: ${name}`, text: versions ? `# pinned: jax==${versions.jax}\n${text}` : text, fires: false, ...(versions ? { versions } : {}) });
  };
  quiet('flag set through jax.config', { flag: 'config' });
  quiet('flag set through from jax import config, jx', { flag: 'from-config', jax: 'jx' });
  quiet('flag set, function, lecun', { flag: 'config', where: 'function', init: 'lecun' });
  quiet('jax 0.5.0', {}, { jax: '0.5.0' });
  return { code: 'OOM103', device: '8xh100-80gb', versions: { jax: '0.4.30' }, unsafe: true, variants };
}
