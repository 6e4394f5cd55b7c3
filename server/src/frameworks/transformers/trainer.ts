/**
 * transformers `Trainer` / `Seq2SeqTrainer` and trl `SFTTrainer`: a
 * `trainer.train()` is a training step of the model it was given, read from
 * its `TrainingArguments` / `SFTConfig`:
 *
 * - per_device_train_batch_size (default 8, transformers training_args.py) is
 *   the batch of each device's forward; gradient_accumulation_steps repeats
 *   the micro-step, so it adds no memory (.grad accumulates in place);
 * - the sequence length: SFTConfig max_length / max_seq_length (trl
 *   sft_config.py, default 1024), SFTTrainer(max_seq_length=...), else a
 *   literal `max_length=N` of the tokenizer call that pads to it; otherwise
 *   the activations are unknown with the reason;
 * - gradient_checkpointing=True → full recomputation (Trainer calls
 *   model.gradient_checkpointing_enable());
 * - bf16 / fp16 → torch.autocast in that dtype (Trainer's amp path);
 * - optim (training_args.py OptimizerNames): adamw_torch / adamw_torch_fused /
 *   adamw_hf / paged_adamw_32bit → AdamW with two states like the parameter;
 *   adamw_bnb_8bit / adamw_8bit / paged_adamw_8bit → bitsandbytes AdamW8bit
 *   (two uint8 states); other optimizers (adafactor, lion, galore…) → the
 *   optimizer state is unknown with the reason (never zero);
 * - fsdp "full_shard" / "shard_grad_op" and a literal deepspeed dict with
 *   zero_optimization.stage divide over the target's device count
 *   (per-device peak: `8xa100-80gb`).
 */
import type { DType, Span } from '../../../../shared/src/facts';
import type { OptimizerKind } from '../../../../shared/src/training';
import { BudgetExceeded, Cancelled, linearize, type CallArgs, type Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type ClassV, type Value, NONE, num, unknown } from '../../interp/values';
import { tokenBounds } from '../datasets/semantics';
import { sftModel } from './trl';
import { loadPretrained } from './semantics';
import { fromData } from '../../program/configfiles';
import { chainGetattr } from '../../program/entrypoints';
import { noteBackward, noteStepAt, trainingProgram, unreadSharding, type OptimizerUse } from '../../phases/training';
import { FROZEN } from '../torch/semantics';
import { peftOf } from '../peft/semantics';
import { visitTensors } from '../../interp/memory';

function get(v: Value | undefined, k: string): Value | undefined {
  if (v?.t === 'dict') {
    const i = v.keys.findIndex((x) => x.t === 'str' && x.v === k);
    return i >= 0 ? v.vals[i] : undefined;
  }
  if (v?.t === 'extern') return v.kw?.get(k);
  // The program's own subclass of TrainingArguments (extra fields; the library's given by name).
  if (v?.t === 'inst') return v.attrs.get(k);
  return undefined;
}

const ADAMW = /^(adamw_torch|adamw_torch_fused|adamw_hf|adamw_apex_fused|paged_adamw_32bit|adamw_torch_xla|adamw_torch_npu_fused)$/;
const ADAMW8 = /^(adamw_bnb_8bit|adamw_8bit|paged_adamw_8bit|adamw_bnb_8bit)$/;

/**
 * Defaults of TrainingArguments fields programs test in conditions (transformers training_args.py, 4.3x–4.5x and
 * Seq2SeqTrainingArguments.predict_with_generate): a field the program does not set reads as its default, not as
 * an object (which is true in `if training_args.do_predict: raise ...` and ended the analysis there). trl's configs
 * change some of these (SFTConfig's bf16, gradient_checkpointing), so only the do_* flags are given for them.
 */
