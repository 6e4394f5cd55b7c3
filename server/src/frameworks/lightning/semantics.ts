/**
 * PyTorch Lightning (lightning 2.x: src/lightning/pytorch/trainer/trainer.py,
 * core/module.py; the same API under `pytorch_lightning`). A LightningModule is
 * a torch.nn.Module (interp.ts classKindOf). `Trainer(...).fit(model, …)` runs
 * the step Lightning runs for it:
 *
 * - `model.configure_optimizers()` gives the optimizer (an optimizer, a list
 *   or tuple of them, or a dict with "optimizer"), whose torch constructor
 *   records its state as for a hand-written loop;
 * - one batch from `train_dataloaders` (a DataLoader, collated as
 *   frameworks/torch/data.ts does) or `datamodule.train_dataloader()`, given
 *   to `model.training_step(batch, 0)`, whose forward calls size the
 *   activations (phases/inference.ts `inTrainingStep` knows the hook), then
 *   the backward Lightning calls on the returned loss;
 * - `precision`: "16-mixed"/16/"16" and "bf16-mixed"/"bf16" run the step
 *   under autocast (plugins/precision/amp.py); "16-true"/"bf16-true" convert
 *   the module's parameters (plugins/precision/half.py) — not modelled, an
 *   unknown; "32"/32 (the default) nothing;
 * - `strategy`: "fsdp" (FULL_SHARD, strategies/fsdp.py), "deepspeed_stage_1/2/3"
 *   (+ "_offload": ZeRO-Offload), "ddp"/"auto": nothing divided; `devices=N`
 *   is the number of processes on this node (× `num_nodes`).
 */
import type { DType } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../../interp/interp';
import { BudgetExceeded, Cancelled, linearize } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, num, str, unknown } from '../../interp/values';
import { literal } from '../../program/argv';
import { noteBackward, trainingProgram, unreadSharding } from '../../phases/training';
import { chainGetattr } from '../../program/entrypoints';

const TRAINER = '__pl_trainer__';

/**
 * The Trainer's keywords. pytorch_lightning 1.x `gpus=N` (trainer/connectors/accelerator_connector.py, deprecated
 * alias) is `devices=N` on GPUs when `devices` is not given.
 */
function trainerOf(kw: Map<string, Value>): Value {
  const gpus = kw.get('gpus');
  if (gpus && gpus.t !== 'none' && (!kw.has('devices') || kw.get('devices')?.t === 'none')) kw.set('devices', gpus);
  return { t: 'extern', name: TRAINER, kw };
}

const T = { t: 'bool', v: true } as const, F = { t: 'bool', v: false } as const;
const int = (v: number): Value => ({ t: 'int', v });
/** pytorch_lightning 1.9 trainer/trainer.py Trainer.__init__ parameters and defaults (what add_argparse_args adds). */
const TRAINER_ARGS = new Map<string, Value>([
  ['logger', T], ['enable_checkpointing', T], ['default_root_dir', NONE], ['gradient_clip_val', NONE], ['gradient_clip_algorithm', NONE],
  ['num_nodes', int(1)], ['num_processes', NONE], ['devices', NONE], ['gpus', NONE], ['auto_select_gpus', NONE], ['tpu_cores', NONE], ['ipus', NONE],
  ['enable_progress_bar', T], ['overfit_batches', { t: 'float', v: 0 }], ['track_grad_norm', int(-1)], ['check_val_every_n_epoch', int(1)],
  ['fast_dev_run', F], ['accumulate_grad_batches', NONE], ['max_epochs', NONE], ['min_epochs', NONE], ['max_steps', int(-1)], ['min_steps', NONE],
  ['max_time', NONE], ['limit_train_batches', NONE], ['limit_val_batches', NONE], ['limit_test_batches', NONE], ['limit_predict_batches', NONE],
  ['val_check_interval', NONE], ['log_every_n_steps', int(50)], ['accelerator', NONE], ['strategy', NONE], ['sync_batchnorm', F],
  ['precision', int(32)], ['enable_model_summary', T], ['num_sanity_val_steps', int(2)], ['resume_from_checkpoint', NONE], ['profiler', NONE],
  ['benchmark', NONE], ['deterministic', NONE], ['reload_dataloaders_every_n_epochs', int(0)], ['auto_lr_find', F], ['replace_sampler_ddp', T],
  ['detect_anomaly', F], ['auto_scale_batch_size', F], ['plugins', NONE], ['amp_backend', NONE], ['amp_level', NONE],
  ['move_metrics_to_cpu', F], ['multiple_trainloader_mode', str('max_size_cycle')], ['inference_mode', T],
]);

