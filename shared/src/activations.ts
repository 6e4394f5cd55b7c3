/**
 * Transformer activation memory kept for the backward pass, after Korthikanti
 * et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
 * (arXiv:2205.05198), §4 and Table 2, without tensor or sequence parallelism:
 * - no recomputation: s·b·h·(34 + 5·a·s/h) bytes per layer (16-bit activations,
 *   1-byte dropout masks);
 * - selective recomputation (attention scores recomputed): s·b·h·34;
 * - full recomputation (only each layer's input kept): 2·s·b·h.
 * The fp32 variant doubles every term, an approximation that also doubles the
 * dropout masks (stated in the formula string).
 */
export type Recompute = 'none' | 'selective' | 'full';

export interface ActivationInput {
  seq: number;
  batch: number;
  hidden: number;
  heads: number;
  layers: number;
  recompute?: Recompute;
  /** 2 for fp16/bf16 (the paper's case), 4 for fp32. */
  bytesPerElement?: 2 | 4;
}

export function activationBytes(i: ActivationInput): { perLayer: number; total: number; formula: string; citation: string } {
  const { seq: s, batch: b, hidden: h, heads: a } = i;
  const mode = i.recompute ?? 'none';
  const scale = (i.bytesPerElement ?? 2) / 2;
  const perLayer16 = mode === 'full' ? 2 * s * b * h
    : mode === 'selective' ? s * b * h * 34
    : s * b * h * 34 + 5 * a * s * s * b;
  const perLayer = perLayer16 * scale;
  return {
    perLayer,
    total: perLayer * i.layers,
    formula: (mode === 'full' ? '2·s·b·h' : mode === 'selective' ? 's·b·h·34' : 's·b·h·(34 + 5·a·s/h)')
      + (scale !== 1 ? ' × 2 (fp32)' : '') + ` per layer × ${i.layers} layers`,
    citation: 'Korthikanti et al. 2022, arXiv:2205.05198 §4, Table 2',
  };
}

/**
 * The same count split into its parts so that it follows the program's
 * settings instead of the paper's fixed ones (16-bit, dropout on, attention
 * scores materialised). Korthikanti et al. 2022 §4.1 list, per layer, what
 * the backward pass keeps (s = sequence, b = batch, h = hidden, a = heads):
 * - attention: QKV input sbh, Q and K 2sbh, V sbh, output-projection input
 *   sbh (5·sbh elements), the output dropout mask sbh (1 byte each), and the
 *   scores: softmax output as²b, attention-dropout mask as²b (1 byte) and
 *   dropout output as²b;
 * - MLP: first linear input sbh, GeLU input 4sbh, GeLU output 4sbh
 *   (9·sbh elements) and the dropout mask sbh (1 byte);
 * - two LayerNorm inputs: 2·sbh elements.
 * That is 16·sbh elements + 2·sbh mask bytes + (2 elements + 1 byte)·as²b;
 * at 2 B per element, 34·sbh + 5·as²b, the paper's formula.
 * Adjustments, each from framework code:
 * - `bytesPerElement` 4 (fp32 training): elements double, masks stay 1 byte
 *   (torch `native_dropout` returns a bool mask, aten/src/ATen/native/Dropout.cpp):
 *   66·sbh + 9·as²b;
 * - `dropout: false` (p = 0): `at::dropout` returns its input unchanged when
 *   p == 0 (Dropout.cpp `_dropout_impl`: `if (p == 0 || !train ...) return input`),
 *   so no masks and no dropout output: 16·sbh elements + 1 element·as²b
 *   (the softmax output, which `att @ v` saves);
 * - `attention: 'fused'` (F.scaled_dot_product_attention / FlashAttention):
 *   the s×s scores are recomputed in the backward and never stored
 *   (Dao et al. 2022, arXiv:2205.14135 §3.1: only the output and the
 *   softmax statistics are kept): the as²b terms drop, as with the paper's
 *   selective recomputation. The O(s·b·a) log-sum-exp it keeps is ignored;
 * - `recompute: 'full'`: only each layer's input, sbh elements (2·sbh at 16-bit).
 */
export interface LayerActivationInput extends ActivationInput {
  dropout?: boolean;
  attention?: 'materialized' | 'fused';
}

export function trainingActivationBytes(i: LayerActivationInput): { perLayer: number; total: number; formula: string; citation: string } {
  const { seq: s, batch: b, hidden: h, heads: a } = i;
  const e = i.bytesPerElement ?? 2;
  const d = i.dropout ?? true;
  const mode = i.recompute ?? 'none';
  const scores = mode === 'none' && (i.attention ?? 'materialized') === 'materialized';
  const sbhCoef = 16 * e + (d ? 2 : 0);
  const asCoef = (d ? 2 * e + 1 : e);
  const perLayer = mode === 'full' ? e * s * b * h : sbhCoef * s * b * h + (scores ? asCoef * a * s * s * b : 0);
  const formula = mode === 'full'
    ? `${e}·s·b·h (full recomputation: layer input only)`
    : `s·b·h·${sbhCoef}${scores ? ` + ${asCoef}·a·s²·b` : ''} (${e} B/element${d ? ', 1 B dropout masks' : ', no dropout'}${scores ? '' : mode === 'selective' ? ', scores recomputed' : ', fused attention keeps no scores'})`;
  return {
    perLayer, total: perLayer * i.layers,
    formula: `${formula} per layer × ${i.layers} layers; s=${s}, b=${b}, h=${h}, a=${a}`,
    citation: 'Korthikanti et al. 2022, arXiv:2205.05198 §4.1 (per-layer terms); aten/src/ATen/native/Dropout.cpp; Dao et al. 2022, arXiv:2205.14135 §3.1',
  };
}
