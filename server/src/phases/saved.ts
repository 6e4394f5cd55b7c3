/**
 * What PyTorch's autograd saves for the backward, op by op, from the forward
 * the interpreter traced (phases/training.ts records every op of a training
 * forward through Memory.onOp).
 *
 * Each rule names the tensors the op's backward formula reads, as listed in
 * `tools/autograd/derivatives.yaml` (PyTorch 2.x; checked against the 2.13
 * wheel the truth suite runs). A saved tensor is a storage: a view saves its
 * base, and two ops that save the same tensor (a ReLU's result read by the
 * next convolution and by a max-pool) keep it once, so the total is the sum
 * over distinct storages, not over ops. Parameters are not activations (they
 * are alive anyway) and neither are the program's inputs.
 *
 * From the same op list, `backwardWalk` replays the backward in reverse op
 * order: at each op the saved tensors of the ops not yet differentiated are
 * alive, with the gradient of its output and the gradients it writes for its
 * inputs (the autograd engine frees a node's saved variables and its input
 * gradient once the node has run: torch/csrc/autograd/engine.cpp
 * `evaluate_function` / `release_variables`).
 */
import type { TensorV } from '../interp/values';
import type { OpEvent } from '../interp/memory';
import { dtypeBytes } from '../../../shared/src/dtypes';

export const DERIV = 'tools/autograd/derivatives.yaml (PyTorch 2.x; the truth suite runs 2.13)';

export interface SavedOp {
  op: string;
  /** Tensors (storages) the backward reads. */
  tensors: TensorV[];
  /** Bytes saved that are not traced tensors (statistics, masks, indices, workspaces). */
  extra: number;
  /** What the extra bytes are. */
  extraWhat?: string;
  /** Activation inputs that receive a gradient, and the op's outputs. */
  inputs: TensorV[];
  outputs: TensorV[];
  /** True when the size is a lower bound (a library-chosen workspace). */
  lowerBound?: string;
  /** Parameters the op reads (a layer's own, or a parameter passed to a functional op): its backward writes their gradients. */
  params?: TensorV[];
}

export const bytesOf = (t: TensorV): number => {
  const n = t.shape.reduce<number>((a, d) => (typeof d === 'number' ? a * d : NaN), 1);
  return Number.isFinite(n) ? n * dtypeBytes(t.dtype) : 0;
};
const numel = (t: TensorV): number => t.shape.reduce<number>((a, d) => (typeof d === 'number' ? a * d : NaN), 1);

/** The base name of an op (`torch.nn.functional.relu` → `relu`, `jax.numpy.matmul` → `matmul`, a layer's class name). */
function short(op: string): string {
  return op.split('.').pop()!.replace(/^__(\w+)__$/, '$1');
}

/**
 * The tensors one op saves. `act(t)` says whether t is an activation (needs a gradient and is not a
 * parameter or an input the program made).
 */
/**
 * `rg`: whether a tensor requires grad (a trainable parameter, or made from one). An op none of whose inputs and
 * parameters requires grad is not recorded by autograd and saves nothing (torch/csrc/autograd: no grad_fn without
 * an input that requires grad): the layers of a frozen backbone under a trainable head.
 */
