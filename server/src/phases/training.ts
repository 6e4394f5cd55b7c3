/**
 * The training phase: what one optimisation step costs, read from the code.
 *
 * While the interpreter runs, this records how the program trains:
 * optimizers (torch.optim Adam / AdamW / SGD, bitsandbytes 8-bit Adam,
 * optax adam / adamw / sgd / adafactor, `optax.chain`, `optax.MultiSteps`)
 * with the parameters they were given (`model.parameters()`,
 * `opt.init(params)`), gradient transforms (`jax.grad`, `jax.value_and_grad`,
 * `eqx.filter_value_and_grad`) and the inputs they are called with,
 * `loss.backward()`, mixed precision (`torch.autocast`, `GradScaler`),
 * gradient checkpointing (`jax.checkpoint` / `jax.remat` /
 * `eqx.filter_checkpoint` / `nn.remat`, `torch.utils.checkpoint.checkpoint`,
 * `model.gradient_checkpointing_enable()`), FSDP (`FSDP(model)`,
 * `fully_shard(model)`) and DeepSpeed ZeRO (`deepspeed.initialize(config=...)`
 * with `"zero_optimization": {"stage": N}`).
 *
 * After the run, `trainingPhases` turns that into a 'training' PhaseTrace:
 * weights, gradients, optimizer state (shared/src/training.ts), the
 * activations the backward needs (shared/src/activations.ts, Korthikanti et
 * al. 2022, for a transformer stack whose shape the model states; otherwise
 * the op outputs traced in the forward; otherwise unknown with the reason)
 * and the language-model head's logits and saved log-probabilities.
 *
 * A training loop is followed for two iterations only: optimizer state is
 * made at the first `step()` / `update` and every later iteration repeats
 * the second's memory (the loop-cap hook in interp.ts).
 */
import type { DType, MemoryEvent, PhaseTrace, Placement, Span, TensorFact, Unknown } from '../../../shared/src/facts';
import { trainingActivationBytes, type Recompute } from '../../../shared/src/activations';
import { dtypeBytes } from '../../../shared/src/dtypes';
import { liveAtEnd } from '../../../shared/src/timeline';
import { accumulationBytes, gradientBytes, lmHeadBytes, optimizerStateBytes, optimizerStepTemporaries, type OptimizerKind, type OptimizerOptions, type ParamShape, type ZeroStage } from '../../../shared/src/training';
import type { CallArgs, Interpreter } from '../interp/interp';
import { type ModelRecord, type OpEvent, visitTensors } from '../interp/memory';
import { DERIV, opLevel, savedBy, bytesOf } from './saved';
import type { SyntaxNode } from '../interp/parser';
import { keywordSlot } from '../frameworks/args';
import { chainGetattr } from '../program/entrypoints';
import { type InstV, type TensorV, type Value, NONE, num, unknown } from '../interp/values';
import { hfConfig, inferenceUses, inTrainingCall, inTrainingStep } from './inference';
import { hfConfigView, hfLoadOf, hfLoads, readConfig, UnknownConfigField } from '../frameworks/transformers/semantics';
import { autoClassFor, numLabels, type HfConfig } from '../frameworks/transformers/catalog';
import { llamaBlockExtra, pythonActivation, trainingCacheCopies } from '../frameworks/transformers/activations';
import { adapterReadInputs, kbitPrepOf, peftOf, type PeftInfo } from '../frameworks/peft/semantics';
import { FROZEN, moduleTensors, unknownModuleSlots } from '../frameworks/torch/semantics';

export interface OptimizerUse {
  kind: OptimizerKind;
  lib: 'torch' | 'optax' | 'bnb';
  span: Span;
  /** The callee text (`torch.optim.AdamW`) and its span, for fixes. */
  callee: string;
  calleeSpan: Span;
  /** Offset after the last argument, and whether the call has arguments (frameworks/args.ts keywordSlot). */
  insertAt: number;
  hasArgs: boolean;
  /**
   * How the program can already spell what the fixes need at the call:
   * the names bound to jax.numpy and bitsandbytes there, and the end of the
   * import statement that bound the callee's first name (a new import goes
   * right after it).
   */
  names?: { jnp?: string; bnb?: string; calleeImportEnd?: number };
  opts: OptimizerOptions;
  /** Tensors the optimizer was given (torch: at construction; optax: at `init`). */
  params: TensorV[];
  /** optax.MultiSteps every_k_schedule, when the optimizer is wrapped. */
  accumulate?: number;
  /** Whether `init` / construction was seen with parameters. */
  bound: boolean;
  /** Why the parameters given at construction are not known (a torch optimizer over a value oomlens could not resolve). */
  paramsUnknown?: string;
  /** The interpreter's step count at this optimizer's first `step()` (its state exists from then on). */
  steppedAt?: number;
}

export interface GradCall {
  span: Span; inputs: TensorV[];
  /** The tensors of the differentiated argument (the model or its parameters), to find the model it trains. */
  primal: TensorV[];
  /** Op outputs the differentiated function made when it ran (eager or traced), and how many sizes stayed unknown. */
  opLevel?: OpLevelTrace;
  /** The step function the gradient is taken in, when it is compiled with jit: how, and whether its arguments are donated. */
  jit?: { how: string; donated: boolean };
}

/**
 * The jit around the function that encloses `node`: a decorator on it (`@jax.jit`, `@eqx.filter_jit`,
 * `@nnx.jit`, `@partial(jax.jit, donate_argnums=...)`) or a call that wraps it by name
 * (`step = jax.jit(train_step, donate_argnums=(0, 1))`). Donation is any `donate_argnums` /
 * `donate_argnames` (jax.jit, nnx.jit) or equinox's `donate=` other than "none" (equinox/_jit.py).
 */
