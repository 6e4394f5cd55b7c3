/**
 * Inference memory of autoregressive decoding: the key/value cache, how long
 * and how wide `generate()` makes it, and the working memory of one forward
 * step on top of weights and cache.
 *
 * Sources (huggingface/transformers, read for this file):
 * - cache_utils.py `DynamicLayer.update`: `self.keys = torch.cat([self.keys,
 *   key_states], dim=-2)` (same for values), keys stored as
 *   `[batch, num_key_value_heads, seq, head_dim]` per layer; the old and the
 *   grown tensor of one layer coexist for the length of the `cat`.
 *   `StaticLayer` preallocates `[max_batch_size, num_heads, max_cache_len,
 *   head_dim]` once and writes with `index_copy_` in place.
 * - generation/utils.py `GenerationMixin.generate`:
 *   `_expand_inputs_for_generation(expand_size=max(generation_config.num_beams,
 *   generation_config.num_return_sequences))`; `_prepare_generated_length`
 *   sets `max_length = max_new_tokens + input_ids_length` when
 *   `max_new_tokens` is given; `max_cache_length = generation_config.max_length - 1`
 *   (the last sampled token is never fed back); `model_kwargs["logits_to_keep"] = 1`
 *   (only the last position's logits in the prefill); in `_sample`:
 *   `next_token_logits = outputs.logits[:, -1, :].to(copy=True, dtype=torch.float32)`.
 * - The K and V factor of 2 and `num_key_value_heads` (not attention heads):
 *   cost-facts §7.3 (repeat_kv expands K/V only at attention time).
 * - `OffloadedCache` (cache_utils.py, from 4.44): layer k+1 is prefetched
 *   while layer k runs and k−1 is evicted to the CPU: about 3 layers' cache
 *   on the device.
 * - Attention: SDPA "is used by default for torch>=2.1.1 when an
 *   implementation is available" (transformers model docs, from 4.36) and
 *   does not materialise the scores; eager attention does, in the model dtype,
 *   and softmaxes them in float32 (`softmax(attn_weights, dim=-1, dtype=torch.float32)`).
 * - Logits: before 4.45 (huggingface/transformers#31292) the prefill computed
 *   every prompt position's logits and Llama-family forwards upcast them
 *   (`logits = logits.float()`, #30860).
 */
export interface KvCacheInput {
  layers: number;
  kvHeads: number;
  headDim: number;
  seq: number;
  batch: number;
  bytesPerElement: number;
}

export const KV_CITATION = 'transformers cache_utils.py DynamicLayer.update (keys/values [batch, num_key_value_heads, seq, head_dim] per layer)';

export function kvCacheBytes(i: KvCacheInput): { bytes: number; formula: string; citation: string } {
  return {
    bytes: 2 * i.layers * i.kvHeads * i.headDim * i.seq * i.batch * i.bytesPerElement,
    formula: `2 × ${i.layers} layers × ${i.kvHeads} kv heads × ${i.headDim} head_dim × ${i.seq} tokens × ${i.batch} batch × ${i.bytesPerElement} B`,
    citation: 'transformers cache_utils.py DynamicCache (key and value per layer)',
  };
}

/** Bytes of one layer's keys (or values): what a DynamicCache `torch.cat` allocates anew while the old copy is alive. */
export function kvLayerTensorBytes(i: Omit<KvCacheInput, 'layers'>): number {
  return i.kvHeads * i.headDim * i.seq * i.batch * i.bytesPerElement;
}

export interface GenerateLength {
  /** Prompt tokens per sequence; null when unknown. */
  promptTokens: number | null;
  maxNewTokens?: number;
  maxLength?: number;
}

/**
 * Positions the cache holds at the end of `generate()`: `max_length - 1`,
 * where `max_length = max_new_tokens + prompt` when `max_new_tokens` is given
 * (it wins over `max_length`), else the `max_length` argument. Returns null
 * tokens when the length depends on an unknown prompt, with the part that is
 * known (`atLeast`, new tokens − 1) so a lower bound can still be reported.
 */
export function generateCacheTokens(g: GenerateLength): { tokens: number | null; atLeast: number; formula: string; citation: string } {
  const citation = 'transformers generation/utils.py: max_length = max_new_tokens + input_ids_length; max_cache_length = max_length - 1';
  if (g.maxNewTokens !== undefined) {
    const atLeast = Math.max(0, g.maxNewTokens - 1);
    if (g.promptTokens === null) return { tokens: null, atLeast, formula: `prompt (unknown) + ${g.maxNewTokens} new − 1`, citation };
    return { tokens: g.promptTokens + g.maxNewTokens - 1, atLeast, formula: `${g.promptTokens} prompt + ${g.maxNewTokens} new − 1`, citation };
  }
  if (g.maxLength !== undefined) {
    return { tokens: Math.max(0, g.maxLength - 1), atLeast: Math.max(0, g.maxLength - 1), formula: `max_length ${g.maxLength} − 1`, citation };
  }
  return { tokens: null, atLeast: 0, formula: 'no max_new_tokens / max_length', citation };
}

