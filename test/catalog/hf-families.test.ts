// Each config.json parameter formula against transformers itself: the test
// builds every model from the same (small) config on the meta device with the
// real transformers (test/python/hf_param_counts.py) and compares the count;
// then one real checkpoint per family against its published count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECKPOINTS, countParams, hasArithmetic, lookupCheckpoint, moduleSizes, type HfConfig } from '../../server/src/frameworks/transformers/catalog';
import { runPythonJson } from '../python/venv';

const S = { vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4, intermediate_size: 96, max_position_embeddings: 128 };
const CASES: { config: HfConfig; class?: string }[] = [
  { config: { ...S, model_type: 'llama', num_key_value_heads: 2 } as HfConfig },
  { config: { ...S, model_type: 'llama', attention_bias: true, mlp_bias: true, tie_word_embeddings: true } as HfConfig },
  { config: { ...S, model_type: 'mistral', num_key_value_heads: 2 } as HfConfig },
  { config: { ...S, model_type: 'mixtral', num_key_value_heads: 2, num_local_experts: 4, num_experts_per_tok: 2 } as HfConfig },
  { config: { ...S, model_type: 'qwen2', num_key_value_heads: 2 } as HfConfig },
  { config: { ...S, model_type: 'qwen2_moe', num_key_value_heads: 2, num_experts: 4, moe_intermediate_size: 32, shared_expert_intermediate_size: 48, num_experts_per_tok: 2, decoder_sparse_step: 2, mlp_only_layers: [] } as HfConfig },
  { config: { ...S, model_type: 'qwen3', num_key_value_heads: 2, head_dim: 24 } as HfConfig },
  { config: { ...S, model_type: 'gemma', num_key_value_heads: 1, head_dim: 32 } as HfConfig },
  { config: { ...S, model_type: 'gemma2', num_key_value_heads: 2, head_dim: 32 } as HfConfig },
  { config: { ...S, model_type: 'gemma3_text', num_key_value_heads: 2, head_dim: 32 } as HfConfig },
  { config: { ...S, model_type: 'phi', num_key_value_heads: 4 } as HfConfig },
  { config: { ...S, model_type: 'phi3', num_key_value_heads: 4, pad_token_id: 0 } as HfConfig },
  { config: { ...S, model_type: 'olmo' } as HfConfig },
  { config: { ...S, model_type: 'olmo2', num_key_value_heads: 2 } as HfConfig },
  { config: { ...S, model_type: 'deepseek_v2', moe_intermediate_size: 32, n_routed_experts: 4, n_shared_experts: 2, num_experts_per_tok: 2, first_k_dense_replace: 1, q_lora_rank: null, kv_lora_rank: 16, qk_rope_head_dim: 8, qk_nope_head_dim: 16, v_head_dim: 16, n_group: 2, topk_group: 1 } as HfConfig },
  { config: { ...S, model_type: 'deepseek_v3', moe_intermediate_size: 32, n_routed_experts: 4, n_shared_experts: 1, num_experts_per_tok: 2, first_k_dense_replace: 1, q_lora_rank: 32, kv_lora_rank: 16, qk_rope_head_dim: 8, qk_nope_head_dim: 16, v_head_dim: 16, n_group: 2, topk_group: 1 } as HfConfig },
  { config: { ...S, model_type: 'starcoder2', num_key_value_heads: 2 } as HfConfig },
  { config: { model_type: 'gpt_neo', vocab_size: 1000, hidden_size: 64, num_layers: 2, num_heads: 4, attention_types: [[['global', 'local'], 1]], max_position_embeddings: 128 } as unknown as HfConfig },
  { config: { ...S, model_type: 'gpt_neox' } as HfConfig },
  { config: { model_type: 'gptj', vocab_size: 1000, n_embd: 64, n_layer: 3, n_head: 4, n_positions: 128, rotary_dim: 8 } as unknown as HfConfig },
  { config: { model_type: 'opt', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, ffn_dim: 96, num_attention_heads: 4, max_position_embeddings: 128, word_embed_proj_dim: 32 } as unknown as HfConfig },
  { config: { model_type: 'opt', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, ffn_dim: 96, num_attention_heads: 4, max_position_embeddings: 128, word_embed_proj_dim: 64 } as unknown as HfConfig },
  { config: { model_type: 'bloom', vocab_size: 1000, hidden_size: 64, n_layer: 3, n_head: 4 } as unknown as HfConfig },
  { config: { model_type: 'falcon', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4 } as unknown as HfConfig },
  { config: { model_type: 'falcon', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4, new_decoder_architecture: true, num_kv_heads: 2, bias: true } as unknown as HfConfig },
  { config: { model_type: 'falcon', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4, multi_query: false, parallel_attn: false } as unknown as HfConfig },
  { config: { model_type: 'mpt', vocab_size: 1000, d_model: 64, n_layers: 3, n_heads: 4, max_seq_len: 128 } as unknown as HfConfig },
  { config: { model_type: 'gpt2', vocab_size: 1000, n_embd: 64, n_layer: 3, n_head: 4, n_positions: 128 } as unknown as HfConfig, class: 'GPT2LMHeadModel' },
  { config: { ...S, model_type: 'bert' } as HfConfig, class: 'AutoModel' },
  { config: { ...S, model_type: 'bert' } as HfConfig, class: 'AutoModelForMaskedLM' },
  { config: { ...S, model_type: 'roberta' } as HfConfig, class: 'AutoModelForMaskedLM' },
  { config: { model_type: 't5', vocab_size: 1000, d_model: 64, d_ff: 96, d_kv: 16, num_layers: 2, num_decoder_layers: 3, num_heads: 4, feed_forward_proj: 'gated-gelu' } as unknown as HfConfig, class: 'AutoModelForSeq2SeqLM' },
  { config: { ...S, model_type: 'deberta-v2' } as HfConfig, class: 'AutoModel' },
  { config: { ...S, model_type: 'deberta-v2', relative_attention: true, position_buckets: 32, norm_rel_ebd: 'layer_norm', share_att_key: true, pos_att_type: 'p2c|c2p', position_biased_input: false } as HfConfig, class: 'AutoModelForMaskedLM' },
  { config: { ...S, model_type: 'deberta-v2', relative_attention: true, pos_att_type: ['c2p', 'p2c'], type_vocab_size: 2, embedding_size: 32, conv_kernel_size: 3, legacy: false } as HfConfig, class: 'AutoModelForMaskedLM' },
  { config: { model_type: 'bart', vocab_size: 1000, d_model: 64, encoder_layers: 2, decoder_layers: 3, encoder_attention_heads: 4, decoder_attention_heads: 4, encoder_ffn_dim: 96, decoder_ffn_dim: 80, max_position_embeddings: 128 } as unknown as HfConfig, class: 'AutoModelForSeq2SeqLM' },
  { config: { model_type: 'bart', vocab_size: 1000, d_model: 64, encoder_layers: 2, decoder_layers: 2, encoder_attention_heads: 4, decoder_attention_heads: 4, encoder_ffn_dim: 96, decoder_ffn_dim: 96, max_position_embeddings: 128 } as unknown as HfConfig, class: 'AutoModel' },
  { config: { model_type: 'whisper', vocab_size: 1000, d_model: 64, encoder_layers: 2, decoder_layers: 3, encoder_attention_heads: 4, decoder_attention_heads: 4, encoder_ffn_dim: 96, decoder_ffn_dim: 80, max_source_positions: 100, max_target_positions: 64, num_mel_bins: 16, pad_token_id: 1, bos_token_id: 2, eos_token_id: 2, decoder_start_token_id: 3 } as unknown as HfConfig, class: 'AutoModelForSpeechSeq2Seq' },
  { config: { model_type: 'vit', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96, image_size: 32, patch_size: 8 } as unknown as HfConfig, class: 'AutoModel' },
  { config: { model_type: 'vit', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96, image_size: 48, patch_size: 16, qkv_bias: false, num_labels: 7 } as unknown as HfConfig, class: 'AutoModelForImageClassification' },
  { config: { model_type: 'clip', text_config: { vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96, max_position_embeddings: 77 }, vision_config: { hidden_size: 48, num_hidden_layers: 3, num_attention_heads: 4, intermediate_size: 80, image_size: 32, patch_size: 8 }, projection_dim: 40 } as unknown as HfConfig, class: 'AutoModel' },
];

