/**
 * PEFT LoRA: `get_peft_model(model, LoraConfig(...))` freezes the base model
 * and adds, to every targeted Linear layer, `lora_A` (r × in) and `lora_B`
 * (out × r) (peft tuners/lora/layer.py `LoraLayer.update_layer`; `lora_B` gets
 * a bias with `lora_bias=True`, DoRA a magnitude vector of `out` with
 * `use_dora=True`). Only the adapters, the `modules_to_save` copies
 * (tuners_utils.py ModulesToSaveWrapper: a deep copy of the module that
 * trains) and the biases `bias="all"` / `"lora_only"` unfreeze are trainable,
 * so only they get gradients and optimizer state.
 *
 * Matching (peft tuners/tuners_utils.py `check_target_module_exists`, peft 0.13–0.21):
 * a string `target_modules` is a regex that must `re.fullmatch` the module
 * name; a list matches a name equal to an entry or ending in `.entry`;
 * `"all-linear"` takes the last name component of every Linear / Conv1D
 * except the output layer (`_maybe_include_all_linear_layers`); None takes
 * peft's default for the model_type (utils/constants.py
 * TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING). `exclude_modules`
 * removes matches the same way. `rank_pattern` entries apply to names
 * matching `(.*\.)?(pattern)$` (utils/other.py `get_pattern_key`).
 *
 * Dtypes: `get_peft_model(autocast_adapter_dtype=True)` (the default) casts
 * float16/bfloat16 adapters to float32 (tuners_utils.py `cast_adapter_dtype`),
 * and adapters on a quantised layer stay float32 (`_move_adapter_to_device_of_base_layer`
 * moves them to the base weight's dtype only when it is floating): adapters are
 * float32 unless autocast is off on a float16/bfloat16 base.
 *
 * `prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)`
 * (peft utils/other.py): casts every float16/bfloat16 parameter that is not a
 * packed 4-bit weight to float32 and, for a quantised model, enables gradient
 * checkpointing.
 *
 * The layout comes from the model: the Linear layers of a from_pretrained
 * model by config.json (frameworks/transformers/linears.ts), those of a torch
 * model built in the file from its module tree. Counts are checked against
 * peft's `get_nb_trainable_parameters()` on the same model: test/analysis/peft.test.ts.
 */
import type { DType, Span } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type InstV, type Value, NONE, num } from '../../interp/values';
import { hfLoadOf } from '../transformers/semantics';
import type { LinearModule, ModelLayout } from '../transformers/linears';
import { trainingProgram } from '../../phases/training';

/** peft's default LoRA targets per model_type (utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING, peft 0.21). */
export const DEFAULT_LORA_TARGETS: Record<string, string[]> = {
  llama: ['q_proj', 'v_proj'], mistral: ['q_proj', 'v_proj'], qwen2: ['q_proj', 'v_proj'], qwen3: ['q_proj', 'v_proj'],
  gemma: ['q_proj', 'v_proj'], gemma2: ['q_proj', 'v_proj'], gemma3_text: ['q_proj', 'v_proj'], gpt2: ['c_attn'],
  opt: ['q_proj', 'v_proj'], falcon: ['query_key_value'], bloom: ['query_key_value'], gpt_neox: ['query_key_value'],
};

export interface PeftInfo {
  span: Span;
  /** What was targeted, for messages. */
  how: string;
  /** Trainable tensors: adapters, modules_to_save copies, unfrozen biases. */
  trainable: { label: string; params: number; dtype: DType }[];
  adapterParams: number;
  /** The targeted layers with their ranks (LoRA activations). */
  targeted: (LinearModule & { r: number })[];
  /** Why the adapters' saved activations are not sized (adapters on fused MoE parameters). */
  activationWhy?: string;
  loraDropout: number;
  why?: string;
}

/**
 * `castAll`: prepare_model_for_kbit_training casts every float16/bfloat16 parameter to float32, and so does
 * prepare_model_for_int8_training from peft 0.3.0; peft 0.2's (utils/other.py at v0.2.0) casts only 1-D parameters whose name holds one
 * of `layer_norm_names` (default ["layer_norm"]).
 */
export interface KbitPrep { span: Span; checkpointing: boolean; castAll: boolean; layerNormNames?: string[] }

