/**
 * Training-state sizes: optimizer state, gradients and ZeRO partitioning.
 * Each formula names the framework code it follows; the caller supplies the
 * parameter shapes and dtypes it read from the program.
 */
import type { DType } from './facts';
import { dtypeBytes } from './dtypes';

export type OptimizerKind =
  | 'optax.adam' | 'optax.adamw' | 'optax.sgd' | 'optax.adafactor'
  | 'torch.adam' | 'torch.adamw' | 'torch.sgd' | 'bnb.adam8bit' | 'bnb.adamw8bit'
  | 'torch.rmsprop' | 'torch.adagrad' | 'torch.adamax' | 'torch.nadam' | 'torch.radam' | 'torch.adadelta';

export interface OptimizerOptions {
  /** optax `mu_dtype`: the first moment's dtype (defaults to the param's). */
  muDtype?: DType;
  /** SGD momentum; 0 or undefined means no momentum buffer. */
  momentum?: number;
  /** torch Adam/AdamW amsgrad keeps a third buffer. */
  amsgrad?: boolean;
  /** torch.optim `foreach=` as written (undefined: the default, the multi-tensor path on a CUDA device). */
  foreach?: boolean;
  /** torch.optim `fused=True`: one kernel updates every tensor in place. */
  fused?: boolean;
  /** torch RMSprop `centered=True` keeps a running mean of the gradient too. */
  centered?: boolean;
  /** torch.optim `weight_decay` (undefined: the optimizer's default, 0 for RMSprop); null when not a literal. */
  weightDecay?: number | null;
}

export interface ParamShape { shape: number[]; dtype: DType }

export interface SizeWithSource { bytes: number; formula: string; citation: string }

function numel(shape: number[]): number {
  return shape.reduce((a, d) => a * d, 1);
}

/** optax adafactor's default `min_dim_size_to_factor` (optax/_src/alias.py, factorized.py). */
const ADAFACTOR_MIN_DIM = 128;

/**
 * Optimizer state bytes for one parameter.
 * - optax adam/adamw: `scale_by_adam.init_fn` makes `mu = tree_zeros_like(params, dtype=mu_dtype)`,
 *   `nu = tree_zeros_like(params)` and `count = jnp.zeros([], jnp.int32)`
 *   (optax/_src/transform.py, optax 0.1.7–0.2.x). The count is shared by the
 *   whole tree, so it is added once by `optimizerStateBytes`, not here.
 * - optax sgd: `trace` keeps one zeros_like buffer when momentum is set, else nothing
 *   (optax/_src/alias.py `sgd`, transform.py `trace`).
 * - optax adafactor: `scale_by_factored_rms` keeps, for a parameter whose two
 *   largest dims are ≥ 128, a row and a column accumulator (shape without the
 *   column dim, shape without the row dim), else a full `v`; float32
 *   (optax/_src/factorized.py `_factored_dims`, `init_fn`).
 * - torch Adam/AdamW: `exp_avg` and `exp_avg_sq` are `torch.zeros_like(p, memory_format=torch.preserve_format)`,
 *   plus `max_exp_avg_sq` with amsgrad (torch/optim/adamw.py `_init_group`, torch 2.x).
 * - torch SGD: one `momentum_buffer` (clone of the gradient) when momentum ≠ 0 (torch/optim/sgd.py).
 * - bitsandbytes Adam8bit: two uint8 states, 2 B per parameter (bitsandbytes/optim/optimizer.py
 *   `Optimizer2State.init_state`, blockwise; the float32 absmax per 2048-element block is ignored).
 * - torch RMSprop: `square_avg`, plus `momentum_buffer` when momentum > 0 and `grad_avg` when centered, each
 *   `torch.zeros_like(p)` (torch/optim/rmsprop.py `_init_group`, torch 2.13).
 * - torch Adagrad: `sum = torch.full_like(p, initial_accumulator_value)`, made in the constructor (torch/optim/adagrad.py).
 * - torch Adamax: `exp_avg`, `exp_inf`; NAdam and RAdam: `exp_avg`, `exp_avg_sq`; Adadelta: `square_avg`, `acc_delta`
 *   (torch/optim/{adamax,nadam,radam,adadelta}.py `_init_group`). NAdam's `mu_product` is a 0-d tensor, like every
 *   optimizer's `step`, on the host unless `capturable`/`fused`: not counted.
 */
