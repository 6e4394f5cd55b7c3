/**
 * Parameter arithmetic from config.json for the architecture families beyond
 * the Llama/GPT-2/BERT/T5 core in catalog.ts. Each function mirrors the
 * modules its modeling file builds (huggingface/transformers
 * src/transformers/models/<arch>/modeling_<arch>.py, v5.x as installed by
 * test/python/requirements.txt) and is checked against transformers itself
 * (the model built from the same config on the meta device, parameters
 * counted: test/catalog/hf-families.test.ts).
 *
 * Config keys are read under every name the family's config class accepts
 * (its `attribute_map`), and absent keys take the config class's default.
 */
import type { HfConfig, ModuleSize } from './catalog';

function num(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}
function req(c: HfConfig, ...keys: string[]): number {
  const v = num(c, ...keys);
  if (v === undefined) throw new Error(`config has no ${keys.join(' / ')}`);
  return v;
}
const flag = (c: HfConfig, k: string, dflt: boolean): boolean => (typeof c[k] === 'boolean' ? (c[k] as boolean) : dflt);

/** Linear layer parameters: weight in·out, plus out with a bias. */
const lin = (i: number, o: number, bias = false) => i * o + (bias ? o : 0);

interface Stack { pre: string; embed: ModuleSize[]; layer: (i: number) => number; layers: number; layerName: string; tail: ModuleSize[]; head: number; tiedHead?: number }

/** Assembles a decoder-only stack: embeddings, layers, tail, then the head unless tied (a tied head's own bias stays). */
function assemble(s: Stack, base: boolean, tied: boolean): ModuleSize[] {
  const pre = base ? '' : s.pre;
  const out: ModuleSize[] = s.embed.map((m) => ({ name: pre + m.name, params: m.params }));
  for (let i = 0; i < s.layers; i++) out.push({ name: `${pre}${s.layerName}.${i}`, params: s.layer(i) });
  for (const m of s.tail) if (m.params > 0) out.push({ name: pre + m.name, params: m.params });
  if (!base) {
    if (!tied) out.push({ name: 'lm_head', params: s.head });
    else if (s.tiedHead) out.push({ name: 'lm_head', params: s.tiedHead });
  }
  return out;
}

/**
 * Llama-shaped decoders with per-family twists:
 * - qwen3 (modeling_qwen3.py Qwen3Attention): q_norm and k_norm RMSNorm(head_dim), no q/k/v bias unless attention_bias;
 * - gemma3_text (modeling_gemma3.py Gemma3Attention, Gemma3DecoderLayer): q_norm, k_norm (head_dim) and four norms per layer;
 * - olmo (modeling_olmo.py OlmoLayerNorm): LayerNorm without parameters, so no norm weights at all;
 * - olmo2 (modeling_olmo2.py): q_norm (heads·head_dim), k_norm (kv·head_dim), post_attention and post_feedforward norms;
 * - qwen2_moe (modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock): q/k/v bias (qkv_bias), router gate (h → E),
 *   E experts gate_up (h → 2·moe_I) + down (moe_I → h), a shared expert (3·h·shared_I) and its gate (h → 1),
 *   on layers with (i + 1) % decoder_sparse_step == 0 not in mlp_only_layers; the others a dense MLP;
 * - deepseek_v2 / deepseek_v3 (modeling_deepseek_v3.py DeepseekV3Attention, multi-head latent attention):
 *   q_proj (h → heads·(nope + rope)) or, with q_lora_rank, q_a_proj (h → r_q) + q_a_layernorm (r_q) + q_b_proj;
 *   kv_a_proj_with_mqa (h → r_kv + rope), kv_a_layernorm (r_kv), kv_b_proj (r_kv → heads·(nope + v)), o_proj (heads·v → h);
 *   MoE from layer first_k_dense_replace on (v2 also every moe_layer_freq): gate (h → E), E routed experts
 *   3·h·moe_I, shared experts 3·h·(moe_I · n_shared_experts).
 */
