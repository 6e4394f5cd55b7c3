/**
 * ## What it does
 * Finds a stack of layers built at once with `jax.vmap` / `eqx.filter_vmap`
 * in full precision and then copied to a smaller dtype.
 *
 * ## Why is this bad?
 * Outside `jit`, the vmapped constructor materialises every layer's
 * parameters in float32; the cast makes a second, float16 copy of the whole
 * stack while the float32 one is still referenced. Both exist at once: a 7B
 * model needs 28 GB + 14 GB during init although it is 14 GB when done.
 *
 * ## Example
 * ```python
 * import equinox as eqx
 * import jax
 * import jax.numpy as jnp
 * import jax.tree_util as jtu
 *
 * class Stack(eqx.Module):
 *     layers: eqx.nn.Linear
 *     def __init__(self, key):
 *         make = lambda k: eqx.nn.Linear(8192, 8192, key=k)
 *         self.layers = eqx.filter_vmap(make)(jax.random.split(key, 64))
 *         self.layers = jtu.tree_map(lambda x: x.astype(jnp.float16), self.layers)
 *
 * model = Stack(jax.random.PRNGKey(0))
 * ```
 *
 * ## Use instead
 * ```python
 * import equinox as eqx
 * import jax
 * import jax.numpy as jnp
 * import jax.tree_util as jtu
 *
 * class Stack(eqx.Module):
 *     layers: eqx.nn.Linear
 *     def __init__(self, key):
 *         make = lambda k: eqx.nn.Linear(8192, 8192, key=k)
 *         self.layers = eqx.filter_jit(eqx.filter_vmap(lambda k: jtu.tree_map(lambda x: x.astype(jnp.float16), make(k))))(jax.random.split(key, 64))
 *
 * model = Stack(jax.random.PRNGKey(0))
 * ```
 *
 * ## Fix safety
 * Unsafe: the parameters are cast inside a jitted constructor, so XLA never
 * keeps the float32 stack; the values are the same, but the code now
 * compiles the constructor.
 *
 * ## References
 * - equinox `filter_vmap` (equinox/_vmap_pmap.py): array outputs are stacked on axis 0
 * - equinox FAQ, "How do I initialise a model in low precision / jit the initialisation"
 */
import { dtypeBytes } from '../../../shared/src/dtypes';
import type { Fix } from '../analysis/api';
import type { Rule } from './types';
import { fmt, lineSpan, replace } from './util';

const SMALL = new Set(['float16', 'bfloat16', 'float8']);

/**
 * The expression that builds one layer from the mapped key, given the function
 * that was vmapped: a one-argument lambda is inlined (`lambda k: Block(cfg, k)`
 * gives `Block(cfg, k)`), a name is called (`make(k)`), anything else is
 * parenthesised before the call.
 */
export function perLayerCall(fnText: string): { param: string; layer: string } {
  const lam = /^lambda\s+([A-Za-z_]\w*)\s*:\s*([\s\S]+)$/.exec(fnText.trim());
  if (lam) {
    const body = lam[2].trim();
    const simple = /^[\w.]+(\([\s\S]*\))?$/.test(body) && !/\blambda\b|\bif\b/.test(body);
    return { param: lam[1], layer: simple ? body : `(${body})` };
  }
  const name = /^[A-Za-z_][\w.]*$/.test(fnText.trim());
  return { param: 'k', layer: name ? `${fnText.trim()}(k)` : `(${fnText.trim()})(k)` };
}

export const vmappedFullPrecisionInit: Rule = {
  code: 'OOM101',
  name: 'vmapped-full-precision-init',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'A vmapped stack of layers is built in float32 and then copied to a smaller dtype while both are alive.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      for (const v of record.observations) {
        if (v.kind !== 'vmap-construct' || v.jitted) continue;
        if (!v.dtypes.some((d) => d === 'float32' || d === 'float64')) continue;
        const casts = record.observations.filter((o) => o.kind === 'cast-copy' && o.inVmapGroup === v.group && SMALL.has(o.to));
        if (casts.length === 0) continue;
        const cast = casts[0] as Extract<typeof casts[number], { kind: 'cast-copy' }>;
        const init = report.estimate.phases.find((p) => p.phase === 'init');
        const from = v.dtypes.includes('float64') ? 'float64' : 'float32';
        const copyBytes = (v.bytes * dtypeBytes(cast.to)) / dtypeBytes(from);
        const fixes: Fix[] = [];
        if (v.callee && v.fn && v.argsText && cast.rhs && cast.targetText && cast.stmt && v.stmt) {
          const callee = ctx.text.slice(v.callee.start, v.callee.end);
          const jit = callee.replace(/(filter_)?vmap$/, (m) => (m.startsWith('filter_') ? 'filter_jit' : 'jit'));
          const fnText = ctx.text.slice(v.fn.start, v.fn.end);
          const castText = ctx.text.slice(cast.rhs.start, cast.rhs.end);
          const { param, layer } = perLayerCall(fnText);
          const perLayer = castText.split(cast.targetText).join(layer);
          if (perLayer !== castText && jit !== callee) {
            fixes.push({
              title: `Build each layer in ${cast.to} inside ${jit}`,
              applicability: 'unsafe',
              edits: [
                replace(v.span, `${jit}(${callee}(lambda ${param}: ${perLayer}))${v.argsText}`),
                { ...lineSpan(ctx.text, cast.stmt), newText: '' },
              ],
            });
          }
        }
        out.push({
          span: v.span,
          message: `All ${v.batch} layers are built at once in float32 (${fmt(v.bytes)}) and then copied to ${cast.to} (${fmt(copyBytes)}): both copies are alive together` +
            (init?.peakBytes ? `, init peak ${fmt(init.peakBytes)}` : '') + '.',
          related: [{ span: cast.stmt ?? cast.span, message: `the ${cast.to} copy is made here, while the float32 stack is still referenced` }],
          fixes,
        });
      }
    }
    return out;
  },
};