export function optimizerBytesPerParam(kind: OptimizerKind, p: ParamShape, opts: OptimizerOptions = {}): number {
  const n = numel(p.shape);
  const b = dtypeBytes(p.dtype);
  switch (kind) {
    case 'optax.adam':
    case 'optax.adamw':
      return n * dtypeBytes(opts.muDtype ?? p.dtype) + n * b;
    case 'optax.sgd':
    case 'torch.sgd':
      return opts.momentum ? n * b : 0;
    case 'optax.adafactor': {
      if (p.shape.length >= 2) {
        const dims = p.shape.map((d, i) => [d, i] as const).sort((x, y) => y[0] - x[0]);
        const [[d1], [d2]] = dims;
        if (d2 >= ADAFACTOR_MIN_DIM) return (n / d1 + n / d2) * 4;
      }
      return n * 4;
    }
    case 'torch.adam':
    case 'torch.adamw':
      return n * b * (opts.amsgrad ? 3 : 2);
    case 'bnb.adam8bit':
    case 'bnb.adamw8bit':
      return n * 2;
    case 'torch.rmsprop':
      return n * b * (1 + (opts.momentum ? 1 : 0) + (opts.centered ? 1 : 0));
    case 'torch.adagrad':
      return n * b;
    case 'torch.adamax':
    case 'torch.nadam':
    case 'torch.radam':
    case 'torch.adadelta':
      return n * b * 2;
  }
}

/** The state names of a torch optimizer, as its `_init_group` makes them (see optimizerBytesPerParam). */
function torchStateNames(kind: OptimizerKind, opts: OptimizerOptions): string {
  switch (kind) {
    case 'torch.rmsprop': return ['square_avg', ...(opts.momentum ? ['momentum_buffer'] : []), ...(opts.centered ? ['grad_avg'] : [])].join(' + ');
    case 'torch.adagrad': return 'sum';
    case 'torch.adamax': return 'exp_avg + exp_inf';
    case 'torch.nadam': case 'torch.radam': return 'exp_avg + exp_avg_sq';
    case 'torch.adadelta': return 'square_avg + acc_delta';
    default: return '';
  }
}

/** Total optimizer state for a parameter tree, with the shared optax Adam step count (int32, 4 B). */
export function optimizerStateBytes(kind: OptimizerKind, params: ParamShape[], opts: OptimizerOptions = {}): SizeWithSource {
  let bytes = params.reduce((a, p) => a + optimizerBytesPerParam(kind, p, opts), 0);
  if (kind === 'optax.adam' || kind === 'optax.adamw') bytes += 4;
  return {
    bytes,
    formula: kind.startsWith('optax.adam') ? 'mu + nu per parameter (param dtype, mu_dtype override) + int32 count'
      : kind === 'optax.adafactor' ? 'float32 row + column accumulators for factored params, full v otherwise'
      : kind.startsWith('torch.adam') ? `exp_avg + exp_avg_sq${opts.amsgrad ? ' + max_exp_avg_sq' : ''} (zeros_like(p))`
      : kind.startsWith('bnb.') ? '2 × uint8 state per parameter'
      : torchStateNames(kind, opts) ? `${torchStateNames(kind, opts)} (zeros_like(p))`
      : opts.momentum ? 'one momentum buffer (param dtype)' : 'no state',
    citation: kind.startsWith('optax') ? 'optax/_src/transform.py scale_by_adam, trace; optax/_src/factorized.py'
      : torchStateNames(kind, opts) ? `torch/optim/${kind.slice(6)}.py _init_group (torch 2.13)`
      : kind.startsWith('torch') ? 'torch/optim/adamw.py, torch/optim/sgd.py (torch 2.x)'
      : 'bitsandbytes/optim/optimizer.py Optimizer2State',
  };
}