export function installLightning(it: Interpreter): void {
  const make = (_i: Interpreter, _s: Value | undefined, c: CallArgs): Value => trainerOf(new Map(c.kw));
  for (const n of ['lightning.Trainer', 'lightning.pytorch.Trainer', 'pytorch_lightning.Trainer', 'lightning.pytorch.trainer.Trainer', 'pytorch_lightning.trainer.Trainer']) it.externs.set(n, make);
  it.externs.set(`${TRAINER}.fit`, (_i, self, c, node) => {
    if (self?.t === 'extern') fit(it, self.kw ?? new Map(), c, node);
    return NONE;
  });
  for (const m of ['validate', 'test', 'predict', 'save_checkpoint']) it.externs.set(`${TRAINER}.${m}`, () => NONE);
  chainGetattr(it, (self, name) => {
    if (self.t !== 'extern' || self.name !== TRAINER) return undefined;
    if (name === 'model' || name === 'lightning_module') return self.kw?.get('__model__') ?? unknown('trainer.model before fit');
    // This process's view: rank 0 of devices × num_nodes processes (trainer/trainer.py world_size, global_rank).
    if (name === 'world_size') {
      const d = num(self.kw?.get('devices') ?? NONE), n = num(self.kw?.get('num_nodes') ?? NONE) ?? 1;
      return d !== undefined && d > 0 ? { t: 'int', v: d * n } : self.kw?.has('devices') ? unknown('Trainer(devices=...) is not a number') : { t: 'int', v: 1 };
    }
    if (name === 'global_rank' || name === 'local_rank' || name === 'node_rank') return { t: 'int', v: 0 };
    if (name === 'is_global_zero') return { t: 'bool', v: true };
    return undefined;
  });
  // self.save_hyperparameters() (core/mixins/hparams_mixin.py save_hyperparameters → utilities/parsing.py
  // save_hyperparameters / collect_init_args): without arguments `self.hparams` (an AttributeDict) holds the
  // calling __init__'s named parameters and the entries of its **kwargs; string arguments keep only those
  // names; `ignore=` drops names; a dict argument is stored as it is. No parameters are created.
  it.externs.set('torch.nn.Module.save_hyperparameters', (_i, self, c, node) => {
    if (self?.t !== 'inst') return NONE;
    const frame = it.currentFrame();
    const first = c.args[0];
    if (first && first.t !== 'str') {
      self.attrs.set('hparams', first.t === 'dict' ? { t: 'dict', keys: [...first.keys], vals: [...first.vals], attrs: true } : unknown('save_hyperparameters of a value that is not a dict', it.span(node)));
      return NONE;
    }
    if (!frame.params) {
      self.attrs.set('hparams', unknown('save_hyperparameters called outside a function: its arguments are not known', it.span(node)));
      return NONE;
    }
    const ignoreV = c.kw.get('ignore');
    const ignore = new Set<string>(ignoreV?.t === 'str' ? [ignoreV.v] : ignoreV?.t === 'list' || ignoreV?.t === 'tuple' ? ignoreV.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : []);
    const wanted = c.args.flatMap((a) => (a.t === 'str' ? [a.v] : []));
    const keys: Value[] = [];
    const vals: Value[] = [];
    const add = (k: string, v: Value): void => {
      if (k === 'self' || k === '__class__' || ignore.has(k) || (wanted.length && !wanted.includes(k))) return;
      keys.push({ t: 'str', v: k });
      vals.push(v);
    };
    for (const p of frame.params) { const v = frame.vars.get(p); if (v !== undefined) add(p, v); }
    const kwv = frame.varKw ? frame.vars.get(frame.varKw) : undefined;
    if (kwv?.t === 'dict') kwv.keys.forEach((k, i) => { if (k.t === 'str') add(k.v, kwv.vals[i]); });
    self.attrs.set('hparams', { t: 'dict', keys, vals, attrs: true });
    return NONE;
  });
  // Trainer.add_argparse_args(parser) (pytorch_lightning 1.x, utilities/argparse.py add_argparse_args) adds one
  // `--name` argument per Trainer.__init__ parameter, its default the parameter's (trainer/trainer.py 1.9), to
  // `parser` and returns it (booleans take an optional word, `nargs="?"`, `const=True`); the model's flags on that
  // parser keep theirs. Trainer.from_argparse_args(args, **kwargs) (utilities/argparse.py from_argparse_args)
  // builds the Trainer from the namespace's entries that are Trainer parameters, `kwargs` over them.
  for (const n of ['lightning.pytorch.Trainer', 'lightning.Trainer', 'pytorch_lightning.Trainer']) {
    it.externs.set(`${n}.add_argparse_args`, (_i, _self, c, node) => {
      const parser = c.args[0] ?? c.kw.get('parent_parser');
      if (!parser) return unknown('Trainer.add_argparse_args without a parser', it.span(node));
      const add = it.externs.get('argparse.ArgumentParser.add_argument');
      if (!add) return parser;
      for (const [name, dflt] of TRAINER_ARGS) {
        const kw = new Map<string, Value>([['default', dflt]]);
        if (dflt.t === 'bool') { kw.set('nargs', str('?')); kw.set('const', { t: 'bool', v: true }); }
        add(it, parser, { args: [str(`--${name}`)], kw }, node, { t: 'extern', name: 'argparse.ArgumentParser.add_argument' });
      }
      return parser;
    });
    it.externs.set(`${n}.from_argparse_args`, (_i, _self, c, node) => {
      const ns = c.args[0] ?? c.kw.get('args');
      const kw = new Map<string, Value>();
      const entries = ns?.t === 'inst' ? [...ns.attrs] : ns?.t === 'dict' ? ns.keys.flatMap((k, i) => (k.t === 'str' ? [[k.v, ns.vals[i]] as [string, Value]] : [])) : undefined;
      if (!entries) return unknown('Trainer.from_argparse_args of arguments oomlens cannot read', it.span(node));
      // A word from the command line is read as Lightning's argument types read it (an int when it is one: `--gpus 2`, `--precision 16`).
      for (const [k, v] of entries) if (TRAINER_ARGS.has(k)) kw.set(k, v.t === 'str' ? literal(v.v) : v);
      for (const [k, v] of c.kw) if (k !== 'args') kw.set(k, v);
      return trainerOf(kw);
    });
  }
  // LightningModule / LightningDataModule.from_argparse_args(args, **kwargs) (pytorch_lightning 1.x,
  // utilities/argparse.py from_argparse_args): `cls(**{name: args.name for the parameters of cls.__init__ that the
  // namespace has}, **kwargs)`; a **kwargs parameter takes no extra namespace entries.
  const LIGHTNING_BASE = /^(pytorch_lightning|lightning\.pytorch|lightning)\.(core\.)?(datamodule\.|module\.)?(LightningDataModule|LightningModule)$/;
  chainGetattr(it, (self, name) => {
    if (name !== 'from_argparse_args' || self.t !== 'class' || it.classAttr(self, name) !== undefined) return undefined;
    const lightning = linearize(self).some((k) => k.bases.some((b) => b.t === 'extern' && LIGHTNING_BASE.test(b.name)));
    return lightning ? { t: 'extern', name: 'lightning.from_argparse_args', self } : undefined;
  });
  it.externs.set('lightning.from_argparse_args', (_i, self, c, node) => {
    if (self?.t !== 'class') return unknown('from_argparse_args of a value that is not a class', it.span(node));
    const ns = c.args[0] ?? c.kw.get('args');
    const entries = ns?.t === 'inst' ? new Map(ns.attrs) : ns?.t === 'dict' ? new Map(ns.keys.flatMap((k, i) => (k.t === 'str' ? [[k.v, ns.vals[i]] as [string, Value]] : []))) : undefined;
    if (!entries) return unknown(`${self.name}.from_argparse_args of arguments oomlens cannot read`, it.span(node));
    const init = it.classAttr(self, '__init__');
    if (init?.t !== 'func') return unknown(`${self.name}.from_argparse_args: its __init__ is not followed`, it.span(node));
    const kw = new Map<string, Value>();
    for (const p of init.node.childForFieldName('parameters')?.namedChildren ?? []) {
      if (!p) continue;
      const id = p.type === 'identifier' ? p : p.type === 'typed_parameter' || p.type === 'default_parameter' || p.type === 'typed_default_parameter' ? p.childForFieldName('name') ?? p.namedChildren.find((x) => x?.type === 'identifier') : undefined;
      if (id && id.type === 'identifier' && id.text !== 'self' && entries.has(id.text)) kw.set(id.text, entries.get(id.text)!);
    }
    for (const [k, v] of c.kw) if (k !== 'args') kw.set(k, v);
    return it.call(self, { args: [], kw }, node);
  });
  for (const m of ['log', 'log_dict', 'print']) it.externs.set(`torch.nn.Module.${m}`, () => NONE);
  // torchmetrics metrics (Accuracy, MeanMetric, F1Score, …) are nn.Modules without parameters: their states are
  // add_state tensors, non-persistent, a few values per class (torchmetrics/metric.py add_state), not counted.
  it.externPrefixes.push(['torchmetrics.', (_i, _self, _c, _node, fnv) => {
    const last = fnv.name.split('.').pop() ?? '';
    if (!/^[A-Z]/.test(last) || fnv.name.includes('(instance)')) return unknown('__pass__');
    return it.newInst({ t: 'class', name: last, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] });
  }]);
}