const PEFT = new WeakMap<object, PeftInfo>();
const KBIT = new WeakMap<object, KbitPrep>();
export const peftOf = (v: Value | undefined): PeftInfo | undefined => (v && typeof v === 'object' ? PEFT.get(v) : undefined);
export const kbitPrepOf = (v: Value | undefined): KbitPrep | undefined => (v && typeof v === 'object' ? KBIT.get(v) : undefined);

const kw = (v: Value | undefined): Map<string, Value> => (v?.t === 'extern' && v.kw ? v.kw : new Map());
const strs = (v: Value | undefined): string[] | undefined => (v?.t === 'list' || v?.t === 'tuple' ? v.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : undefined);

/** A torch model's Linear layers, embeddings and biases from its module tree (names as named_modules gives them). */
function torchLayout(root: Value): { layout: ModelLayout; dtypes: Map<string, DType>; biases: number; subtree: Map<string, number> } {
  const linears: LinearModule[] = [];
  const others: { name: string; params: number }[] = [];
  const dtypes = new Map<string, DType>();
  const subtree = new Map<string, number>();
  let biases = 0;
  const seen = new Set<object>();
  const walk = (v: Value, path: string): number => {
    if (v.t !== 'inst' || seen.has(v)) return 0;
    seen.add(v);
    let total = 0;
    const w = v.attrs.get('weight');
    const b = v.attrs.get('bias');
    if (v.cls.name === 'Linear' && w?.t === 'tensor' && w.shape.length === 2 && typeof w.shape[0] === 'number' && typeof w.shape[1] === 'number') {
      linears.push({ name: path, in: w.shape[1], out: w.shape[0], bias: b?.t === 'tensor' });
      dtypes.set(path, w.dtype);
    }
    for (const [k, a] of v.attrs) {
      if (a.t === 'tensor' && a.role === 'param') {
        const n = a.shape.reduce<number>((x, d) => x * (typeof d === 'number' ? d : NaN), 1);
        total += n;
        if (k === 'bias') biases += n;
      } else if (a.t === 'inst') total += walk(a, path ? `${path}.${k}` : k);
      else if (a.t === 'list' || a.t === 'tuple') a.items.forEach((x, i) => { total += walk(x, path ? `${path}.${k}.${i}` : `${k}.${i}`); });
    }
    (v.items ?? []).forEach((x, i) => { total += walk(x, path ? `${path}.${i}` : String(i)); });
    if (/Embedding/.test(v.cls.name)) others.push({ name: path, params: total });
    subtree.set(path, total);
    return total;
  };
  walk(root, '');
  return { layout: { linears, others }, dtypes, biases, subtree };
}

const endsWith = (name: string, t: string) => name === t || name.endsWith(`.${t}`);