const ARG_DEFAULTS: Record<string, Value> = {
  do_train: { t: 'bool', v: false }, do_eval: { t: 'bool', v: false }, do_predict: { t: 'bool', v: false },
  overwrite_output_dir: { t: 'bool', v: false }, push_to_hub: { t: 'bool', v: false }, fp16: { t: 'bool', v: false },
  bf16: { t: 'bool', v: false }, gradient_checkpointing: { t: 'bool', v: false }, resume_from_checkpoint: NONE,
  predict_with_generate: { t: 'bool', v: false }, group_by_length: { t: 'bool', v: false }, use_cpu: { t: 'bool', v: false },
  torch_compile: { t: 'bool', v: false }, deepspeed: NONE, seed: { t: 'int', v: 42 }, gradient_accumulation_steps: { t: 'int', v: 1 },
  max_steps: { t: 'int', v: -1 }, remove_unused_columns: { t: 'bool', v: true },
};
const TRL_ARG_DEFAULTS = new Set(['do_train', 'do_eval', 'do_predict', 'overwrite_output_dir', 'push_to_hub', 'resume_from_checkpoint']);

export function installTrainer(it: Interpreter): void {
  chainGetattr(it, (self, name) => {
    if (self.t !== 'extern' || !self.kw || self.self !== undefined) return undefined;
    if (self.name !== 'transformers.TrainingArguments' && self.name !== 'trl.SFTConfig' && self.name !== 'trl.DPOConfig') return undefined;
    if (self.kw.has(name) || !Object.hasOwn(ARG_DEFAULTS, name)) return undefined;
    return self.name === 'transformers.TrainingArguments' || TRL_ARG_DEFAULTS.has(name) ? ARG_DEFAULTS[name] : undefined;
  });
  const argsFactory = (name: string) => (_i: Interpreter, _s: Value | undefined, c: CallArgs): Value => ({ t: 'extern', name, kw: new Map(c.kw) });
  for (const n of ['transformers.TrainingArguments', 'transformers.Seq2SeqTrainingArguments', 'transformers.training_args.TrainingArguments']) it.externs.set(n, argsFactory('transformers.TrainingArguments'));
  for (const n of ['trl.SFTConfig', 'trl.trainer.sft_config.SFTConfig']) it.externs.set(n, argsFactory('trl.SFTConfig'));
  for (const n of ['trl.DPOConfig', 'trl.trainer.dpo_config.DPOConfig']) it.externs.set(n, argsFactory('trl.DPOConfig'));

  const trainer = (kind: string) => (_i: Interpreter, _s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const kw = new Map(c.kw);
    kw.set('__kind__', { t: 'str', v: kind });
    kw.set('__span__', { t: 'int', v: node.startIndex });
    kw.set('__end__', { t: 'int', v: node.endIndex });
    if (!kw.has('model') && c.args[0]) kw.set('model', c.args[0]);
    if (!kw.has('args') && c.args[1]) kw.set('args', c.args[1]);
    // trl: SFTTrainer(model="org/name") loads the model itself (trl.ts); DPOTrainer too.
    if (kind === 'SFTTrainer' || kind === 'DPOTrainer') {
      const m = sftModel(it, kw, node, (id, init) => loadPretrained(it, 'AutoModelForCausalLM', id, init, node));
      if (m) kw.set('model', m);
    }
    // DPOTrainer without a ref_model and without adapters makes its reference model as a frozen copy of the model
    // (trl dpo_trainer.py: `self.ref_model = create_reference_model(model)` — trl/models/modeling_base.py
    // create_reference_model: `deepcopy(model)`, every parameter requires_grad=False, eval()): a second copy of the
    // weights on the device through the step. With adapters (peft_config, or a PeftModel) the reference is the
    // model with its adapters disabled: no copy.
    if (kind === 'DPOTrainer') {
      const ref = kw.get('ref_model') ?? c.args[1];
      const model = kw.get('model');
      const peftGiven = (kw.get('peft_config') ?? NONE).t !== 'none' || !!peftOf(model);
      if ((!ref || ref.t === 'none') && model?.t === 'inst' && !peftGiven) {
        const copy = it.externs.get('copy.deepcopy');
        if (copy) {
          const made = copy(it, undefined, { args: [model], kw: new Map() }, node, { t: 'extern', name: 'copy.deepcopy' });
          // The trainer places it on the device as it does the model (accelerator.prepare_model(ref, evaluation_mode=True)).
          if (made.t === 'inst') it.state.set(`moved:${made.id}`, 'cuda');
          visitTensors(made, (t) => { if (t.role === 'param') t.note = FROZEN; });
          kw.set('ref_model', made);
        }
      } else if (ref && ref.t === 'inst') {
        kw.set('ref_model', ref);
        it.state.set(`moved:${ref.id}`, it.state.get(`moved:${ref.id}`) ?? 'cuda');
      }
    }
    return { t: 'extern', name: '__hf_trainer__', kw };
  };
  for (const n of ['transformers.Trainer', 'transformers.Seq2SeqTrainer', 'transformers.trainer.Trainer']) it.externs.set(n, trainer('Trainer'));
  for (const n of ['trl.SFTTrainer', 'trl.trainer.sft_trainer.SFTTrainer']) it.externs.set(n, trainer('SFTTrainer'));
  for (const n of ['trl.DPOTrainer', 'trl.trainer.dpo_trainer.DPOTrainer']) it.externs.set(n, trainer('DPOTrainer'));
  // The program's subclass of a trainer (class MyTrainer(Trainer): overrides of compute_loss, create_optimizer…):
  // built as its library base; its overrides are not followed (a note says so).
  const bases: [RegExp, string][] = [[/^transformers\.(trainer\.)?(Seq2Seq)?Trainer$/, 'Trainer'], [/^trl\.(trainer\.sft_trainer\.)?SFTTrainer$/, 'SFTTrainer'], [/^trl\.(trainer\.dpo_trainer\.)?DPOTrainer$/, 'DPOTrainer']];
  const prevInst = it.externs.get('__instantiate__');
  it.externs.set('__instantiate__', (i, self, c, node, fnv) => {
    const cls = self as ClassV;
    const base = linearize(cls).flatMap((k) => k.bases).find((b) => b.t === 'extern' && bases.some(([re]) => re.test(b.name)));
    if (base?.t === 'extern') {
      const kind = bases.find(([re]) => re.test(base.name))![1];
      const overrides = linearize(cls).filter((k) => k.t === 'class').flatMap((k) => [...k.ns.keys()]).filter((k) => /^(compute_loss|training_step|create_optimizer|_inner_training_loop|train)$/.test(k));
      if (overrides.length) it.note(`${cls.name} overrides ${overrides.join(', ')} of ${kind}: the library's own step is modelled`, node);
      return trainer(kind)(i, undefined, c, node);
    }
    return prevInst ? prevInst(i, self, c, node, fnv) : it.instantiatePlain(cls, c, node);
  });
  it.externs.set('__hf_trainer__.train', (_i, self, _c, node) => {
    if (self?.t === 'extern') {
      trainStep(it, self, node);
      // A second model the trainer holds (DPO's reference copy, a ref_model given) is alive on the device in the step.
      if (self.kw?.get('ref_model')?.t === 'inst') noteStepAt(it, trainingProgram(it), node);
    }
    return { t: 'extern', name: 'transformers.TrainOutput', kw: new Map() };
  });
  for (const m of ['evaluate', 'save_model', 'push_to_hub', 'predict']) it.externs.set(`__hf_trainer__.${m}`, () => NONE);
}