/** Sequences decoded at once: batch × max(num_beams, num_return_sequences). */
export function generateBatch(batch: number, numBeams = 1, numReturnSequences = 1): { batch: number; formula: string; citation: string } {
  const e = Math.max(numBeams, numReturnSequences);
  return {
    batch: batch * e,
    formula: e === 1 ? `${batch}` : `${batch} × max(num_beams ${numBeams}, num_return_sequences ${numReturnSequences})`,
    citation: 'transformers generation/utils.py _expand_inputs_for_generation(expand_size=max(num_beams, num_return_sequences))',
  };
}

export interface ForwardStepInput {
  batch: number;
  /** Tokens fed in this forward (the prompt in the prefill, 1 per decode step). */
  tokens: number;
  /** Positions attended to (cache after the step). */
  kvLen: number;
  hidden: number;
  intermediate: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  /** Gated MLP (Llama, Mistral, Qwen2, Gemma: gate·up, three [s, I] tensors at once) vs plain fc→act (two). */
  gatedMlp: boolean;
  bytesPerElement: number;
  /** 'eager' materialises the [heads, s, kv] scores and an fp32 softmax; SDPA kernels do not. */
  attention: 'sdpa' | 'eager';
  /** Positions whose logits are computed: 1 under generate (logits_to_keep=1), else `tokens`. */
  logitsPositions: number;
  /** Extra float32 bytes per logit: 4 for generate's fp32 copy of the last position, or for the `.float()` upcast of older modeling code. */
  logitsFloat32: boolean;
  /** DynamicCache growth: one layer's keys are copied by `torch.cat` (0 for a static cache). */
  catCopyBytes: number;
  /** MLP activation temporaries beyond a fused activation's input and output, in inner-sized tensors (a Python GeLU: 2). */
  mlpActExtra?: number;
  /** Hidden-sized tensors the model's forward keeps in locals while its blocks run (GPT-2's token and position embeddings: 2). */
  heldHidden?: number;
}

/**
 * Working memory of one forward step without autograd, on top of weights
 * and cache. Inference under `torch.no_grad()` frees each intermediate when
 * the last reference goes, so the peak is the residual stream plus the
 * largest single working set:
 * - gated MLP (modeling_llama.py LlamaMLP.forward:
 *   `down_proj(act_fn(gate_proj(x)) * up_proj(x))`): normed input h plus
 *   act(gate), up and their product, 3·I, alive at the multiplication;
 *   plain MLP (fc → act → proj): 2·I;
 * - attention (LlamaAttention.forward): normed input h, q and its rotary copy
 *   2·heads·hd, k and v 2·kv·hd; eager attention adds the scores
 *   heads·s·kv in the model dtype and their float32 softmax
 *   (`softmax(attn_weights, dim=-1, dtype=torch.float32)`);
 * - the cache growth copy of one layer (DynamicLayer.update torch.cat);
 * - the head: b·positions·V logits, plus the float32 copy.
 * Everything is per sequence × batch × bytes, except the fp32 terms.
 */
export function forwardStepBytes(i: ForwardStepInput): { bytes: number; parts: Record<string, number>; formula: string; citation: string } {
  const bs = i.batch * i.tokens;
  const e = i.bytesPerElement;
  const held = i.heldHidden ?? 0;
  const residual = bs * i.hidden * (1 + held) * e;
  const inner = (i.gatedMlp ? 3 : 2) + (i.mlpActExtra ?? 0);
  const mlp = bs * (i.hidden + inner * i.intermediate) * e;
  let attn = bs * (i.hidden + 2 * i.heads * i.headDim + 2 * i.kvHeads * i.headDim) * e;
  if (i.attention === 'eager') attn += i.batch * i.heads * i.tokens * i.kvLen * (e + 4);
  const logits = i.batch * i.logitsPositions * i.vocab * (e + (i.logitsFloat32 ? 4 : 0));
  const parts = { residual, mlp, attention: attn, cacheCopy: i.catCopyBytes, logits };
  const bytes = residual + Math.max(mlp, attn, i.catCopyBytes, logits);
  const s = `${i.batch}×${i.tokens}`;
  const formula = `residual ${s}×${i.hidden}×${held ? `${1 + held}×` : ''}${e} B + max(MLP ${s}×(${i.hidden} + ${inner}×${i.intermediate})×${e} B, ` +
    `attention ${s}×(${i.hidden} + 2×${i.heads}×${i.headDim} + 2×${i.kvHeads}×${i.headDim})×${e} B${i.attention === 'eager' ? ` + scores ${i.batch}×${i.heads}×${i.tokens}×${i.kvLen}×(${e}+4) B` : ''}, ` +
    `${i.catCopyBytes ? `cache torch.cat copy ${i.catCopyBytes} B, ` : ''}logits ${i.batch}×${i.logitsPositions}×${i.vocab}×(${e}${i.logitsFloat32 ? '+4' : ''}) B)`;
  return {
    bytes, parts, formula,
    citation: 'transformers modeling_llama.py LlamaMLP/LlamaAttention.forward (no autograd: intermediates freed when unreferenced); generation/utils.py logits_to_keep=1 and float32 logits copy',
  };
}