// *ForSequenceClassification on every family above that has one (transformers v5), num_labels 3 or the default 2.
const SEQ_CLS = ['llama', 'mistral', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'gemma', 'gemma2', 'gemma3_text', 'phi', 'phi3', 'olmo', 'olmo2', 'starcoder2', 'deepseek_v2', 'deepseek_v3',
  'gpt2', 'gptj', 'gpt_neo', 'bloom', 'falcon', 'mpt', 'gpt_neox', 'opt', 'bert', 'roberta', 'deberta-v2', 'bart'];
const seen = new Set<string>();
for (const c of [...CASES]) {
  const t = c.config.model_type;
  if (!SEQ_CLS.includes(t) || seen.has(t)) continue;
  seen.add(t);
  CASES.push({ config: { ...c.config, ...(seen.size % 2 ? { num_labels: 3 } : {}) } as HfConfig, class: 'AutoModelForSequenceClassification' });
}
CASES.push({ config: { ...S, model_type: 'deberta-v2', pooler_hidden_size: 48, num_labels: 5, relative_attention: true, pos_att_type: ['c2p', 'p2c'] } as HfConfig, class: 'AutoModelForSequenceClassification' });

test('each family formula equals transformers\' own count for the same config (meta device)', () => {
  const truth = runPythonJson<({ params: number } | { error: string })[]>('hf_param_counts.py', CASES.map((c) => ({ config: c.config, class: c.class ?? 'AutoModelForCausalLM' })));
  const bad: string[] = [];
  CASES.forEach((c, i) => {
    const t = truth[i];
    if (!('params' in t)) { bad.push(`${c.config.model_type}: transformers could not build it: ${t.error}`); return; }
    if (!hasArithmetic(c.config, c.class)) { bad.push(`${c.config.model_type}: no arithmetic`); return; }
    const ours = countParams(c.config, c.class ?? 'AutoModelForCausalLM');
    if (ours !== t.params) bad.push(`${c.config.model_type} ${JSON.stringify(c.config).slice(0, 80)}…: oomlens ${ours}, transformers ${t.params}`);
  });
  assert.deepEqual(bad, []);
});

