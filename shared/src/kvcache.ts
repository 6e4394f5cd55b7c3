/**
 * Key/value cache of autoregressive decoding: a key and a value vector per
 * layer, KV head, position and sequence (transformers cache_utils.py
 * DynamicCache stores `[batch, num_key_value_heads, seq, head_dim]` per layer
 * for keys and for values).
 */
export interface KvCacheInput {
  layers: number;
  kvHeads: number;
  headDim: number;
  seq: number;
  batch: number;
  bytesPerElement: number;
}

export function kvCacheBytes(i: KvCacheInput): { bytes: number; formula: string; citation: string } {
  return {
    bytes: 2 * i.layers * i.kvHeads * i.headDim * i.seq * i.batch * i.bytesPerElement,
    formula: `2 × ${i.layers} layers × ${i.kvHeads} kv heads × ${i.headDim} head_dim × ${i.seq} tokens × ${i.batch} batch × ${i.bytesPerElement} B`,
    citation: 'transformers cache_utils.py DynamicCache (key and value per layer)',
  };
}
