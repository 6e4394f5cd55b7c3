/**
 * ## What it does
 * Reports a model whose predicted peak in some phase (init, load, inference,
 * training) is above the memory the framework may use on the target device.
 *
 * ## Why is this bad?
 * The program will stop with an out-of-memory error in that phase, after
 * waiting for a machine and for everything before it to run. The budget is
 * what the framework can actually use: 75% of the card for JAX on GPU
 * (XLA's BFC allocator), the card less the CUDA context for PyTorch.
 *
 * ## Example
 * ```python
 * import equinox as eqx
 * import jax
 * big = eqx.nn.MLP(200_000, 10, width_size=200_000, depth=1, key=jax.random.PRNGKey(0))  # 160 GB of float32 weights
 * ```
 *
 * ## Use instead
 * ```python
 * import equinox as eqx
 * import jax
 * small = eqx.nn.MLP(20_000, 10, width_size=20_000, depth=1, key=jax.random.PRNGKey(0))
 * ```
 *
 * ## Fix safety
 * No automatic fix: the other rules' fixes (dtype, jit, sharding) address
 * specific causes.
 *
 * ## References
 * - JAX, "GPU memory allocation" (docs/gpu_memory_allocation.rst)
 * - PyTorch, "CUDA semantics: memory management" (docs/source/notes/cuda.rst)
 */
import type { Rule } from './types';
import { anchorSpan } from '../analysis/api';
import { fmt, peakLine } from './util';

export const exceedsDeviceMemory: Rule = {
  code: 'OOM001',
  name: 'exceeds-device-memory',
  status: 'stable',
  severity: 'error',
  fixable: 'never',
  summary: "A phase's predicted peak is above the memory the framework may use on the target device.",
  check(ctx) {
    const out = [];
    for (const { report } of ctx.models) {
      const est = report.estimate;
      for (const p of est.phases) {
        if (p.fits !== false || p.peakBytes === null) continue;
        const top = p.breakdown.slice(0, 3);
        out.push({
          // Built in another file (a program's call reached it): reported where this file reaches it.
          span: anchorSpan(report),
          message: `\`${report.facts.name}\`: ${peakLine(p, ctx.target)} — does not fit. Largest: ${top.map((c) => `${c.label} ${fmt(c.bytes)}`).join(', ')}.`,
          related: top.filter((c) => c.span).map((c) => ({ span: c.span!, message: `${c.label}: ${fmt(c.bytes)}` })),
          fixes: [],
        });
      }
    }
    return out;
  },
};