export function installPeft(it: Interpreter): void {
  it.externs.set('peft.LoraConfig', (_i, _s, c) => ({ t: 'extern', name: 'peft.LoraConfig', kw: new Map(c.kw) }));
  for (const name of ['prepare_model_for_kbit_training', 'prepare_model_for_int8_training']) {
    const int8 = name === 'prepare_model_for_int8_training';
    it.externs.set(`peft.${name}`, (_i, _s, c: CallArgs, node: SyntaxNode) => {
      const model = c.args[0] ?? c.kw.get('model') ?? NONE;
      // int8: (model, output_embedding_layer_name="lm_head", use_gradient_checkpointing=True, layer_norm_names=["layer_norm"]).
      const g = c.kw.get('use_gradient_checkpointing') ?? c.args[int8 ? 2 : 1];
      const on = !(g?.t === 'bool' && !g.v);
      const load = hfLoadOf(model);
      const kbit = !!load?.quant;
      const ln = c.kw.get('layer_norm_names') ?? (int8 ? c.args[3] : undefined);
      const layerNormNames = ln && (ln.t === 'list' || ln.t === 'tuple') ? ln.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : ['layer_norm'];
      // peft 0.2 cast only 1-D parameters named like a layer norm; from 0.3.0 prepare_model_for_int8_training casts
      // every float16/bfloat16 parameter (utils/other.py at v0.3.0: "cast all non INT8 parameters to fp32"), and from
      // 0.4.0 it is an alias of prepare_model_for_kbit_training. Unpinned: the cast of every one (the larger).
      const pv = ((it.state.get('versions') as Record<string, string> | undefined) ?? {}).peft;
      const [maj, min] = (pv ?? '').split('.').map((x) => Number(x));
      const layerNormOnly = int8 && pv !== undefined && Number.isFinite(maj) && Number.isFinite(min) && maj === 0 && min < 3;
      if (model.t === 'inst') KBIT.set(model, { span: it.span(node), checkpointing: on && kbit, castAll: !layerNormOnly, ...(layerNormOnly ? { layerNormNames } : {}) });
      if (on && kbit) trainingProgram(it).checkpointing.push({ span: it.span(node), how: `${name}(use_gradient_checkpointing=True)` });
      return model;
    });
  }
  // `model.add_adapter(lora_config)` (diffusers models/adapter PeftAdapterMixin.add_adapter, transformers
  // integrations/peft.py PeftAdapterMixin.add_adapter): peft's inject_adapter_in_model on the model itself, in place
  // (peft mapping.py inject_adapter_in_model → the tuner's inject_adapter, which marks only the adapters trainable,
  // tuners_utils.py BaseTuner.inject_adapter → _mark_only_adapters_as_trainable). Returns None.
  for (const base of ['torch.nn.Module', 'transformers.PreTrainedModel']) {
    it.externs.set(`${base}.add_adapter`, (_i, self, c: CallArgs, node: SyntaxNode) => {
      const cfg = c.args[0] ?? c.kw.get('adapter_config') ?? c.kw.get('peft_config');
      if (self?.t === 'inst') PEFT.set(self, { ...loraInfo(it, self, cfg, undefined, it.span(node)), how: 'add_adapter' });
      return NONE;
    });
  }
  it.externs.set('peft.get_peft_model', (_i, _s, c: CallArgs, node: SyntaxNode) => {
    const model = c.args[0] ?? c.kw.get('model') ?? NONE;
    const cfg = c.args[1] ?? c.kw.get('peft_config');
    if (model.t === 'inst') PEFT.set(model, loraInfo(it, model, cfg, c.kw.get('autocast_adapter_dtype'), it.span(node)));
    return model;
  });
}

