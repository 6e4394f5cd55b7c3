/**
 * ## What it does
 * Finds `model.generate(...)` calls on transformers versions before 4.45
 * whose first forward pass (the prefill over the whole prompt) runs out of
 * memory only because it computes logits for every prompt position.
 *
 * ## Why is this bad?
 * `generate()` needs the next-token logits of the last position only. Before
 * transformers 4.45, Llama-family models computed the logits of all
 * positions in the prefill, batch × prompt × vocabulary, and upcast them to
 * float32 (`logits = logits.float()`), so both copies existed at once. With
 * a 128,256-token vocabulary (Llama 3) that is 6 B × 128,256 = 770 kB per
 * prompt token: 8 prompts of 4,096 tokens need 25 GB for logits that are
 * thrown away. transformers 4.45 passes `logits_to_keep=1` (then
 * `num_logits_to_keep`) and computes one position.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype=torch.bfloat16, device_map="cuda:0")
 * ids = torch.randint(0, 128256, (8, 4096), device="cuda:0")
 * out = model.generate(ids, max_new_tokens=16)
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype=torch.bfloat16, device_map="cuda:0")
 * ids = torch.randint(0, 128256, (8, 4096), device="cuda:0")
 * outs = [model.generate(ids[i : i + 2], max_new_tokens=16) for i in range(0, 8, 2)]
 * ```
 *
 * ## Fix safety
 * No edit is offered: the fix is a dependency upgrade (`transformers>=4.45`)
 * in the project's requirements, or smaller batches of prompts per call.
 *
 * ## References
 * - huggingface/transformers#30860 (the `logits = logits.float()` upcast doubles the logits' memory)
 * - huggingface/transformers#31292 (merged for 4.45: `num_logits_to_keep`, "removing useless logits computation in generate()")
 * - transformers generation/utils.py: `model_kwargs["logits_to_keep"] = 1` when the model supports it
 */
import { inferenceUses } from '../phases/inference';
import type { Rule } from './types';
import { deviceLabel, fmt } from './util';

export const fullPrefillLogits: Rule = {
  code: 'OOM303',
  name: 'full-prefill-logits',
  status: 'stable',
  severity: 'warning',
  fixable: 'never',
  summary: 'generate() on transformers < 4.45 computes float32 logits for every prompt position and runs out of memory on them.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const phase = report.estimate.phases.find((p) => p.phase === 'inference');
      if (!phase || phase.peakBytes === null || phase.fits !== false) continue;
      for (const u of inferenceUses(record)) {
        if (u.kind !== 'generate' || !u.prefillLogits || !u.prefillLogits.logitsFamily) continue;
        const l = u.prefillLogits;
        // Only when the prefill is the peak and keeping the last position's logits would make it fit.
        const atPeak = phase.breakdown.some((c) => c.label.startsWith('prefill forward') && c.bytes === l.transient);
        if (!atPeak) continue;
        // From 4.45: one position in the model dtype plus generate()'s float32 copy of it.
        const lastOnly = l.batch * l.vocab * (l.bytesPerElement + 4);
        const without = phase.peakBytes - l.transient + Math.max(l.rest, lastOnly);
        if (without > phase.budgetBytes) continue;
        out.push({
          span: u.span,
          message: `transformers==${l.version} computes the logits of all ${l.positions.toLocaleString('en-US')} prompt positions × ${l.batch} in generate()'s first forward` +
            `${l.upcast ? ' and upcasts them to float32' : ''}: ${fmt(l.bytes)} (${l.batch}×${l.positions}×${l.vocab.toLocaleString('en-US')}×${l.upcast ? `(${l.bytesPerElement}+4)` : l.bytesPerElement} B), ` +
            `taking the inference peak to ${fmt(phase.peakBytes)} of ${fmt(phase.budgetBytes)} usable on ${deviceLabel(ctx.target)}. ` +
            `From transformers 4.45 generate() keeps only the last position (logits_to_keep=1) and the peak would be about ${fmt(without)}: pin transformers>=4.45, or pass fewer prompts per call.`,
          related: [],
          fixes: [],
        });
      }
    }
    return out;
  },
};
