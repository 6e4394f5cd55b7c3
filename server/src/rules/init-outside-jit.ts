/**
 * ## What it does
 * Finds a Haiku or Flax `init` that runs eagerly while the forward pass it
 * traces builds large intermediates.
 *
 * ## Why is this bad?
 * `init` runs the whole forward pass to discover the parameters. Eagerly,
 * every intermediate is materialised and kept while referenced; under
 * `jax.jit` the outputs are only the parameters, so XLA drops (or fuses)
 * the activations. Haiku's author recommends jitting init for this reason
 * (jax-ml/jax#10790), and dm-haiku#778 is an out-of-memory report caused by
 * it.
 *
 * ## Example
 * ```python
 * import haiku as hk
 * import jax
 * import jax.numpy as jnp
 *
 * def forward(x):
 *     h = hk.Linear(256)(x)
 *     big = h[:, None, None, :] * h[None, :, None, :] * h[None, None, :, :]
 *     return hk.Linear(1)(jnp.sum(big, axis=(1, 2)))
 *
 * model = hk.transform(forward)
 * params = model.init(jax.random.PRNGKey(0), jnp.ones((512, 64)))
 * ```
 *
 * ## Use instead
 * ```python
 * import haiku as hk
 * import jax
 * import jax.numpy as jnp
 *
 * def forward(x):
 *     h = hk.Linear(256)(x)
 *     big = h[:, None, None, :] * h[None, :, None, :] * h[None, None, :, :]
 *     return hk.Linear(1)(jnp.sum(big, axis=(1, 2)))
 *
 * model = hk.transform(forward)
 * params = jax.jit(model.init)(jax.random.PRNGKey(0), jnp.ones((512, 64)))
 * ```
 *
 * ## Fix safety
 * Unsafe: jitting changes when the code compiles and runs; the parameters
 * are the same.
 *
 * ## References
 * - google-deepmind/dm-haiku#778; jax-ml/jax#10790 (T. Hennigan on jitting init)
 * - dm-haiku examples/impala_lite.py: `params = jax.jit(net.init)(...)`
 */
import type { Rule } from './types';
import { fmt, importAlias } from './util';

/** Intermediates below this are not worth a warning (eager init of small models is common and harmless). */
const MIN_EXTRA = 2 ** 30;

export const initOutsideJit: Rule = {
  code: 'OOM104',
  name: 'init-outside-jit',
  status: 'stable',
  severity: 'warning',
  fixable: 'always',
  summary: 'An eager Haiku/Flax init materialises large intermediates that jax.jit would not keep.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const eager = record.observations.find((o) => o.kind === 'eager-init');
      if (!eager) continue;
      const init = report.estimate.phases.find((p) => p.phase === 'init');
      if (!init || init.peakBytes === null) continue;
      const params = report.estimate.paramBytes ?? 0;
      const extra = init.peakBytes - params;
      if (extra < Math.max(MIN_EXTRA, params)) continue;
      const acts = init.breakdown.filter((c) => c.role === 'activation' || c.role === 'temporary');
      const call = ctx.text.slice(report.facts.span.start, report.facts.span.end);
      const paren = call.indexOf('(');
      const fixes = [];
      const jax = importAlias(ctx.text, 'jax');
      if (paren > 0 && jax) {
        const callee = call.slice(0, paren);
        fixes.push({
          title: `Wrap ${callee} in ${jax}.jit`,
          applicability: 'unsafe' as const,
          edits: [{ start: report.facts.span.start, end: report.facts.span.start + paren, newText: `${jax}.jit(${callee})` }],
        });
      }
      out.push({
        span: report.facts.span,
        message: `\`${report.facts.name}\` init runs outside jax.jit: its forward pass materialises ${fmt(extra)} of intermediates (init peak ${fmt(init.peakBytes)}` +
          (acts[0] ? `, largest ${acts[0].label} ${fmt(acts[0].bytes)}` : '') + `); under jax.jit only the parameters (${fmt(params)}) are kept.`,
        related: acts.slice(0, 2).filter((a) => a.span).map((a) => ({ span: a.span!, message: `${a.label}: ${fmt(a.bytes)}` })),
        fixes,
      });
    }
    return out;
  },
};