export function enclosingJit(node: SyntaxNode, text: string): GradCall['jit'] {
  const JIT = /\b(?:jax\.jit|jit|filter_jit|pjit)\b/;
  const donates = (t: string) => /\bdonate_arg(?:nums|names)\s*=/.test(t) || /\bdonate\s*=\s*(?!["']none["'])/.test(t);
  for (let n: SyntaxNode | null = node.parent; n; n = n.parent) {
    if (n.type !== 'function_definition') continue;
    const dec = n.parent?.type === 'decorated_definition' ? n.parent.children.filter((c): c is SyntaxNode => !!c && c.type === 'decorator').map((c) => c.text) : [];
    const d = dec.find((t) => JIT.test(t));
    if (d) return { how: d.trim(), donated: donates(d) };
    const name = n.childForFieldName('name')?.text;
    if (name) {
      const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const m = new RegExp(`\\b(?:jax\\.jit|jit|filter_jit|pjit)\\s*\\(\\s*${esc}\\b([^)]*)\\)`).exec(text);
      if (m) return { how: m[0], donated: donates(m[1]) };
    }
  }
  return undefined;
}

/**
 * A traced forward's activations: bytes and count; how many sizes stayed unknown; for torch (phases/saved.ts)
 * the backward's peak over the saved tensors, the forward's output when nothing saves it, lower-bound reasons,
 * bytes per op kind, and why the output is unknown.
 */
export interface OpLevelTrace {
  bytes: number; count: number; unknowns: number;
  backwardPeak?: number; backwardPeakParams?: number; paramGradsAtPeak?: number; savedAtPeak?: number; actGradsAtPeak?: number; paramGrads?: number; output?: TensorV; lowerBounds?: string[]; byOp?: Map<string, number>; byDtype?: Map<string, number>; outputWhy?: string;
  /** Ops autograd does not record (no input or parameter requires grad: a frozen backbone): they save nothing. */
  unrecorded?: number;
}

export interface TrainingProgram {
  optimizers: OptimizerUse[];
  backward: Span[];
  /**
   * When the program's training calls ran, as the interpreter's step count (an order, not a time): each backward
   * (gradients exist after it), each `zero_grad()` that sets `.grad` to None (they are freed), and each optimizer
   * `step()`. An inference use after them sees what training left (phases/afterTraining.ts).
   */
  clock: { backward: number[]; gradsFreed: number[]; steps: number };
  /**
   * Training calls the analysis reached but could not follow: `.backward()` or an optimizer's `.step()` on a value
   * that is not known (a loss from a batch of unknown shape, a third-party optimizer). Each keeps the text of the
   * loop (or function) around it, to tell which models it trains.
   */
  unfollowed?: { span: Span; text: string; reason: string; around: string; aroundSpan: Span }[];
  gradCalls: GradCall[];
  /** Forward calls of a model inside a training step, with the input tensor when known. */
  forwards: {
    model: Value; span: Span; input?: TensorV; why?: string; autocast?: DType;
    /** Every tensor argument of the call that is not a parameter or buffer (the batch, masks). */
    inputs?: TensorV[];
    /** The loop's name the output is bound to (`logits = model(x)`): the previous iteration's output is alive during this forward. */
    boundTo?: string;
    /** `zero_grad()` comes after this forward and before the backward in the loop: the previous step's gradients are alive during it. */
    zeroGradAfter?: boolean;
    /**
     * What autograd saves in the traced forward (user torch modules: phases/saved.ts), how many sizes stayed
     * unknown, the backward's peak over the saved tensors, and the forward's output when nothing saves it.
     */
    opLevel?: OpLevelTrace;
  }[];
  autocast?: { dtype: DType; span: Span };
  /** Tensors given to a loss together with a model's output (labels, masks, targets), made outside the model. */
  lossTargets: TensorV[];
  /** Ids of the tensors the traced training forwards made (activations, not inputs). */
  forwardMade: Set<number>;
  gradScaler?: Span;
  /** `offload`: the kept layer inputs go to host memory (unsloth's offloaded checkpointing), not the device. */
  checkpointing: { span: Span; how: string; offload?: boolean }[];
  fsdp?: { span: Span; stage: ZeroStage; how: string };
  /** DistributedDataParallel: `bucketView` when gradient_as_bucket_view=True (the gradients are views of the buckets). */
  ddp?: { span: Span; bucketView: boolean };
  /** torch.nn.DataParallel: `devices` from `device_ids`, null when it uses every visible device. */
  dataParallel?: { span: Span; devices: number | null };
  /**
   * DeepSpeed ZeRO. `mixed`: its fp16/bf16 engine keeps 16-bit parameters and gradients on the device and
   * the float32 master weights inside the optimizer (12 B per parameter with Adam: Rajbhandari et al. 2019
   * §3.1, K = 12). `offloadOptimizer` / `offloadParams`: ZeRO-Offload keeps them in host memory instead
   * (Ren et al. 2021, arXiv:2101.06840; deepspeed/runtime/zero/offload_config.py).
   */
  zero?: { span: Span; stage: ZeroStage; how: string; mixed?: DType; offloadOptimizer?: string; offloadParams?: string };
  /** transformers Trainer / trl SFTTrainer `train()`: the per-device batch and sequence from its arguments (frameworks/transformers/trainer.ts). */
  trainer?: { batch: number | null; seq: number | null; why: string; span: Span; kind: string; accumulation?: number; seqFrom: string; useCache?: boolean };
  /** What the Trainer's arguments leave unknown (an optimizer oomlens does not model, a non-literal config). */
  trainerUnknowns: Unknown[];
  /** JAX: the loss computes in 16-bit from float32 parameters (a cast inside the differentiated function). */
  jaxComputeDtype?: { dtype: DType; span: Span };
  /** `autocast` applies to every forward of the step (a trainer's precision setting), not only those in an autocast block. */
  autocastAll?: boolean;
  /**
   * What the program's live names reach when its first training forward runs (every frame on the stack, module
   * globals and the workspace modules' globals): the tensors known to be on the accelerator, and the torch.load
   * checkpoints still referenced. They stay allocated through the step (Python frees an object only when nothing
   * references it), beside the model, its gradients and optimizer state.
   */
  liveAtStep?: { tensors: TensorV[]; owner: Map<number, string>; unsized: Map<InstV, string>; unsizedTensors: Map<number, string>; optimizers: Set<number>; checkpoints: Set<object>; span: Span;
    /** Each reachable tensor's dtype when the step runs (a cast after the loop, `model.to(torch.float32)` before saving, changes the value later). */
    dtypes: Map<number, DType> };
}

export interface TrainingInfo {
  program: TrainingProgram;
  optimizer?: OptimizerUse;
  paramDtype: DType;
  /** Bytes per device of each part, as placed in the phase. */
  parts: { params: number; grads: number; optimizer: number | null; activations: number | null; logits: number };
  activation?: { bytes: number; fullRecompute: number; formula: string; recompute: Recompute; layers: number };
  computeDtype: DType;
  /** The model's load/from_pretrained statement (for gradient_checkpointing_enable fixes). */
  hfLoadSpan?: Span;
  /**
   * Where a statement run once before the training loop goes, from the syntax tree: the start of the line of
   * the outermost loop (in the same function) around the model's first forward, or of the forward's statement
   * when no loop holds it; its indentation, and the expression the forward calls the model through
   * (`model`, `self.net`), under which the model is reachable there.
   */
  beforeLoop?: { at: number; indent: string; model: string };
}

const INFO = new WeakMap<ModelRecord, TrainingInfo>();

export function trainingInfo(rec: ModelRecord): TrainingInfo | undefined {
  return INFO.get(rec);
}

function beforeLoop(it: Interpreter, fwd: Span | undefined): TrainingInfo['beforeLoop'] {
  if (!fwd) return undefined;
  let call: SyntaxNode | null = it.tree.rootNode.descendantForIndex(fwd.start, Math.max(fwd.start, fwd.end - 1));
  while (call && !(call.type === 'call' && call.startIndex === fwd.start && call.endIndex === fwd.end)) call = call.parent;
  let f = call?.childForFieldName('function');
  if (!call || !f) return undefined;
  if (f.type === 'attribute' && f.childForFieldName('attribute')?.text === 'forward') f = f.childForFieldName('object');
  if (!f || (f.type !== 'identifier' && f.type !== 'attribute')) return undefined;
  let at: SyntaxNode | undefined;
  for (let p: SyntaxNode | null = call; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'class_definition' || p.type === 'lambda') break;
    if (p.type === 'for_statement' || p.type === 'while_statement') at = p;
    if (!at && p.parent && (p.parent.type === 'block' || p.parent.type === 'module') && p.type.endsWith('statement')) at = p;
  }
  if (!at) return undefined;
  const start = it.text.lastIndexOf('\n', at.startIndex - 1) + 1;
  const indent = it.text.slice(start, at.startIndex);
  if (!/^[ \t]*$/.test(indent)) return undefined;
  return { at: start, indent, model: f.text };
}

/**
 * A backward the program runs (`loss.backward()`, `accelerator.backward(loss)`, a trainer's step): where, and when.
 * `zeroedAfter`: a trainer that sets the gradients to None itself after each optimizer step, so none are left
 * after it: transformers' Trainer (trainer.py `_inner_training_loop`: `self.optimizer.step()`, then
 * `model.zero_grad()`). Lightning's automatic optimization zeroes them before the backward instead
 * (loops/optimization/automatic.py Closure), so the last step's stay.
 */
/** A library's training step runs at `node` (a Trainer's train()): what the program references there is alive in the step. */
export function noteStepAt(it: Interpreter, prog: TrainingProgram, node: SyntaxNode): void {
  prog.liveAtStep ??= liveAtStep(it, node);
}

export function noteBackward(it: Interpreter, prog: TrainingProgram, span: Span, zeroedAfter = false): void {
  prog.backward.push(span);
  prog.clock.backward.push(it.steps);
  if (zeroedAfter) prog.clock.gradsFreed.push(it.steps + 0.5);
}

/**
 * A sharding strategy the program names but oomlens cannot read (a DeepSpeed config it cannot open, a strategy that
 * is not a literal): what a device holds could be as little as ZeRO-3 with parameters and optimizer state offloaded
 * to the host (deepspeed/runtime/zero/offload_config.py), so the step is sized that way, with the unknown: a lower
 * bound, never "nothing divided" (which would be a verdict on the undivided model).
 */
export function unreadSharding(prog: TrainingProgram, span: Span, why: string): void {
  prog.trainerUnknowns.push({ what: 'sharding', reason: `${why}; sized as the least a device could hold (ZeRO-3, parameters and optimizer state offloaded to the host): a lower bound`, span });
  if (!prog.zero && !prog.fsdp) prog.zero = { span, stage: 3, how: 'a sharding strategy oomlens could not read (sized as ZeRO-3 with offload)', offloadParams: 'cpu', offloadOptimizer: 'cpu' };
}

export function trainingProgram(it: Interpreter): TrainingProgram {
  let p = it.state.get('training') as TrainingProgram | undefined;
  if (!p) it.state.set('training', (p = { optimizers: [], backward: [], clock: { backward: [], gradsFreed: [], steps: 0 }, gradCalls: [], forwards: [], checkpointing: [], trainerUnknowns: [], lossTargets: [], forwardMade: new Set() }));
  return p;
}

const PASS = unknown('__pass__');

function tensorsIn(v: Value | undefined): TensorV[] {
  const out: TensorV[] = [];
  const seen = new Set<number>();
  if (v) visitTensors(v, (t) => { if (!seen.has(t.id)) { seen.add(t.id); out.push(t); } });
  return out;
}

function dtypeArg(v: Value | undefined): DType | undefined {
  if (v?.t === 'dtype') return v.dtype;
  if (v?.t === 'str') return ({ bfloat16: 'bfloat16', float16: 'float16', float32: 'float32' } as Record<string, DType>)[v.v];
  return undefined;
}

/** The loop is a training loop when its body steps an optimizer, takes a gradient or runs a trainer (`trainer.train()`, Lightning's `trainer.fit(...)`: a federated round, a curriculum of stages). */
const TRAIN_LOOP = /\b\w*trainer\w*\.(?:train|fit)\s*\(|\.backward\s*\(|\b\w*(?:opt|optimizer|tx|scaler|engine)\w*\.(?:step|update)\s*\(|value_and_grad|\bjax\.grad\b|\bgrad\s*\(|apply_gradients|\b\w*_step\s*\(|\bstep\s*\(/i;

// ------------------------------------------------------------- interpreter

export function installTraining(it: Interpreter): void {
  const prog = trainingProgram(it);
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode, fnv: Value & { t: 'extern' }) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node, fnv) => fn(self, c, node, fnv));
  };

  // A training call on a value that is not known is not followed; it is kept so that the models it trains get a
  // training phase with an unknown instead of none at all (trainingPhases).
  it.callObservers.push((fn, _c, node) => {
    if (fn.t !== 'unknown' || node.type !== 'call') return;
    const f = node.childForFieldName('function');
    if (f?.type !== 'attribute') return;
    const attr = f.childForFieldName('attribute')?.text ?? '';
    const obj = f.childForFieldName('object')?.text ?? '';
    if (attr !== 'backward' && !(attr === 'step' && /(?:opt|optimizer|scaler|engine)\w*$/i.test(obj))) return;
    let around: SyntaxNode = node;
    for (let p = node.parent; p; p = p.parent) { around = p; if (p.type === 'for_statement' || p.type === 'while_statement' || p.type === 'function_definition') break; }
    const span = it.span(node);
    if (attr === 'backward') prog.clock.backward.push(it.steps);
    if (prog.unfollowed?.some((u) => u.span.start === span.start)) return;
    (prog.unfollowed ??= []).push({ span, text: node.text.length > 60 ? `${node.text.slice(0, 57)}…` : node.text, reason: fn.reason, around: around.text, aroundSpan: it.span(around) });
  });

  // Follow a training loop for two iterations: the second shows the steady state.
  it.state.set('loopCap', (node: SyntaxNode): number | undefined => {
    const body = node.childForFieldName('body');
    return body && TRAIN_LOOP.test(body.text) ? 2 : undefined;
  });

  const importEnd = (callee: SyntaxNode): number | undefined => {
    let n: SyntaxNode | null = callee;
    while (n && n.type !== 'identifier') n = n.namedChild(0);
    const name = n?.text;
    const imp = name ? [...it.imports].reverse().find((i) => i.local === name && i.span.start < callee.startIndex) : undefined;
    return imp?.span.end;
  };
  const calleeInfo = (node: SyntaxNode) => {
    const f = node.childForFieldName('function') ?? node;
    const args = node.childForFieldName('arguments');
    return {
      span: it.span(node), callee: f.text, calleeSpan: it.span(f),
      ...keywordSlot(node),
      names: { jnp: it.nameFor('jax.numpy'), bnb: it.nameFor('bitsandbytes'), calleeImportEnd: importEnd(f) },
    };
  };
  const optimizerValue = (use: OptimizerUse): Value => ({ t: 'extern', name: '__optimizer__', kw: new Map(), args: [{ t: 'int', v: prog.optimizers.indexOf(use) }] });
  const useOf = (v: Value | undefined): OptimizerUse | undefined => {
    if (v?.t !== 'extern' || !v.name.startsWith('__optimizer__')) return undefined;
    const o = v.name === '__optimizer__' ? v : v.self;
    const i = o?.t === 'extern' ? num(o.args?.[0] ?? NONE) : undefined;
    return i === undefined ? undefined : prog.optimizers[i];
  };

  // torch.optim: state is made per parameter at the first step() (torch/optim/adamw.py _init_group).
  const torchOpt = (kind: OptimizerKind, lib: 'torch' | 'bnb') => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const given = c.args[0] ?? c.kw.get('params');
    const params = tensorsIn(given);
    // Positional slots after params (torch/optim/sgd.py: lr, momentum; rmsprop.py: lr, alpha, eps, weight_decay, momentum, centered).
    const momentumV = c.kw.get('momentum') ?? (kind === 'torch.sgd' ? c.args[2] : kind === 'torch.rmsprop' ? c.args[5] : undefined);
    // A momentum that is not a literal: the buffer is assumed (the larger state).
    const momentum = momentumV === undefined ? undefined : num(momentumV) ?? 1;
    // weight_decay's positional slot: rmsprop.py and adadelta.py 4, adagrad.py 3 (after lr, lr_decay).
    // NAdam(params, lr, betas, eps, weight_decay): 4 as well.
    // SGD(params, lr, momentum, dampening, weight_decay, nesterov): 4 too.
    const wdV = c.kw.get('weight_decay') ?? (kind === 'torch.rmsprop' || kind === 'torch.adadelta' || kind === 'torch.nadam' || kind === 'torch.sgd' ? c.args[4] : kind === 'torch.adagrad' ? c.args[3] : undefined);
    const weightDecay = wdV === undefined ? undefined : num(wdV) ?? null;
    const centeredV = c.kw.get('centered') ?? (kind === 'torch.rmsprop' ? c.args[6] : undefined);
    const ams = c.kw.get('amsgrad');
    const flag = (k: string) => { const v = c.kw.get(k); return v?.t === 'bool' ? v.v : v === undefined || v.t === 'none' ? undefined : null; };
    const foreach = flag('foreach');
    const fused = flag('fused');
    const use: OptimizerUse = {
      kind, lib, ...calleeInfo(node), params, bound: params.length > 0,
      ...(!params.length && given?.t === 'unknown' ? { paramsUnknown: given.reason } : {}),
      opts: {
        momentum: momentum ?? undefined, amsgrad: ams?.t === 'bool' ? ams.v : undefined,
        ...(weightDecay !== undefined ? { weightDecay } : {}),
        // centered=<not a literal>: the larger state is assumed
        ...(centeredV !== undefined ? { centered: centeredV.t === 'bool' ? centeredV.v : true } : {}),
        // a flag that is not a literal: the multi-tensor path (the larger of the two) is assumed
        ...(foreach !== undefined && foreach !== null ? { foreach } : {}), ...(fused ? { fused } : {}),
      },
    };
    prog.optimizers.push(use);
    return optimizerValue(use);
  };
  for (const [names, kind] of [
    [['torch.optim.AdamW', 'torch.optim.adamw.AdamW'], 'torch.adamw'],
    [['torch.optim.Adam', 'torch.optim.adam.Adam'], 'torch.adam'],
    [['torch.optim.SGD', 'torch.optim.sgd.SGD'], 'torch.sgd'],
    [['torch.optim.RMSprop', 'torch.optim.rmsprop.RMSprop'], 'torch.rmsprop'],
    [['torch.optim.Adagrad', 'torch.optim.adagrad.Adagrad'], 'torch.adagrad'],
    [['torch.optim.Adamax', 'torch.optim.adamax.Adamax'], 'torch.adamax'],
    [['torch.optim.NAdam', 'torch.optim.nadam.NAdam'], 'torch.nadam'],
    [['torch.optim.RAdam', 'torch.optim.radam.RAdam'], 'torch.radam'],
    [['torch.optim.Adadelta', 'torch.optim.adadelta.Adadelta'], 'torch.adadelta'],
  ] as const) reg([...names], torchOpt(kind, 'torch'));
  reg(['bitsandbytes.optim.Adam8bit', 'bitsandbytes.optim.PagedAdam8bit'], torchOpt('bnb.adam8bit', 'bnb'));
  reg(['bitsandbytes.optim.AdamW8bit', 'bitsandbytes.optim.PagedAdamW8bit'], torchOpt('bnb.adamw8bit', 'bnb'));
  reg(['__optimizer__.step', '__optimizer__.zero_grad'], () => NONE);
  // The order of the training calls (`clock`): an optimizer's first step, and zero_grad() calls that free `.grad`
  // (set_to_none=True, the default since torch 2.0: torch/optim/optimizer.py and torch/nn/modules/module.py zero_grad).
  it.callObservers.push((fn, c) => {
    if (fn.t !== 'extern') return;
    if (fn.name === '__optimizer__.step') {
      prog.clock.steps++;
      const u = useOf(fn.self);
      if (u && u.steppedAt === undefined) u.steppedAt = it.steps;
    } else if (fn.name === '__optimizer__.zero_grad' || fn.name === 'torch.nn.Module.zero_grad') {
      const stn = c.kw.get('set_to_none') ?? c.args[0];
      if (!(stn?.t === 'bool' && !stn.v)) prog.clock.gradsFreed.push(it.steps);
    }
  });

  // optax: a GradientTransformation whose state is made by init(params).
  const optax = (kind: OptimizerKind) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const mu = dtypeArg(c.kw.get('mu_dtype'));
    const momentum = num(c.kw.get('momentum') ?? (kind === 'optax.sgd' ? c.args[1] ?? NONE : NONE));
    const use: OptimizerUse = { kind, lib: 'optax', ...calleeInfo(node), params: [], bound: false, opts: { muDtype: mu, momentum: momentum ?? undefined } };
    prog.optimizers.push(use);
    return optimizerValue(use);
  };
  reg(['optax.adam', 'optax._src.alias.adam'], optax('optax.adam'));
  reg(['optax.adamw', 'optax._src.alias.adamw'], optax('optax.adamw'));
  // Adam's state by another name: a step count and two moments of the parameters' shape and dtype — adabelief
  // (scale_by_belief: ScaleByBeliefState(count, mu, nu)), lamb / nadam / radam (scale_by_adam, scale_by_radam:
  // ScaleByAdamState(count, mu, nu)), adamax (scale_by_adamax: ScaleByAdamState(count, mu, nu)); optax/_src/alias.py,
  // transform.py (optax 0.2).
  for (const name of ['adabelief', 'lamb', 'nadam', 'nadamw', 'radam', 'adamax', 'adamaxw']) reg([`optax.${name}`, `optax._src.alias.${name}`], optax('optax.adam'));
  reg(['optax.sgd'], optax('optax.sgd'));
  reg(['optax.adafactor'], optax('optax.adafactor'));
  // chain(clip, adamw, ...): the stateful member carries the state (clip_by_global_norm keeps none).
  reg(['optax.chain'], (_s, c) => c.args.find((a) => useOf(a)) ?? { t: 'extern', name: 'optax.GradientTransformation', kw: new Map() });
  // MultiSteps(opt, every_k_schedule=k): acc_grads next to the inner state (optax/_src/wrappers.py).
  reg(['optax.MultiSteps'], (_s, c) => {
    const inner = useOf(c.args[0] ?? c.kw.get('opt'));
    const k = num(c.args[1] ?? c.kw.get('every_k_schedule') ?? NONE);
    if (inner) inner.accumulate = k ?? 0;
    return inner ? optimizerValue(inner) : { t: 'extern', name: 'optax.GradientTransformation', kw: new Map() };
  });
  reg(['__optimizer__.init'], (self, c) => {
    const use = useOf(self);
    if (use) { use.params = tensorsIn(c.args[0]); use.bound = true; }
    return { t: 'extern', name: '__opt_state__', kw: new Map() };
  });
  reg(['__optimizer__.update'], (_s, c) => ({ t: 'tuple', items: [c.args[0] ?? NONE, c.args[1] ?? NONE] }));
  reg(['__optimizer__.gradient_transformation'], (self) => self ?? NONE);
  reg(['optax.apply_updates'], (_s, c) => c.args[0] ?? NONE);
  // flax TrainState.create(apply_fn=..., params=..., tx=optimizer) calls tx.init(params)
  // (flax/training/train_state.py `create`: `opt_state = tx.init(params)`).
  reg(['flax.training.train_state.TrainState.create'], (_s, c) => {
    const params = c.kw.get('params') ?? NONE;
    const use = useOf(c.kw.get('tx'));
    if (use) { use.params = tensorsIn(params); use.bound = true; }
    const cls = { t: 'class' as const, name: 'TrainState', bases: [], ns: new Map<string, Value>(), kind: 'plain' as const, dataclass: true, fields: [] };
    const st = it.newInst(cls);
    st.attrs.set('params', params);
    st.attrs.set('tx', c.kw.get('tx') ?? NONE);
    st.attrs.set('apply_fn', c.kw.get('apply_fn') ?? NONE);
    st.attrs.set('opt_state', { t: 'extern', name: '__opt_state__', kw: new Map() });
    st.attrs.set('step', { t: 'int', v: 0 });
    // apply_gradients returns a state with the same (updated in place, for memory) parameters.
    cls.ns.set('apply_gradients', { t: 'extern', name: '__train_state_apply__', kw: new Map(), self: st });
    return st;
  });
  // flax NNX: Optimizer(model, tx, wrt=nnx.Param) keeps `opt_state = tx.init(nnx.state(model, wrt))`
  // and a step counter (flax/nnx/training/optimizer.py Optimizer.__init__, flax 0.12.8); update(model, grads)
  // changes the model's Params in place.
  reg(['flax.nnx.Optimizer', 'flax.nnx.training.optimizer.Optimizer', 'flax.nnx.ModelAndOptimizer'], (_s, c) => {
    const model = c.args[0] ?? c.kw.get('model') ?? NONE;
    const use = useOf(c.args[1] ?? c.kw.get('tx'));
    if (use) { use.params = tensorsIn(model).filter((t) => t.role === 'param'); use.bound = true; }
    const cls = { t: 'class' as const, name: 'Optimizer', bases: [], ns: new Map<string, Value>(), kind: 'plain' as const, dataclass: false, fields: [] };
    const opt = it.newInst(cls);
    opt.attrs.set('model', model);
    opt.attrs.set('tx', c.args[1] ?? c.kw.get('tx') ?? NONE);
    opt.attrs.set('opt_state', { t: 'extern', name: '__opt_state__', kw: new Map() });
    cls.ns.set('update', { t: 'extern', name: '__nnx_optimizer_update__', kw: new Map(), self: opt });
    return opt;
  });
  it.externs.set('__nnx_optimizer_update__', () => NONE);
  it.externs.set('__train_state_apply__', (_i, self) => {
    const st = self?.t === 'extern' ? self.self : self;
    return st ?? NONE;
  });
  reg(['equinox.apply_updates'], (_s, c) => c.args[0] ?? NONE);

  const gradTraced = new Set<string>();
  // Gradient transforms: calling the result runs the function (so its shapes are followed) and records the inputs.
  reg(['jax.grad', 'jax.value_and_grad', 'equinox.filter_grad', 'equinox.filter_value_and_grad'], (_s, c, node, fnv) => {
    const f = c.args[0];
    if (!f) return { t: 'extern', name: '__grad_factory__', kw: new Map([['value', { t: 'bool', v: /value_and_grad/.test(fnv.name) }], ...c.kw]) };
    return { t: 'extern', name: '__grad_fn__', args: [f], kw: new Map([['value', { t: 'bool', v: /value_and_grad/.test(fnv.name) }], ...c.kw]) };
  });
  it.externs.set('__grad_factory__', (_i, _s, c, _n, fnv) => ({ t: 'extern', name: '__grad_fn__', args: [c.args[0] ?? NONE], kw: fnv.kw }));
  it.externs.set('__grad_fn__', (i, _s, c, node, fnv) => {
    it.memory.abortPlainInit();
    const f = fnv.args?.[0] ?? NONE;
    const inputs = c.args.slice(1).flatMap((a) => tensorsIn(a)).filter((t) => t.role !== 'param');
    const g: GradCall = { span: it.span(node), inputs, primal: tensorsIn(c.args[0]), jit: enclosingJit(node, it.text) };
    prog.gradCalls.push(g);
    // fp32 parameters cast to 16-bit inside the differentiated function (mixed precision by hand, or jmp policies).
    const m = f.t === 'func' ? /\b(bfloat16|float16)\b/.exec(f.node.text) : null;
    if (m && !prog.jaxComputeDtype) prog.jaxComputeDtype = { dtype: m[1] as DType, span: it.span(f.t === 'func' ? f.node : node) };
    const run = (): Value => (f.t === 'func' || f.t === 'extern' ? i.call(f, c, node) : unknown('gradient of an unknown function', it.span(node)));
    // Outside a model's construction, run the differentiated function once per call site in a scratch record
    // and count the arrays its operations make: the residuals the backward reads are among them (JAX's
    // linearize keeps what each primitive's transpose needs, jax/_src/interpreters/ad.py), so their sum is an
    // upper bound on the activations kept for the backward.
    const site = `${node.startIndex}:${node.endIndex}`;
    let out: Value;
    // Eager only: under jit the step's peak is XLA's (live arguments + temporaries + outputs that are not
    // donated), which the op outputs do not bound; its activations stay unknown.
    if (it.memory.current || it.memory.jitDepth > 0 || g.jit || gradTraced.has(site) || (f.t !== 'func' && f.t !== 'extern')) out = run();
    else {
      gradTraced.add(site);
      let bytes = 0; let count = 0; let unknownSizes = 0;
      const seen = new Set<number>();
      const stop = it.memory.watchAllocs((t) => {
        if (t.role !== 'activation' || t.abstract || t.placement.kind === 'host' || seen.has(t.id)) return;
        seen.add(t.id);
        const n = t.shape.reduce<number>((a, d) => (typeof d === 'number' ? a * d : NaN), 1);
        if (!Number.isFinite(n)) { unknownSizes++; return; }
        bytes += n * dtypeBytes(t.dtype);
        count++;
      });
      const r = it.memory.aside({ name: 'differentiated function', framework: 'jax', span: it.span(node), phase: 'training', jitted: false, gc: false }, run);
      stop();
      out = r.value;
      g.opLevel = { bytes, count, unknowns: unknownSizes + r.rec.unknowns.length };
    }
    // Gradients have the primal's structure (argnums=0); with has_aux the function's output is already (value, aux).
    const grads = c.args[0] ?? NONE;
    const value = fnv.kw?.get('value');
    if (value?.t === 'bool' && value.v) return { t: 'tuple', items: [out, grads] };
    return grads;
  });

  // Gradient checkpointing: the function is returned as is (the interpreter follows shapes, not saved tensors).
  const ckpt = (how: string) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    prog.checkpointing.push({ span: it.span(node), how });
    const f = c.args[0];
    if (!f) return { t: 'extern', name: '__identity_decorator__', kw: new Map() };
    return f;
  };
  reg(['jax.checkpoint', 'jax.remat', 'jax.ad_checkpoint.checkpoint'], ckpt('jax.checkpoint'));
  reg(['equinox.filter_checkpoint'], ckpt('eqx.filter_checkpoint'));
  reg(['flax.linen.remat', 'flax.linen.checkpoint'], ckpt('nn.remat'));
  it.externs.set('__identity_decorator__', (_i, _s, c) => c.args[0] ?? NONE);
  reg(['torch.utils.checkpoint.checkpoint'], (_s, c, node) => {
    prog.checkpointing.push({ span: it.span(node), how: 'torch.utils.checkpoint.checkpoint' });
    const f = c.args[0];
    if (!f) return unknown('checkpoint without a function', it.span(node));
    const kw = new Map([...c.kw].filter(([k]) => !['use_reentrant', 'preserve_rng_state', 'determinism_check', 'debug', 'context_fn'].includes(k)));
    return it.call(f, { args: c.args.slice(1), kw }, node);
  });
  reg(['torch.utils.checkpoint.checkpoint_sequential'], (_s, c, node) => {
    prog.checkpointing.push({ span: it.span(node), how: 'checkpoint_sequential' });
    return c.args[2] ?? NONE;
  });
  for (const base of ['torch.nn.Module', 'transformers.PreTrainedModel']) {
    reg([`${base}.gradient_checkpointing_enable`], (self, _c, node) => { prog.checkpointing.push({ span: it.span(node), how: 'gradient_checkpointing_enable()' }); void self; return NONE; });
  }

  // Mixed precision.
  reg(['torch.autocast', 'torch.amp.autocast', 'torch.cuda.amp.autocast'], (_s, c, node, fnv) => {
    const dt = dtypeArg(c.kw.get('dtype')) ?? (fnv.name === 'torch.cuda.amp.autocast' || c.args[0] ? 'float16' : undefined);
    const enabled = c.kw.get('enabled');
    const on = dt && !(enabled?.t === 'bool' && !enabled.v);
    if (on && !prog.autocast) prog.autocast = { dtype: dt, span: it.span(node) };
    return { t: 'extern', name: '__autocast__', kw: new Map(), args: on ? [{ t: 'dtype', dtype: dt }] : [] };
  });
  // The autocast dtype in force, by `with` nesting (forwards record it).
  const autocast: (DType | undefined)[] = [];
  const prevEnter = it.externs.get('__enter__');
  const prevExit = it.externs.get('__exit__');
  it.externs.set('__enter__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__autocast__') autocast.push(self.args?.[0]?.t === 'dtype' ? self.args[0].dtype : undefined);
    // `with amp.scale_loss(loss, optimizer) as scaled_loss:` (NVIDIA apex, apex/amp/handle.py scale_loss): yields the
    // loss times the loss scale, the same scalar's graph; the backward runs on it inside the block.
    if (self?.t === 'extern' && self.name === '__apex_scaled_loss__') return self.args?.[0] ?? NONE;
    return prevEnter ? prevEnter(i, self, c, node, f) : self ?? NONE;
  });
  // apex.amp.initialize(models, optimizers, opt_level=…) returns them (patched to cast in the forward: O1 autocasts,
  // O2/O3 cast the model to float16, apex/amp/frontend.py); the cast of O2/O3 is an unknown of the step's dtypes.
  reg(['apex.amp.initialize', 'apex.amp.frontend.initialize'], (_s, c, node) => {
    const lvl = c.kw.get('opt_level');
    if (lvl?.t === 'str' && lvl.v === 'O1' && !prog.autocast) { prog.autocast = { dtype: 'float16', span: it.span(node) }; prog.autocastAll = true; }
    else prog.trainerUnknowns.push({ what: 'precision', reason: `apex amp.initialize(opt_level=${lvl?.t === 'str' ? lvl.v : '…'}): ${lvl?.t === 'str' && /^O[23]$/.test(lvl.v) ? 'the float16 model and float32 master weights' : 'its precision'} are not modelled`, span: it.span(node) });
    const models = c.args[0] ?? c.kw.get('models');
    const opt = c.args[1] ?? c.kw.get('optimizers');
    return opt ? { t: 'tuple', items: [models ?? NONE, opt] } : models ?? NONE;
  });
  reg(['apex.amp.scale_loss', 'apex.amp.handle.scale_loss'], (_s, c) => ({ t: 'extern', name: '__apex_scaled_loss__', args: [c.args[0] ?? c.kw.get('loss') ?? NONE] }));
  it.externs.set('__exit__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__autocast__') autocast.pop();
    return prevExit ? prevExit(i, self, c, node, f) : NONE;
  });
  reg(['torch.cuda.amp.GradScaler', 'torch.amp.GradScaler'], (_s, _c, node) => { prog.gradScaler = it.span(node); return { t: 'extern', name: '__grad_scaler__', kw: new Map() }; });
  reg(['__grad_scaler__.scale'], (_s, c) => c.args[0] ?? NONE);
  reg(['__grad_scaler__.step', '__grad_scaler__.update', '__grad_scaler__.unscale_'], () => NONE);

  // Sharded data parallelism: the wrapper returns the same module (its parameters are what is divided).
  reg(['torch.distributed.fsdp.FullyShardedDataParallel', 'torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel'], (_s, c, node) => {
    const strat = node.childForFieldName('arguments')?.text ?? '';
    // ShardingStrategy.FULL_SHARD is the default (torch/distributed/fsdp/api.py); SHARD_GRAD_OP keeps parameters whole outside compute.
    const stage: ZeroStage = /SHARD_GRAD_OP|_HYBRID_SHARD_ZERO2/.test(strat) ? 2 : /NO_SHARD/.test(strat) ? 0 : 3;
    prog.fsdp = { span: it.span(node), stage, how: 'FullyShardedDataParallel' };
    return c.args[0] ?? c.kw.get('module') ?? NONE;
  });
  // DistributedDataParallel (torch/nn/parallel/distributed.py, torch 2.1): one full replica per process, and the
  // Reducer's flat communication buckets hold every gradient again unless gradient_as_bucket_view=True ("the saved
  // memory size will be equal to the total gradients size"). `.module` is the wrapped model.
  const ddpWrapped = new WeakSet<object>();
  reg(['torch.nn.parallel.DistributedDataParallel', 'torch.nn.parallel.distributed.DistributedDataParallel'], (_s, c, node) => {
    const m = c.args[0] ?? c.kw.get('module') ?? NONE;
    const v = c.kw.get('gradient_as_bucket_view');
    prog.ddp = { span: it.span(node), bucketView: v?.t === 'bool' && v.v };
    if (m.t === 'inst') ddpWrapped.add(m);
    return m;
  });
  // DataParallel (torch/nn/parallel/data_parallel.py, torch 2.1): the module stays on device_ids[0]; each forward
  // replicates it to the other devices (replicate.py → comm.broadcast_coalesced, which keeps the source tensors for
  // the first device: torch/csrc/cuda/comm.cpp), scatters the inputs along dim 0, and gathers the replicas' outputs on
  // output_device (device_ids[0]); the backward reduces the gradients onto the module's parameters there. With one
  // device it calls the module directly. `device_ids=None` is every visible device. `.module` is the wrapped model.
  reg(['torch.nn.DataParallel', 'torch.nn.parallel.DataParallel', 'torch.nn.parallel.data_parallel.DataParallel'], (_s, c, node) => {
    const m = c.args[0] ?? c.kw.get('module') ?? NONE;
    const ids = c.kw.get('device_ids') ?? c.args[1];
    const devices = ids && (ids.t === 'list' || ids.t === 'tuple') ? ids.items.length : ids === undefined || ids.t === 'none' ? null : -1;
    prog.dataParallel = { span: it.span(node), devices: devices === -1 ? null : devices };
    if (devices === -1) prog.trainerUnknowns.push({ what: 'devices', reason: 'DataParallel(device_ids=...) is not a literal list: the number of replicas is not known', span: it.span(node) });
    if (m.t === 'inst') ddpWrapped.add(m);
    return m;
  });
  chainGetattr(it, (self, name) => (name === 'module' && self.t === 'inst' && ddpWrapped.has(self) ? self : undefined));
  reg(['torch.distributed._composable.fsdp.fully_shard', 'torch.distributed.fsdp.fully_shard'], (_s, c, node) => {
    const r = c.kw.get('reshard_after_forward');
    prog.fsdp = { span: it.span(node), stage: r?.t === 'bool' && !r.v ? 2 : 3, how: 'fully_shard' };
    return c.args[0] ?? NONE;
  });
  reg(['deepspeed.initialize'], (_s, c, node) => {
    const cfg = c.kw.get('config') ?? c.kw.get('config_params');
    const model = c.kw.get('model') ?? c.args[1] ?? NONE;
    const get = (d: Value | undefined, k: string): Value | undefined => {
      if (d?.t !== 'dict') return undefined;
      const i = d.keys.findIndex((x) => x.t === 'str' && x.v === k);
      return i >= 0 ? d.vals[i] : undefined;
    };
    const stage = num(get(get(cfg, 'zero_optimization'), 'stage') ?? NONE);
    if (stage !== undefined && stage >= 0 && stage <= 3) prog.zero = { span: it.span(node), stage: stage as ZeroStage, how: `DeepSpeed ZeRO stage ${stage}` };
    let opt: Value = c.kw.get('optimizer') ?? NONE;
    const oc = get(cfg, 'optimizer');
    const type = get(oc, 'type');
    if (!useOf(opt) && type?.t === 'str') {
      // DeepSpeed's "Adam"/"AdamW" optimizers keep exp_avg and exp_avg_sq in float32 (deepspeed/ops/adam/fused_adam.py).
      const kind: OptimizerKind | undefined = /^adamw$/i.test(type.v) ? 'torch.adamw' : /^adam$/i.test(type.v) ? 'torch.adam' : undefined;
      if (kind) {
        const use: OptimizerUse = { kind, lib: 'torch', ...calleeInfo(node), params: tensorsIn(model), bound: true, opts: {} };
        prog.optimizers.push(use);
        opt = optimizerValue(use);
      }
    }
    return { t: 'tuple', items: [model, opt, NONE, NONE] };
  });

  // loss.backward(): a torch training step.
  reg(['torch.Tensor.backward'], (_s, _c, node) => { noteBackward(it, prog, it.span(node)); return NONE; });

  // Forward calls inside a training step (a loop or function that calls .backward()): the input shape sizes the activations.
  const prevCall = it.externs.get('__call_inst__');
  const traced = new Set<string>();
  // The targets a loss compares the model's output with (labels, masks, regression targets): they live on the
  // output's device for the step (torch's loss kernels take both on one device).
  const LOSS = /(?:^|\.)(?:cross_entropy|mse_loss|nll_loss|l1_loss|smooth_l1_loss|huber_loss|kl_div|binary_cross_entropy(?:_with_logits)?|CrossEntropyLoss|MSELoss|NLLLoss|L1Loss|SmoothL1Loss|HuberLoss|KLDivLoss|BCELoss|BCEWithLogitsLoss)$/;
  it.memory.watchOps((ev) => {
    // What is computed from a forward's output (`logits.view(-1, V)`) is not a target either.
    if (ev.inputs.some((t) => prog.forwardMade.has(t.id))) for (const t of ev.outputs) prog.forwardMade.add(t.id);
    if (!LOSS.test(ev.op)) return;
    for (const t of ev.inputs) if (t.role !== 'param' && t.role !== 'buffer' && !prog.forwardMade.has(t.id) && !prog.lossTargets.some((x) => x.id === t.id)) prog.lossTargets.push(t);
  });
  it.externs.set('__call_inst__', (i, self, c, node, f) => {
    const run0 = () => (prevCall ? prevCall(i, self, c, node, f) : unknown('module call', it.span(node)));
    if (self?.t !== 'inst' || !(inTrainingStep(node) || inTrainingCall(it))) return run0();
    // Everything a training forward makes is an activation or output, never a batch or target (stepInputEvents).
    const run = () => {
      const stop = it.memory.watchAllocs((t) => { prog.forwardMade.add(t.id); });
      try { return run0(); } finally { stop(); }
    };
    const x = c.args[0] ?? c.kw.get('input_ids') ?? c.kw.get('idx') ?? c.kw.get('x') ?? c.kw.get('inputs');
    const ids = x?.t === 'dict' ? x.vals[0] : x;
    prog.liveAtStep ??= liveAtStep(it, node);
    const use: TrainingProgram['forwards'][number] = { model: self, span: it.span(node), input: ids?.t === 'tensor' ? ids : undefined, why: ids?.t === 'unknown' ? ids.reason : undefined, autocast: autocast[autocast.length - 1], ...loopContext(node) };
    use.inputs = [...c.args, ...c.kw.values()].flatMap((a) => tensorsIn(a)).filter((t) => t.role !== 'param' && t.role !== 'buffer');
    prog.forwards.push(use);
    // Trace a user module's forward once per call site: under autograd every op output it makes is kept for the backward.
    const site = `${node.startIndex}:${node.endIndex}`;
    const rec = it.memory.finished.find((r) => r.result === self);
    if (!rec || rec.framework !== 'torch' || it.memory.current || traced.has(site)) return run();
    traced.add(site);
    // Every op of the traced forward, and which tensors it made (the activations: gradients flow through them).
    const made = new Set<number>();
    const ops: OpEvent[] = [];
    const stopA = it.memory.watchAllocs((t) => { made.add(t.id); prog.forwardMade.add(t.id); });
    const stopO = it.memory.watchOps((ev) => { ops.push(ev); });
    let res: { value: Value; rec: ModelRecord };
    try {
      res = it.memory.aside({ name: `${rec.name} training forward`, framework: rec.framework, span: it.span(node), phase: 'training', jitted: false, gc: false }, run);
    } finally { stopA(); stopO(); }
    const { value: out, rec: tmp } = res;
    const act = (t: TensorV) => made.has(t.id) && t.role === 'activation';
    // What requires grad, op by op: a parameter not frozen, and whatever an op makes from something that does. Only
    // when some parameter is frozen (else every op reading a parameter or its products is recorded, as before).
    const frozenParams = ops.some((ev) => [...ev.inputs, ...(ev.params ?? [])].some((t) => t.role === 'param' && t.note === FROZEN));
    let rg: ((t: TensorV) => boolean) | undefined;
    if (frozenParams) {
      const needs = new Set<number>();
      const req = (t: TensorV) => (t.role === 'param' ? t.note !== FROZEN : needs.has(t.id));
      for (const ev of ops) if ([...ev.inputs, ...(ev.params ?? [])].some(req)) for (const o of ev.outputs) needs.add(o.id);
      rg = req;
    }
    const saved = ops.map((ev) => savedBy(ev, act, rg));
    const unrecorded = rg ? ops.filter((ev) => ![...ev.inputs, ...(ev.params ?? [])].some(rg!)).length : 0;
    const lvl = opLevel(saved);
    const outT = out.t === 'tensor' ? out : out.t === 'tuple' && out.items[0]?.t === 'tensor' ? out.items[0] : undefined;
    use.opLevel = {
      bytes: lvl.saved, count: lvl.count, unknowns: tmp.unknowns.length + (out.t === 'unknown' ? 1 : 0),
      backwardPeak: lvl.backwardPeak, backwardPeakParams: lvl.backwardPeakParams, paramGradsAtPeak: lvl.paramGradsAtPeak, savedAtPeak: lvl.savedAtPeak, actGradsAtPeak: lvl.actGradsAtPeak, paramGrads: lvl.paramGrads, output: outT && !saved.some((sv) => sv.tensors.some((t) => t.id === outT.id)) ? outT : undefined,
      lowerBounds: lvl.lowerBounds, byOp: lvl.byOp, byDtype: lvl.byDtype, unrecorded, outputWhy: out.t === 'unknown' ? out.reason : undefined,
    };
    return out;
  });
}