test('published counts of one real checkpoint per family (config values from each checkpoint\'s config.json)', () => {
  const n = (c: Record<string, unknown>, cls?: string) => countParams(c as HfConfig, cls);
  // EleutherAI/pythia-6.9b (gpt_neox): the Pythia README's table, "6,857,302,016" total parameters.
  assert.equal(n({ model_type: 'gpt_neox', vocab_size: 50432, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, intermediate_size: 16384, tie_word_embeddings: false }), 6_857_302_016);
  // EleutherAI/pythia-160m: "162,322,944".
  assert.equal(n({ model_type: 'gpt_neox', vocab_size: 50304, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072, tie_word_embeddings: false }), 162_322_944);
  // facebook/opt-125m: 125,239,296 (model.num_parameters()).
  assert.equal(n({ model_type: 'opt', vocab_size: 50272, hidden_size: 768, num_hidden_layers: 12, ffn_dim: 3072, num_attention_heads: 12, max_position_embeddings: 2048, word_embed_proj_dim: 768 }), 125_239_296);
  // facebook/opt-350m (512-wide embeddings projected to 1024, no final layer norm) and huggyllama/llama-7b, as tabled:
  // 331,196,416 and 6,738,415,616 from transformers' OPTForCausalLM / LlamaForCausalLM built on the meta device (test/realcode/manifest.json).
  assert.equal(countParams(lookupCheckpoint('facebook/opt-350m')!.config), 331_196_416);
  assert.equal(countParams(lookupCheckpoint('huggyllama/llama-7b')!.config), 6_738_415_616);
  // bigscience/bloom-560m: model card "559,214,592 parameters".
  assert.equal(n({ model_type: 'bloom', vocab_size: 250880, hidden_size: 1024, n_layer: 24, n_head: 16 }), 559_214_592);
  // tiiuae/falcon-7b: 6,921,720,704 ("7B"; 71 heads of 64, multi-query, parallel attention, no biases).
  assert.equal(n({ model_type: 'falcon', vocab_size: 65024, hidden_size: 4544, num_hidden_layers: 32, num_attention_heads: 71, multi_query: true, parallel_attn: true, bias: false, new_decoder_architecture: false }), 6_921_720_704);
  // EleutherAI/gpt-neo-125m: 125,198,592 ("125M").
  assert.equal(n({ model_type: 'gpt_neo', vocab_size: 50257, hidden_size: 768, num_layers: 12, num_heads: 12, max_position_embeddings: 2048 }), 125_198_592);
  // Qwen/Qwen3-8B: model card "Number of Parameters: 8.2B"; 8,190,735,360.
  assert.equal(n({ model_type: 'qwen3', vocab_size: 151936, hidden_size: 4096, num_hidden_layers: 36, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, intermediate_size: 12288, tie_word_embeddings: false }), 8_190_735_360);
  // allenai/OLMo-7B-hf: "6.9B"; 6,888,095,744 (no LayerNorm parameters).
  assert.equal(n({ model_type: 'olmo', vocab_size: 50304, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, intermediate_size: 11008, tie_word_embeddings: false }), 6_888_095_744);
  // deepseek-ai/DeepSeek-V3 (without the multi-token-prediction layer, which transformers does not build): "671B".
  const v3 = n({ model_type: 'deepseek_v3', vocab_size: 129280, hidden_size: 7168, num_hidden_layers: 61, num_attention_heads: 128, intermediate_size: 18432, moe_intermediate_size: 2048, n_routed_experts: 256, n_shared_experts: 1, first_k_dense_replace: 3, q_lora_rank: 1536, kv_lora_rank: 512, qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128, tie_word_embeddings: false });
  assert.ok(Math.abs(v3 - 671e9) / 671e9 < 0.005, `DeepSeek-V3 ${v3}`);
  // facebook/bart-large (BartForConditionalGeneration): 406,291,456 ("406M").
  assert.equal(n({ model_type: 'bart', vocab_size: 50265, d_model: 1024, encoder_layers: 12, decoder_layers: 12, encoder_attention_heads: 16, decoder_attention_heads: 16, encoder_ffn_dim: 4096, decoder_ffn_dim: 4096, max_position_embeddings: 1024 }, 'BartForConditionalGeneration'), 406_291_456);
  // openai/whisper-small: model card "244 M" (the Whisper paper's table); 241,734,912 counted.
  assert.equal(n({ model_type: 'whisper', vocab_size: 51865, d_model: 768, encoder_layers: 12, decoder_layers: 12, encoder_attention_heads: 12, decoder_attention_heads: 12, encoder_ffn_dim: 3072, decoder_ffn_dim: 3072, num_mel_bins: 80, max_source_positions: 1500, max_target_positions: 448 }, 'WhisperForConditionalGeneration'), 241_734_912);
  // openai/whisper-large-v3: "1550 M"; 1,543,490,560 counted (128 mel bins, 51866 tokens).
  assert.equal(n({ model_type: 'whisper', vocab_size: 51866, d_model: 1280, encoder_layers: 32, decoder_layers: 32, encoder_attention_heads: 20, decoder_attention_heads: 20, encoder_ffn_dim: 5120, decoder_ffn_dim: 5120, num_mel_bins: 128, max_source_positions: 1500, max_target_positions: 448 }, 'WhisperForConditionalGeneration'), 1_543_490_560);
  // google/vit-base-patch16-224 (ViTForImageClassification, 1000 ImageNet labels): 86,567,656 ("86M").
  assert.equal(n({ model_type: 'vit', hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072, image_size: 224, patch_size: 16, num_labels: 1000 }, 'ViTForImageClassification'), 86_567_656);
  // openai/clip-vit-base-patch32 (CLIPModel): 151,277,313 ("151M").
  assert.equal(n({ model_type: 'clip', text_config: { vocab_size: 49408, hidden_size: 512, intermediate_size: 2048, num_hidden_layers: 12, num_attention_heads: 8, max_position_embeddings: 77 }, vision_config: { hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, num_attention_heads: 12, image_size: 224, patch_size: 32 }, projection_dim: 512 }, 'CLIPModel'), 151_277_313);
  // microsoft/deberta-v3-base (DebertaV2Model): model card "86M backbone parameters with a vocabulary containing 128K tokens
  // which introduces 98M parameters in the Embedding layer": 183,831,552 counted (98,380,800 in the word embeddings).
  assert.equal(n({ model_type: 'deberta-v2', vocab_size: 128100, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072, max_position_embeddings: 512, relative_attention: true, position_buckets: 256, norm_rel_ebd: 'layer_norm', share_att_key: true, pos_att_type: 'p2c|c2p', position_biased_input: false, type_vocab_size: 0 }, 'AutoModel'), 183_831_552);
});

