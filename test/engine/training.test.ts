// Training and inference formulas (issue 5): optimizer state, gradients,
// ZeRO, activations, KV cache and the smallest fitting device count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accumulationBytes, gradientBytes, lmHeadBytes, optimizerBytesPerParam, optimizerStateBytes, optimizerStepTemporaries, zeroPerDevice, MIXED_PRECISION_ADAM_BYTES_PER_PARAM } from '../../shared/src/training';
import { activationBytes, trainingActivationBytes } from '../../shared/src/activations';
import { kvCacheBytes } from '../../shared/src/kvcache';
import { fitsWhere } from '../../shared/src/fitsWhere';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const GPT2_PARAMS = 124_439_808;
const LLAMA2_7B_PARAMS = 6_738_415_616;

test('optimizer state per parameter', () => {
  const p = { shape: [1024, 1024], dtype: 'float32' as const };
  // optax adam: mu + nu = 2 × 2^20 × 4 B = 8 MiB; count is added once per tree.
  assert.equal(optimizerBytesPerParam('optax.adam', p), 8 * MiB);
  assert.equal(optimizerStateBytes('optax.adamw', [p]).bytes, 8 * MiB + 4);
  // mu_dtype bfloat16: 2 MiB + 4 MiB = 6 MiB.
  assert.equal(optimizerBytesPerParam('optax.adam', p, { muDtype: 'bfloat16' }), 6 * MiB);
  // sgd: nothing without momentum, one buffer with it.
  assert.equal(optimizerBytesPerParam('optax.sgd', p), 0);
  assert.equal(optimizerBytesPerParam('torch.sgd', p, { momentum: 0.9 }), 4 * MiB);
  // adafactor, factored: rows + cols = (1024 + 1024) × 4 B = 8192 B.
  assert.equal(optimizerBytesPerParam('optax.adafactor', p), 8192);
  // adafactor on a 1-D bias of 1024 or a [64, 1024] matrix (second dim < 128): full v in float32.
  assert.equal(optimizerBytesPerParam('optax.adafactor', { shape: [1024], dtype: 'float32' }), 4096);
  assert.equal(optimizerBytesPerParam('optax.adafactor', { shape: [64, 1024], dtype: 'bfloat16' }), 64 * 1024 * 4);
  // torch AdamW: 2 buffers; amsgrad 3.
  assert.equal(optimizerBytesPerParam('torch.adamw', p), 8 * MiB);
  assert.equal(optimizerBytesPerParam('torch.adamw', p, { amsgrad: true }), 12 * MiB);
  // bitsandbytes 8-bit Adam: 2 B per parameter.
  assert.equal(optimizerBytesPerParam('bnb.adam8bit', p), 2 * MiB);
});

test('ZeRO stages divide the mixed-precision 16 B/param state', () => {
  // 1e9 params: params 2e9, grads 2e9, optimizer 12e9 (arXiv:1910.02054 §3.1).
  const k = MIXED_PRECISION_ADAM_BYTES_PER_PARAM;
  const parts = { params: 1e9 * k.params, grads: 1e9 * k.grads, optimizer: 1e9 * k.optimizer };
  assert.equal(zeroPerDevice(parts, 0, 8).total, 16e9);
  // Stage 1 on 8: 2 + 2 + 12/8 = 5.5 GB.
  assert.equal(zeroPerDevice(parts, 1, 8).total, 5.5e9);
  // Stage 2: 2 + (2 + 12)/8 = 3.75 GB.
  assert.equal(zeroPerDevice(parts, 2, 8).total, 3.75e9);
  // Stage 3: 16/8 = 2 GB.
  assert.equal(zeroPerDevice(parts, 3, 8).total, 2e9);
});