function llamaVariant(c: HfConfig): Stack {
  const t = c.model_type;
  const h = req(c, 'hidden_size');
  const heads = req(c, 'num_attention_heads');
  const kv = num(c, 'num_key_value_heads') ?? heads;
  const hd = num(c, 'head_dim') ?? Math.floor(h / heads);
  const I = req(c, 'intermediate_size');
  const L = req(c, 'num_hidden_layers');
  const V = req(c, 'vocab_size');
  const qkvBias = t === 'qwen2_moe' ? flag(c, 'qkv_bias', true) : flag(c, 'attention_bias', false);
  const oBias = t === 'qwen2_moe' ? false : flag(c, 'attention_bias', false);
  const dense = 3 * h * I;
  let attn = lin(h, heads * hd, qkvBias) + 2 * lin(h, kv * hd, qkvBias) + lin(heads * hd, h, oBias);
  let norms = 2 * h;
  let finalNorm = h;
  let mlp: (i: number) => number = () => dense;
  if (t === 'qwen3') attn += 2 * hd;
  if (t === 'gemma3_text') { attn += 2 * hd; norms = 4 * h; }
  if (t === 'olmo') { norms = 0; finalNorm = 0; }
  if (t === 'olmo2') attn += heads * hd + kv * hd;
  if (t === 'qwen2_moe') {
    const E = req(c, 'num_experts');
    const mI = req(c, 'moe_intermediate_size');
    const sI = num(c, 'shared_expert_intermediate_size') ?? 0;
    const step = num(c, 'decoder_sparse_step') ?? 1;
    const only = Array.isArray(c.mlp_only_layers) ? (c.mlp_only_layers as number[]) : [];
    mlp = (i) => (!only.includes(i) && E > 0 && (i + 1) % step === 0 ? h * E + E * 3 * h * mI + 3 * h * sI + h : dense);
  }
  if (t === 'deepseek_v2' || t === 'deepseek_v3') {
    const nope = req(c, 'qk_nope_head_dim');
    const rope = req(c, 'qk_rope_head_dim');
    const vd = req(c, 'v_head_dim');
    const rkv = req(c, 'kv_lora_rank');
    const rq = num(c, 'q_lora_rank');
    const q = rq ? h * rq + rq + rq * heads * (nope + rope) : h * heads * (nope + rope);
    attn = q + h * (rkv + rope) + rkv + rkv * heads * (nope + vd) + heads * vd * h;
    const E = req(c, 'n_routed_experts');
    const mI = req(c, 'moe_intermediate_size');
    const shared = num(c, 'n_shared_experts') ?? 0;
    const firstDense = num(c, 'first_k_dense_replace') ?? 0;
    const freq = t === 'deepseek_v2' ? num(c, 'moe_layer_freq') ?? 1 : 1;
    mlp = (i) => (i >= firstDense && i % freq === 0 ? h * E + E * 3 * h * mI + 3 * h * mI * shared : dense);
  }
  return {
    pre: 'model.', embed: [{ name: 'embed_tokens', params: V * h }], layers: L, layerName: 'layers',
    layer: (i) => attn + mlp(i) + norms, tail: [{ name: 'norm', params: finalNorm }], head: V * h,
  };
}

/** GPT-Neo (modeling_gpt_neo.py): wte, wpe; per block ln_1, q/k/v without bias, out_proj with bias, ln_2, c_fc and c_proj with biases (inner = intermediate_size or 4h); ln_f. */
function gptNeo(c: HfConfig): Stack {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size');
  const I = num(c, 'intermediate_size') ?? 4 * h;
  const block = 2 * h + 3 * h * h + lin(h, h, true) + 2 * h + lin(h, I, true) + lin(I, h, true);
  return { pre: 'transformer.', embed: [{ name: 'wte', params: V * h }, { name: 'wpe', params: req(c, 'max_position_embeddings') * h }], layers: req(c, 'num_layers', 'num_hidden_layers'), layerName: 'h', layer: () => block, tail: [{ name: 'ln_f', params: 2 * h }], head: V * h };
}

/** GPT-NeoX / Pythia (modeling_gpt_neox.py): embed_in; per layer two LayerNorms, query_key_value (h → 3h) and dense with bias (attention_bias), dense_h_to_4h / dense_4h_to_h with bias; final_layer_norm; embed_out (untied by default). */
function gptNeox(c: HfConfig): Stack {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size'); const I = req(c, 'intermediate_size');
  const b = flag(c, 'attention_bias', true);
  const layer = 4 * h + lin(h, 3 * h, b) + lin(h, h, b) + lin(h, I, true) + lin(I, h, true);
  return { pre: 'gpt_neox.', embed: [{ name: 'embed_in', params: V * h }], layers: req(c, 'num_hidden_layers'), layerName: 'layers', layer: () => layer, tail: [{ name: 'final_layer_norm', params: 2 * h }], head: V * h };
}