function loraInfo(it: Interpreter, model: InstV, cfgV: Value | undefined, autocastV: Value | undefined, span: Span): PeftInfo {
  const info: PeftInfo = { span, how: 'get_peft_model', trainable: [], adapterParams: 0, targeted: [], loraDropout: 0 };
  if (cfgV?.t !== 'extern' || cfgV.name !== 'peft.LoraConfig') { info.why = 'the PEFT config is not a literal LoraConfig (other PEFT methods are not modelled)'; return info; }
  const k = kw(cfgV);
  const r = k.has('r') ? num(k.get('r')!) : 8; // LoraConfig.r default 8 (peft tuners/lora/config.py)
  if (r === undefined) { info.why = 'LoraConfig(r=...) is not a literal'; return info; }
  info.loraDropout = num(k.get('lora_dropout') ?? NONE) ?? 0;
  const load = hfLoadOf(model);
  let layout: ModelLayout | undefined;
  let baseDtype: (name: string) => DType | undefined;
  let biasAll = 0;
  let subtree: Map<string, number> | undefined;
  if (load) {
    if (!load.layout || 'why' in load.layout) { info.why = `the Linear layers of "${load.checkpoint}" are not known (${load.layout?.why ?? 'no config.json'})`; return info; }
    layout = load.layout;
    baseDtype = () => load.dtype;
    biasAll = layout.linears.reduce((a, l) => a + (l.bias ? l.out : 0), 0) + (layout.otherBiases ?? 0);
  } else {
    const t = torchLayout(model);
    layout = t.layout;
    baseDtype = (n) => t.dtypes.get(n);
    biasAll = t.biases;
    subtree = t.subtree;
  }
  // target_modules → the matched Linear layers.
  const tm = k.get('target_modules');
  let match: (name: string) => boolean;
  const mt = load?.config?.model_type;
  // peft's v4 → v5 MoE renaming (utils/transformers_weight_conversion.py _convert_peft_config_moe, peft 0.21): a
  // target name (or, for "all-linear", the last component of every Linear but the output layer, plus every old
  // name) equal to or ending in `.old` becomes target_parameters `new`; both halves of a fused pair must be named,
  // and the fused parameter gets rank r · 2 (rank_pattern `.*\.gate_up_proj`).
  // task_type SEQ_CLS (peft_model.py PeftModelForSequenceClassification): "classifier" and "score" join
  // modules_to_save, and "all-linear" skips the classifier (tuners_utils.py _maybe_include_all_linear_layers,
  // SEQ_CLS_HEAD_NAMES), which is otherwise a Linear like the others (get_output_embeddings() is None).
  const tt = k.get('task_type');
  const seqTask = (tt?.t === 'str' && tt.v === 'SEQ_CLS') || (tt?.t === 'extern' && /\.SEQ_CLS$/.test(tt.name));
  if (layout.seqClsHead && tt && tt.t !== 'none' && tt.t !== 'str' && !seqTask) { info.why = 'LoraConfig(task_type=...) is not a literal'; return info; }
  const outLayer = layout.seqClsHead ? (seqTask ? layout.seqClsHead : undefined) : layout.outputLayer;
  const rename = layout.moeRename;
  const paramTargets = new Map<string, number>();
  if (rename && tm?.t === 'str' && tm.v !== 'all-linear') { info.why = `target_modules regex "${tm.v}" on ${mt}: peft maps it onto the fused experts by probing module names, which oomlens does not follow`; return info; }
  let names: string[] | undefined;
  if (rename && (strs(tm) || (tm?.t === 'str' && tm.v === 'all-linear'))) {
    const out = outLayer?.split('.').pop();
    const list = strs(tm) ?? [...new Set([...layout.linears.map((l) => l.name.split('.').pop()!).filter((x) => x !== out), ...Object.keys(rename.map)])];
    const seen = new Map<string, Set<string>>();
    names = [];
    for (const t of list) {
      const old = Object.keys(rename.map).find((o) => t === o || t.endsWith(`.${o}`));
      if (!old) { names.push(t); continue; }
      const nw = rename.map[old];
      if (!seen.has(nw)) seen.set(nw, new Set());
      seen.get(nw)!.add(old);
    }
    for (const [nw, olds] of seen) {
      const need = rename.fused[nw];
      if (need && olds.size < need.length) { info.why = `peft raises "Cannot convert PEFT target(s) ${[...olds].join(', ')} without also targeting ${need.filter((x) => !olds.has(x)).join(', ')} because they are fused into ${nw}"`; return info; }
      paramTargets.set(nw, need && need.length > 1 ? r * need.length : r);
    }
  }
  if (names) {
    const list = names;
    match = (n) => list.some((t) => endsWith(n, t));
    info.how = tm?.t === 'str' ? 'target_modules="all-linear"' : `target_modules=[${strs(tm)!.join(', ')}]`;
  } else if (tm?.t === 'str' && tm.v === 'all-linear') {
    const out = outLayer?.split('.').pop();
    const names = new Set(layout.linears.map((l) => l.name.split('.').pop()!).filter((x) => x !== out));
    match = (n) => [...names].some((t) => endsWith(n, t));
    info.how = 'target_modules="all-linear"';
  } else if (tm?.t === 'str') {
    let re: RegExp;
    try { re = new RegExp(`^(?:${tm.v})$`); } catch { info.why = `target_modules regex "${tm.v}" is not understood`; return info; }
    match = (n) => re.test(n);
    info.how = `target_modules=r"${tm.v}"`;
  } else if (strs(tm)) {
    const list = strs(tm)!;
    match = (n) => list.some((t) => endsWith(n, t));
    info.how = `target_modules=[${list.join(', ')}]`;
  } else if (!tm || tm.t === 'none') {
    const d = mt ? DEFAULT_LORA_TARGETS[mt] : undefined;
    if (!d) { info.why = `LoraConfig has no target_modules and peft has no default for ${mt ? `model_type "${mt}"` : 'a model built in code'}`; return info; }
    match = (n) => d.some((t) => endsWith(n, t));
    info.how = `peft's default target_modules for ${mt}: [${d.join(', ')}]`;
  } else { info.why = 'target_modules is not a literal'; return info; }
  const ex = k.get('exclude_modules');
  const exList = strs(ex);
  const excluded = (n: string) => (ex?.t === 'str' ? new RegExp(`^(?:${ex.v})$`).test(n) : exList ? exList.some((t) => endsWith(n, t)) : false);
  // rank_pattern: {pattern: rank}, the first key matching (.*\.)?(pattern)$.
  const rp = k.get('rank_pattern');
  const ranks: [RegExp, number][] = rp?.t === 'dict' ? rp.keys.flatMap((kk, i) => (kk.t === 'str' && num(rp.vals[i]) !== undefined ? [[new RegExp(`^(.*\\.)?(${kk.v})$`), num(rp.vals[i])!] as [RegExp, number]] : [])) : [];
  const loraBias = k.get('lora_bias')?.t === 'bool' && (k.get('lora_bias') as { v: boolean }).v;
  const dora = k.get('use_dora')?.t === 'bool' && (k.get('use_dora') as { v: boolean }).v;
  const autocast = !(autocastV?.t === 'bool' && !autocastV.v);
  // A targeted module that is not a Linear layer (a MoE router or expert block): peft raises "Target module ... is not supported".
  const bad = (layout.unsupported ?? []).find((u) => match(u) && !excluded(u));
  if (bad) { info.why = `${info.how} matches ${bad}, which is not a Linear layer (peft raises "Target module ... is not supported")`; return info; }
  if (paramTargets.size) {
    // tuners/lora/layer.py ParamWrapper: no dropout, lora_bias or DoRA ("does not work with ..."); rank_pattern
    // entries of the user meet peft's own for the fused pair (a TODO in peft), so they are not followed.
    const dropout = info.loraDropout !== 0 ? 'lora_dropout != 0' : loraBias ? 'lora_bias=True' : dora ? 'use_dora=True' : undefined;
    if (dropout) { info.why = `${info.how} on ${mt} adapts the fused MoE parameters (${[...paramTargets.keys()].join(', ')}) through lora.ParamWrapper, which peft refuses with ${dropout} ("lora.ParamWrapper does not work with ...")`; return info; }
    if (ranks.length) { info.why = `rank_pattern together with peft's own rank for the fused ${[...paramTargets.keys()].join(', ')} on ${mt} is not followed by oomlens`; return info; }
  }
  // ParamWrapper._get_in_out_features / update_layer: a 3-D [E, out, in] parameter gets lora_A (r·E × in) and
  // lora_B (out × r·E); a 2-D [out, in] one (E = 1) the usual r × in and out × r.
  for (const p of layout.params ?? []) {
    const t = [...paramTargets.keys()].find((k) => p.name === k || p.name.endsWith(`.${k}`));
    if (!t) continue;
    const rr = paramTargets.get(t)!;
    const n = rr * p.experts * (p.in + p.out);
    const bd = baseDtype(p.name);
    const dt: DType = !autocast && (bd === 'bfloat16' || bd === 'float16') ? bd : 'float32';
    info.trainable.push({ label: `${p.name}.lora_A/B`, params: n, dtype: dt });
    info.adapterParams += n;
    info.activationWhy = `the saved activations of adapters on fused MoE parameters (${[...paramTargets.keys()].join(', ')}, peft lora.ParamWrapper) are not sized`;
  }
  for (const l of layout.linears) {
    if (!match(l.name) || excluded(l.name)) continue;
    const rr = ranks.find(([re]) => re.test(l.name))?.[1] ?? r;
    const n = rr * l.in + l.out * rr + (loraBias ? l.out : 0) + (dora ? l.out : 0);
    const bd = baseDtype(l.name);
    const dt: DType = !autocast && (bd === 'bfloat16' || bd === 'float16') ? bd : 'float32';
    info.trainable.push({ label: `${l.name}.lora_A/B`, params: n, dtype: dt });
    info.adapterParams += n;
    info.targeted.push({ ...l, r: rr });
  }
  if (!info.targeted.length && !info.adapterParams) { info.why = `${info.how} matches no Linear layer of the model (peft raises "Target modules ... not found")`; return info; }
  // bias="all" / "lora_only": those biases train too (peft tuners/lora/model.py _mark_only_adapters_as_trainable).
  const bias = k.get('bias');
  const bdt = baseDtype(layout.linears[0]?.name ?? '') ?? 'float32';
  if (bias?.t === 'str' && bias.v === 'all' && biasAll) info.trainable.push({ label: 'biases (bias="all")', params: biasAll, dtype: bdt });
  if (bias?.t === 'str' && bias.v === 'lora_only') {
    const n = info.targeted.reduce((a, l) => a + (l.bias ? l.out : 0), 0);
    if (n) info.trainable.push({ label: 'targeted biases (bias="lora_only")', params: n, dtype: bdt });
  }
  // modules_to_save: a trainable copy of each module whose name ends with an entry.
  const save = [...(strs(k.get('modules_to_save')) ?? []), ...(seqTask && layout.seqClsHead ? ['classifier', 'score'] : [])];
  for (const m of [...new Set(save)]) {
    const lin = layout.linears.filter((l) => endsWith(l.name, m));
    const oth = layout.others.filter((o) => endsWith(o.name, m));
    let n = lin.reduce((a, l) => a + l.in * l.out + (l.bias ? l.out : 0), 0) + oth.reduce((a, o) => a + o.params, 0);
    if (subtree) n = [...subtree].filter(([name]) => endsWith(name, m)).reduce((a, [, p]) => a + p, 0);
    if (!n) continue;
    // The copy is of the module as it is then: after prepare_model_for_kbit_training's cast of every 16-bit
    // parameter to float32 (peft utils/other.py), a float32 copy (tuners_utils.py ModulesToSaveWrapper: deepcopy).
    const own: DType = baseDtype(lin[0]?.name ?? oth[0]?.name ?? '') ?? bdt;
    const copyDtype: DType = kbitPrepOf(model)?.castAll && (own === 'bfloat16' || own === 'float16') ? 'float32' : own;
    info.trainable.push({ label: `${m} (modules_to_save copy)`, params: n, dtype: copyDtype });
  }
  return info;
}

