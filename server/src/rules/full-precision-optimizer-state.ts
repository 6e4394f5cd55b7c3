/**
 * ## What it does
 * Reports an Adam / AdamW optimizer whose state is kept in float32 while the
 * model computes in 16-bit (`torch.autocast(dtype=torch.bfloat16)`, or float32
 * parameters cast to bfloat16 inside a JAX loss), when that state is the
 * largest part of the training step or the step does not fit.
 *
 * ## Why is this bad?
 * Mixed precision is chosen to save memory, but the optimizer state follows
 * the float32 parameters: torch's AdamW keeps `exp_avg` and `exp_avg_sq` as
 * `zeros_like(param)` (8 B per parameter), optax's `scale_by_adam` keeps `mu`
 * (in `mu_dtype`, default the parameter's) and `nu`. Together with the
 * float32 weights and gradients that is 16 B per parameter, more than the
 * 16-bit activations usually need. bitsandbytes' 8-bit Adam keeps the two
 * moments in uint8 (2 B per parameter, blockwise quantised); optax's
 * `mu_dtype=jnp.bfloat16` halves the first moment.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 *
 * model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
 * optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
 * for step in range(1000):
 *     x = torch.randint(0, 50257, (4, 256))
 *     with torch.autocast("cuda", dtype=torch.bfloat16):
 *         loss = model(input_ids=x, labels=x).loss
 *     loss.backward()
 *     optimizer.step()
 * ```
 *
 * ## Use instead
 * ```python
 * import bitsandbytes as bnb
 * import torch
 * from transformers import AutoModelForCausalLM
 *
 * model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
 * optimizer = bnb.optim.AdamW8bit(model.parameters(), lr=3e-4)
 * for step in range(1000):
 *     x = torch.randint(0, 50257, (4, 256))
 *     with torch.autocast("cuda", dtype=torch.bfloat16):
 *         loss = model(input_ids=x, labels=x).loss
 *     loss.backward()
 *     optimizer.step()
 * ```
 * With optax: `optax.adamw(3e-4, mu_dtype=jnp.bfloat16)`.
 *
 * ## Fix safety
 * Unsafe: 8-bit moments (and a bfloat16 first moment) change the optimiser's
 * numerics slightly, and bitsandbytes is a new dependency (CUDA only).
 *
 * ## References
 * - torch/optim/adamw.py `_init_group` (exp_avg, exp_avg_sq = zeros_like(p))
 * - optax/_src/transform.py `scale_by_adam` (mu_dtype)
 * - Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", arXiv:2110.02861
 */
import { optimizerStateBytes } from '../../../shared/src/training';
import { trainingInfo } from '../phases/training';
import type { Rule } from './types';
import { fmt } from './util';

export const fullPrecisionOptimizerState: Rule = {
  code: 'OOM401',
  name: 'full-precision-optimizer-state',
  status: 'stable',
  severity: 'warning',
  fixable: 'always',
  summary: 'Adam/AdamW state kept in float32 while the model computes in 16-bit, where it dominates or breaks the training step.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const info = trainingInfo(record);
      const opt = info?.optimizer;
      if (!info || !opt || !/adam/.test(opt.kind) || opt.kind.startsWith('bnb.')) continue;
      if (info.paramDtype !== 'float32' || (info.computeDtype !== 'bfloat16' && info.computeDtype !== 'float16')) continue;
      if (opt.lib === 'optax' && opt.opts.muDtype && opt.opts.muDtype !== 'float32') continue;
      const phase = report.estimate.phases.find((p) => p.phase === 'training');
      if (!phase || phase.peakBytes === null || info.parts.optimizer === null) continue;
      const top = phase.breakdown[0];
      const dominant = top?.role === 'optimizer';
      // "Largest part" needs every part known (unknown activations could be larger).
      if (phase.fits !== false && (!dominant || phase.unknowns.length > 0)) continue;
      const ps = report.facts.params.map((t) => ({ shape: t.shape, dtype: t.dtype }));
      const now = info.parts.optimizer;
      const scale = now / Math.max(1, optimizerStateBytes(opt.kind, ps, opt.opts).bytes);
      const after = opt.lib === 'optax'
        ? optimizerStateBytes(opt.kind, ps, { ...opt.opts, muDtype: 'bfloat16' }).bytes * scale
        : optimizerStateBytes('bnb.adamw8bit', ps).bytes * scale;
      const newPeak = phase.peakBytes - now + after;
      const why = phase.fits === false ? `the training step (${fmt(phase.peakBytes)}) does not fit ${fmt(phase.budgetBytes)}` : `it is the largest part of the training step (${fmt(phase.peakBytes)})`;
      const fits = newPeak <= phase.budgetBytes;
      const compute = opt.lib === 'optax' ? `float32 parameters cast to ${info.computeDtype} in the differentiated function` : `torch.autocast(${info.computeDtype})`;
      let fix;
      if (opt.lib === 'optax') {
        // jax.numpy by the name it has at the call; optax also takes the dtype's name.
        const jnp = opt.names?.jnp;
        const v = jnp ? `${jnp}.bfloat16` : '"bfloat16"';
        fix = { title: `Keep Adam's first moment in bfloat16 (mu_dtype=${v})`, applicability: 'unsafe' as const, edits: [{ start: opt.insertAt, end: opt.insertAt, newText: `${opt.hasArgs ? ', ' : ''}mu_dtype=${v}` }] };
      } else {
        const bnb = opt.names?.bnb;
        const name = opt.kind === 'torch.adam' ? 'Adam8bit' : 'AdamW8bit';
        const edits = [{ start: opt.calleeSpan.start, end: opt.calleeSpan.end, newText: `${bnb ?? 'bnb'}.optim.${name}` }];
        if (!bnb) {
          // Right after the import that made the optimizer's name, so it is in
          // reach wherever the optimizer was; else at the top of the file.
          const at = opt.names?.calleeImportEnd;
          edits.unshift(at === undefined ? { start: 0, end: 0, newText: 'import bitsandbytes as bnb\n' } : { start: at, end: at, newText: '\nimport bitsandbytes as bnb' });
        }
        fix = { title: `Use bitsandbytes ${name} (8-bit moments)`, applicability: 'unsafe' as const, edits };
      }
      out.push({
        span: opt.span,
        message: `\`${opt.callee}\` keeps its state in float32 (${fmt(now)}) while the model computes in ${info.computeDtype} (${compute}); ${why}. ` +
          (opt.lib === 'optax' ? `mu_dtype=bfloat16 makes it ${fmt(after)}` : `8-bit Adam (bitsandbytes) makes it ${fmt(after)}`) +
          `: training peak ${fmt(newPeak)}${phase.fits === false ? (fits ? ', which fits' : ', still above the budget') : ''}.`,
        related: [],
        fixes: [fix],
      });
    }
    return out;
  },
};
