/**
 * ## What it does
 * Finds random parameter initialisation inside a jitted, sharded init while
 * `jax_threefry_partitionable` is off (the default before jax 0.5.0).
 *
 * ## Why is this bad?
 * With the original Threefry implementation the SPMD partitioner cannot
 * split the random-bit computation: every device generates the bits for the
 * whole array, then keeps its shard. A 32 GiB kernel sharded over 8 GPUs
 * needs about 96 GiB of temporaries on each of them (flax#3701).
 *
 * ## Example
 * ```python
 * import flax.linen as nn
 * import jax
 * import jax.numpy as jnp
 * import numpy as np
 * from jax.sharding import Mesh
 *
 * class Wide(nn.Module):
 *     @nn.compact
 *     def __call__(self, x):
 *         return nn.Dense(262144, use_bias=False, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))(x)
 *
 * mesh = Mesh(np.array(jax.devices()).reshape(8), ("model",))
 * model = Wide()
 * x = jnp.ones((1, 32768))
 * shardings = nn.get_sharding(jax.eval_shape(model.init, jax.random.PRNGKey(0), x), mesh)
 * params = jax.jit(model.init, out_shardings=shardings)(jax.random.PRNGKey(0), x)
 * ```
 *
 * ## Use instead
 * ```python
 * import flax.linen as nn
 * import jax
 * import jax.numpy as jnp
 * import numpy as np
 * from jax.sharding import Mesh
 * jax.config.update("jax_threefry_partitionable", True)
 *
 * class Wide(nn.Module):
 *     @nn.compact
 *     def __call__(self, x):
 *         return nn.Dense(262144, use_bias=False, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))(x)
 *
 * mesh = Mesh(np.array(jax.devices()).reshape(8), ("model",))
 * model = Wide()
 * x = jnp.ones((1, 32768))
 * shardings = nn.get_sharding(jax.eval_shape(model.init, jax.random.PRNGKey(0), x), mesh)
 * params = jax.jit(model.init, out_shardings=shardings)(jax.random.PRNGKey(0), x)
 * ```
 *
 * ## Fix safety
 * Unsafe: the partitionable implementation draws different random numbers
 * for the same key, so initial values change.
 *
 * ## References
 * - jax `_threefry_random_bits_original` / `_threefry_random_bits_partitionable` (jax/_src/prng.py, jax-v0.4.30)
 * - jax CHANGELOG 0.5.0: `jax_threefry_partitionable` now defaults to True
 * - google/flax#3701
 */
import type { Rule } from './types';
import { fmt } from './util';

export const unpartitionedRandomInit: Rule = {
  code: 'OOM103',
  name: 'unpartitioned-random-init',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'Random init of a sharded parameter generates the bits for the whole array on every device.',
  check(ctx) {
    const out = [];
    const tf = ctx.runtime.threefryPartitionable;
    for (const { report, record } of ctx.models) {
      const obs = record.observations.filter((o) => o.kind === 'random-sharded' && !o.partitionable);
      if (obs.length === 0) continue;
      const worst = obs.reduce((a, b) => ((a as { transientBytes: number }).transientBytes >= (b as { transientBytes: number }).transientBytes ? a : b)) as Extract<typeof obs[number], { kind: 'random-sharded' }>;
      const site = ctx.runtime.jaxModuleSite;
      const fixes = [];
      if (site) {
        // After the import that binds jax (before any random draw), or importing jax above the first jax-library import.
        const update = `${site.name}.config.update("jax_threefry_partitionable", True)`;
        fixes.push({ title: 'Enable jax_threefry_partitionable', applicability: 'unsafe' as const,
          edits: [{ start: site.at, end: site.at, newText: site.importJax ? `import jax\n${update}\n` : `\n${update}` }] });
      }
      const phase = report.estimate.phases.find((p) => p.phase === 'init');
      out.push({
        span: report.facts.span,
        message: `Random init is not partitioned (${tf.why}): each of the ${worst.shards} devices draws the Threefry bits for all of \`${worst.label}\`, ` +
          `${fmt(worst.transientBytes)} of temporaries per device` + (phase?.peakBytes ? ` (init peak ${fmt(phase.peakBytes)} per device)` : '') + '.',
        related: [{ span: worst.span, message: 'the random initialiser runs here' }],
        fixes,
      });
    }
    return out;
  },
};