/**
 * Which of the transformer formula's linear-input terms (shared/src/activations.ts: the QKV input, the attention
 * output projection's input, the MLP's first linear's input, its second linear's input = the activation's
 * output) an adapter still reads, when the base model is frozen. A frozen projection makes no weight gradient,
 * so its own backward keeps only its weight, not its input (tools/autograd/derivatives.yaml `addmm` / `mm`:
 * `mat1` is saved for `mat2`'s gradient only); the input is still saved where an adapter on the projection reads
 * it (peft tuners/lora/layer.py Linear.forward: `lora_A(dropout(x))`). Roles come from the module names of the
 * usual transformers layouts (GPT-2 `attn.c_attn` / `attn.c_proj` / `mlp.c_fc` / `mlp.c_proj`, Llama-style
 * `q_proj`/`k_proj`/`v_proj`/`o_proj`/`gate_proj`/`up_proj`/`down_proj`, OPT/BART `fc1`/`fc2`/`out_proj`, BERT
 * `query`/`key`/`value`/`attention.output.dense`/`intermediate.dense`/`output.dense`, GPT-NeoX/Falcon
 * `query_key_value`/`dense`/`dense_h_to_4h`/`dense_4h_to_h`); undefined when a targeted module has no known
 * role, when a modules_to_save copy trains, or when adapters sit on fused parameters: then nothing is taken off.
 */
