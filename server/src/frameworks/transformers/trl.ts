/**
 * trl's own entry points, as its example scripts and most SFT scripts use
 * them (trl @ f2cd577, trl/scripts/sft.py):
 *
 * - `TrlParser(dataclass_types).parse_args_and_config()`: HfArgumentParser
 *   (trl/scripts/utils.py) that also reads `--config file.yaml` (its keys are
 *   defaults; the command line wins). Handled in program/entrypoints.ts.
 * - `get_peft_config(model_args)`: None unless `use_peft`, else
 *   `LoraConfig(r=lora_r, lora_alpha=lora_alpha, lora_dropout=…,
 *   target_modules=lora_target_modules, modules_to_save=…)`; ModelConfig
 *   defaults lora_r=16, lora_alpha=32, target_modules None (peft's default
 *   for the architecture) (trl/trainer/utils.py, trl/trainer/model_config.py).
 * - `get_quantization_config(model_args)`: a BitsAndBytesConfig when
 *   `load_in_4bit` / `load_in_8bit`, else None.
 * - `SFTTrainer(model="org/name", args=SFTConfig(model_init_kwargs=…),
 *   peft_config=…)`: the trainer loads the model with
 *   `from_pretrained(model, **model_init_kwargs)`; without a dtype there it
 *   loads float32 (sft_trainer.py docstring: "If `dtype` is not specified in
 *   `args.model_init_kwargs`, it defaults to `float32`"); a peft_config is
 *   applied with get_peft_model.
 */
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, str, unknown } from '../../interp/values';
import { peftOf } from '../peft/semantics';
import { hfLoadOf } from './semantics';

function kwOf(v: Value | undefined): Map<string, Value> | undefined {
  if (v?.t === 'extern' && v.kw) return v.kw;
  if (v?.t === 'inst') return v.attrs;
  if (v?.t === 'dict') return new Map(v.keys.flatMap((k, i) => (k.t === 'str' ? [[k.v, v.vals[i]] as [string, Value]] : [])));
  return undefined;
}

const flag = (m: Map<string, Value> | undefined, k: string) => { const v = m?.get(k); return v?.t === 'bool' ? v.v : v ? undefined : false; };

/**
 * Defaults of trl's ModelConfig fields that decide memory (trl/trainer/model_config.py @ f2cd577): a value
 * the command line does not give reads as this default; other fields of library dataclasses stay unknown.
 */
export const LIBRARY_DATACLASS_DEFAULTS: Record<string, Record<string, Value>> = {
  'trl.ModelConfig': {
    dtype: str('float32'), use_peft: { t: 'bool', v: false }, lora_r: { t: 'int', v: 16 }, lora_alpha: { t: 'int', v: 32 },
    lora_target_modules: NONE, lora_modules_to_save: NONE, load_in_4bit: { t: 'bool', v: false }, load_in_8bit: { t: 'bool', v: false },
    bnb_4bit_quant_type: str('nf4'), use_bnb_nested_quant: { t: 'bool', v: false }, attn_implementation: NONE, model_revision: str('main'),
  },
};