/**
 * What a torch Adam / AdamW `step()` allocates beside parameters, gradients and state, on a CUDA device
 * (torch/optim/adam.py, torch 2.13; AdamW is Adam with decoupled weight decay):
 * - `foreach` left unset: `_default_to_fused_or_foreach` (torch/optim/optimizer.py) takes the multi-tensor path when
 *   every parameter is on a foreach device (torch/utils/_foreach_utils.py: cuda, xpu), and `_multi_tensor_adam`
 *   makes `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)` for the whole (device, dtype) group, divided
 *   and offset in place: one tensor like every trainable parameter, alive together (the gradient copies that
 *   `maximize` or Adam's coupled weight decay make are deleted before it: `del device_grads`);
 * - `foreach=False`: `_single_tensor_adam`, one parameter at a time: `exp_avg_sq.sqrt()` and its quotient by the
 *   bias correction, 2 × the largest parameter;
 * - `fused=True`: `torch._fused_adam_` / `_fused_adamw_` update in place: nothing.
 * Measured: test/truth (a Linear's step, exact, and a Llama-2-7B-shaped step under FakeTensorMode with the
 * CUDA default swapped in).
 */
export function optimizerStepTemporaries(kind: OptimizerKind, params: ParamShape[], opts: OptimizerOptions = {}): SizeWithSource | undefined {
  if (kind === 'torch.sgd') return sgdStepTemporaries(params, opts);
  if (kind === 'torch.rmsprop') return rmspropStepTemporaries(params, opts);
  if (kind === 'torch.adagrad' || kind === 'torch.adadelta') return adaStepTemporaries(kind, params, opts);
  if (kind === 'torch.adamax' || kind === 'torch.nadam') return maxNadamStepTemporaries(kind, params, opts);
  if (kind !== 'torch.adam' && kind !== 'torch.adamw') return undefined;
  if (opts.fused) return { bytes: 0, formula: 'fused=True: updated in place', citation: 'torch/optim/adam.py _fused_adam (torch._fused_adam_)' };
  if (opts.foreach === false) {
    const largest = params.reduce((a, p) => Math.max(a, numel(p.shape) * dtypeBytes(p.dtype)), 0);
    return { bytes: 2 * largest, formula: `foreach=False: exp_avg_sq.sqrt() and its quotient for the largest parameter, 2 × ${largest.toLocaleString('en-US')} B`, citation: 'torch/optim/adam.py _single_tensor_adam (denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps))' };
  }
  const all = gradientBytes(params);
  return {
    bytes: all,
    formula: `${opts.foreach ? 'foreach=True' : 'foreach by default on a CUDA device'}: sqrt(exp_avg_sq) of every parameter at once, ${all.toLocaleString('en-US')} B`,
    citation: 'torch/optim/optimizer.py _default_to_fused_or_foreach; torch/optim/adam.py _multi_tensor_adam (exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs))',
  };
}

/**
 * What a torch RMSprop `step()` allocates beside parameters, gradients and state (torch/optim/rmsprop.py, torch 2.13;
 * it has no fused path):
 * - multi-tensor (foreach unset on a CUDA device, or True): `avg = torch._foreach_sqrt(grouped_square_avgs)` (centered:
 *   `_foreach_addcmul` then sqrt in place) is one tensor like every parameter; with `weight_decay != 0` (and not
 *   maximize) `grouped_grads = torch._foreach_add(grouped_grads, grouped_params, ...)` is another, alive with it;
 * - `foreach=False`: per parameter, `grad.add(param)` and `square_avg.sqrt()`: 1 or 2 × the largest parameter.
 * A `weight_decay` that is not a literal counts as non-zero (the larger).
 */