/**
 * The batch a training step feeds the model with and the targets its loss reads, as placed alongside the model
 * (a torch forward needs its input on the model's device, and a loss its target on the output's: like the
 * inference trace's "forward input"). `before`: only those made before the model's first forward call (alive
 * at the end of the load phase); otherwise the rest.
 */
export function stepInputEvents(rec: ModelRecord, it: Interpreter, before: boolean): MemoryEvent[] {
  const prog = it.state.get('training') as TrainingProgram | undefined;
  if (!prog || rec.framework !== 'torch' || rec.result === undefined) return [];
  const mine = prog.forwards.filter((f) => f.model === rec.result);
  if (!mine.length) return [];
  const first = Math.min(...mine.map((f) => (f.span.file ? Infinity : f.span.start)));
  // One tensor per statement: a batch made in the loop (`x = torch.randn(...)`) replaces the previous
  // iteration's when it is assigned, so only the latest of each making statement is alive.
  const latest = new Map<string, TensorV>();
  for (const t of [...mine.flatMap((f) => f.inputs ?? []), ...prog.lossTargets]) {
    if (prog.forwardMade.has(t.id) || t.abstract || t.virtual || !t.shape.every((d) => typeof d === 'number')) continue;
    latest.set(t.span ? `${t.span.file ?? ''}:${t.span.start}:${t.span.end}` : `#${t.id}`, t);
  }
  const out: MemoryEvent[] = [];
  for (const t of latest.values()) {
    const made = !!t.span && !t.span.file && t.span.end <= first;
    if (made !== before) continue;
    out.push({ op: 'alloc', tensor: {
      id: t.id, label: t.label, group: `forward input (${t.dtype})`, shape: t.shape as number[], dtype: t.dtype, role: 'input',
      placement: t.placement.kind === 'host' ? { kind: 'device', index: 0 } : t.placement, span: t.span,
      note: 'a batch or target the training step uses: on the model\'s device during the step', citation: 'torch raises when a module\'s input or a loss\'s target is on another device than its weights / input',
    } });
  }
  return out;
}

/**
 * Optimizer state made when the optimizer is constructed, before any step: torch Adagrad fills `state["sum"]` in
 * `__init__` (torch/optim/adagrad.py, `torch.full_like(p, initial_accumulator_value)` per parameter), so it is on
 * the device beside the model from then on, before the first forward. Measured: test/truth/programs/
 * mlp_adagrad_foreach.py, load phase (the other optimizers make theirs at the first `step()`).
 */
export function constructedStateEvents(rec: ModelRecord, it: Interpreter, params: TensorV[]): MemoryEvent[] {
  const prog = it.state.get('training') as TrainingProgram | undefined;
  if (!prog || rec.framework !== 'torch') return [];
  const ids = paramIds(rec, params);
  const out: MemoryEvent[] = [];
  for (const o of prog.optimizers) {
    if (o.kind !== 'torch.adagrad') continue;
    const mine = o.params.filter((t) => ids.has(t.id) && t.shape.every((d) => typeof d === 'number'));
    if (!mine.length) continue;
    const st = optimizerStateBytes(o.kind, mine.map((t) => ({ shape: t.shape as number[], dtype: t.dtype })), o.opts);
    const placement = mine[0].placement.kind === 'host' ? { kind: 'device' as const, index: 0 } : mine[0].placement;
    out.push({ op: 'alloc', tensor: {
      id: nextId++, label: 'optimizer state', group: `optimizer state: ${o.callee}, made at construction (${mine[0].dtype})`, shape: [st.bytes], dtype: 'uint8',
      role: 'optimizer', placement, span: o.span, note: `${st.formula}; Adagrad makes it in its constructor, before any step`, citation: st.citation,
    } });
  }
  return out;
}

