/**
 * ## What it does
 * Tells how much of the GPU JAX will reserve when its backend starts, next
 * to what the program's models need, when the reservation is far larger and
 * the program shows that something else needs the card: it also imports
 * another GPU library (PyTorch, TensorFlow, CuPy), or it sets one of JAX's
 * `XLA_PYTHON_CLIENT_*` memory variables (too late to matter, or without
 * turning preallocation off). A program that only runs JAX is left alone:
 * reserving the pool up front is JAX's intended behaviour there.
 *
 * ## Why is this bad?
 * By default JAX preallocates 75% of the card's memory (XLA's BFC pool) at
 * its first operation. Other processes on the same GPU (a data loader, a
 * second job, PyTorch) then see the card as full. Turning preallocation off
 * does not lift the 75% cap; only the memory fraction does.
 *
 * ## Example
 * ```python
 * import equinox as eqx
 * import jax
 * import torch
 * model = eqx.nn.MLP(2, 1, 64, 2, key=jax.random.PRNGKey(0))
 * ```
 *
 * ## Use instead
 * ```python
 * import os
 * os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
 * import equinox as eqx
 * import jax
 * import torch
 * model = eqx.nn.MLP(2, 1, 64, 2, key=jax.random.PRNGKey(0))
 * ```
 *
 * ## Fix safety
 * Unsafe: allocating on demand can fragment memory (JAX docs); offered, not
 * applied on save.
 *
 * ## References
 * - JAX docs, docs/gpu_memory_allocation.rst
 * - openxla/xla xla/pjrt/gpu/gpu_helpers.cc `CreateBFCAllocator`
 */
import type { Rule } from './types';
import { deviceLabel, fmt } from './util';

/** Report when the models need less than this share of what JAX reserves. */
const SHARE = 0.1;

export const jaxPreallocation: Rule = {
  code: 'OOM902',
  name: 'jax-preallocation',
  status: 'stable',
  severity: 'information',
  fixable: 'sometimes',
  summary: 'JAX preallocates 75% of the GPU, far more than the models need.',
  check(ctx) {
    const start = ctx.runtime.backendStart;
    if (!start || ctx.target.device.kind !== 'gpu') return [];
    const other = ctx.runtime.otherGpuImport;
    const memoryEnv = ctx.runtime.envSets.filter((e) => e.name.startsWith('XLA_PYTHON_CLIENT_'));
    if (!other && memoryEnv.length === 0) return [];
    const jaxModels = ctx.models.filter((m) => m.report.facts.runtime.runtime === 'jax');
    if (jaxModels.length === 0) return [];
    const budget = jaxModels[0].report.estimate.budget;
    const reserved = budget.reservedAtStartBytes;
    if (!reserved) return [];
    let need = 0;
    for (const m of jaxModels) for (const p of m.report.estimate.phases) need = Math.max(need, p.peakBytes ?? Infinity);
    if (!Number.isFinite(need) || need > SHARE * reserved) return [];
    const first = ctx.runtime.firstJaxImport;
    const fixes = first ? [{
      title: 'Allocate on demand (XLA_PYTHON_CLIENT_PREALLOCATE=false before importing JAX)',
      applicability: 'unsafe' as const,
      edits: [{ start: first.start, end: first.start, newText: `import os\nos.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"\n` }],
    }] : [];
    return [{
      span: start.span,
      message: `JAX reserves ${fmt(reserved)} on ${deviceLabel(ctx.target)} when its backend starts here (${budget.explanation}); the models in this file need at most ${fmt(need)}${other ? `, and ${other.name} (imported on line ${ctx.lineOf(other.span.start)}) must fit in the rest` : ''}.`,
      related: [],
      fixes: ctx.runtime.envSets.some((e) => e.name === 'XLA_PYTHON_CLIENT_PREALLOCATE') ? [] : fixes,
    }];
  },
};
