/**
 * unsloth's fine-tuning entry points (unsloth @ 015bdef), as its notebooks and most QLoRA scripts use them:
 *
 * - `FastLanguageModel.from_pretrained(model_name, max_seq_length=2048, dtype=None, load_in_4bit=True,
 *   load_in_8bit=False, full_finetuning=False, …)` returns `(model, tokenizer)` (unsloth/models/loader.py). The model
 *   is transformers' `AutoModelForCausalLM.from_pretrained(model_name, device_map="sequential", dtype=dtype,
 *   quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True,
 *   bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=dtype))` when load_in_4bit (unsloth/models/llama.py
 *   FastLlamaModel.from_pretrained); `dtype=None` is bfloat16 where the device supports it, else float16
 *   (`torch.float16 if not SUPPORTS_BFLOAT16 else torch.bfloat16`), and bfloat16 asked for on a device without it
 *   becomes float16. unsloth names resolve to the checkpoints they copy (transformers/catalog.ts unslothOriginal).
 *   `load_in_8bit` and `full_finetuning` go through FastModel with precision rules of their own: loaded as asked,
 *   with an unknown on the model.
 * - `FastLanguageModel.get_peft_model(model, r=16, target_modules=[q,k,v,o,gate,up,down]_proj, lora_alpha=16,
 *   lora_dropout=0, bias="none", use_gradient_checkpointing="unsloth", modules_to_save=None, …)`: peft's
 *   get_peft_model with that LoraConfig (llama.py FastLlamaModel.get_peft_model). unsloth prepares the model itself
 *   (_utils.py prepare_model_for_kbit_training → prepare_model_for_training with train_layernorms=False): unlike
 *   peft's, it does not cast the 16-bit modules to float32. `use_gradient_checkpointing` True or "unsloth" turns
 *   checkpointing on; "unsloth" with max_seq_length ≥ 512 offloads the kept layer inputs to host memory
 *   (_utils.py: "Offloading not worth it below ~512"; unsloth_zoo Unsloth_Offloaded_Gradient_Checkpointer).
 * - `FastLanguageModel.for_inference(model)` / `for_training(model)`: the same model.
 */
import type { DType } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, str } from '../../interp/values';
import { trainingProgram } from '../../phases/training';
import { unslothOriginal } from '../transformers/catalog';
import { hfLoadOf, loadWithDtype } from '../transformers/semantics';

const CLASSES = ['FastLanguageModel', 'FastModel', 'FastVisionModel', 'FastLlamaModel', 'FastMistralModel', 'FastQwen2Model', 'FastGemmaModel', 'FastGemma2Model'];
const DEFAULT_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
/** from_pretrained's max_seq_length per model (get_peft_model's offloading threshold reads it). */
const MAX_SEQ = new WeakMap<object, number>();

const arg = (c: CallArgs, i: number, k: string): Value | undefined => c.kw.get(k) ?? c.args[i];
const bool = (v: Value | undefined, dflt: boolean): boolean | undefined => (v === undefined || v.t === 'none' ? dflt : v.t === 'bool' ? v.v : undefined);

export function installUnsloth(it: Interpreter): void {
  for (const cls of CLASSES) {
    for (const mod of ['unsloth', 'unsloth.models', 'unsloth.models.loader']) {
      it.externs.set(`${mod}.${cls}.from_pretrained`, (_i, _s, c, node) => fromPretrained(it, cls, c, node));
      it.externs.set(`${mod}.${cls}.get_peft_model`, (_i, _s, c, node) => getPeftModel(it, c, node));
      for (const m of ['for_inference', 'for_training']) it.externs.set(`${mod}.${cls}.${m}`, (_i, _s, c) => c.args[0] ?? c.kw.get('model') ?? NONE);
    }
  }
}

