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