test('GPT-2 small, AdamW fp32 training at batch 8 × 1024', () => {
  const params = [{ shape: [GPT2_PARAMS], dtype: 'float32' as const }];
  // Weights 124,439,808 × 4 B = 497,759,232 B; gradients the same.
  assert.equal(gradientBytes(params), 497_759_232);
  // torch AdamW: exp_avg + exp_avg_sq = 2 × 497,759,232 = 995,518,464 B.
  assert.equal(optimizerStateBytes('torch.adamw', params).bytes, 995_518_464);
  // Activations (s=1024, b=8, h=768, a=12, 12 layers), no recomputation:
  // s·b·h = 6,291,456; 34 + 5·12·1024/768 = 34 + 80 = 114; per layer 16-bit
  // 6,291,456 × 114 = 717,225,984 B; fp32 doubles it: 1,434,451,968 B;
  // × 12 layers = 17,213,423,616 B.
  const act = activationBytes({ seq: 1024, batch: 8, hidden: 768, heads: 12, layers: 12, bytesPerElement: 4 });
  assert.equal(act.perLayer, 1_434_451_968);
  assert.equal(act.total, 17_213_423_616);
  // Selective recomputation: 6,291,456 × 34 × 2 × 12 = 5,133,828,096 B.
  assert.equal(activationBytes({ seq: 1024, batch: 8, hidden: 768, heads: 12, layers: 12, bytesPerElement: 4, recompute: 'selective' }).total, 5_133_828_096);
  // Full recomputation: 2 × 6,291,456 × 2 × 12 = 301,989,888 B.
  assert.equal(activationBytes({ seq: 1024, batch: 8, hidden: 768, heads: 12, layers: 12, bytesPerElement: 4, recompute: 'full' }).total, 301_989_888);
});

test('Llama-2-7B fp16 inference with a 4,096-token KV cache', () => {
  // 2 · 32 · 32 · 128 · 4096 · 1 · 2 B = 2^31 B = 2 GiB exactly.
  const kv = kvCacheBytes({ layers: 32, kvHeads: 32, headDim: 128, seq: 4096, batch: 1, bytesPerElement: 2 });
  assert.equal(kv.bytes, 2 * GiB);
  // Weights: 6,738,415,616 × 2 B = 13,476,831,232 B.
  const weights = gradientBytes([{ shape: [LLAMA2_7B_PARAMS], dtype: 'float16' }]);
  assert.equal(weights, 13_476_831_232);
  // Weights + KV = 15,624,314,880 B. PyTorch on a T4: CUDA reports 14.56 GiB = 15,633,680,957 B (devices.ts),
  // less 400 + 9.125 MiB (context and cuBLAS/cuBLASLt workspaces) = 15,204,682,301 B: one T4 does not hold it
  // (against nvidia-smi's 15,360 MiB it read "fits one", 15,677,128,704 B). Two: room per device
  // 15,204,682,301 − 2 GiB of KV = 13,057,198,653 B → ceil(13,476,831,232 / 13,057,198,653) = 2.
  const rows = fitsWhere(weights, kv.bytes, { runtime: 'torch', versions: {} });
  const t4 = rows.find((r) => r.device.id === 't4')!;
  assert.equal(t4.budgetBytes, Math.round(14.56 * GiB) - 400 * MiB - 9.125 * MiB);
  assert.equal(t4.budgetBytes, 15_204_682_301);
  assert.equal(t4.count, 2);
  // A V100 16GB: 15.78 GiB − 409.125 MiB = 16,514,686,812 B ≥ 15,624,314,880: one.
  assert.equal(rows.find((r) => r.device.id === 'v100-16gb')!.count, 1);
});

test('fitsWhere: smallest N, and null when the fixed part alone does not fit', () => {
  // JAX on A100 40GB: budget 75% of CUDA's 42,298,834,944 B = 31,724,126,208 B (29.55 GiB). 100 GiB split + 5 GiB
  // fixed: room 24.55 GiB → ceil(100 / 24.55) = ceil(4.07) = 5 (four held 98.2 GiB; against nvidia-smi's total the
  // budget was 30 GiB and four read as enough).
  const rows = fitsWhere(100 * GiB, 5 * GiB, { runtime: 'jax', versions: {} });
  assert.equal(rows.find((r) => r.device.id === 'a100-40gb')!.count, 5);
  // 100 GiB split + 30 GiB fixed: no room left on an A100 40GB.
  const none = fitsWhere(100 * GiB, 30 * GiB, { runtime: 'jax', versions: {} });
  assert.equal(none.find((r) => r.device.id === 'a100-40gb')!.count, null);
  // Absurd sizes are not a device count.
  assert.equal(fitsWhere(Infinity, 0, { runtime: 'jax', versions: {} })[0].count, null);
  // More than 65536 devices needed: null. 2^52 B / 29.55 GiB ≈ 141,960 > 65536.
  assert.equal(fitsWhere(2 ** 52, 0, { runtime: 'jax', versions: {} }).find((r) => r.device.id === 'a100-40gb')!.count, null);
});

