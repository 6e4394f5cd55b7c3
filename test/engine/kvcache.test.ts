// KV cache and decode-step formulas (shared/src/kvcache.ts). Every expected
// number is derived in the comment next to it from the cited source:
// transformers generation/utils.py (max_length, max_cache_length, expand_size,
// logits_to_keep, float32 logits copy), cache_utils.py DynamicLayer.update
// (torch.cat growth) and modeling_llama.py (LlamaMLP, LlamaAttention).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forwardStepBytes, generateBatch, generateCacheTokens, kvCacheBytes, kvLayerTensorBytes } from '../../shared/src/kvcache';

// Llama-2-7B (config.json): 32 layers, 32 heads, 32 KV heads, hidden 4096,
// head_dim 4096/32 = 128, intermediate 11008, vocab 32000; float16 = 2 B.
const LLAMA2 = { hidden: 4096, intermediate: 11008, heads: 32, kvHeads: 32, headDim: 128, vocab: 32000 };

test('generate cache length: max_new_tokens + prompt − 1, else max_length − 1', () => {
  // 512 prompt + 3585 new → max_length 4097 → cache 4096 positions.
  assert.equal(generateCacheTokens({ promptTokens: 512, maxNewTokens: 3585 }).tokens, 4096);
  // max_new_tokens wins over max_length (_prepare_generated_length).
  assert.equal(generateCacheTokens({ promptTokens: 10, maxNewTokens: 20, maxLength: 4096 }).tokens, 29);
  // max_length alone includes the prompt: 4096 − 1 = 4095.
  assert.equal(generateCacheTokens({ promptTokens: null, maxLength: 4096 }).tokens, 4095);
  // Unknown prompt: unknown total, but at least 32 − 1 = 31 positions.
  const u = generateCacheTokens({ promptTokens: null, maxNewTokens: 32 });
  assert.equal(u.tokens, null);
  assert.equal(u.atLeast, 31);
  // Neither given: GenerationConfig / generation_config.json decide: unknown here.
  assert.equal(generateCacheTokens({ promptTokens: 5 }).tokens, null);
});

test('generate batch: batch × max(num_beams, num_return_sequences)', () => {
  assert.equal(generateBatch(1).batch, 1);
  // 2 prompts × 4 beams = 8 sequences.
  assert.equal(generateBatch(2, 4, 1).batch, 8);
  // beam search returning 2 of 4 beams still decodes 4 per prompt: 3 × 4 = 12.
  assert.equal(generateBatch(3, 4, 2).batch, 12);
  // sampling 5 return sequences: 2 × 5 = 10.
  assert.equal(generateBatch(2, 1, 5).batch, 10);
});

test('KV cache of Llama-2-7B fp16, 4,096 positions, batch 1: 2 GiB', () => {
  // 2 × 32 layers × 32 kv heads × 128 × 4096 × 1 × 2 B = 2,147,483,648 B = 2^31.
  assert.equal(kvCacheBytes({ layers: 32, kvHeads: 32, headDim: 128, seq: 4096, batch: 1, bytesPerElement: 2 }).bytes, 2_147_483_648);
  // One layer's keys: 32 × 128 × 4096 × 1 × 2 B = 33,554,432 B = 32 MiB (= 2 GiB / 64).
  assert.equal(kvLayerTensorBytes({ kvHeads: 32, headDim: 128, seq: 4096, batch: 1, bytesPerElement: 2 }), 33_554_432);
  // Mistral-7B (8 KV heads) bf16: 131,072 B per token (cost-facts §7.3) → 4096 tokens = 512 MiB.
  assert.equal(kvCacheBytes({ layers: 32, kvHeads: 8, headDim: 128, seq: 4096, batch: 1, bytesPerElement: 2 }).bytes, 512 * 2 ** 20);
});