function sgdStepTemporaries(params: ParamShape[], opts: OptimizerOptions): SizeWithSource {
  // torch/optim/sgd.py _multi_tensor_sgd (2.x): with weight_decay ≠ 0, `device_grads = torch._foreach_add(device_grads,
  // device_params, alpha=weight_decay)` makes a decayed copy of every gradient; the momentum buffers and the
  // parameters are then updated in place (`_foreach_mul_`, `_foreach_add_`). Without weight decay nothing is made.
  // Measured (truth tracker, CUDA's multi-tensor kernels swapped in): torchvision AlexNet, SGD(momentum=0.9,
  // weight_decay=1e-4): the step's temporaries are one float32 copy of the 61.1M parameters.
  // _single_tensor_sgd (foreach=False): `grad.add(param, alpha=weight_decay)` one parameter at a time.
  const decays = !(opts.weightDecay === 0 || opts.weightDecay === undefined);
  if (!decays) return { bytes: 0, formula: 'no weight decay: the momentum buffers and parameters are updated in place', citation: 'torch/optim/sgd.py _multi_tensor_sgd' };
  if (opts.foreach === false) {
    const largest = params.reduce((a, p) => Math.max(a, numel(p.shape) * dtypeBytes(p.dtype)), 0);
    return { bytes: largest, formula: `foreach=False: grad + weight_decay · param for the largest parameter, ${largest.toLocaleString('en-US')} B`, citation: 'torch/optim/sgd.py _single_tensor_sgd (grad = grad.add(param, alpha=weight_decay))' };
  }
  const all = gradientBytes(params);
  return { bytes: all, formula: `weight_decay ≠ 0: a decayed copy of every gradient, ${all.toLocaleString('en-US')} B`, citation: 'torch/optim/sgd.py _multi_tensor_sgd (torch._foreach_add(device_grads, device_params, alpha=weight_decay))' };
}

function rmspropStepTemporaries(params: ParamShape[], opts: OptimizerOptions): SizeWithSource {
  const copies = opts.weightDecay === 0 || opts.weightDecay === undefined ? 1 : 2;
  const why = copies === 2 ? 'the square root of square_avg and the gradient plus weight decay' : 'the square root of square_avg';
  if (opts.foreach === false) {
    const largest = params.reduce((a, p) => Math.max(a, numel(p.shape) * dtypeBytes(p.dtype)), 0);
    return { bytes: copies * largest, formula: `foreach=False: ${why} for the largest parameter, ${copies} × ${largest.toLocaleString('en-US')} B`, citation: 'torch/optim/rmsprop.py _single_tensor_rmsprop (grad.add(param), square_avg.sqrt())' };
  }
  const all = gradientBytes(params);
  return {
    bytes: copies * all,
    formula: `${opts.foreach ? 'foreach=True' : 'foreach by default on a CUDA device'}: ${why} of every parameter at once, ${copies} × ${all.toLocaleString('en-US')} B`,
    citation: 'torch/optim/optimizer.py _default_to_fused_or_foreach; torch/optim/rmsprop.py _multi_tensor_rmsprop (torch._foreach_add, torch._foreach_sqrt)',
  };
}

