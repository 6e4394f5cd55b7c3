/**
 * ## What it does
 * Finds a Haiku or Flax `init`, an Equinox Module constructor, or a plain-JAX
 * init function (a params tree built from `jax.random` samplers and
 * `jax.nn.initializers`), that runs eagerly while jitting it would lower its peak by at least its largest
 * parameter (and at least 1 GiB), when the eager peak does not fit or is
 * 1.5× the parameters or more.
 *
 * ## Why is this bad?
 * `init` runs the whole forward pass to discover the parameters. Eagerly,
 * every intermediate is materialised and kept while referenced, and each
 * initializer runs op by op: the random sample is materialised, then scaled
 * into the parameter, so two (Haiku's `s * unscaled + m`: three) full-size
 * arrays are alive together. An Equinox constructor that draws and scales
 * (`jax.random.normal(key, shape) * 0.02`) does the same, and so does a
 * plain-JAX init function calling `jax.nn.initializers.normal(0.02)(key,
 * shape)` (the sampler is jitted inside jax.random, the multiply after it is
 * not). Under `jax.jit` (`eqx.filter_jit(Model)(key)` for Equinox;
 * `jax.jit(init_params, static_argnums=...)` for a plain init function, its
 * shape and size arguments static) the outputs are only the
 * parameters, so XLA drops (or fuses) the rest. Haiku's author recommends jitting init for this reason
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
 * - test/truth/programs/eqx_custom_eager_init.py (measured: the sample and
 *   the product alive together, 2 × the table)
 * - jax/_src/nn/initializers.py (jax 0.10.2): `random.normal(key, shape, dtype) * jnp.array(stddev, dtype)`
 */
import { dtypeBytes } from '../../../shared/src/dtypes';
import type { TextEdit } from '../analysis/api';
import type { Rule } from './types';
import { fmt, replace } from './util';

/** Savings below this are not worth a warning (eager init of small models is common and harmless). */
const MIN_EXTRA = 2 ** 30;

export const initOutsideJit: Rule = {
  code: 'OOM104',
  name: 'init-outside-jit',
  status: 'stable',
  severity: 'warning',
  fixable: 'always',
  summary: 'An eager Haiku/Flax init, Equinox constructor or plain-JAX init function holds arrays (intermediates, unscaled random samples) that jax.jit would not keep.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const eager = record.observations.find((o): o is Extract<typeof o, { kind: 'eager-init' }> => o.kind === 'eager-init');
      if (!eager) continue;
      // A vmapped stack cast after it was built is OOM101's finding (its fix moves the cast into the stack's
      // jit and keeps the rest of the constructor as it is).
      if (record.observations.some((o) => o.kind === 'vmap-construct' && !o.jitted) && record.observations.some((o) => o.kind === 'cast-copy')) continue;
      const init = report.estimate.phases.find((p) => p.phase === 'init');
      if (!init || init.peakBytes === null) continue;
      // Unknown parameters: what jitting keeps is not known, so neither is what it saves (never "0 B").
      if (report.estimate.paramBytes === null) continue;
      const params = report.estimate.paramBytes;
      // Under jit only the outputs (the parameters) are materialised: jitting lowers the peak to about `params`.
      const extra = init.peakBytes - params;
      let largest = 0;
      for (const ev of record.events) if (ev.op === 'alloc' && ev.tensor.role === 'param') largest = Math.max(largest, ev.tensor.shape.reduce((a, b) => a * b, 1) * dtypeBytes(ev.tensor.dtype));
      const fits = init.peakBytes <= init.budgetBytes;
      if (extra < Math.max(MIN_EXTRA, largest) || (fits && init.peakBytes < 1.5 * params)) continue;
      const acts = init.breakdown.filter((c) => c.role === 'activation' || c.role === 'temporary');
      const fixes = [];
      if (eager.callee && eager.jit) {
        const edits: TextEdit[] = [];
        if (eager.jitImport) edits.push({ start: eager.jitImport.at, end: eager.jitImport.at, newText: eager.jitImport.text });
        const callee = ctx.text.slice(eager.callee.start, eager.callee.end);
        // Plain JAX: the init function's shape and size arguments are Python values jit must take as static.
        const st = eager.static;
        const opts = [
          ...(st?.argnums.length ? [`static_argnums=(${st.argnums.join(', ')}${st.argnums.length === 1 ? ',' : ''})`] : []),
          ...(st?.argnames.length ? [`static_argnames=(${st.argnames.map((n) => `"${n}"`).join(', ')}${st.argnames.length === 1 ? ',' : ''})`] : []),
        ];
        edits.push(replace(eager.callee, `${eager.jit}(${[callee, ...opts].join(', ')})`));
        fixes.push({ title: `Wrap ${callee} in ${eager.jit}`, applicability: 'unsafe' as const, edits });
      } else if (eager.expression && eager.jit) {
        // A tree built in place: the expression becomes the body of a jitted lambda called at once.
        const edits: TextEdit[] = [];
        if (eager.jitImport) edits.push({ start: eager.jitImport.at, end: eager.jitImport.at, newText: eager.jitImport.text });
        edits.push(replace(eager.expression, `${eager.jit}(lambda: ${ctx.text.slice(eager.expression.start, eager.expression.end)})()`));
        fixes.push({ title: `Build the parameters inside ${eager.jit}`, applicability: 'unsafe' as const, edits });
      }
      out.push({
        span: report.facts.span,
        message: `\`${report.facts.name}\` init runs outside jax.jit: it holds ${fmt(extra)} besides the parameters (init peak ${fmt(init.peakBytes)}` +
          (acts[0] ? `, largest ${acts[0].label} ${fmt(acts[0].bytes)}` : '') + `); under jax.jit only the parameters (${fmt(params)}) are kept.`,
        related: acts.slice(0, 2).filter((a) => a.span).map((a) => ({ span: a.span!, message: `${a.label}: ${fmt(a.bytes)}` })),
        fixes,
      });
    }
    return out;
  },
};