test('every family with a formula has its sequence-classification head listed or is known not to have one', () => {
  assert.equal(seen.size, SEQ_CLS.length, `families without a case: ${SEQ_CLS.filter((t) => !seen.has(t))}`);
});

test('a head oomlens does not list (token classification, question answering, whisper has no sequence classifier): no sizes, never the LM head', () => {
  for (const [c, cls] of [[{ ...S, model_type: 'llama' }, 'AutoModelForTokenClassification'], [{ ...S, model_type: 'bert' }, 'AutoModelForQuestionAnswering'], [{ model_type: 'whisper', vocab_size: 1000, d_model: 64 }, 'AutoModelForSequenceClassification'], [{ ...S, model_type: 't5' }, 'AutoModelForSequenceClassification']] as const) {
    assert.equal(hasArithmetic(c as unknown as HfConfig, cls), false, `${c.model_type} ${cls}`);
    assert.deepEqual(moduleSizes(c as unknown as HfConfig, cls), []);
  }
});

test('unknown model_type: no arithmetic, no sizes (unknown, never 0)', () => {
  const c = { ...S, model_type: 'internlm2' } as HfConfig;
  assert.equal(hasArithmetic(c), false);
  assert.deepEqual(moduleSizes(c), []);
});

test('shipped ids of the new families: case-insensitive, and counts equal the published ones above', async () => {
  const { lookupCheckpoint } = await import('../../server/src/frameworks/transformers/catalog');
  const n = (id: string) => countParams(lookupCheckpoint(id)!.config);
  assert.equal(n('FACEBOOK/OPT-125M'), 125_239_296);
  assert.equal(n('eleutherai/pythia-6.9b'), 6_857_302_016);
  assert.equal(n('tiiuae/Falcon-7b'), 6_921_720_704);
  assert.equal(n('Qwen/qwen3-8b'), 8_190_735_360);
  // facebook/opt-6.7b: 6,658,473,984 by the OPT formula checked above (OPT paper Table 1: 32 layers, 32 heads, d_model 4096).
  assert.equal(n('facebook/opt-6.7b'), 6_658_473_984);
});