/** GPT-J (modeling_gptj.py): wte; per block ln_1, q/k/v/out_proj without bias, fc_in / fc_out with bias (inner = n_inner or 4h); ln_f; lm_head with bias, untied. */
function gptj(c: HfConfig): Stack {
  const h = req(c, 'n_embd', 'hidden_size'); const V = req(c, 'vocab_size');
  const I = num(c, 'n_inner') ?? 4 * h;
  const block = 2 * h + 4 * h * h + lin(h, I, true) + lin(I, h, true);
  return { pre: 'transformer.', embed: [{ name: 'wte', params: V * h }], layers: req(c, 'n_layer', 'num_hidden_layers'), layerName: 'h', layer: () => block, tail: [{ name: 'ln_f', params: 2 * h }], head: V * h + V, tiedHead: V };
}

/**
 * OPT (modeling_opt.py): embed_tokens (V × word_embed_proj_dim), embed_positions ((P + 2) × h: OPTLearnedPositionalEmbedding's offset 2),
 * project_in / project_out (no bias) when word_embed_proj_dim ≠ h, final_layer_norm when do_layer_norm_before and not
 * _remove_final_layer_norm; per layer q/k/v/out_proj (bias = enable_bias), two LayerNorms (elementwise affine), fc1 / fc2; lm_head tied.
 */
function opt(c: HfConfig): Stack {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size'); const F = req(c, 'ffn_dim');
  const wp = num(c, 'word_embed_proj_dim') ?? h;
  const b = flag(c, 'enable_bias', true);
  const ln = flag(c, 'layer_norm_elementwise_affine', true) ? 2 * h : 0;
  const layer = 4 * lin(h, h, b) + ln + lin(h, F, b) + lin(F, h, b) + ln;
  const proj = wp !== h ? h * wp : 0;
  const finalLn = flag(c, 'do_layer_norm_before', true) && !flag(c, '_remove_final_layer_norm', false) ? ln : 0;
  return {
    pre: 'model.decoder.', embed: [{ name: 'embed_tokens', params: V * wp }, { name: 'embed_positions', params: (req(c, 'max_position_embeddings') + 2) * h }, { name: 'project_in', params: proj }].filter((m) => m.params > 0),
    layers: req(c, 'num_hidden_layers'), layerName: 'layers', layer: () => layer, tail: [{ name: 'final_layer_norm', params: finalLn }, { name: 'project_out', params: proj }], head: V * wp,
  };
}

/** BLOOM (modeling_bloom.py): word_embeddings + word_embeddings_layernorm; per block input_layernorm, query_key_value (h → 3h) and dense with bias, post_attention_layernorm, dense_h_to_4h / dense_4h_to_h with bias; ln_f; lm_head tied. */
function bloom(c: HfConfig): Stack {
  const h = req(c, 'hidden_size', 'n_embed'); const V = req(c, 'vocab_size');
  const block = 2 * h + lin(h, 3 * h, true) + lin(h, h, true) + 2 * h + lin(h, 4 * h, true) + lin(4 * h, h, true);
  return { pre: 'transformer.', embed: [{ name: 'word_embeddings', params: V * h }, { name: 'word_embeddings_layernorm', params: 2 * h }], layers: req(c, 'n_layer', 'num_hidden_layers'), layerName: 'h', layer: () => block, tail: [{ name: 'ln_f', params: 2 * h }], head: V * h };
}

/**
 * Falcon (modeling_falcon.py FalconAttention, FalconDecoderLayer): query_key_value out = (heads + 2·num_kv_heads)·hd with
 * new_decoder_architecture, h + 2·hd with multi_query, else 3h; dense h → h; MLP h → ffn_hidden_size (4h) → h; biases with `bias`;
 * ln_attn + ln_mlp when new_decoder_architecture (num_ln_in_parallel_attn 2), else input_layernorm (+ post_attention_layernorm
 * without parallel_attn); ln_f; lm_head tied.
 */