function fit(it: Interpreter, kw: Map<string, Value>, c: CallArgs, node: SyntaxNode): void {
  const prog = trainingProgram(it);
  const span = it.span(node);
  const model = c.args[0] ?? c.kw.get('model');
  // A module oomlens could not build (a wrapper class from a package that is not in the workspace or not installed):
  // Lightning trains it all the same, so "no model" is not the answer; said at file level with what is missing.
  if (model?.t === 'unknown') {
    it.note(`\`Trainer.fit(…)\`: a model is built by a library here (${model.reason}) and trained by Lightning, which oomlens does not follow; its size is not known`, node);
    return;
  }
  if (model?.t !== 'inst') return;
  // `self.trainer` inside the module's hooks is the Trainer, whose `.model` is the module (core/module.py).
  kw.set('__model__', model);
  model.attrs.set('trainer', { t: 'extern', name: TRAINER, kw });
  const call = (name: string, args: Value[]): Value | undefined => {
    const f = it.classAttr(model.cls, name);
    if (f?.t !== 'func') return undefined;
    try { return it.call({ ...f, self: model }, { args, kw: new Map() }, node); } catch (e) { if (e instanceof Cancelled || e instanceof BudgetExceeded) throw e; return undefined; }
  };

  // Precision.
  const p = kw.get('precision');
  const ptext = p?.t === 'str' ? p.v : p?.t === 'int' ? String(p.v) : p && p.t !== 'none' ? '?' : '32';
  const mixed: DType | undefined = /^(16|16-mixed)$/.test(ptext) ? 'float16' : /^(bf16|bf16-mixed)$/.test(ptext) ? 'bfloat16' : undefined;
  if (mixed && !prog.autocast) { prog.autocast = { dtype: mixed, span }; prog.autocastAll = true; }
  else if (/-true$/.test(ptext) || ptext === '?') prog.trainerUnknowns.push({ what: 'precision', reason: `Trainer(precision=${ptext}): ${ptext === '?' ? 'not a literal' : 'converting the parameters to 16 bits'} is not modelled`, span });

  // Strategy and processes.
  const s = kw.get('strategy');
  const stext = s?.t === 'str' ? s.v : s && s.t !== 'none' ? '?' : 'auto';
  const ds = /^deepspeed_stage_([123])(_offload)?/.exec(stext);
  if (stext === 'fsdp') prog.fsdp = { span, stage: 3, how: 'Lightning Trainer(strategy="fsdp")' };
  else if (ds) prog.zero = { span, stage: Number(ds[1]) as 1 | 2 | 3, how: `Lightning Trainer(strategy="${stext}")`, ...(ds[2] ? { offloadOptimizer: 'cpu', ...(ds[1] === '3' ? { offloadParams: 'cpu' } : {}) } : {}) };
  else if (stext === '?') unreadSharding(prog, span, 'Trainer(strategy=...) is not a literal: whether state is divided is not known');
  const devices = num(kw.get('devices') ?? NONE);
  const nodes = num(kw.get('num_nodes') ?? NONE) ?? 1;
  if (devices !== undefined && devices > 0 && (Number(it.state.get('deviceCount') ?? 1) || 1) === 1 && devices * nodes > 1) it.state.set('deviceCount', devices * nodes);

  // The optimizer Lightning builds.
  call('configure_optimizers', []);

  // One batch through training_step, then the backward Lightning runs on its loss.
  let batch: Value = unknown('the training batch (no DataLoader oomlens can read was given to fit)', span);
  const dm = c.kw.get('datamodule');
  // A LightningDataModule: Lightning calls setup("fit") before train_dataloader() (trainer/connectors/data_connector.py).
  const dmCall = (name: string, args: Value[]): Value | undefined => {
    if (dm?.t !== 'inst') return undefined;
    const f = it.classAttr(dm.cls, name);
    if (f?.t !== 'func') return undefined;
    try { return it.call({ ...f, self: dm }, { args, kw: new Map() }, node); } catch (e) { if (e instanceof Cancelled || e instanceof BudgetExceeded) throw e; return undefined; }
  };
  if (dm) { dm.t === 'inst' && dm.attrs.set('trainer', { t: 'extern', name: TRAINER, kw }); dmCall('setup', [{ t: 'str', v: 'fit' }]); }
  const dl = c.args[1] ?? c.kw.get('train_dataloaders') ?? dmCall('train_dataloader', []) ?? call('train_dataloader', []);
  const items = dl ? it.iterate(dl, node) : undefined;
  if (items?.length) batch = items[0];
  // Forward calls made while training_step runs are the training forward (phases/inference.ts inTrainingCall).
  it.state.set('trainingStepDepth', Number(it.state.get('trainingStepDepth') ?? 0) + 1);
  try { call('training_step', [batch, { t: 'int', v: 0 }]); } finally { it.state.set('trainingStepDepth', Number(it.state.get('trainingStepDepth')) - 1); }
  noteBackward(it, prog, span);
}
