/**
 * ## What it does
 * Reports a training step that does not fit because of the activations kept
 * for the backward pass, when gradient checkpointing would make it fit.
 *
 * ## Why is this bad?
 * Without recomputation every transformer layer keeps about
 * s·b·h·(34 + 5·a·s/h) bytes (16-bit) for the backward (Korthikanti et al.
 * 2022), which grows with batch × sequence and soon outweighs the weights,
 * gradients and optimizer state together. Checkpointing each layer keeps
 * only its input (2·s·b·h bytes at 16-bit) and recomputes the rest during
 * the backward, for about one more forward's compute.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 *
 * model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
 * optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
 * for step in range(1000):
 *     x = torch.randint(0, 50257, (32, 1024))
 *     loss = model(input_ids=x, labels=x).loss
 *     loss.backward()
 *     optimizer.step()
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 *
 * model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
 * model.gradient_checkpointing_enable()
 * optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
 * for step in range(1000):
 *     x = torch.randint(0, 50257, (32, 1024))
 *     loss = model(input_ids=x, labels=x).loss
 *     loss.backward()
 *     optimizer.step()
 * ```
 * In a hand-written model, wrap each block: `x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)`;
 * in JAX, `jax.checkpoint` / `eqx.filter_checkpoint` / `nn.remat` around the block.
 *
 * ## Fix safety
 * Safe for transformers models: `gradient_checkpointing_enable()` changes
 * compute time, not results. Other models get no automatic fix (the block
 * call to wrap is inside the model's forward).
 *
 * ## References
 * - Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198
 * - Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost", arXiv:1604.06174
 * - transformers `PreTrainedModel.gradient_checkpointing_enable` (modeling_utils.py)
 */
import { trainingInfo } from '../phases/training';
import type { Rule } from './types';
import { fmt } from './util';

export const activationsWithoutCheckpointing: Rule = {
  code: 'OOM402',
  name: 'activations-without-checkpointing',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'A training step that does not fit because of saved activations, where gradient checkpointing would make it fit.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const info = trainingInfo(record);
      const act = info?.activation;
      if (!info || !act || act.recompute !== 'none') continue;
      const phase = report.estimate.phases.find((p) => p.phase === 'training');
      if (!phase || phase.fits !== false || phase.peakBytes === null) continue;
      const actAtPeak = phase.breakdown.filter((c) => c.role === 'activation' && /^activations saved/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
      if (actAtPeak === 0) continue;
      const after = phase.peakBytes - actAtPeak + act.fullRecompute;
      if (after > phase.budgetBytes) continue;
      const fixes = [];
      // A transformers model: `M.gradient_checkpointing_enable()` run once before the training loop, through the
      // expression the loop's forward calls the model by (phases/training.ts beforeLoop, from the syntax tree).
      const at = info.hfLoadSpan ? info.beforeLoop : undefined;
      if (at) {
        const call = `${at.model}.gradient_checkpointing_enable()`;
        fixes.push({ title: `Enable gradient checkpointing (${call})`, applicability: 'safe' as const, edits: [{ start: at.at, end: at.at, newText: `${at.indent}${call}\n` }] });
      }
      const how = record.framework === 'transformers' ? '`model.gradient_checkpointing_enable()`'
        : record.framework === 'torch' ? '`torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)` around each block'
        : record.framework === 'flax' ? '`nn.remat` around the block class' : '`jax.checkpoint` / `eqx.filter_checkpoint` around each block';
      out.push({
        span: phase.breakdown.find((c) => /^activations saved/.test(c.label))?.span ?? report.facts.span,
        message: `\`${report.facts.name}\`: the training step needs ${fmt(phase.peakBytes)} of ${fmt(phase.budgetBytes)}, ${fmt(actAtPeak)} of it activations kept for the backward (${act.layers} layers, ${act.formula.split(' per layer')[0]}). ` +
          `Checkpointing each layer (${how}) keeps only the layer inputs (${fmt(act.fullRecompute)}): peak ${fmt(after)}, which fits.`,
        related: [{ span: report.facts.span, message: `${report.facts.name} is built here` }],
        fixes,
      });
    }
    return out;
  },
};