/**
 * What torch Adagrad's and Adadelta's `step()` allocate beside parameters, gradients and state (torch 2.13; neither
 * has a fused CUDA path here):
 * - Adagrad, multi-tensor: `std = torch._foreach_sqrt(device_state_sums)` and the numerator (`torch._foreach_mul` of
 *   the gradients, or the weight-decayed copy `torch._foreach_add(device_grads, device_params)` reused for it): two
 *   tensors like every parameter, with or without weight decay; single-tensor: `state_sum.sqrt()` (and `grad.add`
 *   with weight decay) for the largest parameter (torch/optim/adagrad.py);
 * - Adadelta, multi-tensor: `std = torch._foreach_add(square_avgs, eps)` and `deltas = torch._foreach_add(acc_deltas,
 *   eps)`, plus the weight-decayed gradients when `weight_decay != 0`: 2 or 3 tensors like every parameter;
 *   single-tensor: the same per parameter, for the largest (torch/optim/adadelta.py).
 * Measured: test/truth/programs/mlp_adagrad_foreach.py and mlp_adadelta_foreach.py (the step's temporaries, exact).
 * A `weight_decay` that is not a literal counts as non-zero (the larger).
 */
function adaStepTemporaries(kind: 'torch.adagrad' | 'torch.adadelta', params: ParamShape[], opts: OptimizerOptions): SizeWithSource {
  const decays = !(opts.weightDecay === 0 || opts.weightDecay === undefined);
  const copies = kind === 'torch.adagrad' ? (opts.foreach === false ? (decays ? 2 : 1) : 2) : decays ? 3 : 2;
  const what = kind === 'torch.adagrad' ? 'sqrt(sum) and the update\'s numerator' : `std and deltas${decays ? ' and the weight-decayed gradients' : ''}`;
  const file = kind.slice(6);
  if (opts.foreach === false) {
    const largest = params.reduce((a, p) => Math.max(a, numel(p.shape) * dtypeBytes(p.dtype)), 0);
    return { bytes: copies * largest, formula: `foreach=False: ${what} for the largest parameter, ${copies} × ${largest.toLocaleString('en-US')} B`, citation: `torch/optim/${file}.py _single_tensor_${file}` };
  }
  const all = gradientBytes(params);
  return {
    bytes: copies * all,
    formula: `${opts.foreach ? 'foreach=True' : 'foreach by default on a CUDA device'}: ${what} of every parameter at once, ${copies} × ${all.toLocaleString('en-US')} B`,
    citation: `torch/optim/optimizer.py _default_to_fused_or_foreach; torch/optim/${file}.py _multi_tensor_${file}`,
  };
}

/**
 * torch Adamax's and NAdam's multi-tensor `step()` temporaries (torch 2.13): Adamax one tensor like every parameter
 * (torch/optim/adamax.py `_multi_tensor_adamax`, with or without weight decay); NAdam `exp_avg_sq_sqrt =
 * torch._foreach_sqrt(grouped_exp_avg_sqs)`, and with `weight_decay != 0` the decayed gradients
 * `torch._foreach_add(grouped_grads, grouped_params)` beside it (torch/optim/nadam.py `_multi_tensor_nadam`; with
 * `decoupled_weight_decay=True` the parameters are scaled in place instead: counted as the larger). Measured with
 * the truth tracker (3 Linears, foreach=True, the step as the training peak): 1×, and NAdam 1× / 2×
 * (test/truth/programs/mlp_nadam_foreach.py). The single-tensor paths (`foreach=False`) are not measured: undefined.
 */
function maxNadamStepTemporaries(kind: 'torch.adamax' | 'torch.nadam', params: ParamShape[], opts: OptimizerOptions): SizeWithSource | undefined {
  if (opts.foreach === false) return undefined;
  const copies = kind === 'torch.nadam' && !(opts.weightDecay === 0 || opts.weightDecay === undefined) ? 2 : 1;
  const all = gradientBytes(params);
  const what = kind === 'torch.adamax' ? 'one tensor like every parameter' : `sqrt(exp_avg_sq)${copies === 2 ? ' and the weight-decayed gradients' : ''} of every parameter`;
  return {
    bytes: copies * all,
    formula: `${opts.foreach ? 'foreach=True' : 'foreach by default on a CUDA device'}: ${what}, ${copies} × ${all.toLocaleString('en-US')} B`,
    citation: `torch/optim/optimizer.py _default_to_fused_or_foreach; torch/optim/${kind.slice(6)}.py _multi_tensor_${kind.slice(6)}`,
  };
}