export type LinearInputRole = 'qkv' | 'out' | 'fc1' | 'fc2';
export function adapterReadInputs(peft: PeftInfo): Set<LinearInputRole> | undefined {
  if (peft.activationWhy || peft.trainable.some((t) => /modules_to_save|bias="all"/.test(t.label))) return undefined;
  const read = new Set<LinearInputRole>();
  for (const l of peft.targeted) {
    const r = linearRole(l.name);
    if (!r) return undefined;
    read.add(r);
  }
  return read;
}

function linearRole(name: string): LinearInputRole | undefined {
  const n = name.split('.');
  const last = n[n.length - 1];
  const parent = n[n.length - 2] ?? '';
  const grand = n[n.length - 3] ?? '';
  if (['c_attn', 'q_proj', 'k_proj', 'v_proj', 'query', 'key', 'value', 'query_key_value', 'qkv_proj', 'Wqkv'].includes(last)) return 'qkv';
  if (['o_proj', 'out_proj'].includes(last)) return 'out';
  if (['c_fc', 'gate_proj', 'up_proj', 'fc1', 'dense_h_to_4h'].includes(last)) return 'fc1';
  if (['down_proj', 'fc2', 'dense_4h_to_h'].includes(last)) return 'fc2';
  if (last === 'c_proj') return parent === 'attn' ? 'out' : parent === 'mlp' ? 'fc2' : undefined;
  if (last === 'dense') {
    if (parent === 'attention' || (parent === 'output' && grand === 'attention') || parent === 'self_attention') return 'out';
    if (parent === 'intermediate') return 'fc1';
    if (parent === 'output') return 'fc2';
  }
  return undefined;
}