function falcon(c: HfConfig): Stack {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size');
  const heads = req(c, 'num_attention_heads', 'n_head');
  const hd = Math.floor(h / heads);
  const nda = flag(c, 'new_decoder_architecture', false);
  const kvh = num(c, 'num_kv_heads', 'n_head_kv') ?? heads;
  const qkv = nda ? (heads + 2 * kvh) * hd : flag(c, 'multi_query', true) ? h + 2 * hd : 3 * h;
  const b = flag(c, 'bias', false);
  const F = num(c, 'ffn_hidden_size') ?? 4 * h;
  const nLn = nda ? (num(c, 'num_ln_in_parallel_attn') ?? 2) : flag(c, 'parallel_attn', true) ? 1 : 2;
  const layer = lin(h, qkv, b) + lin(h, h, b) + lin(h, F, b) + lin(F, h, b) + nLn * 2 * h;
  return { pre: 'transformer.', embed: [{ name: 'word_embeddings', params: V * h }], layers: req(c, 'num_hidden_layers', 'n_layer'), layerName: 'h', layer: () => layer, tail: [{ name: 'ln_f', params: 2 * h }], head: V * h };
}

/** MPT (modeling_mpt.py): wte; per block norm_1, Wqkv (d → 3d), out_proj, norm_2, up_proj (d → expansion_ratio·d), down_proj; norm_f; biases and LayerNorm biases absent with no_bias; lm_head tied. */
function mpt(c: HfConfig): Stack {
  const d = req(c, 'd_model', 'hidden_size'); const V = req(c, 'vocab_size');
  const nb = flag(c, 'no_bias', true);
  const ln = nb ? d : 2 * d;
  const e = (num(c, 'expansion_ratio') ?? 4) * d;
  const block = ln + lin(d, 3 * d, !nb) + lin(d, d, !nb) + ln + lin(d, e, !nb) + lin(e, d, !nb);
  return { pre: 'transformer.', embed: [{ name: 'wte', params: V * d }], layers: req(c, 'n_layers', 'num_hidden_layers'), layerName: 'blocks', layer: () => block, tail: [{ name: 'norm_f', params: ln }], head: V * d };
}

/** StarCoder2 (modeling_starcoder2.py): q/k/v/o with bias (use_bias), c_fc / c_proj with bias, two LayerNorms with bias per layer; norm (LayerNorm); lm_head tied by default. */
function starcoder2(c: HfConfig): Stack {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size'); const I = req(c, 'intermediate_size');
  const heads = req(c, 'num_attention_heads'); const kv = num(c, 'num_key_value_heads') ?? heads; const hd = Math.floor(h / heads);
  const b = flag(c, 'use_bias', true);
  const layer = lin(h, heads * hd, b) + 2 * lin(h, kv * hd, b) + lin(heads * hd, h, b) + lin(h, I, b) + lin(I, h, b) + 4 * h;
  return { pre: 'model.', embed: [{ name: 'embed_tokens', params: V * h }], layers: req(c, 'num_hidden_layers'), layerName: 'layers', layer: () => layer, tail: [{ name: 'norm', params: 2 * h }], head: V * h };
}

/** tie_word_embeddings defaults of each config class (configuration_<arch>.py). */
export const FAMILY_TIE_DEFAULT: Record<string, boolean> = {
  qwen3: false, qwen2_moe: false, gemma3_text: true, olmo: false, olmo2: false, deepseek_v2: false, deepseek_v3: false,
  gpt_neo: true, gpt_neox: false, gptj: false, opt: true, bloom: true, falcon: true, mpt: true, starcoder2: true,
};

const BUILDERS: Record<string, (c: HfConfig) => Stack> = {
  qwen3: llamaVariant, qwen2_moe: llamaVariant, gemma3_text: llamaVariant, olmo: llamaVariant, olmo2: llamaVariant, deepseek_v2: llamaVariant, deepseek_v3: llamaVariant,
  gpt_neo: gptNeo, gpt_neox: gptNeox, gptj, opt, bloom, falcon, mpt, starcoder2,
};

export const EXTRA_FAMILIES = Object.keys(BUILDERS);

/** Module sizes of a decoder-only family in this file; undefined when the model_type is not one of them. */
export function extraFamilySizes(c: HfConfig, base: boolean, tied: boolean): ModuleSize[] | undefined {
  const b = BUILDERS[c.model_type];
  return b ? assemble(b(c), base, tied) : undefined;
}
