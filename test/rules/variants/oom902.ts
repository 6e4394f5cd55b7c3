/**
 * OOM902 spellings, from the rule's Example (a small Equinox MLP in a program
 * that also imports PyTorch, on a T4: JAX reserves 75% of the card for a
 * model of a few hundred kB) and its Use instead
 * (`XLA_PYTHON_CLIENT_PREALLOCATE=false` before JAX is imported): torch
 * imported as `torch`, `th`, through `from torch.utils.data import
 * DataLoader`, before or after JAX, or tensorflow / cupy instead; JAX
 * reached first through `import jax`, `import jax.numpy as jnp`, `from jax
 * import random` or `import equinox as eqx`; the model an eqx.nn.MLP with
 * keyword or positional sizes or a Flax Dense stack initialised with
 * `model.init`; at module level or in main(); a memory fraction set after the
 * backend started instead of another library. Quiet: JAX alone and
 * preallocation already turned off.
 */
import type { Family, Variant } from './check';

interface O {
  other: 'torch' | 'th' | 'dataloader' | 'tf' | 'cupy' | 'late-torch' | 'mem-fraction' | 'none';
  first: 'jax' | 'jnp' | 'random' | 'eqx';
  model: 'mlp-kw' | 'mlp-pos' | 'flax';
  where: 'module' | 'main';
  off?: boolean;
}

function program(o: O): string {
  const lines: string[] = [];
  if (o.off) lines.push('import os', 'os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"');
  if (o.other === 'mem-fraction') lines.push('import os');
  const other = { torch: 'import torch', th: 'import torch as th', dataloader: 'from torch.utils.data import DataLoader', tf: 'import tensorflow as tf', cupy: 'import cupy as cp', 'late-torch': '', 'mem-fraction': '', none: '' }[o.other];
  if (other) lines.push(other);
  const jaxLines = { jax: ['import jax', 'import jax.numpy as jnp'], jnp: ['import jax.numpy as jnp', 'import jax'], random: ['from jax import random', 'import jax.numpy as jnp'], eqx: ['import equinox as eqx', 'import jax', 'import jax.numpy as jnp'] }[o.first];
  lines.push(...jaxLines);
  if (o.model !== 'flax' && o.first !== 'eqx') lines.push('import equinox as eqx');
  if (o.model === 'flax') lines.push('import flax.linen as nn');
  if (o.other === 'late-torch') lines.push('import torch');
  const key = o.first === 'random' ? 'random.PRNGKey(0)' : 'jax.random.PRNGKey(0)';
  const body: string[] = [];
  if (o.model === 'mlp-kw') body.push(`net = eqx.nn.MLP(in_size=8, out_size=8, width_size=256, depth=3, key=${key})`);
  if (o.model === 'mlp-pos') body.push(`net = eqx.nn.MLP(8, 8, 256, 3, key=${key})`);
  if (o.model === 'flax') {
    lines.push('', '', 'class Net(nn.Module):', '    @nn.compact', '    def __call__(self, x):', '        x = nn.relu(nn.Dense(256)(x))', '        return nn.Dense(8)(x)');
    body.push('model = Net()', `params = model.init(${key}, jnp.ones((1, 8)))`);
  }
  if (o.other === 'mem-fraction') body.push('os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = ".10"');
  if (o.other === 'cupy') body.push('buf = cp.zeros((16,))');
  lines.push('', '');
  if (o.where === 'module') lines.push(...body);
  else lines.push('def main():', ...body.map((l) => `    ${l}`), '', '', 'main()');
  return lines.join('\n') + '\n';
}

const BASE: O = { other: 'torch', first: 'jax', model: 'mlp-kw', where: 'module' };

export function oom902(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => { variants.push({ name, text: program({ ...BASE, ...c }), fires: true, fixed: 'os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"' }); };
  add('Example', {});
  for (const other of ['th', 'dataloader', 'tf', 'cupy', 'late-torch', 'mem-fraction'] as const) add(`other: ${other}`, { other });
  for (const first of ['jnp', 'random', 'eqx'] as const) add(`jax first through: ${first}`, { first });
  for (const model of ['mlp-pos', 'flax'] as const) add(`model: ${model}`, { model });
  add('in main()', { where: 'main' });
  add('main, th, flax', { where: 'main', other: 'th', model: 'flax' });
  add('random first, dataloader, positional', { first: 'random', other: 'dataloader', model: 'mlp-pos' });
  add('eqx first, late torch, main', { first: 'eqx', other: 'late-torch', where: 'main' });
  add('jnp first, tf, flax', { first: 'jnp', other: 'tf', model: 'flax' });
  add('mem fraction late, main, positional', { other: 'mem-fraction', where: 'main', model: 'mlp-pos' });
  add('cupy, eqx first, flax', { other: 'cupy', first: 'eqx', model: 'flax' });
  add('random first, th, main', { first: 'random', other: 'th', where: 'main' });
  add('mem fraction late, jnp first, flax', { other: 'mem-fraction', first: 'jnp', model: 'flax' });
  const quiet = (name: string, c: Partial<O>): void => { variants.push({ name: `quiet: ${name}`, text: program({ ...BASE, ...c }), fires: false }); };
  quiet('JAX alone', { other: 'none' });
  quiet('JAX alone, flax, main', { other: 'none', model: 'flax', where: 'main' });
  quiet('preallocation already off', { off: true });
  quiet('preallocation already off, th, main', { off: true, other: 'th', where: 'main' });
  return { code: 'OOM902', device: 't4', unsafe: true, variants };
}