export function savedBy(ev: OpEvent, act: (t: TensorV) => boolean, rg?: (t: TensorV) => boolean): SavedOp {
  const recorded = !rg || ev.inputs.some(rg) || (ev.params ?? []).some(rg);
  const ins = ev.inputs.filter((t) => act(t) && (!rg || rg(t)));
  const grad = rg ?? ((t: TensorV) => act(t) || t.role === 'param');
  const outs = ev.outputs;
  const o = outs[0];
  const s = short(ev.op);
  const params = [...(ev.params ?? []), ...ev.inputs.filter((t) => t.role === 'param')].filter((t) => !rg || rg(t));
  const base: SavedOp = { op: ev.op, tensors: [], extra: 0, inputs: ins, outputs: recorded ? outs : [], ...(params.length ? { params } : {}) };
  if (!recorded) return base;
  const a = ev.args ?? {};
  const training = a.__training !== false;
  switch (s) {
    // linear: `input: grad.mm(weight)`, `weight: grad.t().mm(input)` (derivatives.yaml `addmm`/`mm` mat1, mat2;
    // `linear` decomposes into them); convolution: `convolution: input, weight` (convolution_backward reads both).
    case 'Linear': case 'linear': case 'Bilinear': case 'LazyLinear':
    case 'Conv1d': case 'Conv2d': case 'Conv3d': case 'ConvTranspose1d': case 'ConvTranspose2d': case 'ConvTranspose3d':
    case 'conv1d': case 'conv2d': case 'conv3d': case 'conv_transpose1d': case 'conv_transpose2d':
      return { ...base, tensors: ev.inputs.filter(act) };
    // matmul/bmm/mm/einsum: `self: grad.bmm(mat2.mT)`, `mat2: self.mT.bmm(grad)`: each operand saved for the other's gradient.
    case 'matmul': case 'bmm': case 'mm': case 'einsum': case 'dot': case 'baddbmm': case 'multiply': case 'mul': {
      // mul: `self: mul_tensor_backward(grad, other)`, `other: mul_tensor_backward(grad, self)`: the same pairing.
      const [x, y] = ev.inputs;
      if (!x || !y) return base; // by a Python number: nothing saved
      return { ...base, tensors: [...(grad(y) && act(x) ? [x] : []), ...(grad(x) && act(y) ? [y] : [])] };
    }
    // div: `self: div_tensor_self_backward(grad, other)`, `other: div_tensor_other_backward(grad, self, other)`.
    case 'divide': case 'true_divide': case 'div': {
      if (ev.inputs.length < 2) return base;
      const [x, y] = ev.inputs;
      return { ...base, tensors: [...(act(y) && (grad(x) || grad(y)) ? [y] : []), ...(grad(y) && act(x) ? [x] : [])] };
    }
    // add/sub/cat/views/reshapes save nothing but sizes (derivatives.yaml `add.Tensor`, `cat`, `view`, `transpose`).
    // relu: `threshold_backward(grad, result, 0)`; sigmoid/tanh: `*_backward(grad, result)`; softmax/log_softmax:
    // `_softmax_backward_data(grad, result, ...)`: the result.
    case 'relu': case 'ReLU': case 'sigmoid': case 'Sigmoid': case 'tanh': case 'Tanh':
    case 'softmax': case 'Softmax': case 'log_softmax': case 'LogSoftmax': case 'elu': case 'ELU':
      return { ...base, tensors: outs.slice(0, 1) };
    // gelu: `gelu_backward(grad, self)`; silu: `silu_backward(grad, self)`; leaky_relu, mish, softplus, hardswish: self.
    // relu6 is hardtanh(0, 6), `hardtanh_backward(grad, self, ...)`: its input; in place (`nn.ReLU6(inplace=True)`)
    // autograd keeps a copy of the input it overwrites (measured on MobileNetV2: conv output, batch-norm output and
    // that copy per layer).
    case 'relu6': case 'ReLU6': case 'hardtanh': case 'Hardtanh':
    case 'gelu': case 'GELU': case 'silu': case 'SiLU': case 'leaky_relu': case 'LeakyReLU': case 'mish': case 'Mish':
    case 'softplus': case 'Softplus': case 'hardswish': case 'Hardswish': case 'PReLU': case 'exp': case 'log': case 'sqrt': case 'rsqrt': case 'pow': case 'power':
      return { ...base, tensors: ins.slice(0, 1) };
    // native_layer_norm: `input, normalized_shape, weight, bias, result1 (mean), result2 (rstd)`: the input plus
    // float32 mean and rstd per normalised row.
    case 'LayerNorm': case 'layer_norm': case 'RMSNorm': case 'rms_norm': case 'GroupNorm': case 'group_norm': {
      const x = ev.inputs[0];
      if (!x) return base;
      const last = typeof a.__normalized === 'number' ? a.__normalized : (typeof x.shape[x.shape.length - 1] === 'number' ? x.shape[x.shape.length - 1] as number : 1);
      const rows = /Group/i.test(s) ? (typeof x.shape[0] === 'number' ? x.shape[0] : 1) * (typeof a.num_groups === 'number' ? a.num_groups : 1) : numel(x) / last;
      const stats = (/RMS/i.test(s) ? 1 : 2) * rows * 4;
      return { ...base, tensors: act(x) ? [x] : [], extra: stats, extraWhat: 'mean and rstd (float32)' };
    }
    // native_batch_norm (training): `input, weight, running_mean, running_var, result1 (save_mean), result2 (save_invstd)`:
    // the input plus two float32 statistics per channel. In eval mode the running statistics replace them.
    case 'BatchNorm1d': case 'BatchNorm2d': case 'BatchNorm3d': case 'batch_norm': case 'InstanceNorm1d': case 'InstanceNorm2d': case 'InstanceNorm3d': {
      const x = ev.inputs[0];
      if (!x) return base;
      const c = typeof x.shape[1] === 'number' ? x.shape[1] : 0;
      return { ...base, tensors: act(x) ? [x] : [], extra: training ? 2 * c * 4 : 0, extraWhat: 'save_mean and save_invstd (float32)' };
    }
    // max_pool{1,2,3}d: `max_pool2d_with_indices: self, result1 (indices)`: the input and int64 indices shaped like the output.
    case 'max_pool1d': case 'max_pool2d': case 'max_pool3d': case 'MaxPool1d': case 'MaxPool2d': case 'MaxPool3d':
    case 'adaptive_max_pool1d': case 'adaptive_max_pool2d': case 'AdaptiveMaxPool1d': case 'AdaptiveMaxPool2d': case 'AdaptiveMaxPool3d':
      return { ...base, tensors: ins.slice(0, 1), extra: o ? numel(o) * 8 : 0, extraWhat: 'argmax indices (int64)' };
    // avg_pool2d: `avg_pool2d_backward(grad, self, ...)`; adaptive_avg_pool2d: `_adaptive_avg_pool2d_backward(grad, self)`.
    case 'avg_pool1d': case 'avg_pool2d': case 'avg_pool3d': case 'AvgPool1d': case 'AvgPool2d': case 'AvgPool3d':
    case 'adaptive_avg_pool1d': case 'adaptive_avg_pool2d': case 'AdaptiveAvgPool1d': case 'AdaptiveAvgPool2d': case 'AdaptiveAvgPool3d':
      return { ...base, tensors: ins.slice(0, 1) };
    // dropout in training: `native_dropout: result1 (mask)`: one byte per element on CUDA (a bool mask). CPU's
    // non-fused path (aten/src/ATen/native/Dropout.cpp `_dropout_impl`: `input * noise`) keeps the noise in the
    // input's dtype instead; oomlens sizes the accelerator's kernel.
    case 'dropout': case 'Dropout': case 'Dropout1d': case 'Dropout2d': case 'Dropout3d': case 'AlphaDropout': {
      const p = typeof a.p === 'number' ? a.p : 0.5;
      if (!training || p === 0 || !o) return base;
      return { ...base, extra: numel(o), extraWhat: 'dropout mask (bool)' };
    }
    // embedding: `embedding_backward(grad, indices, ...)`: the indices (the program's own input tensor).
    case 'Embedding': case 'embedding':
      return { ...base, tensors: [], inputs: [] };
    // scaled_dot_product_attention (flash / efficient kernels): query, key, value, output and the float32
    // logsumexp per query row (`_scaled_dot_product_flash_attention: query, key, value, output, logsumexp`).
    case 'scaled_dot_product_attention': {
      const q = ev.inputs[0];
      const rows = q ? numel(q) / (typeof q.shape[q.shape.length - 1] === 'number' ? q.shape[q.shape.length - 1] as number : 1) : 0;
      return { ...base, tensors: [...ins.slice(0, 3), ...outs.slice(0, 1)], extra: rows * 4, extraWhat: 'logsumexp (float32)' };
    }
    // nn.MultiheadAttention (torch/nn/functional.py multi_head_attention_forward, 2.x), self-attention with packed
    // in_proj: `linear(q, in_proj_weight)` saves the query; `.unflatten(-1, (3, E)) ... .contiguous()` makes one
    // [3, L, N, E] tensor whose q, k, v views the attention saves. need_weights=False: `scaled_dot_product_attention`
    // saves q, k, v, its output and a float32 logsumexp per query row; need_weights=True (the default): `q * scale`
    // (a new [N·H, L, hd]) and k for `bmm(q_scaled, k.mT)`, softmax's result [N·H, L, S] (`_softmax: result`), the
    // dropout mask when dropout > 0, `bmm(attn, v)` saves attn and v. Both paths then make the attention output
    // `.contiguous()` ([L·N, E]), which out_proj (linear) saves.
    case 'MultiheadAttention': {
      const q = ev.inputs[0];
      if (!q || q.shape.length !== 3) return base;
      const bf = a.batch_first === true;
      const L = q.shape[bf ? 1 : 0], N = q.shape[bf ? 0 : 1], E = q.shape[2];
      const k = ev.inputs[1] ?? q;
      const S = k.shape[bf ? 1 : 0];
      const H = typeof a.num_heads === 'number' ? a.num_heads : NaN;
      if (![L, N, E, S, H].every((d) => typeof d === 'number' && Number.isFinite(d))) return base;
      const [l, n, e, sl, h] = [L, N, E, S, H] as number[];
      const eb = dtypeBytes(q.dtype);
      const p = typeof a.dropout === 'number' ? a.dropout : 0;
      const needWeights = a.need_weights !== false;
      let extra = 3 * n * sl * e * eb + n * l * e * eb; // packed q/k/v + contiguous attention output (out_proj's input)
      let what = `q/k/v [3·${l}·${n}·${e}] and out_proj's input [${l}·${n}·${e}]`;
      if (needWeights) {
        extra += n * l * e * eb + n * h * l * sl * eb + (p > 0 && training ? n * h * l * sl * (1 + eb) : 0);
        what += `, q·scale, softmax [${n}·${h}·${l}·${sl}]${p > 0 && training ? ', dropout mask and output' : ''}`;
      } else {
        extra += n * l * e * eb + n * h * l * 4;
        what += `, attention output [${n}·${l}·${e}] and logsumexp`;
      }
      return { ...base, tensors: ins.slice(0, 1), extra, extraWhat: what };
    }
    // nn.LSTM / GRU / RNN: the fused kernels save a workspace whose size the library chooses (cuDNN's reserve space,
    // `cudnnGetRNNTrainingReserveSize`; on the CPU oneDNN's workspace, aten/src/ATen/native/mkldnn/RNN.cpp
    // `mkldnn_rnn_layer` returns it and its backward reads it). The cell-level path shows what any of them must
    // keep: `_thnn_fused_lstm_cell: cx, cy, workspace` (derivatives.yaml), the [N, 4H] gates and the cell state per
    // step, plus each layer's input and output for the weight gradients. That is counted, as a lower bound.
    case 'LSTM': case 'GRU': case 'RNN': {
      const x = ev.inputs[0];
      const out0 = outs[0];
      if (!x || !out0 || x.shape.length !== 3) return base;
      const hid = typeof a.hidden_size === 'number' ? a.hidden_size : NaN;
      const layers = typeof a.num_layers === 'number' ? a.num_layers : 1;
      const dirs = a.bidirectional === true ? 2 : 1;
      const steps = numel(x) / (typeof x.shape[2] === 'number' ? x.shape[2] : NaN);
      if (!Number.isFinite(hid) || !Number.isFinite(steps)) return base;
      const gates = s === 'LSTM' ? 4 : s === 'GRU' ? 3 : 1;
      const eb = dtypeBytes(x.dtype);
      const perLayer = steps * dirs * (gates * hid + (s === 'LSTM' ? hid : 0)) * eb;
      const between = (layers - 1) * steps * dirs * hid * eb;
      return {
        ...base, tensors: [...ins.slice(0, 1), out0], extra: layers * perLayer + between,
        extraWhat: `gates and cell states per step (${layers} layers) and the outputs between layers`,
        lowerBound: `${s}: the fused kernel's workspace (cuDNN reserve space; oneDNN on the CPU) is chosen by the library; the gates and cell states it must keep are counted (measured on the CPU: about 3× as much)`,
      };
    }
    default:
      return base;
  }
}