test('every checkpoint of the shipped table equals transformers built from its config (meta device)', () => {
  // One build per distinct config; ids that are re-uploads of the same weights share one.
  const seen = new Map<string, string[]>();
  for (const e of CHECKPOINTS) {
    const k = JSON.stringify(e.config);
    seen.set(k, [...(seen.get(k) ?? []), e.id]);
  }
  const configs = [...seen.keys()].map((k) => JSON.parse(k) as HfConfig);
  const cls = (c: HfConfig) => (c.model_type === 't5' ? 'AutoModelForSeq2SeqLM' : c.model_type === 'bert' ? 'AutoModelForMaskedLM' : 'AutoModelForCausalLM');
  // The table stores T5's sizes under the common names; T5Config takes its own (d_model, d_ff, num_layers and
  // num_decoder_layers, which it copies from num_layers before any alias is applied).
  const forHf = (c: HfConfig) => (c.model_type === 't5'
    ? { model_type: 't5', vocab_size: c.vocab_size, d_model: c.hidden_size, d_ff: c.intermediate_size, num_layers: c.num_hidden_layers, num_decoder_layers: c.num_hidden_layers, num_heads: c.num_attention_heads, d_kv: c.d_kv, relative_attention_num_buckets: c.relative_attention_num_buckets, feed_forward_proj: c.feed_forward_proj, tie_word_embeddings: c.tie_word_embeddings }
    : c);
  const truth = runPythonJson<({ params: number } | { error: string })[]>('hf_param_counts.py', configs.map((c) => ({ config: forHf(c), class: cls(c) })));
  const bad: string[] = [];
  configs.forEach((c, i) => {
    const t = truth[i];
    const ids = [...seen.values()][i].join(', ');
    if (!('params' in t)) { bad.push(`${ids}: transformers could not build it: ${t.error}`); return; }
    const ours = countParams(c, cls(c));
    if (ours !== t.params) bad.push(`${ids}: oomlens ${ours}, transformers ${t.params}`);
  });
  assert.deepEqual(bad, []);
});
