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
  return { code: 'OOM104', device: 'a100-40gb', unsafe: true, variants };
}