function trainStep(it: Interpreter, tr: Value & { t: 'extern' }, node: SyntaxNode): void {
  const prog = trainingProgram(it);
  const kw = tr.kw ?? new Map<string, Value>();
  const span: Span = it.span(node);
  const ctorSpan: Span = { start: num(kw.get('__span__') ?? NONE) ?? span.start, end: num(kw.get('__end__') ?? NONE) ?? span.end };
  const kind = (kw.get('__kind__') as { v: string } | undefined)?.v ?? 'Trainer';
  const args = kw.get('args');
  const model = kw.get('model') ?? NONE;
  const arg = (k: string) => get(args, k);
  const bool = (k: string) => { const v = arg(k); return v?.t === 'bool' ? v.v : undefined; };

  // Optimizer (TrainingArguments.optim; default "adamw_torch_fused" with torch ≥ 2.8, else "adamw_torch":
  // training_args.py `default_optim`, transformers 5.23; the same two float32 states either way). Trainer.create_optimizer
  // puts the parameters in two groups (weight decay / none: get_decay_parameter_names), every trainable one in one of them.
  // The default became "adamw_torch_fused" in transformers 4.54 (huggingface/transformers#37358), with torch ≥ 2.8;
  // a pinned older transformers or torch keeps "adamw_torch" (torch's AdamW, foreach by default on CUDA).
  const versions = (it.state.get('versions') as Record<string, string> | undefined) ?? {};
  const older = (v: string | undefined, M: number, m: number) => { const [a, b] = (v ?? '').split('.').map(Number); return v !== undefined && Number.isFinite(a) && Number.isFinite(b) && (a < M || (a === M && b < m)); };
  const defaultOptim = older(versions.transformers, 4, 54) || older(versions.torch, 2, 8) ? 'adamw_torch' : 'adamw_torch_fused';
  const optimV = arg('optim');
  const optim = optimV?.t === 'str' ? optimV.v : optimV ? undefined : defaultOptim;
  const params: Value[] = [];
  const ts: NonNullable<OptimizerUse['params']> = [];
  const seen = new Set<number>();
  visitTensors(model, (t) => { if (t.role === 'param' && !seen.has(t.id)) { seen.add(t.id); ts.push(t); } });
  void params;
  const okind: OptimizerKind | undefined = optim === undefined ? undefined : ADAMW.test(optim) ? 'torch.adamw' : ADAMW8.test(optim) ? 'bnb.adamw8bit' : undefined;
  if (okind) {
    prog.optimizers.push({
      kind: okind, lib: okind.startsWith('bnb') ? 'bnb' : 'torch', span: ctorSpan, callee: `${kind}(optim="${optim}")`, calleeSpan: ctorSpan,
      // adamw_torch: torch AdamW, foreach by default on CUDA (its step's temporaries: optimizerStepTemporaries);
      // adamw_torch_fused: AdamW(fused=True) (trainer_optimizer.py _get_adamw_torch), in place; the others update in
      // a kernel of their own (apex, bitsandbytes' paged, NPU) or one parameter at a time (adamw_hf): none counted.
      insertAt: ctorSpan.end - 1, hasArgs: true, opts: optim === 'adamw_torch' ? {} : { fused: true }, params: ts, bound: ts.length > 0,
    });
  } else {
    prog.trainerUnknowns.push({ what: 'optimizer state', reason: optim === undefined ? `${kind}: TrainingArguments(optim=...) is not a literal` : `${kind}: optim="${optim}" is not modelled by oomlens (AdamW and the 8-bit AdamW are): its state is unknown`, span: ctorSpan });
  }
  noteBackward(it, prog, span, true);
  // DPO's step is not a language-model cross-entropy: the policy's log-probabilities of the chosen and rejected
  // completions (trl dpo_trainer.py concatenated_forward, selective_log_softmax) and the reference model's forward
  // under no_grad (compute_ref_log_probs) come on top of what is sized here.
  if (kind === 'DPOTrainer') prog.trainerUnknowns.push({ what: 'DPO loss', reason: 'DPOTrainer: the step is sized as a language-model step over the chosen and rejected completions together (twice the batch); the DPO loss\'s log-probabilities and the reference model\'s forward are not sized', span: ctorSpan });

  // Mixed precision and checkpointing.
  // trl's SFTConfig changes two TrainingArguments defaults (trl/trainer/sft_config.py @ f2cd577: "gradient_checkpointing:
  // Defaults to True", "bf16: Defaults to True if fp16 is not set"); a pinned trl older than 0.20 keeps the library's.
  const trlV = ((it.state.get('versions') as Record<string, string> | undefined) ?? {}).trl;
  const [tM, tm] = (trlV ?? '').split('.').map(Number);
  const sftDefaults = kind === 'SFTTrainer' && (args?.t !== 'extern' || args.name !== 'transformers.TrainingArguments') && !(trlV && (tM === 0 && tm < 20));
  if (sftDefaults) {
    if (bool('gradient_checkpointing') === undefined) prog.checkpointing.push({ span: ctorSpan, how: 'SFTConfig default gradient_checkpointing=True' });
    if (bool('bf16') === undefined && bool('fp16') !== true && !prog.autocast) prog.autocast = { dtype: 'bfloat16', span: ctorSpan };
  }
  const dt: DType | undefined = bool('bf16') ? 'bfloat16' : bool('fp16') ? 'float16' : undefined;
  if (dt && !prog.autocast) prog.autocast = { dtype: dt, span: ctorSpan };
  if (bool('gradient_checkpointing')) prog.checkpointing.push({ span: ctorSpan, how: 'TrainingArguments(gradient_checkpointing=True)' });

  // Sharding over the target's devices.
  const fsdp = arg('fsdp');
  const fsdpText = fsdp?.t === 'str' ? fsdp.v : fsdp?.t === 'bool' && fsdp.v ? 'full_shard' : '';
  if (/full_shard|hybrid_shard(?!_zero2)/.test(fsdpText)) prog.fsdp = { span: ctorSpan, stage: 3, how: `TrainingArguments(fsdp="${fsdpText}")` };
  else if (/shard_grad_op|hybrid_shard_zero2/.test(fsdpText)) prog.fsdp = { span: ctorSpan, stage: 2, how: `TrainingArguments(fsdp="${fsdpText}")` };
  let ds = arg('deepspeed');
  // `deepspeed="ds_config.json"` / `--deepspeed ./scripts/zero3.json`: the JSON file of the workspace (training_args.py
  // loads it with HfTrainerDeepSpeedConfig); paths resolve from the script's folder, then the workspace root.
  if (ds?.t === 'str' && /\.json$/i.test(ds.v)) {
    const path = it.loader?.locate(ds.v);
    const text = path ? it.loader?.readText(path) : undefined;
    try { if (text !== undefined) ds = fromData(JSON.parse(text), false); } catch { /* not JSON: the stage stays unknown below */ }
  }
  const stage = num(get(get(ds, 'zero_optimization'), 'stage') ?? NONE);
  if (stage !== undefined && stage >= 0 && stage <= 3) {
    // "auto" values are filled from the TrainingArguments (integrations/deepspeed.py trainer_config_process).
    const on = (k: string, flag: string) => { const v = get(get(ds, k), 'enabled'); return (v?.t === 'bool' && v.v) || (v?.t === 'str' && v.v === 'auto' && bool(flag) === true); };
    const mixed: DType | undefined = on('bf16', 'bf16') ? 'bfloat16' : on('fp16', 'fp16') ? 'float16' : undefined;
    const zo = get(ds, 'zero_optimization');
    const dev = (k: string) => { const d = get(get(zo, k), 'device'); return d?.t === 'str' && (d.v === 'cpu' || d.v === 'nvme') ? d.v : undefined; };
    const legacy = get(zo, 'cpu_offload');
    const offloadOptimizer = dev('offload_optimizer') ?? (legacy?.t === 'bool' && legacy.v ? 'cpu' : undefined);
    const offloadParams = dev('offload_param');
    prog.zero = { span: ctorSpan, stage: stage as 0 | 1 | 2 | 3, how: `DeepSpeed ZeRO stage ${stage} (TrainingArguments(deepspeed=...))`, ...(mixed ? { mixed } : {}), ...(offloadOptimizer ? { offloadOptimizer } : {}), ...(offloadParams ? { offloadParams } : {}) };
  }
  else if (ds && ds.t !== 'none') unreadSharding(prog, ctorSpan, `${kind}: the deepspeed config is neither a literal dict nor a readable JSON file of the workspace, so its ZeRO stage is not known`);

  // The Trainer's data loader asks the train dataset for examples (torch Dataset.__getitem__): run it once on an
  // unknown index so the tokenizer bounds it sets are recorded (frameworks/datasets).
  const dsV = kw.get('train_dataset');
  let example: Value | undefined;
  if (dsV?.t === 'inst') {
    const gi = it.classAttr(dsV.cls, '__getitem__');
    if (gi?.t === 'func') {
      try { example = it.call({ ...gi, self: dsV }, { args: [unknown('a dataset index', span)], kw: new Map() }, node); } catch (e) { if (e instanceof Cancelled || e instanceof BudgetExceeded) throw e; }
    }
  } else if (dsV?.t === 'list' && dsV.items.length) example = dsV.items[0];
  const exampleSeq = exampleTokens(example);

  // Batch and sequence.
  const bsV = arg('per_device_train_batch_size');
  const perDevice = bsV ? num(bsV) ?? null : 8;
  // DPO runs the chosen and the rejected completion of each example in one forward (trl dpo_trainer.py
  // concatenated_forward: the two halves concatenated along the batch): twice the examples per step.
  const batch = perDevice !== null && kind === 'DPOTrainer' ? 2 * perDevice : perDevice;
  let seq: number | null = null;
  let why = '';
  const seqV = arg('max_length') ?? arg('max_seq_length') ?? kw.get('max_seq_length');
  // The tokenizer calls of the program's dataset.map functions bound every example (frameworks/datasets).
  const bounds = tokenBounds(it);
  const bound = bounds.length ? bounds.reduce((a, b) => (b.tokens > a.tokens ? b : a)) : undefined;
  let seqFrom = seqV ? 'max_seq_length / max_length' : kind === 'SFTTrainer' ? 'trl SFTConfig default max_length 1024' : kind === 'DPOTrainer' ? 'trl DPOConfig default max_length 1024 (trl ≥ 0.13; 512 before)' : 'the tokenizer call\'s max_length';
  if (seqV && num(seqV) !== undefined) seq = num(seqV)!;
  else if (kind === 'SFTTrainer' && !seqV) seq = 1024; // trl SFTConfig.max_length default 1024 (sft_config.py)
  else if (kind === 'DPOTrainer' && !seqV) seq = trlV && tM === 0 && tm < 13 ? 512 : 1024; // trl dpo_config.py max_length
  else if (exampleSeq) {
    // The dataset's examples are tensors of a known length: the Trainer's default collator stacks them
    // (transformers data/data_collator.py default_data_collator: torch.stack of each key's tensors), so every
    // batch is [per_device_train_batch_size, that length].
    seq = exampleSeq.tokens;
    seqFrom = `the dataset's examples: ${exampleSeq.key} of ${exampleSeq.tokens} tokens`;
  } else if (bound) {
    seq = bound.tokens;
    seqFrom = `tokenizer(max_length=${bound.tokens}${bound.exact ? ', padding="max_length"' : ', truncation=True'}) in the program's dataset code${bound.exact ? '' : ': the longest a padded batch can be'}`;
  } else {
    const m = /\bmax_length\s*=\s*(\d+)/.exec(it.text);
    if (m) seq = Number(m[1]);
    else why = `${kind}: the sequence length is not known (no max_seq_length / max_length literal; the dataset's lengths are data)`;
  }
  prog.trainer = {
    batch, seq, span: ctorSpan, kind,
    why: batch === null ? `${kind}: per_device_train_batch_size is not a literal` : why,
    accumulation: num(arg('gradient_accumulation_steps') ?? NONE),
    seqFrom,
    useCache: bool('use_cache'),
  };
}

/**
 * The tokens of one dataset example when its `input_ids` (or, without that key, its only 1-D tensor) is a tensor
 * of a known length: a dict from `__getitem__` or the first item of a list of examples.
 */
function exampleTokens(ex: Value | undefined): { tokens: number; key: string } | undefined {
  if (ex?.t !== 'dict') return undefined;
  const entries = ex.keys.map((k, i) => [k.t === 'str' ? k.v : undefined, ex.vals[i]] as const);
  const ids = entries.find(([k]) => k === 'input_ids');
  const oneD = entries.filter(([, v]) => v.t === 'tensor' && v.shape.length === 1);
  const pick = ids ?? (oneD.length === 1 ? oneD[0] : undefined);
  const v = pick?.[1];
  if (v?.t !== 'tensor' || v.shape.length !== 1 || typeof v.shape[0] !== 'number') return undefined;
  return { tokens: v.shape[0], key: pick![0] ?? 'the example' };
}