export function installTrl(it: Interpreter): void {
  it.externs.set('trl.get_peft_config', (_i, _s, c: CallArgs, node: SyntaxNode) => {
    const m = kwOf(c.args[0] ?? c.kw.get('model_args'));
    const use = flag(m, 'use_peft');
    if (use === false) return NONE;
    if (use === undefined || !m) return unknown('get_peft_config: whether use_peft is set is not known', it.span(node));
    const kw = new Map<string, Value>([['r', m.get('lora_r') ?? { t: 'int', v: 16 }], ['lora_alpha', m.get('lora_alpha') ?? { t: 'int', v: 32 }],
      ['target_modules', m.get('lora_target_modules') ?? NONE], ['modules_to_save', m.get('lora_modules_to_save') ?? NONE], ['task_type', str('CAUSAL_LM')]]);
    return { t: 'extern', name: 'peft.LoraConfig', kw };
  });
  // setup_chat_format(model, tokenizer, format="chatml", resize_to_multiple_of=None) (trl/models/utils.py): adds the
  // chat's special tokens to the tokenizer and resizes the model's embeddings (and tied head) to the tokenizer's new
  // length; returns (model, tokenizer). The model is the same object; its vocabulary grows by tokens oomlens does not
  // count (the tokenizer's length is not known), so its size is a lower bound.
  for (const n of ['trl.setup_chat_format', 'trl.models.utils.setup_chat_format', 'trl.models.setup_chat_format']) {
    it.externs.set(n, (_i, _s, c: CallArgs, node: SyntaxNode) => {
      const model = c.args[0] ?? c.kw.get('model') ?? NONE;
      const tok = c.args[1] ?? c.kw.get('tokenizer') ?? unknown('the tokenizer setup_chat_format returns', it.span(node));
      const rec = model.t === 'inst' ? it.memory.lastFinishedWithResult(model) : undefined;
      rec?.unknowns.push({ what: 'embeddings', reason: 'setup_chat_format resizes the embeddings to the tokenizer\'s length with the chat tokens added (trl/models/utils.py): the rows it adds are not counted', span: it.span(node) });
      return { t: 'tuple', items: [model, tok] };
    });
  }
  it.externs.set('trl.get_quantization_config', (_i, _s, c: CallArgs, node: SyntaxNode) => {
    const m = kwOf(c.args[0] ?? c.kw.get('model_args'));
    const four = flag(m, 'load_in_4bit'), eight = flag(m, 'load_in_8bit');
    if (four === false && eight === false) return NONE;
    if (four === undefined || eight === undefined || !m) return unknown('get_quantization_config: whether the model loads in 4 or 8 bits is not known', it.span(node));
    const kw = new Map<string, Value>([[four ? 'load_in_4bit' : 'load_in_8bit', { t: 'bool', v: true }]]);
    if (four) { kw.set('bnb_4bit_quant_type', m.get('bnb_4bit_quant_type') ?? str('nf4')); kw.set('bnb_4bit_use_double_quant', m.get('use_bnb_nested_quant') ?? { t: 'bool', v: false }); }
    return { t: 'extern', name: 'transformers.BitsAndBytesConfig', kw };
  });
}

/**
 * SFTTrainer(model="id", …): the model trl loads, with its model_init_kwargs and quantization_config, and the
 * peft_config applied; `load` is the transformers from_pretrained model (semantics.ts).
 */
export function sftModel(it: Interpreter, kw: Map<string, Value>, node: SyntaxNode, load: (id: string, kw: Map<string, Value>) => Value): Value | undefined {
  const model = kw.get('model');
  if (model?.t === 'inst') return peftModelGiven(it, model, kw, node);
  if (model?.t !== 'str') return undefined;
  const init = new Map(kwOf(kwOf(kw.get('args'))?.get('model_init_kwargs')) ?? []);
  for (const [k, v] of [...init]) if (v.t === 'none') init.delete(k);
  if (!init.has('dtype') && !init.has('torch_dtype')) init.set('dtype', str('float32'));
  const q = kw.get('quantization_config');
  if (q && q.t !== 'none') init.set('quantization_config', q);
  let m = load(model.v, init);
  const peft = kw.get('peft_config');
  if (peft && peft.t !== 'none') {
    // An unknown peft_config reaches get_peft_model as such: the trainable set is then unknown (peft/semantics.ts).
    const apply = it.externs.get('peft.get_peft_model');
    if (apply) m = apply(it, undefined, { args: [m, peft], kw: new Map() }, node, { t: 'extern', name: 'peft.get_peft_model' });
  }
  return m;
}

/**
 * SFTTrainer(model=<a model>, peft_config=…) (trl sft_trainer.py __init__ / _prepare_peft_model): a model that is not
 * already a PeftModel gets the adapters (`get_peft_model(model, peft_config)`), after
 * `prepare_model_for_kbit_training(model, use_gradient_checkpointing=args.gradient_checkpointing)` when it is loaded
 * in 4 or 8 bits.
 */
function peftModelGiven(it: Interpreter, model: Value, kw: Map<string, Value>, node: SyntaxNode): Value | undefined {
  const peft = kw.get('peft_config');
  if (!peft || peft.t === 'none' || peftOf(model)) return undefined;
  let m = model;
  if (hfLoadOf(model)?.quant) {
    const prepare = it.externs.get('peft.prepare_model_for_kbit_training');
    const gc = kwOf(kw.get('args'))?.get('gradient_checkpointing');
    if (prepare) m = prepare(it, undefined, { args: [m], kw: new Map([['use_gradient_checkpointing', gc ?? { t: 'bool', v: false }]]) }, node, { t: 'extern', name: 'peft.prepare_model_for_kbit_training' });
  }
  const apply = it.externs.get('peft.get_peft_model');
  return apply ? apply(it, undefined, { args: [m, peft], kw: new Map() }, node, { t: 'extern', name: 'peft.get_peft_model' }) : undefined;
}