export interface OpLevelResult {
  /** Bytes of the distinct storages saved, plus the extras. */
  saved: number;
  count: number;
  /** Peak of (saved not yet released + live activation gradients) during the backward walk. */
  backwardPeak: number;
  /** The same with the parameter gradients made so far (when `.grad` does not exist before the backward). */
  backwardPeakParams: number;
  /** At that peak: the parameter gradients made so far, the saved bytes not yet released, the activation gradients. */
  paramGradsAtPeak: number;
  savedAtPeak: number;
  actGradsAtPeak: number;
  /** Bytes of the distinct parameters whose gradients the walk made (AccumulateGrad, once per parameter). */
  paramGrads: number;
  /** Lower-bound reasons (library workspaces sized by their minimum). */
  lowerBounds: string[];
  /** Per op kind: bytes saved (for the breakdown note). */
  byOp: Map<string, number>;
  /** Per dtype: bytes of the saved storages (the dtype the forward computes in, whatever its parameters are). */
  byDtype: Map<string, number>;
}

/** Sums the distinct saved storages of a traced forward's ops (from `savedBy`) and replays its backward. */
export function opLevel(ops: SavedOp[]): OpLevelResult {
  const lastSaver = new Map<number, number>(); // tensor id -> index of the earliest op that saves it (freed when that op's backward ran)
  const size = new Map<number, number>();
  ops.forEach((op, i) => {
    for (const t of op.tensors) {
      size.set(t.id, Math.max(size.get(t.id) ?? 0, bytesOf(t)));
      const prev = lastSaver.get(t.id);
      lastSaver.set(t.id, prev === undefined ? i : Math.min(prev, i));
    }
  });
  let saved = 0;
  for (const n of size.values()) saved += n;
  const byDtype = new Map<string, number>();
  const dtypeOf = new Map<number, string>();
  for (const op of ops) for (const t of op.tensors) dtypeOf.set(t.id, t.dtype);
  for (const [id, n] of size) { const d = dtypeOf.get(id)!; byDtype.set(d, (byDtype.get(d) ?? 0) + n); }
  const byOp = new Map<string, number>();
  const lowerBounds: string[] = [];
  const counted = new Set<number>();
  for (const op of ops) {
    saved += op.extra;
    const k = short(op.op);
    let b = op.extra;
    for (const t of op.tensors) if (!counted.has(t.id)) { counted.add(t.id); b += size.get(t.id) ?? 0; }
    if (b) byOp.set(k, (byOp.get(k) ?? 0) + b);
    if (op.lowerBound) lowerBounds.push(op.lowerBound);
  }
  // Backward walk: ops in reverse; saved tensors of op i stay until every op ≤ … that saves them has run,
  // i.e. until the earliest saver's backward. Gradients: an output's gradient lives until its op has run;
  // an input's gradient is made by its consumer's backward and lives until its producer has run.
  const producer = new Map<number, number>();
  ops.forEach((op, i) => { for (const t of op.outputs) if (!producer.has(t.id)) producer.set(t.id, i); });
  let live = saved;
  const grads = new Map<number, number>();
  let gradBytes = 0;
  let peak = saved;
  let peakParams = saved;
  let paramGradsAtPeak = 0;
  let savedAtPeak = saved;
  let actGradsAtPeak = 0;
  // Parameter gradients: AccumulateGrad makes `.grad` when the first op reading the parameter has run its
  // backward (torch/csrc/autograd/functions/accumulate_grad.h: the incoming gradient is stolen as `.grad` when
  // none exists, later ones are added in place), so they grow over the walk while the saved tensors shrink.
  const paramSeen = new Set<number>();
  let paramGrads = 0;
  const lastOut = ops.length ? ops[ops.length - 1].outputs[0] : undefined;
  if (lastOut) { grads.set(lastOut.id, bytesOf(lastOut)); gradBytes += bytesOf(lastOut); }
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i];
    if (!op.outputs.some((t) => grads.has(t.id))) continue; // not on the path from the loss
    for (const t of op.inputs) {
      if (grads.has(t.id) || !producer.has(t.id)) continue;
      const n = bytesOf(t);
      grads.set(t.id, n); gradBytes += n;
    }
    for (const p of op.params ?? []) {
      if (paramSeen.has(p.id)) continue;
      paramSeen.add(p.id); paramGrads += bytesOf(p);
    }
    peak = Math.max(peak, live + gradBytes);
    if (live + gradBytes + paramGrads > peakParams) {
      peakParams = live + gradBytes + paramGrads; paramGradsAtPeak = paramGrads; savedAtPeak = live; actGradsAtPeak = gradBytes;
    }
    // A view's output is its input's storage: its gradient flows on to the producer of that storage.
    const inIds = new Set(op.inputs.map((t) => t.id));
    for (const t of op.outputs) { if (inIds.has(t.id)) continue; const n = grads.get(t.id); if (n !== undefined) { gradBytes -= n; grads.delete(t.id); } }
    live -= op.extra;
    for (const t of op.tensors) if (lastSaver.get(t.id) === i) live -= size.get(t.id) ?? 0;
  }
  return { saved, count: size.size, backwardPeak: peak, backwardPeakParams: peakParams, paramGradsAtPeak, savedAtPeak, actGradsAtPeak, paramGrads, lowerBounds, byOp, byDtype };
}