test('forward step working memory: Llama-2-7B prefill of 512 tokens and the last decode step', () => {
  const base = { ...LLAMA2, batch: 1, gatedMlp: true, bytesPerElement: 2, attention: 'sdpa' as const, logitsPositions: 1, logitsFloat32: true };
  // Prefill, 512 tokens, no cache copy (the prefill sets the cache, nothing to concatenate onto):
  //   residual 512 × 4096 × 2 = 4,194,304
  //   MLP 512 × (4096 + 3 × 11008) × 2 = 512 × 37,120 × 2 = 38,010,880
  //   attention 512 × (4096 + 2·32·128 + 2·32·128) × 2 = 512 × 20,480 × 2 = 20,971,520
  //   logits 1 × 1 × 32000 × (2 + 4) = 192,000
  //   total = 4,194,304 + 38,010,880 = 42,205,184
  const pre = forwardStepBytes({ ...base, tokens: 512, kvLen: 512, catCopyBytes: 0 });
  assert.equal(pre.parts.mlp, 38_010_880);
  assert.equal(pre.parts.attention, 20_971_520);
  assert.equal(pre.parts.logits, 192_000);
  assert.equal(pre.bytes, 42_205_184);
  // Last decode step, 1 token, cache grows 4095 → 4096 with a torch.cat copy of one layer's keys (33,554,432):
  //   residual 4096 × 2 = 8,192; MLP (4096 + 33,024) × 2 = 74,240; the copy dominates:
  //   total = 8,192 + 33,554,432 = 33,562,624
  const dec = forwardStepBytes({ ...base, tokens: 1, kvLen: 4096, catCopyBytes: 33_554_432 });
  assert.equal(dec.parts.mlp, 74_240);
  assert.equal(dec.bytes, 33_562_624);
  // Eager attention over a 2048-token prompt adds the scores and their fp32 softmax:
  //   1 × 32 heads × 2048 × 2048 × (2 + 4) = 805,306,368 on top of 2048 × 20,480 × 2 = 83,886,080 → 889,192,448;
  //   total = residual 2048 × 4096 × 2 = 16,777,216 + 889,192,448 = 905,969,664.
  const eager = forwardStepBytes({ ...base, tokens: 2048, kvLen: 2048, attention: 'eager', catCopyBytes: 0 });
  assert.equal(eager.parts.attention, 889_192_448);
  assert.equal(eager.bytes, 905_969_664);
  assert.match(eager.formula, /scores/);
});

test('prefill logits before transformers 4.45: every prompt position, upcast to float32', () => {
  // Llama-3-8B (vocab 128,256, hidden 4096, intermediate 14336, 8 KV heads) bf16, 8 prompts × 4096 tokens.
  // Logits of all positions in bf16 plus the `.float()` copy: 8 × 4096 × 128,256 × (2 + 4) = 25,216,155,648 B;
  // residual 8 × 4096 × 4096 × 2 = 268,435,456; the logits outweigh the MLP's 3,087,007,744:
  // total = 25,484,591,104 B. With logits_to_keep=1 (4.45+): 8 × 128,256 × 6 = 6,156,288 B, and the MLP dominates:
  // 268,435,456 + 3,087,007,744 = 3,355,443,200 B.
  const l3 = { hidden: 4096, intermediate: 14336, heads: 32, kvHeads: 8, headDim: 128, vocab: 128256, batch: 8, tokens: 4096, kvLen: 4096, gatedMlp: true, bytesPerElement: 2, attention: 'sdpa' as const, logitsFloat32: true, catCopyBytes: 0 };
  const old = forwardStepBytes({ ...l3, logitsPositions: 4096 });
  assert.equal(old.parts.logits, 25_216_155_648);
  assert.equal(old.bytes, 25_484_591_104);
  const now = forwardStepBytes({ ...l3, logitsPositions: 1 });
  assert.equal(now.parts.logits, 6_156_288);
  assert.equal(now.bytes, 3_355_443_200);
});