/**
 * Where a forward call sits in a training loop: the plain name its result is bound to (`logits = model(x)`),
 * and whether `zero_grad()` (set_to_none, the default since torch 2.0) comes after it and before `.backward()`
 * in the loop body, so that the previous step's `.grad` tensors are still alive while it runs.
 */
function loopContext(node: SyntaxNode): { boundTo?: string; zeroGradAfter?: boolean } {
  let loop: SyntaxNode | null = node.parent;
  while (loop && loop.type !== 'for_statement' && loop.type !== 'while_statement' && loop.type !== 'function_definition') loop = loop.parent;
  if (!loop || loop.type === 'function_definition') return {};
  const body = loop.childForFieldName('body');
  if (!body) return {};
  const p = node.parent;
  const left = p?.type === 'assignment' ? p.childForFieldName('left') : null;
  const boundTo = left?.type === 'identifier' && p?.childForFieldName('right')?.id === node.id ? left.text : undefined;
  const after = body.text.slice(node.endIndex - body.startIndex);
  const zg = /\.zero_grad\s*\(([^)]*)\)/.exec(after);
  const bw = /\.backward\s*\(/.exec(after);
  const zeroGradAfter = !!zg && (!bw || zg.index < bw.index) && !/set_to_none\s*=\s*False/.test(zg[1]);
  return { boundTo, zeroGradAfter };
}

/**
 * The device tensors and torch.load checkpoints reachable from every live name at `node` (TrainingProgram.liveAtStep).
 * A module's parameters and buffers count only under a module the program moved to the accelerator (`.to(device)`,
 * `.cuda()`, or a copy of one: copy.deepcopy copies each tensor on its own device), or built under a non-CPU
 * default device: an EMA / SWA copy, a frozen teacher, a second network. `owner` names the module that holds them.
 */
