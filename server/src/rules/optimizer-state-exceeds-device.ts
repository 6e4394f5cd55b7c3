/**
 * ## What it does
 * Reports a full fine-tune whose optimizer state alone is larger than the
 * device's memory, when an 8-bit optimizer or a LoRA adapter would make the
 * training step fit. Information, with the numbers of each option.
 *
 * ## Why is this bad?
 * Adam and AdamW keep two moments per trained parameter (`exp_avg`,
 * `exp_avg_sq`, `zeros_like(param)`): 8 B per float32 parameter, 4 B per
 * 16-bit one, on top of the weights and their gradients. For a 7B model in
 * bfloat16 that is 27 GB of state before a single activation, 52 GB for a
 * 13B one; no batch-size or checkpointing tuning makes the step fit a 24 or
 * 40 GB card.
 * Two changes shrink the state itself:
 * - an 8-bit optimizer (bitsandbytes `AdamW8bit`, `optim="adamw_bnb_8bit"`)
 *   keeps both moments in uint8: 2 B per parameter (Dettmers et al. 2022);
 * - LoRA (peft `get_peft_model(model, LoraConfig(...))`) freezes the base
 *   model: only the adapters (r × (in + out) per targeted layer, float32)
 *   get gradients and optimizer state; the frozen weights stay.
 * The rule computes the step with each change (same activations) and
 * reports the ones that fit; LoRA is sized with peft's defaults (r = 8, its
 * default target modules for the model_type) where the model's Linear
 * layers are known.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * from trl import SFTConfig, SFTTrainer
 *
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf", torch_dtype=torch.bfloat16)
 * args = SFTConfig(output_dir="out", per_device_train_batch_size=1, bf16=True, gradient_checkpointing=True, max_length=512)
 * trainer = SFTTrainer(model=model, args=args)
 * trainer.train()
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from peft import LoraConfig, get_peft_model
 * from transformers import AutoModelForCausalLM
 * from trl import SFTConfig, SFTTrainer
 *
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf", torch_dtype=torch.bfloat16)
 * model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
 * args = SFTConfig(output_dir="out", per_device_train_batch_size=1, bf16=True, gradient_checkpointing=True, max_length=512)
 * trainer = SFTTrainer(model=model, args=args)
 * trainer.train()
 * ```
 * Or keep the full fine-tune with `optim="adamw_bnb_8bit"` when that fits.
 *
 * ## Fix safety
 * No automatic fix: LoRA trains a different (low-rank) update and 8-bit
 * moments change the optimiser's numerics; both are a modelling choice.
 *
 * ## References
 * - torch/optim/adamw.py `_init_group` (exp_avg, exp_avg_sq = zeros_like(p))
 * - Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", arXiv:2110.02861
 * - Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models", arXiv:2106.09685
 * - peft tuners/lora/config.py (r = 8), utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING
 */
import { optimizerStateBytes } from '../../../shared/src/training';
import { hfLoadOf } from '../frameworks/transformers/semantics';
import { DEFAULT_LORA_TARGETS, peftOf } from '../frameworks/peft/semantics';
import { trainingInfo } from '../phases/training';
import type { Rule } from './types';
import { deviceLabel, fmt } from './util';

/** peft LoraConfig default rank (tuners/lora/config.py). */
const LORA_R = 8;

export const optimizerStateExceedsDevice: Rule = {
  code: 'OOM403',
  name: 'optimizer-state-exceeds-device',
  status: 'stable',
  severity: 'information',
  fixable: 'never',
  summary: 'A full fine-tune whose optimizer state alone exceeds the device, where an 8-bit optimizer or LoRA would fit.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const info = trainingInfo(record);
      const opt = info?.optimizer;
      if (!info || !opt || info.parts.optimizer === null || peftOf(record.result)) continue;
      const phase = report.estimate.phases.find((p) => p.phase === 'training');
      if (!phase || phase.peakBytes === null || phase.fits !== false) continue;
      const state = info.parts.optimizer;
      if (state <= phase.budgetBytes) continue;
      // What is at the peak: the state, the gradients; the rest (weights, activations) stays with either change.
      const at = (role: string) => phase.breakdown.filter((c) => c.role === role).reduce((a, c) => a + c.bytes, 0);
      const optAt = at('optimizer');
      const gradAt = at('gradient');
      const options: string[] = [];
      // 8-bit moments: 2 B per parameter, scaled like the state (sharding divides both alike).
      if (!opt.kind.startsWith('bnb.') && /adam/.test(opt.kind)) {
        const ps = report.facts.params.map((t) => ({ shape: t.shape, dtype: t.dtype }));
        const full = optimizerStateBytes(opt.kind, ps, opt.opts).bytes;
        const q8 = full > 0 ? Math.round((optimizerStateBytes('bnb.adamw8bit', ps).bytes * state) / full) : NaN;
        const peak8 = phase.peakBytes - optAt + (optAt > 0 ? q8 : 0);
        if (Number.isFinite(peak8) && peak8 <= phase.budgetBytes) options.push(`an 8-bit AdamW (bitsandbytes AdamW8bit, optim="adamw_bnb_8bit") keeps ${fmt(q8)} of state: peak ${fmt(peak8)}, which fits`);
        else if (Number.isFinite(peak8)) options.push(`an 8-bit AdamW alone (${fmt(q8)} of state) would still need ${fmt(peak8)}`);
      }
      // LoRA with peft's defaults: adapters r·(in + out) per targeted Linear, float32, each with a gradient and two moments.
      const load = hfLoadOf(record.result);
      const mt = load?.config?.model_type;
      const targets = mt ? DEFAULT_LORA_TARGETS[mt] : undefined;
      if (load?.layout && !('why' in load.layout) && targets) {
        const layers = load.layout.linears.filter((l) => targets.some((t) => l.name === t || l.name.endsWith(`.${t}`)));
        const adapter = layers.reduce((a, l) => a + LORA_R * (l.in + l.out), 0);
        const share = info.parts.params > 0 && report.estimate.paramBytes ? info.parts.params / report.estimate.paramBytes : 1;
        const extra = Math.round(adapter * (4 + 4 + 8) * share);
        const peakL = phase.peakBytes - optAt - gradAt + extra;
        if (layers.length && peakL <= phase.budgetBytes) {
          options.push(`LoRA (peft, r=${LORA_R} on [${targets.join(', ')}]: ${adapter.toLocaleString('en-US')} trainable parameters, ${fmt(extra)} with their float32 gradients and AdamW state) freezes the rest: peak ${fmt(peakL)}, which fits`);
        }
      }
      if (!options.some((o) => o.endsWith('which fits'))) continue;
      out.push({
        span: opt.span,
        message: `\`${report.facts.name}\` is fully fine-tuned: \`${opt.callee}\` keeps ${fmt(state)} of state, more than the ${fmt(phase.budgetBytes)} usable on ${deviceLabel(ctx.target)} by itself (training peak ${fmt(phase.peakBytes)}). ` +
          `Options: ${options.join('; ')}.`,
        related: [{ span: report.facts.span, message: `${report.facts.name} is built here` }],
        fixes: [],
      });
    }
    return out;
  },
};