test('trainingActivationBytes: Korthikanti per-layer terms under the program\'s settings', () => {
  const base = { seq: 1024, batch: 8, hidden: 768, heads: 12, layers: 12 };
  // s·b·h = 1024·8·768 = 6,291,456; a·s²·b = 12·1024²·8 = 100,663,296.
  // 16-bit, dropout on, scores materialised: the paper's 34·sbh + 5·as²b
  // = 213,909,504 + 503,316,480 = 717,225,984 B per layer (Korthikanti et al. 2022 §4.1).
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 2 }).perLayer, 717_225_984);
  // fp32 with dropout: elements double, 1-byte masks do not: (16·4 + 2)·sbh + (2·4 + 1)·as²b
  // = 66 · 6,291,456 + 9 · 100,663,296 = 415,236,096 + 905,969,664 = 1,321,205,760 B.
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 4 }).perLayer, 1_321_205_760);
  // fp32, dropout p = 0 (at::dropout returns its input: no mask, no copy): 64·sbh + 4·as²b
  // = 402,653,184 + 402,653,184 = 805,306,368 B per layer; × 12 = 9,663,676,416 B.
  const noDrop = trainingActivationBytes({ ...base, bytesPerElement: 4, dropout: false });
  assert.equal(noDrop.perLayer, 805_306_368);
  assert.equal(noDrop.total, 9_663_676_416);
  // Fused attention (SDPA / FlashAttention keeps no s×s scores): 64·sbh = 402,653,184 B.
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 4, dropout: false, attention: 'fused' }).perLayer, 402_653_184);
  // bf16 with fused attention and dropout: 34·sbh = 213,909,504 B (equal to the paper's selective recomputation).
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 2, attention: 'fused' }).perLayer, 213_909_504);
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 2, recompute: 'selective' }).perLayer, 213_909_504);
  // Full recomputation: the layer input only, e·sbh: 4 · 6,291,456 = 25,165,824 B (2·sbh at 16-bit, Table 2).
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 4, recompute: 'full' }).perLayer, 25_165_824);
  assert.equal(trainingActivationBytes({ ...base, bytesPerElement: 2, recompute: 'full' }).perLayer, 2 * 6_291_456);
});

test('lmHeadBytes, accumulationBytes and 8-bit AdamW', () => {
  // b·s·V = 8·1024·50257 = 411,705,344 elements; fp32 logits and log-probs 1,646,821,376 B each.
  const h = lmHeadBytes({ batch: 8, seq: 1024, vocab: 50257, logitsBytes: 4, logProbBytes: 4 });
  assert.equal(h.logits, 1_646_821_376);
  assert.equal(h.logProbs, 1_646_821_376);
  // Under autocast: bf16 logits (2 B) and float32 log-probs: 823,410,688 + 1,646,821,376.
  assert.equal(lmHeadBytes({ batch: 8, seq: 1024, vocab: 50257, logitsBytes: 2, logProbBytes: 4 }).logits, 823_410_688);
  // optax MultiSteps: acc_grads = zeros_like(params): 2^20 fp32 elements = 4 MiB.
  assert.equal(accumulationBytes([{ shape: [1024, 1024], dtype: 'float32' }]).bytes, 4 * MiB);
  // bitsandbytes AdamW8bit: two uint8 states = 2 B per parameter: 2 MiB for 2^20 parameters.
  assert.equal(optimizerStateBytes('bnb.adamw8bit', [{ shape: [1024, 1024], dtype: 'float32' }]).bytes, 2 * MiB);
});

test('torch RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta state (torch 2.13: a [1024, 1024] float32 Linear weight after one step, 0-d step tensors excluded)', () => {
  // Measured with torch 2.13.0 (sum of the state's storages after optimizer.step()): 4, 8, 12, 4, 8, 8, 8, 8 MiB.
  const p = { shape: [1024, 1024], dtype: 'float32' as const };
  assert.equal(optimizerBytesPerParam('torch.rmsprop', p), 4 * MiB);
  assert.equal(optimizerBytesPerParam('torch.rmsprop', p, { momentum: 0.9 }), 8 * MiB);
  assert.equal(optimizerBytesPerParam('torch.rmsprop', p, { momentum: 0.9, centered: true }), 12 * MiB);
  assert.equal(optimizerBytesPerParam('torch.adagrad', p), 4 * MiB);
  for (const k of ['torch.adamax', 'torch.nadam', 'torch.radam', 'torch.adadelta'] as const) assert.equal(optimizerBytesPerParam(k, p), 8 * MiB, k);
  assert.match(optimizerStateBytes('torch.rmsprop', [p], { momentum: 0.9 }).formula, /square_avg \+ momentum_buffer/);
});