function fromPretrained(it: Interpreter, cls: string, c: CallArgs, node: SyntaxNode): Value {
  const tokenizer: Value = { t: 'extern', name: 'transformers.AutoTokenizer(instance)', kw: new Map() };
  const nameV = arg(c, 0, 'model_name');
  if (nameV !== undefined && nameV.t !== 'str') {
    return { t: 'tuple', items: [it.note(`${cls}.from_pretrained: the checkpoint name is not known (${nameV.t === 'unknown' ? nameV.reason : 'not a string'}), so which model unsloth loads is not known`, node), tokenizer] };
  }
  // The loader's default model (loader.py FastLanguageModel.from_pretrained).
  const name = nameV?.v ?? 'unsloth/Llama-3.2-1B-Instruct';
  const four = bool(arg(c, 3, 'load_in_4bit'), true);
  const eight = bool(c.kw.get('load_in_8bit'), false);
  const full = bool(c.kw.get('full_finetuning'), false);
  const maxSeq = arg(c, 1, 'max_seq_length');
  // dtype=None: bfloat16 where the target supports it, else float16 (llama.py FastLlamaModel.from_pretrained).
  const d = it.state.get('deviceInfo') as { vendor?: string; bf16?: boolean } | undefined;
  const bf16 = d?.vendor === 'nvidia' && typeof d.bf16 === 'boolean' ? d.bf16 : undefined;
  const dv = arg(c, 2, 'dtype');
  let dtype: { dtype: DType | undefined; why: string };
  const asked = dv?.t === 'dtype' ? dv.dtype : dv?.t === 'str' ? dv.v as DType : undefined;
  if (dv !== undefined && dv.t !== 'none' && !asked) dtype = { dtype: undefined, why: 'the dtype given to unsloth is not known' };
  else if (asked && asked !== 'bfloat16') dtype = { dtype: asked, why: `dtype=${asked} given to unsloth's from_pretrained` };
  else if (bf16 === undefined) dtype = { dtype: undefined, why: `unsloth loads in bfloat16 or float16 by the device's bfloat16 support, which is not known for the target` };
  else dtype = { dtype: bf16 ? 'bfloat16' : 'float16', why: `unsloth loads in ${bf16 ? 'bfloat16' : 'float16'}: ${asked ? 'asked for bfloat16, ' : 'dtype=None, '}and the target ${bf16 ? 'supports' : 'does not support'} bfloat16 (unsloth/models/llama.py from_pretrained)` };
  if (four === undefined || eight === undefined || full === undefined) {
    return { t: 'tuple', items: [it.note(`${cls}.from_pretrained: whether the model loads in 4 or 8 bits, or for full fine-tuning, is not known`, node), tokenizer] };
  }
  const kw = new Map<string, Value>([['device_map', str('sequential')]]);
  const quant4 = four && !eight && !full;
  if (quant4) {
    const q = new Map<string, Value>([['load_in_4bit', { t: 'bool', v: true }], ['bnb_4bit_use_double_quant', { t: 'bool', v: true }], ['bnb_4bit_quant_type', str('nf4')]]);
    if (dtype.dtype) q.set('bnb_4bit_compute_dtype', { t: 'dtype', dtype: dtype.dtype });
    kw.set('quantization_config', { t: 'extern', name: 'transformers.BitsAndBytesConfig', kw: q });
  } else if (eight && !full) {
    kw.set('load_in_8bit', { t: 'bool', v: true });
  }
  // An unsloth id loads as the checkpoint it copies; a dynamic quant ("-unsloth-bnb-4bit") as its original.
  const dynamic = /-unsloth-bnb-4bit$/i.test(name);
  const id = dynamic ? (unslothOriginal(name) ?? name) : name;
  const model = loadWithDtype(it, 'AutoModelForCausalLM', id, kw, node, dtype);
  // Its training forward is unsloth's (the fused cross-entropy: phases/training.ts).
  const load = hfLoadOf(model);
  if (load) load.library = 'unsloth';
  const rec = model.t === 'inst' ? it.memory.lastFinishedWithResult(model) : undefined;
  if (rec) {
    if (dynamic && quant4) rec.unknowns.push({ what: 'parameters', reason: `"${name}" is an unsloth dynamic 4-bit quant: some layers, which unsloth does not list, stay 16-bit; they are counted as 4-bit (a lower bound)`, span: it.span(node) });
    if (full || eight) rec.unknowns.push({ what: 'parameters', reason: `unsloth ${full ? 'full_finetuning' : 'load_in_8bit'} goes through FastModel with precision rules oomlens does not model (unsloth/models/loader.py)`, span: it.span(node) });
  }
  if (model.t === 'inst' && maxSeq?.t === 'int') MAX_SEQ.set(model, maxSeq.v);
  else if (model.t === 'inst' && maxSeq === undefined) MAX_SEQ.set(model, 2048);
  return { t: 'tuple', items: [model, tokenizer] };
}

function getPeftModel(it: Interpreter, c: CallArgs, node: SyntaxNode): Value {
  const model = arg(c, 0, 'model') ?? NONE;
  const cfg = new Map<string, Value>([
    ['r', arg(c, 1, 'r') ?? { t: 'int', v: 16 }],
    ['target_modules', arg(c, 2, 'target_modules') ?? { t: 'list', items: DEFAULT_TARGETS.map(str) }],
    ['lora_alpha', arg(c, 3, 'lora_alpha') ?? { t: 'int', v: 16 }],
    ['lora_dropout', arg(c, 4, 'lora_dropout') ?? { t: 'int', v: 0 }],
    ['bias', arg(c, 5, 'bias') ?? str('none')],
    ['task_type', str('CAUSAL_LM')],
  ]);
  for (const k of ['modules_to_save', 'use_rslora', 'layers_to_transform', 'use_dora']) { const v = c.kw.get(k); if (v) cfg.set(k, v); }
  const apply = it.externs.get('peft.get_peft_model');
  const out = apply ? apply(it, undefined, { args: [model, { t: 'extern', name: 'peft.LoraConfig', kw: cfg }], kw: new Map() }, node, { t: 'extern', name: 'peft.get_peft_model' }) : model;
  const gc = c.kw.get('use_gradient_checkpointing') ?? str('unsloth');
  const on = gc.t === 'str' ? gc.v === 'unsloth' : gc.t === 'bool' ? gc.v : undefined;
  if (on === undefined) it.note('get_peft_model: whether use_gradient_checkpointing is on is not known', node);
  else if (on) {
    const maxSeq = model.t === 'inst' ? MAX_SEQ.get(model) : undefined;
    const offload = gc.t === 'str' && maxSeq !== undefined && maxSeq >= 512;
    trainingProgram(it).checkpointing.push({ span: it.span(node), how: `use_gradient_checkpointing=${gc.t === 'str' ? `"${gc.v}"` : 'True'}`, ...(offload ? { offload } : {}) });
  }
  return out;
}
