/**
 * OOM901 spellings, from the rule's Example (an XLA memory setting made after
 * the first JAX operation started the backend) and its Use instead (the
 * setting above the first JAX import): `os.environ[...] = ...`,
 * `os.environ.setdefault`, `os.putenv`, `os.environ.update`-free spellings
 * through `import os as _os`, `from os import environ` / `putenv`, os
 * imported after JAX, the setting inside main() (alone or with other
 * statements), with a comment above it, and the backend started by a key, an
 * array or a model (eqx.nn.MLP; a bare layer is not a model). Quiet: the same settings made before the first JAX
 * operation (even after `import jax`), and a setting JAX does not read; the
 * quiet programs build a layer so that they have an estimate to be quiet about.
 */
import type { Family, Variant } from './check';

interface O {
  os: 'os' | 'alias' | 'from-environ' | 'from-putenv' | 'late';
  set: 'item' | 'setdefault' | 'putenv';
  where: 'module' | 'main' | 'main-alone' | 'if-main';
  start: 'key' | 'array' | 'layer';
  name: 'XLA_PYTHON_CLIENT_PREALLOCATE' | 'XLA_PYTHON_CLIENT_MEM_FRACTION' | 'XLA_PYTHON_CLIENT_ALLOCATOR';
  comment: boolean;
  before?: boolean;
}

const VALUE = { XLA_PYTHON_CLIENT_PREALLOCATE: '"false"', XLA_PYTHON_CLIENT_MEM_FRACTION: '".5"', XLA_PYTHON_CLIENT_ALLOCATOR: '"platform"' };

function setting(o: O): string {
  const v = VALUE[o.name];
  if (o.os === 'from-environ') return o.set === 'setdefault' ? `environ.setdefault("${o.name}", ${v})` : `environ["${o.name}"] = ${v}`;
  if (o.os === 'from-putenv') return `putenv("${o.name}", ${v})`;
  const os = o.os === 'alias' ? '_os' : 'os';
  return { item: `${os}.environ["${o.name}"] = ${v}`, setdefault: `${os}.environ.setdefault("${o.name}", ${v})`, putenv: `${os}.putenv("${o.name}", ${v})` }[o.set];
}

function program(o: O): string {
  const lines: string[] = [];
  const osImport = { os: 'import os', alias: 'import os as _os', 'from-environ': 'from os import environ', 'from-putenv': 'from os import putenv', late: 'import os' }[o.os];
  if (o.os !== 'late') lines.push(osImport);
  lines.push('import jax', 'import jax.numpy as jnp');
  if (o.start === 'layer') lines.push('import equinox as eqx');
  if (o.os === 'late') lines.push(osImport);
  lines.push('', '');
  const start = { key: 'key = jax.random.PRNGKey(0)', array: 'x = jnp.zeros((1024, 1024))', layer: 'net = eqx.nn.MLP(64, 64, 64, 2, key=jax.random.PRNGKey(0))' }[o.start];
  const set = [...(o.comment ? ['# let other processes share the GPU'] : []), setting(o)];
  const body = o.before ? [...set, start] : [start, ...set];
  if (o.where === 'module') lines.push(...body);
  else if (o.where === 'if-main') lines.push('if __name__ == "__main__":', ...body.map((l) => `    ${l}`));
  else if (o.where === 'main') lines.push('def main():', ...body.map((l) => `    ${l}`), '    print("ready")', '', '', 'main()');
  else lines.push(start, '', '', 'def configure():', ...set.map((l) => `    ${l}`), '', '', 'configure()');
  return lines.join('\n') + '\n';
}

const BASE: O = { os: 'os', set: 'item', where: 'module', start: 'key', name: 'XLA_PYTHON_CLIENT_PREALLOCATE', comment: false };

export function oom901(): Family {
  const variants: Variant[] = [];
  const add = (name: string, change: Partial<O>): void => { variants.push({ name, text: program({ ...BASE, ...change }), fires: true }); };
  add('Example', {});
  for (const set of ['setdefault', 'putenv'] as const) add(`set: ${set}`, { set });
  for (const os of ['alias', 'from-environ', 'from-putenv', 'late'] as const) add(`os: ${os}`, { os });
  add('os alias + setdefault', { os: 'alias', set: 'setdefault' });
  add('from os import environ + setdefault', { os: 'from-environ', set: 'setdefault' });
  for (const where of ['main', 'main-alone', 'if-main'] as const) add(`where: ${where}`, { where });
  for (const start of ['array', 'layer'] as const) add(`backend started by: ${start}`, { start });
  for (const name of ['XLA_PYTHON_CLIENT_MEM_FRACTION', 'XLA_PYTHON_CLIENT_ALLOCATOR'] as const) add(`setting: ${name}`, { name });
  add('with a comment above', { comment: true });
  add('main + alias + putenv', { where: 'main', os: 'alias', set: 'putenv' });
  add('main-alone + from environ + comment', { where: 'main-alone', os: 'from-environ', comment: true });
  add('late os + setdefault + array', { os: 'late', set: 'setdefault', start: 'array' });
  add('if-main + late os + layer', { where: 'if-main', os: 'late', start: 'layer' });
  add('main + mem fraction + from putenv', { where: 'main', os: 'from-putenv', name: 'XLA_PYTHON_CLIENT_MEM_FRACTION' });
  const quiet = (name: string, change: Partial<O>): void => { variants.push({ name: `quiet: ${name}`, text: program({ ...BASE, start: 'layer', ...change, before: true }), fires: false }); };
  quiet('set before the first operation', {});
  quiet('setdefault before the first operation, in main()', { where: 'main', set: 'setdefault' });
  quiet('alias, before the first operation', { os: 'alias' });
  variants.push({ name: 'quiet: a variable JAX does not read', text: program({ ...BASE, start: 'layer' }).replace('XLA_PYTHON_CLIENT_PREALLOCATE', 'WANDB_MODE').replace('"false"', '"offline"'), fires: false });
  return { code: 'OOM901', device: 't4', unsafe: true, variants };
}