test('torch RMSprop step temporaries: sqrt(square_avg) of every parameter, and the weight-decayed gradients beside it', () => {
  // test/truth/programs/cnn_rmsprop_scaler.py measures both (_foreach_sqrt, _foreach_add) alive at the step's peak.
  const ps = [{ shape: [64, 64, 3, 3], dtype: 'float32' as const }, { shape: [64], dtype: 'float32' as const }];
  const all = (64 * 64 * 9 + 64) * 4;
  assert.equal(optimizerStepTemporaries('torch.rmsprop', ps)!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.rmsprop', ps, { weightDecay: 0 })!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.rmsprop', ps, { weightDecay: 1e-8 })!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.rmsprop', ps, { weightDecay: null })!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.rmsprop', ps, { foreach: false, weightDecay: 1e-8 })!.bytes, 2 * 64 * 64 * 9 * 4);
});

test('torch Adagrad / Adadelta step temporaries (measured exact by the truth programs mlp_adagrad_foreach, mlp_adadelta_foreach)', () => {
  const ps = [{ shape: [2048, 1024], dtype: 'float32' as const }, { shape: [2048], dtype: 'float32' as const }];
  const all = (2048 * 1024 + 2048) * 4;
  assert.equal(optimizerStepTemporaries('torch.adagrad', ps)!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.adagrad', ps, { weightDecay: 1e-4 })!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.adagrad', ps, { foreach: false })!.bytes, 2048 * 1024 * 4);
  assert.equal(optimizerStepTemporaries('torch.adadelta', ps)!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.adadelta', ps, { weightDecay: 1e-4 })!.bytes, 3 * all);
  assert.equal(optimizerStepTemporaries('torch.adadelta', ps, { foreach: false, weightDecay: null })!.bytes, 3 * 2048 * 1024 * 4);
  // Adamax 1×, NAdam 1× (2× with weight decay): measured, truth program mlp_nadam_foreach; RAdam and the single-tensor paths: not measured.
  assert.equal(optimizerStepTemporaries('torch.adamax', ps, { weightDecay: 1e-4 })!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.nadam', ps)!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.nadam', ps, { weightDecay: 1e-4 })!.bytes, 2 * all);
  assert.equal(optimizerStepTemporaries('torch.nadam', ps, { foreach: false }), undefined);
  assert.equal(optimizerStepTemporaries('torch.radam', ps), undefined);
});

test('torch Adam/AdamW step temporaries: foreach (the CUDA default) one tensor like every parameter, foreach=False 2 × the largest, fused none', () => {
  const ps = [{ shape: [4096, 4096], dtype: 'bfloat16' as const }, { shape: [4096], dtype: 'bfloat16' as const }, { shape: [32000, 4096], dtype: 'bfloat16' as const }];
  const all = (4096 * 4096 + 4096 + 32000 * 4096) * 2;
  assert.equal(optimizerStepTemporaries('torch.adamw', ps)!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.adam', ps, { foreach: true })!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.adamw', ps, { foreach: false })!.bytes, 2 * 32000 * 4096 * 2);
  assert.equal(optimizerStepTemporaries('torch.adamw', ps, { fused: true })!.bytes, 0);
  // SGD (torch/optim/sgd.py _multi_tensor_sgd): a decayed copy of every gradient with weight_decay, nothing without;
  // foreach=False: the largest parameter's copy.
  assert.equal(optimizerStepTemporaries('torch.sgd', ps)!.bytes, 0);
  assert.equal(optimizerStepTemporaries('torch.sgd', ps, { weightDecay: 1e-4 })!.bytes, all);
  assert.equal(optimizerStepTemporaries('torch.sgd', ps, { weightDecay: 1e-4, foreach: false })!.bytes, 32000 * 4096 * 2);
  assert.equal(optimizerStepTemporaries('torch.sgd', ps, { weightDecay: null })!.bytes, all);
});
