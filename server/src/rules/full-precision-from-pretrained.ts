/**
 * ## What it does
 * Finds `from_pretrained(...)` calls without a dtype on transformers
 * versions that load weights in float32 by default, and diffusers model
 * loads without `torch_dtype` (float32 in every diffusers version).
 *
 * ## Why is this bad?
 * Before transformers 5.0, models are instantiated in `torch.float32`
 * unless `torch_dtype` (from 4.56: `dtype`) says otherwise, even when the
 * checkpoint is stored in float16 or bfloat16: a 7B model takes 27 GB
 * instead of 13.5 GB.
 *
 * ## Example
 * ```python
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16)
 * ```
 *
 * Quiet for a model the program trains in full (gradients for its
 * parameters, as with a plain fine-tune and no adapters): float32 weights
 * are what mixed-precision training keeps as its master copy, and a
 * float16 load breaks it (`GradScaler.unscale_` raises "Attempting to
 * unscale FP16 gradients", which the Trainer's `fp16=True` calls). Its
 * memory is OOM403's and OOM001's to explain. Quiet too for a model loaded
 * on the host and moved to the device already cast
 * (`.to("cuda", dtype=torch.float16)`): the device never holds float32.
 *
 * ## Fix safety
 * Unsafe: computing in 16 bits changes numerics. The fix picks float16 on
 * devices without bfloat16 (V100, T4) and the checkpoint's own dtype
 * otherwise, and uses the keyword the pinned version expects (`dtype` from
 * 4.56, `torch_dtype` before).
 *
 * ## References
 * - transformers docs, main_classes/model.md: "Under Pytorch a model normally gets instantiated with torch.float32 format"
 * - diffusers models/modeling_utils.py `from_pretrained` (0.42): the model is built under torch's default dtype unless `torch_dtype` is set
 * - torch/amp/grad_scaler.py `_unscale_grads_` (2.13): `raise ValueError("Attempting to unscale FP16 gradients.")`
 * - huggingface/transformers#42805 (v5.0: dtype "auto" by default); #39782 (4.56: `torch_dtype` → `dtype`)
 */
import { dtypeBytes } from '../../../shared/src/dtypes';
import type { ModelFacts } from '../../../shared/src/facts';
import { hfLoadOf } from '../frameworks/transformers/semantics';
import type { Rule } from './types';
import { deviceLabel, fmt } from './util';

export const fullPrecisionFromPretrained: Rule = {
  code: 'OOM201',
  name: 'full-precision-from-pretrained',
  status: 'stable',
  severity: 'warning',
  fixable: 'always',
  summary: 'from_pretrained without a dtype loads float32 weights on transformers < 5.0.',
  check(ctx) {
    const out = [];
    for (const load of ctx.hfLoads) {
      if (load.dtypeArg || load.dtype !== 'float32' || load.quantized) continue;
      // A model built from a config in the program (Model(config), from_config) has no checkpoint dtype to keep:
      // float32 is torch's default there in every version, and Model(config) takes no dtype argument.
      if (load.fromConfig) continue;
      if (load.checkpointDtype === 'float32') continue;
      // An unknown checkpoint (not in the table, the cache or a local folder; a half-typed id): no numbers to give.
      if (load.params === null && load.checkpointDtype === undefined) continue;
      // diffusers builds every model in torch's default dtype unless torch_dtype is given, in every version
      // (diffusers 0.42 models/modeling_utils.py from_pretrained; model_loading_utils.py load_model_dict_into_meta).
      const diffusers = load.library === 'diffusers';
      const v = diffusers ? undefined : load.transformersVersion;
      if (v && Number(v.split('.')[0]) >= 5) continue;
      const model = ctx.models.find((m) => hfLoadOf(m.record.result) === load);
      if (model && trainedInFull(model.report.facts)) continue;
      // Loaded on the host and cast on the way to the device (`.to("cuda", dtype=torch.float16)`): the device never
      // holds the float32 weights, so a dtype at the load saves nothing there (diffusers' SDXL training script).
      if (model && !arrivesInFloat32(model.report.facts)) continue;
      const bf16 = ctx.target.device.bf16;
      const want = load.checkpointDtype === 'bfloat16' && bf16 ? 'bfloat16' : 'float16';
      // The dtype is spelled through the name the program bound torch to at
      // the call (`import torch as th` → th.float16); transformers also
      // accepts the dtype's name as a string when torch is not in reach.
      const value = load.torchName ? `${load.torchName}.${want}` : `"${want}"`;
      const kw = v ? load.keyword : 'torch_dtype';
      const sizeNow = load.params !== null ? ` (${fmt(load.params * 4)})` : '';
      const sizeAfter = load.params !== null ? ` (${fmt(load.params * dtypeBytes(want))})` : '';
      out.push({
        span: load.span,
        message: `\`${load.checkpoint}\` loads in float32${sizeNow}: ${diffusers ? 'diffusers builds the model in torch\'s default dtype, float32, unless torch_dtype is given' : v ? `transformers==${v} defaults to float32` : 'transformers (version not pinned) before 5.0 defaults to float32'}` +
          (load.checkpointDtype ? `, though the checkpoint is stored in ${load.checkpointDtype}` : '') + `. Pass ${kw}=${value}${sizeAfter}` +
          (want === 'float16' && !bf16 ? ` (${deviceLabel(ctx.target)} has no bfloat16)` : '') + '.',
        related: [],
        fixes: [{
          title: `Load in ${want} (${kw}=${value})`,
          applicability: 'unsafe' as const,
          edits: [{ start: load.insertAt, end: load.insertAt, newText: `${load.hasArgs ? ', ' : ''}${kw}=${value}` }],
        }],
      });
    }
    return out;
  },
};

/**
 * Whether a training phase makes gradients for at least half of the model's parameters: a full fine-tune, not
 * adapters (LoRA's gradients are a fraction of a percent of the weights) or a frozen model.
 */
function trainedInFull(facts: ModelFacts): boolean {
  const training = facts.phases.find((p) => p.phase === 'training');
  if (!training || !facts.paramCount) return false;
  let grads = 0;
  for (const e of training.events) {
    if (e.op === 'alloc' && e.tensor.role === 'gradient') grads += e.tensor.shape.reduce((a, b) => a * b, 1);
  }
  return grads >= facts.paramCount / 2;
}

/** Whether the load phase, on the device, holds float32 parameters. */
function arrivesInFloat32(facts: ModelFacts): boolean {
  const load = facts.phases.find((p) => p.phase === 'load');
  // Weights that never leave the host (a pipeline component the program did not move) cost the device nothing.
  return !load || load.events.some((e) => e.op === 'alloc' && e.tensor.role === 'param' && e.tensor.dtype === 'float32' && e.tensor.placement.kind !== 'host');
}