/** Gradients have the parameters' shapes and dtypes (jax.grad, torch `.grad`). */
export function gradientBytes(params: ParamShape[]): number {
  return params.reduce((a, p) => a + numel(p.shape) * dtypeBytes(p.dtype), 0);
}

/**
 * Mixed-precision Adam as counted by ZeRO (Rajbhandari et al. 2019,
 * arXiv:1910.02054 §3.1): fp16 parameters (2 B) + fp16 gradients (2 B) +
 * fp32 master weights, momentum and variance (K = 12 B) = 16 B per parameter.
 * We use this count (not HF's 18 B, which adds a second fp32 copy of the
 * gradients for some code paths) because it is the one ZeRO's division applies to.
 */
export const MIXED_PRECISION_ADAM_BYTES_PER_PARAM = { params: 2, grads: 2, optimizer: 12 } as const;

export type ZeroStage = 0 | 1 | 2 | 3;

/**
 * Per-device training state under ZeRO (arXiv:1910.02054 §5): stage 1
 * partitions the optimizer state over N devices, stage 2 also the gradients,
 * stage 3 also the parameters.
 */
export function zeroPerDevice(
  parts: { params: number; grads: number; optimizer: number }, stage: ZeroStage, devices: number,
): { params: number; grads: number; optimizer: number; total: number } {
  const n = Math.max(1, devices);
  const params = stage >= 3 ? parts.params / n : parts.params;
  const grads = stage >= 2 ? parts.grads / n : parts.grads;
  const optimizer = stage >= 1 ? parts.optimizer / n : parts.optimizer;
  return { params, grads, optimizer, total: params + grads + optimizer };
}

/**
 * optax `MultiSteps` (gradient accumulation) keeps `acc_grads =
 * _zeros_tree_like(params)` next to the inner optimizer's state
 * (optax/_src/wrappers.py `MultiSteps.init`): one more gradient-sized tree.
 */
export function accumulationBytes(params: ParamShape[]): SizeWithSource {
  return {
    bytes: gradientBytes(params),
    formula: 'acc_grads: one zeros_like(params) tree',
    citation: 'optax/_src/wrappers.py MultiSteps.init (acc_grads = _zeros_tree_like(params))',
  };
}

/**
 * Language-model head at the end of the forward: the logits [b, s, V] and
 * the log-probabilities cross-entropy saves for its backward, both [b, s, V].
 * torch `F.cross_entropy` is `nll_loss(log_softmax(input))`
 * (aten/src/ATen/native/LossNLL.cpp `cross_entropy_loss`), and autograd keeps
 * log_softmax's result (tools/autograd/derivatives.yaml `_log_softmax:
 * _log_softmax_backward_data(grad, result, ...)`); optax
 * `softmax_cross_entropy` likewise computes `log_softmax(logits)` and the
 * backward of `jax.grad` keeps it. The logits stay alive as the forward's
 * output. Under torch.autocast, log_softmax runs in float32 (autocast's
 * fp32 op list, torch/amp docs "CUDA Ops that can autocast to float32").
 */
export function lmHeadBytes(i: { batch: number; seq: number; vocab: number; logitsBytes: number; logProbBytes: number }): { logits: number; logProbs: number; formula: string; citation: string } {
  const n = i.batch * i.seq * i.vocab;
  return {
    logits: n * i.logitsBytes,
    logProbs: n * i.logProbBytes,
    formula: `b·s·V = ${i.batch}·${i.seq}·${i.vocab}; logits ${i.logitsBytes} B + saved log-probs ${i.logProbBytes} B per element`,
    citation: 'aten/src/ATen/native/LossNLL.cpp cross_entropy_loss; tools/autograd/derivatives.yaml _log_softmax',
  };
}