export function liveAtStep(it: Interpreter, node: SyntaxNode): NonNullable<TrainingProgram['liveAtStep']> {
  const tensors: TensorV[] = [];
  const owner = new Map<number, string>();
  const unsized = new Map<InstV, string>();
  const unsizedTensors = new Map<number, string>();
  const optimizers = new Set<number>();
  const checkpoints = new Set<object>();
  const dtypes = new Map<number, DType>();
  const seen = new Set<object>();
  const stack: [Value, string | undefined][] = [];
  const envs = new Set<unknown>([...it.frames, it.globals, ...[...it.modules.values()].map((m) => m.env)]);
  for (const e of envs) if (e && typeof e === 'object' && 'vars' in e) for (const v of (e as { vars: Map<string, Value> }).vars.values()) stack.push([v, undefined]);
  const dflt = it.state.get('torchDevice');
  const defaultOnDevice = typeof dflt === 'string' && dflt !== 'cpu' && dflt !== 'meta';
  let steps = 0;
  while (stack.length && steps++ < 200_000) {
    const [x, module] = stack.pop()!;
    if (typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    switch (x.t) {
      case 'tensor': {
        dtypes.set(x.id, x.dtype);
        // Only where the interpreter knows the tensor is on the accelerator, and its size. A module's weights keep
        // the placement they were built with; the module's move (`moved:` state) says where they are.
        const weight = x.role === 'param' || x.role === 'buffer';
        const onDevice = x.placement.kind === 'device' || x.placement.kind === 'sharded' || (weight && module !== undefined && x.placement.kind === 'host');
        if (onDevice && (!weight || module !== undefined) && !x.abstract && !x.virtual && x.shape.every((d) => typeof d === 'number')) {
          tensors.push(x);
          if (weight && module) owner.set(x.id, module);
        } else if (weight && module !== undefined && onDevice && !x.abstract && !x.virtual) unsizedTensors.set(x.id, `${module}: ${x.label} has a dimension that is not known`);
        break;
      }
      case 'tuple': case 'list': for (const y of x.items) stack.push([y, module]); break;
      case 'dict': for (const y of x.vals) stack.push([y, module]); break;
      case 'inst': {
        let m = module;
        if (x.cls.kind === 'torch' || x.cls.bases.length) {
          const moved = it.state.get(`moved:${x.id}`);
          if (moved !== undefined) m = moved !== 'cpu' && moved !== 'meta' ? (module ?? x.cls.name) : undefined;
          else if (module === undefined && defaultOnDevice) m = x.cls.name;
          // A transformers model loaded onto the accelerator (a device_map that is not the CPU): its weights were
          // placed there by the load. Without a device_map it stays on the host until moved (`moved:` above).
          else if (module === undefined && hfLoadOf(x)?.deviceMap && !/^(cpu|meta|disk)$/.test(hfLoadOf(x)!.deviceMap!) && [...x.attrs.values()].some((t) => t.t === 'tensor' && t.placement.kind === 'device')) m = hfLoadOf(x)!.checkpoint;
          // A module on the device with a part whose size is not known (a layer from a library oomlens does not
          // model, a count read from data): what it holds is an unknown of the step, not nothing.
          if (m !== undefined && x.cls.kind === 'torch') {
            const slots = unknownModuleSlots(x, it.changedByUnknownLoop);
            if (slots.length) unsized.set(x, `${x.cls.name}: ${slots[0]}`);
          }
        }
        for (const y of x.attrs.values()) stack.push([y, m]);
        for (const y of x.items ?? []) stack.push([y, m]);
        break;
      }
      case 'extern': {
        if (x.name === '__torch_checkpoint__') checkpoints.add(x);
        // An optimizer object still referenced (phases/training.ts optimizerValue: `__optimizer__` with its index).
        const oi = x.name === '__optimizer__' ? num(x.args?.[0] ?? NONE) : undefined;
        if (oi !== undefined) optimizers.add(oi);
        if (x.self) stack.push([x.self, module]);
        // A library object holding models (a trainer's ref_model): what it holds is reachable from the name too.
        if (x.name === '__hf_trainer__') for (const y of x.kw?.values() ?? []) stack.push([y, module]);
        break;
      }
      default: break;
    }
  }
  return { tensors, owner, unsized, unsizedTensors, optimizers, checkpoints, span: it.span(node), dtypes };
}

// -------------------------------------------------------------- architecture

export interface Arch { layers: number; hidden: number; heads: number; vocab?: number; dropout: boolean | undefined; why?: string }

const HEAD_KEYS = ['n_head', 'n_heads', 'num_heads', 'num_attention_heads', 'nhead', 'heads', 'num_head'];
const HIDDEN_KEYS = ['n_embd', 'hidden_size', 'd_model', 'embed_dim', 'dim', 'hidden_dim', 'emb_dim', 'n_embed', 'model_dim'];
const LAYER_KEYS = ['n_layer', 'n_layers', 'num_layers', 'num_hidden_layers', 'depth'];
const VOCAB_KEYS = ['vocab_size', 'n_vocab', 'num_embeddings', 'vocab'];

/** Reads a transformer's shape from the model object: its repeated blocks, embedding and config attributes. */
export function archOf(root: Value): Arch | { why: string } {
  const ints = new Map<string, number>();
  let bestList: Value[] | undefined;
  let vocab: number | undefined;
  let embHidden: number | undefined;
  const dropouts: (number | undefined)[] = [];
  const seen = new Set<object>();
  const stack: Value[] = [root];
  while (stack.length) {
    const v = stack.pop()!;
    if (typeof v !== 'object' || seen.has(v)) continue;
    seen.add(v);
    if (v.t === 'inst') {
      if (v.cls.name === 'Dropout' || /Dropout$/.test(v.cls.name)) {
        const p = v.catArgs?.p;
        dropouts.push(typeof p === 'number' ? p : v.catArgs && !('p' in v.catArgs) ? 0.5 : undefined);
      }
      if (/Embed/.test(v.cls.name)) {
        const w = v.attrs.get('weight') ?? v.attrs.get('embedding');
        if (w?.t === 'tensor' && w.shape.length === 2 && typeof w.shape[0] === 'number' && typeof w.shape[1] === 'number' && (vocab === undefined || w.shape[0] > vocab)) {
          vocab = w.shape[0]; embHidden = w.shape[1];
        }
      }
      const items = v.items ?? undefined;
      const list = items ?? [];
      for (const [k, a] of v.attrs) {
        if (a.t === 'int' && !ints.has(k)) ints.set(k, a.v);
        if (a.t === 'float' && k === 'dropout') dropouts.push(a.v);
        if ((a.t === 'list' || a.t === 'tuple') && a.items.length >= 2) consider(a.items);
        stack.push(a);
      }
      if (list.length >= 2) consider(list);
      // Class-level defaults (`n_head: int = 12` on a dataclass-like module).
      for (const [k, a] of v.cls.ns) if (a.t === 'int' && !ints.has(k)) ints.set(k, a.v);
    } else if (v.t === 'list' || v.t === 'tuple') stack.push(...v.items);
    else if (v.t === 'dict') stack.push(...v.vals);
  }
  function consider(items: Value[]): void {
    const first = items[0];
    if (first?.t !== 'inst' || !items.every((x) => x.t === 'inst' && x.cls.name === first.cls.name)) return;
    if (!tensorsIn(first).some((t) => t.role === 'param')) return;
    if (!bestList || items.length > bestList.length) bestList = items;
  }
  const pick = (keys: string[]) => { for (const k of keys) if (ints.has(k)) return ints.get(k); return undefined; };
  const layers = bestList?.length ?? pick(LAYER_KEYS);
  const hidden = pick(HIDDEN_KEYS) ?? embHidden;
  const heads = pick(HEAD_KEYS);
  const v = pick(VOCAB_KEYS) ?? vocab;
  if (!layers) return { why: 'no stack of repeated layers (a list of identical blocks) was found in the model' };
  if (!hidden) return { why: 'the hidden size is not stated (no embedding and no n_embd / hidden_size / d_model attribute)' };
  if (!heads) return { why: 'the number of attention heads is not stated (no n_head / num_heads attribute)' };
  const dropout = dropouts.length === 0 ? false : dropouts.every((p) => p === 0) ? false : dropouts.some((p) => p === undefined) ? undefined : true;
  return { layers, hidden, heads, vocab: v, dropout };
}

function archFromHf(c: Record<string, unknown>): Arch | { why: string } {
  const r = readConfig(() => archFromHfConfig(c));
  return r instanceof UnknownConfigField ? { why: r.message } : r;
}

function archFromHfConfig(c: Record<string, unknown>): Arch | { why: string } {
  const g = (...ks: string[]) => { for (const k of ks) if (typeof c[k] === 'number') return c[k] as number; return undefined; };
  const layers = g('num_hidden_layers', 'n_layer', 'num_layers');
  const hidden = g('hidden_size', 'n_embd', 'd_model');
  const heads = g('num_attention_heads', 'n_head', 'num_heads');
  if (!layers || !hidden || !heads) return { why: 'the checkpoint configuration lacks num_hidden_layers / hidden_size / num_attention_heads' };
  if (c.is_encoder_decoder === true || c.model_type === 't5') return { why: 'encoder-decoder models (two stacks, cross-attention) are not modelled' };
  const drops = ['hidden_dropout_prob', 'attention_probs_dropout_prob', 'resid_pdrop', 'attn_pdrop', 'embd_pdrop', 'attention_dropout', 'hidden_dropout', 'dropout'].map((k) => c[k]).filter((x): x is number => typeof x === 'number');
  return { layers, hidden, heads, vocab: g('vocab_size'), dropout: drops.length ? drops.some((p) => p > 0) : undefined };
}

// -------------------------------------------------------------- phase build

/**
 * The dtype a torch forward computes in when it is not its parameters' and no autocast is on: the dtype of most of
 * what the traced forward saved for its backward (over half of the bytes), when that is a floating dtype other than
 * the parameters'. Undefined when nothing was traced or the parameters' dtype dominates.
 */
function tracedComputeDtype(forwards: TrainingProgram['forwards'], paramDtype: DType): DType | undefined {
  const by = forwards.find((f) => f.opLevel && f.opLevel.count > 0)?.opLevel?.byDtype;
  if (!by) return undefined;
  const total = [...by.values()].reduce((a, b) => a + b, 0);
  const [d, n] = [...by].sort((x, y) => y[1] - x[1])[0] ?? [];
  if (!d || d === paramDtype || !['bfloat16', 'float16', 'float32'].includes(d) || n <= total / 2) return undefined;
  return d as DType;
}

/**
 * `x = x.to(D)` (or `.to(dtype=D)`, `.half()`, `.bfloat16()`) as a statement of the model's own forward, D a dtype
 * the forward's module defines (`COMPUTE_DTYPE = torch.bfloat16 if ... else torch.float32`): the residual stream is
 * computed in D from there on, whatever dtype the parameters (master weights) have.
 */
function forwardCast(it: Interpreter, rec: ModelRecord): { dtype: DType; text: string } | undefined {
  const inst = rec.result;
  if (inst?.t !== 'inst') return undefined;
  const fwd = it.classAttr(inst.cls, 'forward');
  if (fwd?.t !== 'func') return undefined;
  for (const st of fwd.node.childForFieldName('body')?.namedChildren ?? []) {
    const a = st?.type === 'expression_statement' ? st.namedChildren[0] : undefined;
    if (a?.type !== 'assignment') continue;
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    const f = right?.type === 'call' ? right.childForFieldName('function') : undefined;
    if (left?.type !== 'identifier' || f?.type !== 'attribute' || f.childForFieldName('object')?.text !== left.text) continue;
    const m = f.childForFieldName('attribute')?.text;
    if (m === 'half') return { dtype: 'float16', text: a.text };
    if (m === 'bfloat16') return { dtype: 'bfloat16', text: a.text };
    if (m !== 'to') continue;
    const args = right!.childForFieldName('arguments')?.namedChildren.filter((x): x is SyntaxNode => !!x) ?? [];
    const arg = args.find((x) => x.type === 'keyword_argument' && x.childForFieldName('name')?.text === 'dtype')?.childForFieldName('value') ?? args.find((x) => x.type !== 'keyword_argument');
    const v = arg ? it.evalNameIn(fwd.closure, arg) : undefined;
    if (v?.t === 'dtype' && ['bfloat16', 'float16', 'float32'].includes(v.dtype)) return { dtype: v.dtype, text: a.text };
  }
  return undefined;
}

/** The PEFT model an attribute of the module holds (a few levels down), with the ids of its tensors. */
function heldPeft(root: Value | undefined): { info: PeftInfo; ids: Set<number> } | undefined {
  if (root?.t !== 'inst') return undefined;
  const seen = new Set<object>([root]);
  let level: Value[] = [root];
  for (let depth = 0; depth < 4 && level.length; depth++) {
    const next: Value[] = [];
    for (const v of level) {
      if (v.t !== 'inst') continue;
      for (const a of [...v.attrs.values(), ...(v.items ?? [])]) {
        if (a.t !== 'inst' || seen.has(a)) continue;
        seen.add(a);
        const info = peftOf(a);
        if (info) {
          const ids = new Set<number>();
          visitTensors(a, (t) => ids.add(t.id));
          return { info, ids };
        }
        next.push(a);
      }
    }
    level = next;
  }
  return undefined;
}

/**
 * The optimizer given this model's parameters; an unbound one only when this is the only model, or when the model
 * trains adapters the analysis does not make as tensors (`unet.requires_grad_(False); unet.add_adapter(...)`, then
 * `AdamW(filter(lambda p: p.requires_grad, unet.parameters()))`: the filter keeps none of the tensors it knows).
 */
export function optimizerOf(prog: TrainingProgram, ids: Set<number>, single: boolean, adapters = false): OptimizerUse | undefined {
  return prog.optimizers.find((o) => o.params.some((t) => ids.has(t.id)))
    ?? (single ? prog.optimizers.find((o) => !o.params.length) ?? prog.optimizers[0] : adapters ? prog.optimizers.find((o) => !o.params.length) : undefined);
}

export function paramIds(rec: ModelRecord, params: TensorV[]): Set<number> {
  const ids = new Set(params.map((t) => t.id));
  for (const t of rec.params ?? []) ids.add(t.id);
  return ids;
}

let nextId = 2_000_000_000;

/**
 * The training phase of one model, when the program trains it. Empty when
 * no optimizer or gradient is applied to this model.
 */
/** The group the load phase gives a torch.load state dict's tensors (analysis/analyze.ts stateDictEvents). */
export const STATE_DICT_GROUP = 'state dict: torch.load';

/**
 * Device tensors the program still references when its training step runs, that no other part of the phase
 * counts (not the model's parameters, buffers or tensor attributes, not the step's batch or targets, not what the
 * forward makes): an EMA copy, a precomputed table, a checkpoint loaded with map_location on the accelerator and
 * still bound to a name. Python frees an object when the last reference to it goes (CPython reference counting),
 * and the caching allocator gives its blocks back to the pool only then, so each is allocated through the step.
 */
function heldThroughStep(rec: ModelRecord, it: Interpreter, prog: TrainingProgram, base: PhaseTrace, weights: TensorFact[], events: MemoryEvent[], notes: string[], unknowns: Unknown[]): MemoryEvent[] {
  const live = prog.liveAtStep;
  if (!live || (rec.framework !== 'torch' && rec.framework !== 'transformers')) return [];
  const out: MemoryEvent[] = [];
  const counted = new Set<number>([...weights.map((t) => t.id), ...prog.forwardMade, ...prog.lossTargets.map((t) => t.id)]);
  for (const ev of [...base.events, ...events]) if (ev.op === 'alloc') counted.add(ev.tensor.id);
  for (const f of prog.forwards) for (const t of f.inputs ?? []) counted.add(t.id);
  if (rec.result) visitTensors(rec.result, (t) => counted.add(t.id));
  // A checkpoint loaded into this model with map_location on the accelerator, still referenced: its tensors (the
  // load phase's copy) are alive in the step too.
  const uses = ((it.state.get('torchStateDicts') as { module: Value; checkpoint: Value; span: Span }[] | undefined) ?? []).filter((u) => u.module === rec.result);
  for (const u of uses) {
    if (!live.checkpoints.has(u.checkpoint)) continue;
    let n = 0;
    for (const ev of base.events) {
      if (ev.op !== 'alloc' || !ev.tensor.group?.startsWith(STATE_DICT_GROUP) || ev.tensor.span?.start !== u.span.start || ev.tensor.span?.file !== u.span.file) continue;
      out.push({ op: 'alloc', tensor: { ...ev.tensor, role: 'buffer', note: 'the loaded checkpoint, still referenced by a live name when the training step runs' } });
      n++;
    }
    if (n) notes.push(`a torch.load checkpoint (${n} tensors) is still referenced when the training step runs: it stays on the device beside the model`);
  }
  let held = 0;
  const others = new Map<string, number>();
  for (const t of live.tensors) {
    if (counted.has(t.id)) continue;
    counted.add(t.id);
    const module = live.owner.get(t.id);
    if (module) others.set(module, (others.get(module) ?? 0) + 1);
    else held++;
    const dt = live.dtypes.get(t.id) ?? t.dtype;
    out.push({ op: 'alloc', tensor: {
      id: t.id, label: t.label, group: module ? `another module on the device: ${module} (${dt})` : `tensors the program still references (${dt})`, shape: t.shape as number[], dtype: dt, role: 'buffer',
      placement: module && t.placement.kind === 'host' ? { kind: 'device', index: 0 } : t.placement, span: t.span, note: module ? `a ${t.role === 'param' ? 'parameter' : 'buffer'} of a module on the accelerator (a moving-average copy, a teacher, a second network) reachable from a live name when the training step runs` : 'on the accelerator and reachable from a live name when the training step runs',
      citation: 'CPython reference counting: an object is freed when its last reference goes; torch/cuda caching allocator returns blocks only on free',
    } });
  }
  if (held) notes.push(`${held} tensors on the device made before the step are still referenced by live names when it runs: counted in the step`);
  // Another module on the device whose size is not known (not this model or a part of it): an unknown of the step.
  const own = new Set<object>();
  const ownTensors = new Set<number>();
  if (rec.result) {
    const stack: Value[] = [rec.result];
    while (stack.length) {
      const v = stack.pop()!;
      if (typeof v !== 'object' || own.has(v)) continue;
      own.add(v);
      if (v.t === 'tensor') ownTensors.add(v.id);
      else if (v.t === 'inst') { for (const y of v.attrs.values()) stack.push(y); for (const y of v.items ?? []) stack.push(y); }
      else if (v.t === 'list' || v.t === 'tuple') for (const y of v.items) stack.push(y);
      else if (v.t === 'dict') for (const y of v.vals) stack.push(y);
    }
  }
  // The optimizer of another module on the device, still referenced when this step runs (two models trained in one
  // loop, a GAN's generator and discriminator): its state, made at its first step(), stays allocated (torch/optim
  // keeps `state` for as long as the optimizer lives). Its gradients are an unknown part of the step (below).
  for (const i of live.optimizers) {
    const o = prog.optimizers[i];
    if (!o || o.lib !== 'torch' || !o.bound || rec.framework !== 'torch' || !o.params.length) continue;
    if (o.params.some((t) => ownTensors.has(t.id))) continue; // this model's own optimizer
    if (!o.params.every((t) => live.owner.has(t.id))) continue;
    const st = optimizerStateBytes(o.kind, o.params.map((t) => ({ shape: t.shape as number[], dtype: t.dtype })), o.opts);
    if (!st.bytes) continue;
    const module = live.owner.get(o.params[0].id)!;
    out.push({ op: 'alloc', tensor: {
      id: nextId++, label: `optimizer state of another module: ${o.callee}`, group: `optimizer state of another module: ${module} (${o.callee})`, shape: [st.bytes], dtype: 'uint8', role: 'optimizer',
      placement: { kind: 'device', index: 0 }, span: o.span, note: `${st.formula}; the optimizer of ${module}, still referenced when this model's step runs`, citation: st.citation,
    } });
    notes.push(`${module}'s optimizer (${o.callee}) is still referenced when this model's step runs: its state is counted`);
    // Its gradients exist from its backward until its zero_grad() (set_to_none by default, torch 2.x): in the usual
    // two-model loop they are alive during this model's step, but the order of the calls is not modelled, so they
    // are an unknown part of the peak (a lower bound), never left out of an answer that reads "fits".
    if (!unknowns.some((u) => u.what === 'gradients of another module')) {
      unknowns.push({ what: 'gradients of another module', reason: `${module}'s gradients (trained by ${o.callee} in the same program) may be alive during this model's step: they exist from its backward until its zero_grad(), and the order of those calls is not modelled`, span: o.span });
    }
  }
  const unsized = [...live.unsized].filter(([m]) => !own.has(m)).map(([, why]) => why);
  unsized.push(...[...live.unsizedTensors].filter(([id]) => !ownTensors.has(id) && !counted.has(id)).map(([, why]) => why));
  if (unsized.length) unknowns.push({ what: 'another module on the device', reason: `a module on the accelerator while this model trains, whose size is not known, is still referenced when the step runs (${unsized[0]}${unsized.length > 1 ? `; and ${unsized.length - 1} more` : ''})`, span: live.span });
  for (const [m, n] of others) notes.push(`${m}: ${n} parameter and buffer tensors of another module on the device (a copy such as copy.deepcopy / AveragedModel / an EMA, or a second network) are still referenced when the training step runs: counted in the step`);
  return out;
}

export function trainingPhases(rec: ModelRecord, it: Interpreter, phases: PhaseTrace[], params: TensorV[]): PhaseTrace[] {
  const prog = trainingProgram(it);
  if (!prog.optimizers.length && !prog.gradCalls.length && !prog.backward.length && !prog.unfollowed?.length) return [];
  const base = phases.find((p) => p.phase === 'load' || p.phase === 'init');
  if (!base) return [];
  const ids = paramIds(rec, params);
  // Counted up to 2 (one question per model; the list of every record made this quadratic in the models).
  // Records that hold nothing (an Equinox Module of callables and floats passed beside the model) are no second model.
  const single = it.memory.reportedCount(2) === 1 || onlyModel(it, rec);
  // Training calls that were reached but not followed, and that train this model: the only one, or one named in
  // the loop around the call.
  const unfollowed = [...unfollowedFor(it, prog, rec, single)];
  if (!prog.optimizers.length && !prog.gradCalls.length && !prog.backward.length && !unfollowed.length) return [];
  // The optimizer given this model's parameters; an unbound one only when this is the only model.
  const opt = optimizerOf(prog, ids, single, !!peftOf(rec.result));
  // An optimizer given other parameters and none of this model's: the call trains those (a DQN's target network is
  // called in the loop, under no_grad, and only copied into).
  if (!opt && prog.optimizers.some((o) => o.params.length)) unfollowed.length = 0;
  // Several models, an optimizer over parameters oomlens could not resolve (LoRA processors a library call attaches:
  // `unet.set_attn_processor(procs)` then `AdamW(lora_params)`), and this model's forward in the step with a backward:
  // the step backpropagates through it, whatever the optimizer holds. Its gradients (of what is not frozen) are
  // counted, the optimizer's state is an unknown.
  const unresolved = !opt && !single && (prog.backward.length > 0 || prog.gradCalls.length > 0) && prog.optimizers.some((o) => o.paramsUnknown) && prog.forwards.some((f) => f.model === rec.result);
  if (!opt && !(single && (prog.gradCalls.length || prog.backward.length)) && !unfollowed.length && !unresolved) return [];

  const deviceCount = Number(it.state.get('deviceCount') ?? 1) || 1;
  const events: MemoryEvent[] = [];
  const notes: string[] = [];
  const unknowns: Unknown[] = [...base.unknowns, ...prog.trainerUnknowns];
  if (unresolved) {
    const o = prog.optimizers.find((x) => x.paramsUnknown)!;
    unknowns.push({ what: 'optimizer state', reason: `${o.callee} holds parameters oomlens could not resolve (${o.paramsUnknown}): the step backpropagates through ${rec.name}, whose forward it runs, but what the optimizer keeps for them is not counted`, span: o.span });
  }
  // Nothing of the step was followed (no backward, no gradient call, no forward of this model on a known input):
  // what it adds beyond the weights is not known, whatever is sized below. A loss the analysis does not model
  // (`criterion(out, y)` with nn.CrossEntropyLoss) after a traced forward is not this: the activations are known.
  if (unfollowed.length && !prog.backward.length && !prog.gradCalls.length && !prog.forwards.some((f) => f.model === rec.result && f.input)) {
    const u = unfollowed[0];
    unknowns.push({ what: 'training step', reason: `\`${u.text}\` trains ${rec.name}, but the analysis could not follow it (${u.reason}): what the step allocates is not known, and what is shown is a lower bound${unfollowed.length > 1 ? ` (and ${unfollowed.length - 1} more training call${unfollowed.length > 2 ? 's' : ''})` : ''}`, span: u.span });
  }
  // DataParallel over several devices: device 0 holds the module, the reduced gradients, the optimizer state, the
  // gathered outputs (and the loss computed from them), and replica 0's activations for its share of the batch —
  // that share is not modelled, so the saved activations are an unknown rather than the whole batch's.
  const dp = prog.dataParallel;
  const dpReplicas = dp ? (dp.devices ?? deviceCount) : 1;
  if (dp && dpReplicas > 1) {
    unknowns.push({ what: 'activations', reason: `DataParallel over ${dpReplicas} devices: replica 0 on device 0 keeps the activations of its part of the scattered batch, which is not modelled (the gathered outputs are counted); the activations shown are a lower bound`, span: dp.span });
  } else if (dp) notes.push(`DataParallel on ${dp.devices === null ? 'the target\'s one device (device_ids=None: every visible device)' : 'one device'}: it calls the module directly (torch/nn/parallel/data_parallel.py forward)`);
  if (prog.trainer) {
    const t = prog.trainer;
    notes.push(`${t.kind}.train(): per-device batch ${t.batch ?? '?'} × sequence ${t.seq ?? '?'}${t.seq !== null ? ` (${t.seqFrom})` : ''}${t.accumulation ? `, gradient_accumulation_steps=${t.accumulation} (micro-steps reuse the same activations; .grad accumulates in place)` : ''}`);
  }
  // prepare_model_for_kbit_training casts every float16/bfloat16 parameter that is not a packed 4-bit weight to float32 (peft utils/other.py).
  const kbit = kbitPrepOf(rec.result);
  const castsIt = (t: TensorFact) => !!kbit && (kbit.castAll || (t.shape.length === 1 && (kbit.layerNormNames ?? []).some((n) => t.label.includes(n))));
  // With the live names of the first training step known, a loaded checkpoint is alive in training only when they
  // still reach it (heldThroughStep), not because a module-level name holds it at the end of the program.
  // Each weight in the dtype it has when the step runs, not after a later cast (diffusers' LoRA scripts keep the frozen
  // UNet in float16 while training and `unet.to(torch.float32)` only to save it).
  const atStep = (t: TensorFact): TensorFact => {
    const d = prog.liveAtStep?.dtypes.get(t.id);
    return d && d !== t.dtype && (t.role === 'param' || t.role === 'buffer') ? { ...t, dtype: d, group: t.group?.replace(`(${t.dtype})`, `(${d})`) } : t;
  };
  // The load phase's optimizer state (Adagrad's, made at construction: constructedStateEvents) is sized again below.
  const weights = liveAtEnd(base).filter((t) => t.role !== 'optimizer' && !(prog.liveAtStep && t.group?.startsWith(STATE_DICT_GROUP))).map(atStep).map((t) => (castsIt(t) && t.role === 'param' && (t.dtype === 'bfloat16' || t.dtype === 'float16') ? { ...t, dtype: 'float32' as DType, group: t.group?.replace(/\((bfloat16|float16)\)/, '(float32)') } : t));
  if (kbit?.castAll) notes.push('prepare_model_for_kbit_training: float16/bfloat16 parameters outside the quantised layers (embeddings, norms, lm_head) are cast to float32 (peft utils/other.py)');
  else if (kbit) notes.push(`prepare_model_for_int8_training (peft 0.2): 1-D parameters named like ${JSON.stringify(kbit.layerNormNames)} are cast to float32 (peft utils/other.py at v0.2.0)`);
  // DeepSpeed's fp16/bf16 engine converts the module's floating parameters to 16 bits on the device.
  const dsMixed = prog.zero?.mixed;
  if (dsMixed) {
    for (let i = 0; i < weights.length; i++) {
      const t = weights[i];
      if (t.role === 'param' && t.dtype === 'float32') weights[i] = { ...t, dtype: dsMixed, group: t.group?.replace(/\(float32\)/, `(${dsMixed})`) };
    }
    notes.push(`DeepSpeed ${dsMixed} engine: parameters and gradients in ${dsMixed} on the device; float32 master weights, Adam m and v in the optimizer (12 B per parameter, Rajbhandari et al. 2019 §3.1)`);
  }
  // Weights that stay on the host (a pipeline component never moved, accelerate's CPU offload) take no part in the
  // accelerator's step: their gradients and optimizer state, if any, are not in its memory.
  const ps: ParamShape[] = weights.filter((t) => t.role === 'param' && t.placement.kind !== 'host').map((t) => ({ shape: t.shape, dtype: t.dtype }));
  // Parameters the program froze (`p.requires_grad = False`, requires_grad_(False), nn.Parameter(requires_grad=False))
  // get no gradient, and torch.optim makes no state for them (torch/optim/adamw.py _init_group skips a parameter
  // whose .grad is None). Their flag is read now, after the program ran (the load phase saw them as built).
  const frozen = new Set([...params, ...(rec.params ?? [])].filter((t) => t.note === FROZEN).map((t) => t.id));
  const unfrozen = weights.filter((t) => t.role === 'param' && t.placement.kind !== 'host' && !frozen.has(t.id)).map((t) => ({ shape: t.shape, dtype: t.dtype }));
  // PEFT: the base is frozen; only the adapters, modules_to_save copies and unfrozen biases train (frameworks/peft/semantics.ts).
  // A PEFT model a module of the program holds (`self.llm = get_peft_model(self.llm, cfg)`): its adapters train and
  // its base stays frozen; the module's other parameters (a projector beside it) train unless frozen.
  const held = peftOf(rec.result) ? undefined : heldPeft(rec.result);
  const peft = peftOf(rec.result) ?? held?.info;
  const beside = held ? weights.filter((t) => t.role === 'param' && !frozen.has(t.id) && !held.ids.has(t.id)).map((t) => ({ shape: t.shape, dtype: t.dtype })) : [];
  const hfLoad = hfLoadOf(rec.result);
  let trainable: ParamShape[] | null = peft ? (peft.why ? null : [...peft.trainable.map((t) => ({ shape: [t.params], dtype: t.dtype })), ...beside]) : frozen.size ? unfrozen : ps;
  if (!peft && frozen.size) {
    if (!unfrozen.length) {
      // Every parameter frozen, yet the program trains: what adds the trainable ones (an adapter built under a
      // context manager, a module swapped in) was not followed. Zero would be a guess.
      trainable = null;
      unknowns.push({ what: 'trainable parameters', reason: 'every parameter of the model has requires_grad=False, yet the program trains it: the parameters it trains were not found; gradients and optimizer state are not known' });
    } else notes.push(`${frozen.size} parameter tensors have requires_grad=False: no gradient and no optimizer state for them (torch/optim/adamw.py _init_group)`);
  }
  if (peft?.why) unknowns.push({ what: 'trainable parameters', reason: `get_peft_model: ${peft.why}; gradients and optimizer state are not known`, span: peft.span });
  if (!peft && hfLoad?.quant && prog.trainer) unknowns.push({ what: 'trainable parameters', reason: `${prog.trainer.kind} refuses to fine-tune a purely quantised model (${hfLoad.quant.how}) without adapters (transformers trainer.py: "You cannot perform fine-tuning on purely quantized models"); add get_peft_model`, span: prog.trainer.span });
  const paramDtype: DType = (peft && !peft.why ? trainable?.[0]?.dtype : undefined) ?? ps.find((p) => p.dtype !== 'uint8')?.dtype ?? ps[0]?.dtype ?? 'float32';
  // JAX: parameters placed with jax.device_put(params, NamedSharding(mesh, spec)) before opt.init keep that
  // sharding, and so do their gradients (same sharding as the primal under jit) and optax's state
  // (tree_map(zeros_like, params) inherits each leaf's sharding): frameworks/sharding.ts sets the placement.
  const placed = opt?.params.map((t) => t.placement) ?? [];
  const meshOver = placed.length && placed.every((p) => p.kind === 'sharded' && p.over === (placed[0] as { over: number }).over)
    ? Math.min((placed[0] as { over: number }).over, deviceCount) : undefined;
  const shard = prog.zero ?? prog.fsdp ?? (meshOver && meshOver > 1 ? { stage: 3 as ZeroStage, how: `parameters sharded over ${meshOver} devices (jax.device_put with a NamedSharding)` } : undefined);
  const stage: ZeroStage = shard?.stage ?? 0;
  const over = meshOver ?? deviceCount;
  const sharded = (s: number): Placement => (shard && stage >= s && deviceCount > 1 ? { kind: 'sharded', over } : { kind: 'device', index: 0 });
  if (shard && deviceCount > 1) notes.push(`${shard.how}: ${stage >= 3 ? 'parameters, gradients and optimizer state' : stage === 2 ? 'gradients and optimizer state' : stage === 1 ? 'optimizer state' : 'nothing'} divided over ${over} devices (Rajbhandari et al. 2019, arXiv:1910.02054 §5)`);
  else if (shard) notes.push(`${shard.how} on a single target device: nothing is divided (set the device count, e.g. 8xa100-80gb)`);

  const offP = prog.zero && prog.zero.stage >= 3 ? prog.zero.offloadParams : undefined;
  const offO = prog.zero?.offloadOptimizer;
  if (offP) notes.push(`ZeRO-Offload: parameters offloaded to ${offP} (offload_param): they are gathered to the device one layer at a time`);
  if (offO) notes.push(`ZeRO-Offload: optimizer state offloaded to ${offO} (offload_optimizer / cpu_offload): it is not in device memory`);
  // 1. Weights, as loaded / initialised.
  for (const t of weights) {
    // A weight the load phase keeps on the host (accelerate's CPU offload, a pipeline component never moved) stays there.
    const placement: Placement = t.role === 'param' ? (offP || t.placement.kind === 'host' ? { kind: 'host' } : sharded(3)) : t.placement;
    events.push({ op: 'alloc', tensor: { ...t, placement, group: t.role === 'param' ? `parameters (${t.dtype})` : t.group } });
  }
  // The batch and targets made inside the loop (those made before it are in the load phase's live set).
  events.push(...stepInputEvents(rec, it, false));
  events.push(...heldThroughStep(rec, it, prog, base, weights, events, notes, unknowns));
  const bytesOn = (b: number, s: number) => (shard && stage >= s && deviceCount > 1 ? b / over : b);
  if (peft && !peft.why) {
    for (const t of peft.trainable) {
      events.push({ op: 'alloc', tensor: { id: nextId++, label: t.label, group: /lora_A/.test(t.label) ? `LoRA adapters (${t.dtype})` : `trainable copies and biases (${t.dtype})`, shape: [t.params], dtype: t.dtype, role: 'param', placement: sharded(3), span: peft.span,
        note: /lora_A/.test(t.label) ? 'lora_A r × in + lora_B out × r' : 'trainable under PEFT', citation: 'peft tuners/lora/layer.py LoraLayer.update_layer; tuners_utils.py ModulesToSaveWrapper' } });
    }
    notes.push(`PEFT LoRA (${peft.how}): ${peft.targeted.length} layers adapted, ${peft.adapterParams.toLocaleString('en-US')} adapter parameters; the base model is frozen: gradients and optimizer state only for the ${trainable!.reduce((a, p) => a + p.shape[0], 0).toLocaleString('en-US')} trainable parameters`);
  }
  const weightBytes = gradientBytes(ps) + (peft && !peft.why ? gradientBytes(trainable!) : 0);
  const paramBytes = trainable ? gradientBytes(trainable) : 0;
  const mk = (label: string, group: string, bytes: number, role: TensorFact['role'], placement: Placement, span: Span | undefined, note: string, citation: string, shape?: number[], dtype?: DType): number => {
    const id = nextId++;
    events.push({ op: 'alloc', tensor: { id, label, group, shape: shape ?? [bytes], dtype: dtype ?? 'uint8', role, placement, span, note, citation } });
    return id;
  };

  // 2. Optimizer state: kept from the first step on.
  let optBytes: number | null = 0;
  if (!opt && prog.trainerUnknowns.some((u) => u.what === 'optimizer state')) {
    optBytes = null;
  } else if (opt && !trainable) {
    optBytes = null;
  } else if (opt && trainable) {
    const numel = trainable.reduce((a, p) => a + p.shape.reduce((x, y) => x * y, 1), 0);
    const st = dsMixed && opt.kind === 'torch.adamw'
      ? { bytes: 12 * numel, formula: `12 B × ${numel.toLocaleString('en-US')} parameters (float32 master copy + Adam m + v)`, citation: 'Rajbhandari et al. 2019, arXiv:1910.02054 §3.1 (K = 12 for mixed-precision Adam); deepspeed/runtime/fp16 and zero/stage_1_and_2.py' }
      : optimizerStateBytes(opt.kind, trainable, opt.opts);
    const muNote = opt.lib === 'optax' && (opt.kind === 'optax.adam' || opt.kind === 'optax.adamw') ? `, mu ${opt.opts.muDtype ?? paramDtype}` : '';
    mk('optimizer state', `optimizer state: ${opt.callee} (${opt.kind.startsWith('bnb') || dsMixed ? dsMixed && !opt.kind.startsWith('bnb') ? 'float32 master + m + v' : 'uint8' : opt.kind === 'optax.adafactor' ? 'float32' : paramDtype}${muNote})`, st.bytes, 'optimizer', offO ? { kind: 'host' } : sharded(1), opt.span, st.formula, st.citation);
    optBytes = st.bytes;
    if (opt.accumulate !== undefined) {
      const acc = accumulationBytes(trainable);
      mk('gradient accumulator', `MultiSteps accumulator (${paramDtype})`, acc.bytes, 'gradient', sharded(2), opt.span, `${acc.formula}${opt.accumulate ? `, every ${opt.accumulate} steps` : ''}`, acc.citation);
    }
    if (!opt.bound && opt.lib === 'optax') notes.push(`${opt.callee}: \`init\` was not seen with this model's parameters; state sized from the model`);
  } else {
    unknowns.push({ what: 'optimizer state', reason: 'gradients are taken but no optimizer (torch.optim, optax) was found for this model' });
    optBytes = null;
  }

  // 3. Gradients: the parameters' shapes and dtypes (jax.grad; torch .grad is zeros_like(param)).
  const bw = /\.backward\s*\(/.exec(it.text);
  const gradSpan = prog.backward[0] ?? prog.gradCalls[0]?.span ?? (bw ? { start: bw.index + 1, end: bw.index + bw[0].length } : rec.span);
  const torchLike = rec.framework === 'torch' || rec.framework === 'transformers';
  // torch: `.grad` exists before the forward only when the step keeps it: `zero_grad(set_to_none=False)` zeroes it in
  // place (torch/optim/optimizer.py `zero_grad`; set_to_none defaults to True since torch 2.0), micro-steps of
  // gradient accumulation add into it, and without any zero_grad it stays from the previous step. Otherwise
  // AccumulateGrad creates it during the backward, after the loss's backward has run.
  const accumRe = /\bloss\s*(?:=\s*loss\s*\/|\/=)\s*([\w.]+)|([\w.]*(?:accum|accumulation)[\w.]*)/i;
  const gradsKept = !torchLike ? true
    : /zero_grad\s*\(\s*(?:set_to_none\s*=\s*)?False/.test(it.text)
      || (!prog.trainer && !/zero_grad\s*\(/.test(it.text))
      || (prog.trainer ? (prog.trainer.accumulation ?? 1) > 1 : accumRe.test(it.text));
  const allocGrads = () => {
    if (!trainable) return;
    mk('gradients', `gradients (${paramDtype})`, paramBytes, 'gradient', sharded(2), gradSpan,
      'one gradient per parameter, same shape and dtype', 'jax.grad returns the cotangent with the primal\'s shape and dtype (jax/_src/api.py); torch AccumulateGrad makes param.grad like the parameter (torch/csrc/autograd/functions/accumulate_grad.h)');
  };
  if (gradsKept) allocGrads();
  if (prog.ddp && !prog.ddp.bucketView && trainable && !prog.fsdp) {
    mk('ddp buckets', `DistributedDataParallel gradient buckets (${paramDtype})`, paramBytes, 'gradient', { kind: 'device', index: 0 }, prog.ddp.span,
      'the Reducer\'s flat buckets: every gradient once more (gradient_as_bucket_view=False, the default)',
      'torch/nn/parallel/distributed.py DistributedDataParallel, gradient_as_bucket_view: "the saved memory size will be equal to the total gradients size"');
  }
  let gradsWalked = false;
  const fullGradsNote = 'gradients are counted at full size next to every saved activation: an upper bound, since the backward frees each layer\'s activations as it fills its gradients';
  notes.push(fullGradsNote);
  if (torchLike && !gradsKept) notes.push('zero_grad(set_to_none=True): no gradient exists until the backward, so the start of the backward (the loss\'s gradients) and its end (all gradients) are two candidate peaks');

  // 4. Activations kept for the backward.
  // Autocast applies to the forwards run inside it; a model run outside any autocast computes in its parameters' dtype.
  const mine = prog.forwards.filter((f) => f.model === rec.result);
  // A trainer that runs every forward under autocast (Lightning's precision="bf16-mixed") sets autocastAll.
  const autocastDtype = (mine.length ? mine.find((f) => f.autocast)?.autocast : prog.forwards.length ? undefined : prog.autocast?.dtype) ?? (prog.autocastAll ? prog.autocast?.dtype : undefined);
  const autocastOn = !!autocastDtype && rec.framework !== 'equinox' && rec.framework !== 'flax' && rec.framework !== 'haiku' && rec.framework !== 'jax';
  // A torch forward that casts its activations itself (`x = x.to(torch.bfloat16)` after the embedding, with float32
  // master weights cast per matmul): the traced forward's saved storages are mostly in that dtype.
  const traceCast = !autocastOn && rec.framework === 'torch' ? tracedComputeDtype(mine, paramDtype) : undefined;
  const stmtCast = !autocastOn && !traceCast && rec.framework === 'torch' ? forwardCast(it, rec) : undefined;
  const castIn = traceCast ?? (stmtCast && stmtCast.dtype !== paramDtype ? stmtCast.dtype : undefined);
  if (traceCast) notes.push(`the forward casts its activations to ${traceCast} (most of what the traced forward saves is ${traceCast}, its parameters ${paramDtype}): activations sized in ${traceCast}`);
  else if (castIn) notes.push(`the forward casts its activations to ${castIn} (\`${stmtCast!.text}\`; its parameters are ${paramDtype}): activations sized in ${castIn}`);
  // With adapters the hidden states are the base model's, not the adapters' (peft keeps LoRA weights in float32 and
  // casts their output back, tuners/lora/layer.py Linear.forward `result.to(torch_result_dtype)`): the dtype of the
  // base's floating weights (after a kbit preparation's cast), quantised ones left out.
  const baseDtype = peft && !peft.why ? ps.find((p) => p.dtype !== 'uint8' && p.dtype !== 'int8' && p.dtype !== 'int4')?.dtype : undefined;
  const computeDtype: DType = (autocastOn ? autocastDtype : undefined) ?? castIn ?? (rec.framework === 'torch' || rec.framework === 'transformers' ? undefined : prog.jaxComputeDtype?.dtype) ?? baseDtype ?? paramDtype;
  const e = dtypeBytes(computeDtype);
  if (autocastOn) notes.push(`torch.autocast(${autocastDtype}): activations sized at 2 B per element (matmul outputs); LayerNorm and softmax run in float32 under autocast, so this is a slight underestimate`);
  const shape = inputShape(rec, prog, it);
  let activation: TrainingInfo['activation'];
  let actBytes: number | null = null;
  let logitBytes = 0;
  // The transformer formula's saved tensors (from this index of `events`): released by the backward before the last
  // gradients are made (below, where `.grad` is allocated).
  let archSavedFrom: number | undefined;
  let recomputeTransient: MemoryEvent | undefined;
  const load = rec.framework === 'transformers' ? hfLoads(it).find((l) => l.span.start === rec.span.start && l.span.end === rec.span.end) : undefined;
  const cfg = load ? (hfConfigView(load) ?? hfConfig(load.checkpoint)) : undefined;
  const a = cfg ? archFromHf(cfg as Record<string, unknown>) : rec.result ? archOf(rec.result) : { why: 'the model object is not known' };
  // from_pretrained returns the model in eval mode (transformers modeling_utils.py: `model.eval()`), where
  // dropout returns its input; only `model.train()` turns the masks on.
  // A model built from a config (Model(config), from_config) is in training mode, as every new nn.Module.
  if (load && !load.fromConfig && 'layers' in a && !/\.train\s*\(\s*(True)?\s*\)/.test(it.text)) {
    if (a.dropout !== false) notes.push('from_pretrained returns the model in eval mode and the file never calls .train(): dropout is off (no masks kept)');
    a.dropout = false;
  }
  // Decorators are not called by the interpreter: `@jax.checkpoint`, `@eqx.filter_checkpoint`, `@partial(jax.remat, ...)`.
  const deco = /^[ \t]*@(?:[\w.]+\.)?(?:checkpoint|remat|filter_checkpoint)\b|^[ \t]*@(?:functools\.)?partial\(\s*(?:[\w.]+\.)?(?:checkpoint|remat|filter_checkpoint)\b/m.exec(it.text);
  if (!prog.checkpointing.length && deco) prog.checkpointing.push({ span: { start: deco.index, end: deco.index + deco[0].length }, how: deco[0].trim() });
  const recompute: Recompute = prog.checkpointing.length ? 'full' : 'none';
  // transformers picks SDPA by default from 4.36 (Llama-family models) and for GPT-2 from 4.42
  // (modeling_utils.py `_autoset_attn_implementation`; GPT2SdpaAttention); unpinned means a current release.
  const tv = load?.transformersVersion;
  const [maj, min] = (tv ?? '').split('.').map((x) => Number(x));
  const below = (M: number, m: number) => tv !== undefined && Number.isFinite(maj) && Number.isFinite(min) && (maj < M || (maj === M && min < m));
  const hfSdpa = rec.framework === 'transformers' && !/attn_implementation\s*=\s*["']eager/.test(it.text)
    && !below(4, 36) && !(String((cfg as Record<string, unknown> | undefined)?.model_type) === 'gpt2' && below(4, 42));
  if (hfSdpa && !/attn_implementation/.test(it.text)) notes.push(`transformers${tv ? `==${tv}` : ' (version not pinned: a current release assumed)'} runs SDPA attention by default: the attention scores are not stored`);
  const fused = /scaled_dot_product_attention|flash_attn|memory_efficient_attention/.test(programText(it)) || hfSdpa;
  const tracedTorch = mine.find((f) => f.opLevel && f.opLevel.count > 0);
  // JAX: the differentiated function given this model's parameters, run once with its op outputs counted.
  const tracedJax = torchLike ? undefined : prog.gradCalls.find((g) => g.opLevel && g.opLevel.count > 0 && g.primal.some((t) => ids.has(t.id)))
    ?? (single && !torchLike ? prog.gradCalls.find((g) => g.opLevel && g.opLevel.count > 0) : undefined);
  const traced = tracedTorch ?? tracedJax;
  if ('why' in a && !('layers' in a) && traced?.opLevel) {
    // Not a transformer stack: the op outputs the forward made, each kept by autograd for the backward.
    const o = traced.opLevel;
    // Layers under frozen parameters save nothing, but the tensors they make and free while the forward runs are a
    // working set the saved tensors do not show (a frozen ResNet-50 at batch 32: 472 MB measured, 139 MB saved-only).
    if (o.unrecorded) unknowns.push({ what: 'forward working memory', reason: `${o.unrecorded} ops of the forward run on frozen parameters (requires_grad=False): autograd keeps nothing of them, but the tensors they make and free as the forward runs are not counted`, span: traced.span });
    if (tracedTorch) {
      // Before this forward: the previous iteration's output, while the name it is bound to is reassigned, and the
      // previous step's gradients when zero_grad() only comes after the forward (both freed before the backward).
      let prevGrads: number | undefined;
      let ceTransient: MemoryEvent | undefined;
      let prevOut: number | undefined;
      if (tracedTorch.zeroGradAfter && !gradsKept && trainable) {
        prevGrads = mk('gradients (previous step)', `gradients (${paramDtype}, previous step: zero_grad() comes after the forward)`, paramBytes, 'gradient', sharded(2), tracedTorch.span,
          '.grad from the previous step, alive until zero_grad() sets it to None', 'torch/optim/optimizer.py zero_grad (set_to_none=True frees .grad)');
      }
      if (tracedTorch.boundTo && o.output) {
        prevOut = mk('previous output', `activations: previous iteration's output (still bound to \`${tracedTorch.boundTo}\`)`, bytesOf(o.output), 'activation', { kind: 'device', index: 0 }, tracedTorch.span,
          `\`${tracedTorch.boundTo} = model(...)\` in a loop: the old value is released only when the new one is assigned`, 'Python assignment semantics (the name holds the old tensor until the call returns)');
      }
      const parts = [...(o.byOp ?? new Map<string, number>())].sort((x, y) => y[1] - x[1]).slice(0, 6).map(([k, b]) => `${k} ${(b / 1e6).toFixed(1)} MB`).join(', ');
      const dpSplit = dpReplicas > 1;
      let savedId: number | undefined;
      let savedFreed = false;
      let logProbId: number | undefined;
      if (!dpSplit) {
        savedId = mk('activations (saved by autograd)', `activations: saved for the backward, op by op (${o.count} tensors)`, o.bytes, 'activation', { kind: 'device', index: 0 }, traced.span,
          `distinct storages the traced forward's ops save for their backward, plus their statistics, indices and masks (${parts})`,
          `${DERIV}: linear/conv save their input, relu/softmax/tanh their result, gelu/silu their input, layer/batch norm their input and float32 statistics, max-pool its input and int64 indices, dropout its mask`);
      }
      actBytes = dpSplit ? 0 : o.bytes;
      if (o.output) {
        const ob = bytesOf(o.output);
        mk('forward output', `activations: forward output ${JSON.stringify(o.output.shape)} (${o.output.dtype})`, ob, 'activation', { kind: 'device', index: 0 }, traced.span,
          'the tensor the forward returns, alive until the loss has been computed from it', 'returned to the caller', o.output.shape.filter((d): d is number => typeof d === 'number'), o.output.dtype);
        actBytes += ob;
        if (prevOut !== undefined) events.push({ op: 'free', id: prevOut });
        const ceT = /cross_entropy|CrossEntropyLoss|log_softmax|nll_loss/.test(it.text);
        if (ceT) {
          // cross_entropy = nll_loss(log_softmax(input)): `_log_softmax: result` is saved; its backward writes
          // nll_loss's gradient and _log_softmax_backward_data's, both shaped like the input (derivatives.yaml
          // `nll_loss_forward`, `_log_softmax`), while the output and log-probs are still alive.
          logProbId = mk('log-probs', `cross-entropy log-probs saved for backward (${o.output.dtype})`, ob, 'activation', { kind: 'device', index: 0 }, traced.span,
            'log_softmax of the forward output, kept by autograd for the loss backward', `${DERIV} _log_softmax: result`, o.output.shape.filter((d): d is number => typeof d === 'number'), o.output.dtype);
          logitBytes = ob;
          ceTransient = { op: 'transient', label: 'activations: cross-entropy backward (two gradients like the output)', bytesPerDevice: 2 * ob, role: 'activation', span: traced.span,
            formula: `2 × ${ob} B`, citation: `${DERIV} nll_loss_forward, _log_softmax (_log_softmax_backward_data)` };
        }
      }
      if (prevOut !== undefined && !o.output) events.push({ op: 'free', id: prevOut });
      // zero_grad() runs before the backward: the previous gradients are gone when the loss's gradients are made.
      if (prevGrads !== undefined) events.push({ op: 'free', id: prevGrads });
      if (ceTransient) events.push(ceTransient);
      // `.grad` made during the backward (set_to_none, every parameter trainable, the traced ops reading all of
      // them): each parameter's gradient appears when the first op reading it has run its backward, while the
      // saved tensors of the ops before it are still alive; the full gradients exist only once all saved
      // tensors are released. Otherwise the gradients are counted at full size beside every saved activation.
      // One device, no sharding or DDP buckets (their gradients are laid out by the wrapper, not by AccumulateGrad alone),
      // no frozen parameter (the walk makes a gradient for every parameter an op reads).
      const walkGrads = !dpSplit && !gradsKept && !peft && !frozen.size && !!trainable && savedId !== undefined && !shard && !prog.ddp && deviceCount === 1
        && o.paramGrads !== undefined && o.backwardPeakParams !== undefined && o.paramGrads > 0 && Math.abs(o.paramGrads - paramBytes) <= 0.001 * paramBytes;
      if (walkGrads && o.backwardPeakParams! > o.bytes) {
        // The backward's peak: the saved tensors of the ops not yet differentiated, the activation gradients alive
        // there and the parameter gradients made so far (then everything saved is released and all gradients exist).
        // The loss's backward has run: the log-probs it saved are released.
        if (logProbId !== undefined) { events.push({ op: 'free', id: logProbId }); logProbId = undefined; }
        events.push({ op: 'free', id: savedId! });
        const left = mk('activations (still saved)', `activations: still saved at the backward's peak (of ${o.count} tensors)`, o.savedAtPeak!, 'activation', { kind: 'device', index: 0 }, traced.span,
          'what the ops not yet differentiated keep, at the instant of the backward\'s peak', `${DERIV}; torch/csrc/autograd/engine.cpp (a node's saved variables are released after it runs)`);
        const part = o.paramGradsAtPeak! > 0 ? mk('gradients (so far)', `gradients (${paramDtype}) made so far at the backward's peak`, o.paramGradsAtPeak!, 'gradient', sharded(2), gradSpan,
          'the gradients of the parameters read by the ops whose backward has run',
          'torch/csrc/autograd/functions/accumulate_grad.h (.grad made at the first gradient of the parameter)') : undefined;
        if (o.actGradsAtPeak! > 0) {
          events.push({ op: 'transient', label: 'activations: backward (gradients of activations beside what is still saved)', bytesPerDevice: o.actGradsAtPeak!, role: 'activation', span: traced.span,
            formula: 'the ops in reverse order; at the peak of (saved by ops not yet differentiated + live activation gradients + parameter gradients made so far): the activation gradients',
            citation: 'torch/csrc/autograd/engine.cpp; gradients shaped like each op\'s output and inputs' });
        }
        events.push({ op: 'free', id: left });
        if (part !== undefined) events.push({ op: 'free', id: part });
        savedFreed = true;
      } else {
        const bwExtra = (o.backwardPeak ?? o.bytes) - o.bytes;
        if (bwExtra > 0 && !dpSplit && !walkGrads) {
          events.push({ op: 'transient', label: 'activations: backward (gradients of activations beside what is still saved)', bytesPerDevice: bwExtra, role: 'activation', span: traced.span,
            formula: 'max over the ops, in reverse order, of (saved by ops not yet differentiated + live activation gradients) − all saved',
            citation: 'torch/csrc/autograd/engine.cpp (a node\'s saved variables are released after it runs); gradients shaped like each op\'s output and inputs' });
        }
      }
      if (walkGrads) {
        // After the backward: every saved tensor and the log-probs are released; the gradients follow (allocGrads).
        if (!savedFreed) events.push({ op: 'free', id: savedId! });
        if (logProbId !== undefined) events.push({ op: 'free', id: logProbId });
        gradsWalked = true;
      }
      for (const lb of o.lowerBounds ?? []) unknowns.push({ what: 'activations', reason: `${lb}: the activations shown are a lower bound`, span: traced.span });
      if (o.outputWhy) unknowns.push({ what: 'activations', reason: `the forward's output is not known (${o.outputWhy}): ops after it are not counted`, span: traced.span });
    } else {
      mk('activations (op outputs)', `activations: op outputs of the differentiated function (${o.count} arrays)`, o.bytes, 'activation', { kind: 'device', index: 0 }, traced.span,
        `sum of the ${o.count} arrays the differentiated function's operations make, each counted as kept for the backward (an upper bound: JAX keeps only the residuals each transpose reads)`,
        'jax/_src/interpreters/ad.py (linearize keeps the residuals of each primitive\'s JVP for the transpose); shapes from oomlens\'s op catalogue');
      actBytes = o.bytes;
    }
    if (o.unknowns) unknowns.push({ what: 'activations', reason: `${o.unknowns} op output size(s) in the forward are unknown: the activations shown are a lower bound`, span: traced.span });
  } else if ('why' in a && !('layers' in a)) {
    const opWhy = rec.framework === 'torch' || rec.framework === 'transformers' ? (shape.why ? `, and the forward's op outputs are not known: ${shape.why}` : '') : `; op outputs of a forward under JAX autodiff (${rec.framework}) are not traced`;
    unknowns.push({ what: 'activations', reason: `activations are not sized: the model is not read as a transformer stack (${a.why})${opWhy}`, span: shape.span });
  } else if (shape.batch === null || shape.seq === null) {
    unknowns.push({ what: 'activations', reason: `activations are not sized: ${shape.why}`, span: shape.span });
  } else if (e !== 2 && e !== 4) {
    unknowns.push({ what: 'activations', reason: `activations in ${computeDtype} are not modelled` });
  } else {
    const arch = a as Arch;
    const input = { seq: shape.seq, batch: shape.batch, hidden: arch.hidden, heads: arch.heads, layers: arch.layers, bytesPerElement: e as 2 | 4, dropout: arch.dropout ?? true, attention: fused ? 'fused' as const : 'materialized' as const };
    const act = trainingActivationBytes({ ...input, recompute });
    const full = trainingActivationBytes({ ...input, recompute: 'full' });
    if (arch.dropout === undefined) notes.push('a dropout probability is not known: dropout masks are counted');
    if (fused) notes.push('fused attention (scaled_dot_product_attention / FlashAttention): the s×s attention scores are not stored');
    // unsloth's offloaded checkpointing (unsloth_zoo gradient_checkpointing.py Unsloth_Offloaded_Gradient_Checkpointer):
    // the kept layer inputs are copied to host memory in the forward and brought back one layer at a time in the backward.
    const offload = recompute === 'full' && prog.checkpointing.every((c) => c.offload);
    if (recompute === 'full') notes.push(`gradient checkpointing (${prog.checkpointing[0].how}): only each layer's input is kept${offload ? ', in host memory (offloaded)' : ''}; the layer is recomputed in the backward`);
    // Under PEFT the base is frozen: a projection's input is saved only where an adapter reads it
    // (frameworks/peft/semantics.ts adapterReadInputs). The formula's terms (shared/src/activations.ts): QKV input,
    // output-projection input and the MLP's first input 1·sbh each, the second MLP linear's input (the activation's
    // output) 4·sbh. A Llama-family block is sized with more terms (llamaBlockExtra), so nothing is taken off there.
    const lbEarly = cfg && recompute === 'none' && !autocastOn && dpReplicas <= 1 ? readConfig(() => llamaBlockExtra(cfg as Record<string, unknown>, arch.hidden, e)) : undefined;
    const llamaLike = !!lbEarly && !(lbEarly instanceof UnknownConfigField) && lbEarly.bytesPerToken > 0;
    const read = peft && !peft.why && recompute === 'none' && !llamaLike ? adapterReadInputs(peft) : undefined;
    const unread = read ? ([['qkv', 1], ['out', 1], ['fc1', 1], ['fc2', 4]] as const).filter(([r]) => !read.has(r)) : [];
    const dropCoef = unread.reduce((a, [, c]) => a + c, 0);
    const drop = Math.min(act.perLayer, dropCoef * e * shape.seq * shape.batch * arch.hidden);
    if (drop > 0) notes.push(`the base model is frozen (PEFT): the inputs of the ${unread.map(([r]) => ({ qkv: 'QKV', out: 'attention output', fc1: 'first MLP', fc2: 'second MLP' })[r]).join(', ')} projections are not saved (no adapter reads them; derivatives.yaml addmm saves mat1 only for mat2's gradient): ${dropCoef}·s·b·h·${e} B less per layer`);
    // Layers the program froze without PEFT (`for p in model.transformer.h[:6].parameters(): p.requires_grad = False`):
    // their projections' weights take no gradient, so autograd saves none of the projections' inputs (mat1 is saved
    // only for mat2's gradient, derivatives.yaml addmm); what the input's gradient needs (the weights, the activation
    // function's input) is kept. Read from the load's per-layer tensors (`transformer.h.3`), numbered like the stack.
    const frozenLayers = new Set<number>();
    if (!peft && recompute === 'none' && !llamaLike && hfLoad) {
      for (const t of [...params, ...(rec.params ?? [])]) {
        const m = /\.(\d+)$/.exec(t.label);
        if (m && t.note === FROZEN && t.role === 'param') frozenLayers.add(Number(m[1]));
      }
    }
    const frozenDrop = Math.min(act.perLayer, 7 * e * shape.seq * shape.batch * arch.hidden);
    if (frozenLayers.size && frozenDrop > 0) notes.push(`${frozenLayers.size} frozen layers (requires_grad=False) save none of their projections' inputs (derivatives.yaml addmm saves mat1 only for mat2's gradient): 7·s·b·h·${e} B less in each`);
    const per = Array.from({ length: arch.layers }, (_, l) => act.perLayer - (frozenLayers.has(l) ? frozenDrop : drop));
    const perFormula = drop > 0 ? `${act.formula} − ${dropCoef}·s·b·h·${e} B per layer (frozen projections' inputs no adapter reads)` : act.formula;
    const perCitation = drop > 0 ? `${act.citation}; tools/autograd/derivatives.yaml addmm/mm (mat1 saved for mat2's gradient); peft tuners/lora/layer.py Linear.forward` : act.citation;
    archSavedFrom = events.length;
    for (let l = 0; l < (dpReplicas > 1 ? 0 : arch.layers); l++) {
      mk(`activations layer ${l}`, `activations saved for backward (${arch.layers} layers, ${computeDtype})`, per[l], 'activation', offload ? { kind: 'host' } : { kind: 'device', index: 0 }, shape.span, perFormula, offload ? `${perCitation}; unsloth_zoo gradient_checkpointing.py (offloaded to the host)` : perCitation);
    }
    actBytes = dpReplicas > 1 || offload ? 0 : act.total - drop * arch.layers;
    // Full recomputation re-runs one layer's forward with autograd on in the backward (torch/utils/checkpoint.py:
    // the reentrant CheckpointFunction.backward and the non-reentrant unpack hook both recompute the segment): that
    // layer's whole saved set exists for a moment beside the kept inputs (its own input is one of them). With
    // attention materialised (eager, pinned transformers before SDPA) it holds the [b, heads, s, s] scores.
    if (recompute === 'full' && dpReplicas <= 1 && (rec.framework === 'torch' || rec.framework === 'transformers')) {
      const one = trainingActivationBytes({ ...input, recompute: 'none' });
      // Its backward then starts with the attention's softmax: with the scores materialised, softmax's backward
      // makes the gradient of its output and of its input, each [b, heads, s, s] (derivatives.yaml `_softmax`:
      // _softmax_backward_data), in float32 where the softmax is upcast (transformers' eager attention:
      // `softmax(attn_weights, dim=-1, dtype=torch.float32)`) — the 2 GiB a QLoRA Llama-2-7B at batch 4 × 2048 asks for.
      const sm = input.attention === 'materialized' ? 2 * shape.batch * arch.heads * shape.seq * shape.seq * Math.max(e, 4) : 0;
      const extra = one.perLayer - full.perLayer + sm;
      if (extra > 0) {
        recomputeTransient = { op: 'transient', label: 'activations: one layer recomputed in the backward (checkpointing)', bytesPerDevice: extra, role: 'activation', span: shape.span,
          formula: `one layer's saved set without checkpointing − its kept input: ${one.formula} − s·b·h·${e} B${sm ? ` + softmax backward 2·b·heads·s²·${Math.max(e, 4)} B` : ''}`,
          citation: 'torch/utils/checkpoint.py (CheckpointFunction.backward / _checkpoint_without_reentrant_generator recompute the segment); shared/src/activations.ts; tools/autograd/derivatives.yaml _softmax' };
      }
    }
    activation = { bytes: act.total - drop * arch.layers, fullRecompute: full.total, formula: act.formula, recompute, layers: arch.layers };
    if (peft && !peft.why && recompute === 'none' && dpReplicas <= 1) {
      // LoRA's own saved tensors per adapted layer: the r-wide x·Aᵀ that lora_B's weight gradient reads, and with
      // lora_dropout > 0 the dropped-out input lora_A reads plus its mask (peft tuners/lora/layer.py Linear.forward:
      // lora_B(lora_A(dropout(x)))); with p = 0 dropout is nn.Identity and lora_A reads x, already counted.
      const bs = shape.batch * shape.seq;
      const lora = peft.targeted.reduce((a, l) => a + bs * l.r * e + (peft.loraDropout > 0 ? bs * l.in * (e + 1) : 0), 0);
      mk('activations LoRA', `activations saved for backward: LoRA adapters (${peft.targeted.length} layers)`, lora, 'activation', { kind: 'device', index: 0 }, peft.span,
        `Σ over adapted layers b·s·r${peft.loraDropout > 0 ? ' + b·s·in (dropout output) + b·s·in mask bytes' : ''}`, 'peft tuners/lora/layer.py Linear.forward');
      actBytes += lora;
      if (peft.activationWhy) unknowns.push({ what: 'activations', reason: `${peft.activationWhy}: the activations shown are a lower bound`, span: peft.span });
    }
    const py = cfg && recompute === 'none' ? readConfig(() => pythonActivation(cfg as Record<string, unknown>, arch.hidden)) : undefined;
    const pyAct = py instanceof UnknownConfigField ? undefined : py;
    if (pyAct) {
      // A transformers MLP whose activation is written in Python (NewGELUActivation): autograd keeps its
      // intermediates besides the input the formula counts (see pythonActivationExtra).
      const bytes = pyAct.savedExtra * shape.batch * shape.seq * pyAct.inner * e * arch.layers;
      mk('activations MLP activation', `activations saved for backward: ${pyAct.name} intermediates (${arch.layers} layers, ${computeDtype})`, bytes, 'activation', { kind: 'device', index: 0 }, shape.span,
        `${pyAct.savedExtra}·b·s·inner per layer = ${pyAct.savedExtra}·${shape.batch}·${shape.seq}·${pyAct.inner}·${e} B × ${arch.layers} layers`, pyAct.citation);
      actBytes += bytes;
    }
    // Llama-family layers (gated MLP, RMSNorm's float32 copy) keep more per token than the GPT block of the formula.
    const lb = cfg && recompute === 'none' && !autocastOn && dpReplicas <= 1 ? readConfig(() => llamaBlockExtra(cfg as Record<string, unknown>, arch.hidden, e)) : undefined;
    const llama = lb instanceof UnknownConfigField ? undefined : lb;
    if (llama && llama.bytesPerToken > 0) {
      const bytes = llama.bytesPerToken * shape.batch * shape.seq * arch.layers;
      mk('activations Llama block', `activations saved for backward: gated MLP and RMSNorm float32 copies (${arch.layers} layers, ${computeDtype})`, bytes, 'activation', { kind: 'device', index: 0 }, shape.span,
        `${llama.formula} × b·s = ${shape.batch}·${shape.seq} × ${arch.layers} layers`, llama.citation);
      actBytes += bytes;
    }
    // A training forward that builds a KV cache (transformers ≥ 4.56, use_cache on, no checkpointing): the key and
    // value copies attention saves, where the fused projection they were split from stays saved too.
    // transformers ≥ 5.0's Trainer sets `model.config.use_cache = args.use_cache` (TrainingArguments.use_cache,
    // default False: trainer.py __init__ "Finalize", huggingface/transformers#41585), so its training forward
    // builds no cache unless the arguments turn it on.
    const trainerNoCache = !!prog.trainer && !below(5, 0) && prog.trainer.useCache !== true;
    if (trainerNoCache && cfg && (cfg as { model_type?: unknown }).model_type === 'gpt2' && recompute === 'none') notes.push(`${prog.trainer!.kind} sets model.config.use_cache = TrainingArguments.use_cache (False by default from transformers 5.0): no KV cache is built in the training forward`);
    const cc = cfg && recompute === 'none' && dpReplicas <= 1 && !below(4, 56) && !trainerNoCache && !/use_cache\s*=\s*False/.test(programText(it))
      ? trainingCacheCopies(cfg as { model_type?: unknown; use_cache?: unknown }) : undefined;
    if (cc) {
      const bytes = cc.hiddenCopies * shape.batch * shape.seq * arch.hidden * e * arch.layers;
      mk('activations KV cache copies', `activations saved for backward: key and value cache copies (${arch.layers} layers, ${computeDtype})`, bytes, 'activation', { kind: 'device', index: 0 }, shape.span,
        `${cc.hiddenCopies}·b·s·h per layer = ${cc.hiddenCopies}·${shape.batch}·${shape.seq}·${arch.hidden}·${e} B × ${arch.layers} layers`, cc.citation);
      actBytes += bytes;
      notes.push(`transformers${tv ? `==${tv}` : ''} builds a KV cache in the training forward (use_cache): attention saves the key and value copies it concatenates; use_cache=False drops them`);
    }
    // The loss may be computed in the model's own file (a GPT whose forward returns the loss), not the one analysed.
    // A transformers model with a language-model head computes its own loss; a base model (`CLIPTextModel`,
    // `AutoModel`: hidden states out, modeling_clip.py CLIPTextModel has no head) makes no logits at all.
    const baseModel = !!hfLoad && autoClassFor(hfLoad.className) === 'base';
    const ce = (/cross_entropy|log_softmax|nll_loss|CrossEntropyLoss/.test(programText(it)) || rec.framework === 'transformers') && !baseModel;
    // A *ForSequenceClassification head (frameworks/transformers/catalog.ts seqClsSizes) has num_labels outputs, not a
    // vocabulary: its logits are [b, num_labels] after pooling, the decoders' `score` runs on every position first
    // (modeling_layers.py GenericForSequenceClassification.forward: score(hidden_states), then the last token's row).
    const seqCls = hfLoad && autoClassFor(hfLoad.className) === 'seq-cls' ? numLabels(hfLoad.config ?? ({} as HfConfig)) : undefined;
    if (seqCls !== undefined) {
      mk('logits', `logits [${shape.batch}, ${shape.seq}, ${seqCls}] (${computeDtype}): sequence classification, ${seqCls} labels`, shape.batch * shape.seq * seqCls * e, 'activation', { kind: 'device', index: 0 }, shape.span,
        `b·s·num_labels·${e} B (an upper bound: encoders classify the pooled [b, h] only)`, 'transformers modeling_layers.py GenericForSequenceClassification.forward');
    }
    // unsloth's training forward never makes the logits: with labels it computes the loss from the hidden states in
    // chunks (unsloth/models/llama.py CausalLM_fast_forward → unsloth_fused_ce_loss, target_gb=None: the chunk is
    // sized from the memory it finds free), so the vocabulary-sized terms below are not there and its own working
    // memory is an unknown.
    const unslothCe = hfLoad?.library === 'unsloth' && arch.vocab && ce && seqCls === undefined;
    if (unslothCe) unknowns.push({ what: 'loss', reason: 'unsloth computes the cross-entropy from the hidden states in chunks sized from the free memory (unsloth_fused_ce_loss): the logits are never made, and the chunks\' working memory is not sized', span: shape.span });
    if (arch.vocab && ce && seqCls === undefined && !unslothCe) {
      // Logits in the compute dtype; log-probs in float32 under autocast (log_softmax is on autocast's fp32 list).
      // A transformers model's own loss upcasts the logits (loss/loss_utils.py ForCausalLMLoss: `logits = logits.float()`,
      // v5.23), so its log-softmax and the loss's gradients are float32 whatever the model's dtype, as under autocast.
      const f32Loss = autocastOn || rec.framework === 'transformers';
      const head = lmHeadBytes({ batch: shape.batch, seq: shape.seq, vocab: arch.vocab, logitsBytes: e, logProbBytes: f32Loss ? 4 : e });
      const ld: DType = e === 2 ? computeDtype : 'float32';
      const jaxLike = rec.framework !== 'torch' && rec.framework !== 'transformers';
      // torch returns the logits to the caller (alive) and autograd keeps log_softmax's result; under jit XLA keeps
      // only what the backward reads (the log-probs), the logits being an intermediate.
      const logitsId = jaxLike ? undefined : mk('logits', `logits [${shape.batch}, ${shape.seq}, ${arch.vocab}] (${ld})`, head.logits, 'activation', { kind: 'device', index: 0 }, shape.span, head.formula, head.citation, [shape.batch, shape.seq, arch.vocab], ld);
      mk('log-probs', `cross-entropy log-probs saved for backward (${f32Loss ? 'float32' : ld})`, head.logProbs, 'activation', { kind: 'device', index: 0 }, shape.span, head.formula, head.citation, [shape.batch, shape.seq, arch.vocab], f32Loss ? 'float32' : ld);
      logitBytes = (jaxLike ? 0 : head.logits) + head.logProbs;
      if (!jaxLike) {
        // The backward starts with the loss: nll_loss's backward writes a gradient like the log-probs, and
        // _log_softmax_backward_data one like its input (derivatives.yaml `nll_loss_forward`, `_log_softmax`),
        // both alive while the logits and saved log-probs still are; under autocast the float32 gradient is
        // cast back to the logits' dtype (derivatives.yaml `_to_copy: _to_copy_backward(grad, self.options())`).
        const n = shape.batch * shape.seq * arch.vocab;
        // A transformers Trainer keeps only the loss: compute_loss returns `loss` (not the model's outputs unless
        // return_outputs) and training_step calls backward on it (trainer.py Trainer.training_step / compute_loss,
        // transformers 5.23), so the logits, which no op saves (cross_entropy keeps log_softmax's result), are
        // released before the backward: they and the loss's gradients are two candidate peaks, not one.
        if (prog.trainer && logitsId !== undefined) {
          events.push({ op: 'free', id: logitsId });
          notes.push(`${prog.trainer.kind}.training_step keeps only the loss: the logits are released before the backward (the saved log-probs are not)`);
        }
        const lp = f32Loss ? 4 : e;
        const ceGrad = n * (2 * lp + (lp !== e ? e : 0));
        events.push({ op: 'transient', label: 'activations: cross-entropy backward (loss gradients, vocabulary-sized)', bytesPerDevice: ceGrad, role: 'activation', span: shape.span,
          formula: `b·s·V·(2·${lp} B${lp !== e ? ` + ${e} B cast back` : ''}) = ${n}·${2 * lp + (lp !== e ? e : 0)} B`,
          citation: 'tools/autograd/derivatives.yaml nll_loss_forward, _log_softmax (_log_softmax_backward_data), _to_copy' });
      }
    } else if (arch.vocab) notes.push('no cross-entropy loss found in the file: the [batch, sequence, vocabulary] logits are not counted');
  }

  if (recomputeTransient) {
    // By the first recomputed layer the loss's backward has run: the log-probs autograd saved for it are released
    // (the logits stay where the program still holds them).
    for (const ev of [...events]) if (ev.op === 'alloc' && ev.tensor.label === 'log-probs') events.push({ op: 'free', id: ev.tensor.id });
    events.push(recomputeTransient);
  }
  // torch gradient accumulation: the loss divided by the number of micro-steps before backward().
  if (rec.framework === 'torch' || rec.framework === 'transformers') {
    const acc = accumRe.exec(it.text);
    if (acc && prog.backward.length + (/\.backward\s*\(/.test(it.text) ? 1 : 0) > 0) notes.push(`gradient accumulation (${(acc[1] ?? acc[2]).trim()} micro-steps): activations are sized for the micro-batch the forward sees; .grad accumulates in place, so no extra buffer`);
  }

  // The backward runs the layers in reverse, releasing each layer's saved tensors after its node has run and
  // making its parameters' gradients (torch/csrc/autograd/engine.cpp; AccumulateGrad): with no `.grad` before the
  // backward, saved + gradients-so-far is largest at one of its two ends, the start (everything saved, the loss's
  // gradients) or the end (every gradient), give or take one layer. So at the end every saved tensor of the
  // transformer formula is released but the first layer's (its backward runs last), and the gradients are made.
  let firstLayer: number | undefined;
  if (!gradsKept && torchLike && archSavedFrom !== undefined && recompute === 'none') {
    for (const ev of events.slice(archSavedFrom)) {
      if (ev.op !== 'alloc' || ev.tensor.role !== 'activation' || !(/^activations/.test(ev.tensor.label) || ev.tensor.label === 'log-probs')) continue;
      if (ev.tensor.label === 'activations layer 0') { firstLayer = ev.tensor.id; continue; }
      events.push({ op: 'free', id: ev.tensor.id });
    }
    notes.splice(notes.indexOf(fullGradsNote), 1, 'the backward releases each layer\'s saved activations as it makes its gradients: the start of the backward and its end (every gradient, the first layer\'s activations) are the candidate peaks');
  }
  if (!gradsKept) allocGrads();
  if (firstLayer !== undefined) events.push({ op: 'free', id: firstLayer });
  // 5. The optimizer step: torch Adam/AdamW's own temporaries beside parameters, gradients and state, once the
  // backward has released what autograd saved (shared/src/training.ts optimizerStepTemporaries). The model's output
  // may still be bound in the loop, so only saved activations and the loss's log-probs are released here.
  const stepTmp = torchLike && opt?.lib === 'torch' && trainable && !dsMixed && !offO && !prog.zero && optBytes !== null
    ? optimizerStepTemporaries(opt.kind, trainable, opt.opts) : undefined;
  if (!stepTmp && torchLike && opt?.lib === 'torch' && trainable && !dsMixed && !offO && !prog.zero && UNSIZED_STEP.has(opt.kind)) {
    unknowns.push({ what: 'optimizer step temporaries', reason: `what ${opt.callee}'s step() allocates beside its state (its multi-tensor path's intermediates) is not modelled: the step may peak above this`, span: opt.span });
  }
  if (stepTmp && stepTmp.bytes > 0) {
    for (const ev of [...events]) {
      if (ev.op === 'alloc' && ev.tensor.role === 'activation' && (/^activations/.test(ev.tensor.label) || ev.tensor.label === 'log-probs')) events.push({ op: 'free', id: ev.tensor.id });
    }
    events.push({ op: 'transient', label: `optimizer step temporaries: ${opt!.callee} (${paramDtype})`, bytesPerDevice: bytesOn(stepTmp.bytes, 1), role: 'optimizer', span: opt!.span, formula: stepTmp.formula, citation: stepTmp.citation });
    if (opt!.opts.foreach === undefined && !opt!.opts.fused) notes.push(`${opt!.callee} with foreach and fused unset runs the multi-tensor step on a CUDA device: the square roots of exp_avg_sq for every parameter at once (${(stepTmp.bytes / 1e9).toFixed(2)} GB), a candidate peak after the backward; fused=True updates in place`);
  }
  if (gradsWalked) notes.splice(notes.indexOf(fullGradsNote), 1, 'the backward is replayed op by op: each parameter\'s gradient is counted from the op that first makes it, beside the activations not yet released');

  // JAX: a jitted step returns new parameters and optimizer state. XLA gives a computation's outputs buffers of
  // their own unless an argument is donated (jax docs "Buffer donation"; jax/_src/pjit.py donated_invars), and
  // the arguments stay alive for the caller until the call returns, so without donation the update writes
  // parameters + state beside the old ones. The gradients and activations are dead by then: the Adam update is
  // elementwise, and XLA's buffer assignment lets an elementwise user write into its operand's buffer and places
  // temporaries in output allocations whose live ranges do not overlap (xla/service/hlo_dataflow_analysis.cc
  // CanShareOperandBufferWithUser; xla/service/buffer_assignment.cc), so the step's peak is
  // inputs + max(gradients + activations, outputs). With donation the outputs alias the inputs.
  const jitted = !torchLike ? prog.gradCalls.find((g) => g.jit)?.jit : undefined;
  if (jitted && trainable && optBytes !== null) {
    if (jitted.donated) notes.push(`${jitted.how}: arguments donated, the new parameters and optimizer state reuse their buffers`);
    else {
      for (const ev of [...events]) {
        if (ev.op === 'alloc' && (ev.tensor.role === 'activation' || ev.tensor.label === 'gradients')) events.push({ op: 'free', id: ev.tensor.id });
      }
      const acc = opt?.accumulate !== undefined ? accumulationBytes(trainable).bytes : 0;
      mk('updated parameters (jit output)', `updated parameters: jit output beside the arguments (${paramDtype})`, paramBytes, 'param', sharded(3), gradCallSpan(prog) ?? gradSpan,
        'new parameters written to buffers of their own: the arguments are not donated', 'jax docs "Buffer donation" (donate_argnums); jax/_src/pjit.py donated_invars');
      mk('updated optimizer state (jit output)', `updated optimizer state: jit output beside the arguments`, optBytes + acc, 'optimizer', sharded(1), gradCallSpan(prog) ?? gradSpan,
        'new optimizer state written to buffers of its own: the arguments are not donated', 'jax docs "Buffer donation" (donate_argnums); jax/_src/pjit.py donated_invars');
      notes.push(`${jitted.how} without donate_argnums: the step's outputs (parameters and optimizer state) are new buffers next to its arguments, 2 × (parameters + optimizer state) at the update; donating them (donate_argnums=(0, 1)) makes it 1×`);
    }
  }

  INFO.set(rec, {
    program: prog, optimizer: opt, paramDtype, computeDtype,
    parts: { params: bytesOn(weightBytes, 3), grads: bytesOn(paramBytes, 2), optimizer: optBytes === null ? null : bytesOn(optBytes, 1), activations: actBytes, logits: logitBytes },
    activation, hfLoadSpan: load?.span, beforeLoop: beforeLoop(it, prog.forwards.find((f) => f.model === rec.result)?.span),
  });
  // A launcher that starts one process per visible GPU without saying how many (program/launch.ts): on a
  // single target device the division is not known, so what ZeRO/FSDP divides is an unknown and the
  // peak is a lower bound of what is not divided (never the undivided total presented as a bound).
  const world = it.state.get('worldUnknown') as string | undefined;
  let kept = events;
  if (world && shard && stage >= 1 && deviceCount === 1) {
    const divided = new Set<string>();
    kept = events.filter((e) => {
      if (e.op !== 'alloc') return true;
      const r = e.tensor.role;
      const isDivided = (r === 'param' && stage >= 3) || (r === 'gradient' && stage >= 2) || r === 'optimizer';
      if (isDivided) divided.add(e.tensor.group ?? e.tensor.label);
      return !isDivided;
    });
    const freed = new Set(events.filter((e) => e.op === 'alloc' && !kept.includes(e)).map((e) => (e as { tensor: { id: number } }).tensor.id));
    kept = kept.filter((e) => !(e.op === 'free' && freed.has(e.id)));
    for (const g of divided) unknowns.push({ what: g, reason: `${shard.how} divides it over the processes ${world} starts, whose number the command does not give (one per visible GPU); set the device count, e.g. 8xa100-80gb`, span: 'span' in shard ? shard.span : undefined });
  }
  return [{ phase: 'training', events: kept, span: opt?.span ?? prog.backward[0] ?? prog.gradCalls[0]?.span ?? rec.span, notes: [...new Set(notes)], unknowns, ...(shape.batch !== null ? { batch: shape.batch } : {}) }];
}

/** The training calls not followed that train `rec`: all of them when it is the only model, else those whose loop names it. */
function unfollowedFor(it: Interpreter, prog: TrainingProgram, rec: ModelRecord, single: boolean): NonNullable<TrainingProgram['unfollowed']> {
  const all = prog.unfollowed ?? [];
  if (!all.length || single) return all;
  // The model's forward traced inside the same loop (or function) as the call.
  const within = (s: Span, o: Span) => s.file === o.file && s.start >= o.start && s.end <= o.end;
  const called = (u: (typeof all)[number]) => prog.forwards.some((f) => f.model === rec.result && within(f.span, u.aroundSpan));
  const names: string[] = [];
  for (const [k, v] of it.globals.vars) if (v.t === 'inst' && it.memory.lastFinishedWithResult(v) === rec) names.push(k);
  const re = names.length ? new RegExp(`\\b(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`) : undefined;
  return all.filter((u) => called(u) || re?.test(u.around));
}

/** torch optimizers whose step temporaries may have no formula here (RAdam; Adamax and NAdam with foreach=False): an unknown then. */
const UNSIZED_STEP = new Set<OptimizerKind>(['torch.adamax', 'torch.nadam', 'torch.radam']);

const gradCallSpan = (prog: TrainingProgram): Span | undefined => prog.gradCalls.find((g) => g.jit)?.span;

/** Batch and sequence length of the training inputs: the model's forward call (torch), or the gradient call's inputs (JAX). */
function inputShape(rec: ModelRecord, prog: TrainingProgram, it: Interpreter): { batch: number | null; seq: number | null; why: string; span?: Span } {
  void it;
  if (prog.trainer) return { batch: prog.trainer.batch, seq: prog.trainer.batch === null ? null : prog.trainer.seq, why: prog.trainer.why, span: prog.trainer.span };
  const mine = prog.forwards.filter((f) => f.model === rec.result);
  for (const f of mine) {
    const d = f.input?.shape;
    // [batch, sequence] token ids or [batch, sequence, features]; an image batch [N, C, H, W] is no sequence (CLIP's
    // first input gave "logits [64, 3, 49408]").
    if (d && d.length >= 2 && d.length <= 3 && typeof d[0] === 'number' && typeof d[1] === 'number') return { batch: d[0], seq: d[1], why: '', span: f.span };
  }
  if (mine.length) {
    const d = mine[0].input?.shape;
    const bad = d?.find((x) => typeof x !== 'number');
    return {
      batch: null, seq: null, span: mine[0].span,
      why: bad && typeof bad !== 'number' ? `the input's shape is not known (${bad.unknown})` : d ? `the input has ${d.length} dimension(s), not [batch, sequence]` : `the input is not a tensor of known shape${mine[0].why ? ` (${mine[0].why})` : ''}`,
    };
  }
  const fwd = inferenceUses(rec).find((u) => u.kind === 'forward' && u.batch !== null && u.tokens !== null);
  if (fwd && fwd.batch !== null && fwd.kind === 'forward' && fwd.tokens !== null) return { batch: fwd.batch, seq: fwd.tokens, why: '', span: fwd.span };
  for (const g of prog.gradCalls) {
    const x = g.inputs.find((t) => t.shape.length >= 2 && t.shape.length <= 3);
    if (x && typeof x.shape[0] === 'number' && typeof x.shape[1] === 'number') return { batch: x.shape[0], seq: x.shape[1], why: '', span: g.span };
  }
  const anyFwd = inferenceUses(rec).find((u) => u.kind === 'forward');
  if (anyFwd) {
    const u = anyFwd.unknowns[0];
    return { batch: null, seq: null, why: u ? `the input's ${u.what} is not known (${u.reason})` : 'the forward call\'s input is not a [batch, sequence] tensor of known shape', span: anyFwd.span };
  }
  if (prog.gradCalls.length) return { batch: null, seq: null, why: 'the differentiated function is called without a [batch, sequence] array of known shape', span: prog.gradCalls[0].span };
  return { batch: null, seq: null, why: 'no forward call of the model with an input of known shape was found' };
}

/**
 * The analysed file's text and the texts of the workspace modules the program imported (the model's own file,
 * where a forward may compute the loss), for the textual checks that ask whether the program does something.
 */
function programText(it: Interpreter): string {
  const parts = [it.text];
  for (const m of it.modules.values()) {
    if (!m.path || !it.loader) continue;
    const t = it.loader.load(m.path)?.text;
    if (t !== undefined && t !== it.text) parts.push(t);
  }
  return parts.join('\n');
}

/** Whether a record holds a parameter (memoised: records do not change once the program has run). */
const HOLDS = new WeakMap<ModelRecord, boolean>();
function holdsModel(r: ModelRecord): boolean {
  let v = HOLDS.get(r);
  if (v === undefined) {
    v = r.result === undefined ? r.events.length > 0 : r.unknowns.length > 0 || moduleTensors(r.result).params.length > 0;
    HOLDS.set(r, v);
  }
  return v;
}

/** Whether every other reported record holds no parameter and no unknown (early exit at the first that does). */
function onlyModel(it: Interpreter, rec: ModelRecord): boolean {
  for (const r of it.memory.finished) if (r !== rec && holdsModel(r)) return false;
  return true;
}
