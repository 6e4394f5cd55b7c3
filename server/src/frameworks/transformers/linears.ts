/**
 * The Linear layers a transformers model builds, by module name, from its
 * config.json: what PEFT's `target_modules` match and what bitsandbytes /
 * GPTQ / AWQ quantise. Names and shapes mirror the modeling files
 * (huggingface/transformers src/transformers/models/<arch>/modeling_<arch>.py,
 * v5.x as installed by test/python/requirements.txt); the test
 * test/analysis/peft.test.ts checks the names and counts against the model
 * transformers builds from the same config (peft's trainable count).
 *
 * Families without a Linear layout here give `undefined`: callers report
 * the adapter or quantised size as unknown, never zero.
 */
import { autoClassFor, type HfConfig } from './catalog';

export interface LinearModule {
  /** Full module name as `model.named_modules()` gives it (`model.layers.0.self_attn.q_proj`). */
  name: string;
  in: number;
  out: number;
  bias: boolean;
  /** GPT-2's Conv1D (weight stored [in, out]); peft treats it as a Linear with fan_in_fan_out. */
  conv1d?: boolean;
}

export interface ModelLayout {
  linears: LinearModule[];
  /** Embeddings and other non-Linear modules `modules_to_save` may name, with their parameter counts. */
  others: { name: string; params: number }[];
  /** The output layer (not converted by bitsandbytes, excluded by peft's "all-linear"). */
  outputLayer?: string;
  /** Biases outside Linear layers (LayerNorm biases), what peft's bias="all" also unfreezes. */
  otherBiases?: number;
  /** Parameters that are not Linear modules but that peft's "all-linear" adapts too (fused MoE experts), by why. */
  allLinearAlso?: string;
}

function n(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}

/** The Llama-shaped families whose attention is q/k/v/o_proj and MLP gate/up/down_proj (modeling_llama.py LlamaAttention, LlamaMLP). */
const LLAMA_SHAPED = ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma', 'gemma2', 'gemma3_text', 'olmo', 'olmo2'];

export const LAYOUT_FAMILIES = [...LLAMA_SHAPED, 'phi3', 'gpt2', 'mixtral', 'falcon', 'bloom', 'opt', 'gpt_neox'];

const flag = (c: HfConfig, k: string, dflt: boolean): boolean => (typeof c[k] === 'boolean' ? (c[k] as boolean) : dflt);

/**
 * Linear layers of a checkpoint's model, or undefined with the reason.
 * - llama-shaped: per layer self_attn.q_proj (h → heads·hd), k_proj / v_proj (h → kv·hd), o_proj (heads·hd → h),
 *   biases on q/k/v for qwen2 (modeling_qwen2.py) or with attention_bias; mlp.gate_proj / up_proj (h → I),
 *   down_proj (I → h), biases with mlp_bias; lm_head (h → V) unless the class is the base model;
 * - phi3 (modeling_phi3.py Phi3Attention, Phi3MLP): self_attn.qkv_proj (h → (heads + 2·kv)·hd), o_proj,
 *   mlp.gate_up_proj (h → 2I), down_proj;
 * - gpt2 (modeling_gpt2.py GPT2Attention, GPT2MLP): Conv1D attn.c_attn (h → 3h), attn.c_proj (h → h),
 *   mlp.c_fc (h → I), mlp.c_proj (I → h), all with biases; lm_head tied to wte.
 */
export function linearLayout(c: HfConfig, className = 'AutoModelForCausalLM', version?: string): ModelLayout | { why: string } {
  const t = c.model_type;
  const kind = autoClassFor(className);
  if (kind !== 'causal-lm' && kind !== 'base') return { why: `the Linear layers of ${className} (${kind}) are not listed by oomlens` };
  const base = kind === 'base';
  if (LLAMA_SHAPED.includes(t) || t === 'phi3') {
    const h = n(c, 'hidden_size'); const heads = n(c, 'num_attention_heads'); const L = n(c, 'num_hidden_layers');
    const I = n(c, 'intermediate_size'); const V = n(c, 'vocab_size');
    if (!h || !heads || !L || !I || !V) return { why: `config.json (model_type "${t}") lacks hidden_size / num_attention_heads / num_hidden_layers / intermediate_size / vocab_size` };
    const kv = n(c, 'num_key_value_heads') ?? heads;
    const hd = n(c, 'head_dim') ?? Math.floor(h / heads);
    const qkvBias = t === 'qwen2' || c.attention_bias === true;
    const oBias = c.attention_bias === true && t !== 'qwen2';
    const mlpBias = c.mlp_bias === true;
    const pre = base ? '' : 'model.';
    const linears: LinearModule[] = [];
    for (let i = 0; i < L; i++) {
      const p = `${pre}layers.${i}`;
      if (t === 'phi3') {
        linears.push({ name: `${p}.self_attn.qkv_proj`, in: h, out: (heads + 2 * kv) * hd, bias: false });
        linears.push({ name: `${p}.self_attn.o_proj`, in: heads * hd, out: h, bias: false });
        linears.push({ name: `${p}.mlp.gate_up_proj`, in: h, out: 2 * I, bias: false });
        linears.push({ name: `${p}.mlp.down_proj`, in: I, out: h, bias: false });
        continue;
      }
      linears.push({ name: `${p}.self_attn.q_proj`, in: h, out: heads * hd, bias: qkvBias });
      linears.push({ name: `${p}.self_attn.k_proj`, in: h, out: kv * hd, bias: qkvBias });
      linears.push({ name: `${p}.self_attn.v_proj`, in: h, out: kv * hd, bias: qkvBias });
      linears.push({ name: `${p}.self_attn.o_proj`, in: heads * hd, out: h, bias: oBias });
      linears.push({ name: `${p}.mlp.gate_proj`, in: h, out: I, bias: mlpBias });
      linears.push({ name: `${p}.mlp.up_proj`, in: h, out: I, bias: mlpBias });
      linears.push({ name: `${p}.mlp.down_proj`, in: I, out: h, bias: mlpBias });
    }
    if (!base) linears.push({ name: 'lm_head', in: h, out: V, bias: false });
    return { linears, others: [{ name: `${pre}embed_tokens`, params: V * h }], outputLayer: base ? undefined : 'lm_head' };
  }
  if (t === 'gpt2') {
    const h = n(c, 'n_embd', 'hidden_size'); const L = n(c, 'n_layer', 'num_hidden_layers'); const V = n(c, 'vocab_size');
    const P = n(c, 'n_positions', 'max_position_embeddings') ?? 1024;
    if (!h || !L || !V) return { why: 'config.json (gpt2) lacks n_embd / n_layer / vocab_size' };
    const I = n(c, 'n_inner') ?? 4 * h;
    const pre = base ? '' : 'transformer.';
    const linears: LinearModule[] = [];
    for (let i = 0; i < L; i++) {
      const p = `${pre}h.${i}`;
      linears.push({ name: `${p}.attn.c_attn`, in: h, out: 3 * h, bias: true, conv1d: true });
      linears.push({ name: `${p}.attn.c_proj`, in: h, out: h, bias: true, conv1d: true });
      linears.push({ name: `${p}.mlp.c_fc`, in: h, out: I, bias: true, conv1d: true });
      linears.push({ name: `${p}.mlp.c_proj`, in: I, out: h, bias: true, conv1d: true });
    }
    if (!base) linears.push({ name: 'lm_head', in: h, out: V, bias: false });
    return { linears, others: [{ name: `${pre}wte`, params: V * h }, { name: `${pre}wpe`, params: P * h }], outputLayer: base ? undefined : 'lm_head', otherBiases: (2 * L + 1) * h };
  }
  if (t === 'mixtral') {
    // transformers v5 (modeling_mixtral.py MixtralSparseMoeBlock): the router `mlp.gate` is a Linear (h → E, no bias); the
    // experts are fused 3-D parameters (MixtralExperts gate_up_proj / down_proj), not Linear layers, so LoRA cannot target
    // them by module name. 4.x named them block_sparse_moe.experts.N.w1/w2/w3 (Linear): not listed here.
    const tv = Number(String(version ?? '').split('.')[0]);
    if (Number.isFinite(tv) && tv > 0 && tv < 5) return { why: 'transformers 4.x builds Mixtral\'s experts as block_sparse_moe.experts.N.w1/w2/w3 Linear layers, which oomlens lists only for v5' };
    const h = n(c, 'hidden_size'); const heads = n(c, 'num_attention_heads'); const L = n(c, 'num_hidden_layers'); const V = n(c, 'vocab_size');
    const E = n(c, 'num_local_experts') ?? 8;
    if (!h || !heads || !L || !V) return { why: 'config.json (mixtral) lacks hidden_size / num_attention_heads / num_hidden_layers / vocab_size' };
    const kv = n(c, 'num_key_value_heads') ?? heads; const hd = n(c, 'head_dim') ?? Math.floor(h / heads);
    const pre = base ? '' : 'model.';
    const linears: LinearModule[] = [];
    for (let i = 0; i < L; i++) {
      const p = `${pre}layers.${i}`;
      linears.push({ name: `${p}.self_attn.q_proj`, in: h, out: heads * hd, bias: false }, { name: `${p}.self_attn.k_proj`, in: h, out: kv * hd, bias: false },
        { name: `${p}.self_attn.v_proj`, in: h, out: kv * hd, bias: false }, { name: `${p}.self_attn.o_proj`, in: heads * hd, out: h, bias: false },
        { name: `${p}.mlp.gate`, in: h, out: E, bias: false });
    }
    if (!base) linears.push({ name: 'lm_head', in: h, out: V, bias: false });
    return {
      linears, others: [{ name: `${pre}embed_tokens`, params: V * h }], outputLayer: base ? undefined : 'lm_head',
      allLinearAlso: 'peft turns "all-linear" on Mixtral\'s fused experts into target_parameters (gate_up_proj, down_proj, the router\'s gate.weight) with per-expert adapters, which oomlens does not size',
    };
  }
  if (t === 'falcon' || t === 'bloom' || t === 'gpt_neox') {
    // falcon (modeling_falcon.py): self_attention.query_key_value, self_attention.dense, mlp.dense_h_to_4h / dense_4h_to_h,
    //   biases with `bias`, LayerNorms with biases (ln_attn + ln_mlp with new_decoder_architecture, input_layernorm
    //   (+ post_attention_layernorm without parallel_attn) otherwise), ln_f;
    // bloom (modeling_bloom.py): the same Linear names with biases, word_embeddings_layernorm, two LayerNorms per block, ln_f;
    // gpt_neox (modeling_gpt_neox.py): attention.query_key_value / attention.dense (bias with attention_bias),
    //   mlp.dense_h_to_4h / dense_4h_to_h with biases, two LayerNorms per layer, final_layer_norm; the head is embed_out.
    const h = n(c, 'hidden_size', 'n_embed'); const L = n(c, 'num_hidden_layers', 'n_layer'); const V = n(c, 'vocab_size');
    const heads = n(c, 'num_attention_heads', 'n_head');
    if (!h || !L || !V || !heads) return { why: `config.json (${t}) lacks hidden_size / num_hidden_layers / num_attention_heads / vocab_size` };
    const linears: LinearModule[] = [];
    let qkv = 3 * h; let F = 4 * h; let b = true; let bAttn = true; let lnPerLayer = 2; let lnOther = 1;
    let pre = base ? '' : 'transformer.'; let block = 'h'; let attn = 'self_attention'; let head = 'lm_head';
    if (t === 'falcon') {
      const hd = Math.floor(h / heads);
      const nda = flag(c, 'new_decoder_architecture', false);
      const kvh = n(c, 'num_kv_heads', 'n_head_kv') ?? heads;
      qkv = nda ? (heads + 2 * kvh) * hd : flag(c, 'multi_query', true) ? h + 2 * hd : 3 * h;
      F = n(c, 'ffn_hidden_size') ?? 4 * h; b = flag(c, 'bias', false); bAttn = b;
      lnPerLayer = nda ? (n(c, 'num_ln_in_parallel_attn') ?? 2) : flag(c, 'parallel_attn', true) ? 1 : 2;
    } else if (t === 'bloom') lnOther = 2;
    else {
      F = n(c, 'intermediate_size') ?? 4 * h; bAttn = flag(c, 'attention_bias', true);
      pre = base ? '' : 'gpt_neox.'; block = 'layers'; attn = 'attention'; head = 'embed_out';
    }
    for (let i = 0; i < L; i++) {
      const p = `${pre}${block}.${i}`;
      linears.push({ name: `${p}.${attn}.query_key_value`, in: h, out: qkv, bias: bAttn }, { name: `${p}.${attn}.dense`, in: h, out: h, bias: bAttn },
        { name: `${p}.mlp.dense_h_to_4h`, in: h, out: F, bias: b }, { name: `${p}.mlp.dense_4h_to_h`, in: F, out: h, bias: b });
    }
    if (!base) linears.push({ name: head, in: h, out: V, bias: false });
    const embName = t === 'gpt_neox' ? `${pre}embed_in` : `${pre}word_embeddings`;
    return { linears, others: [{ name: embName, params: V * h }], outputLayer: base ? undefined : head, otherBiases: (lnPerLayer * L + lnOther) * h };
  }
  if (t === 'opt') {
    // modeling_opt.py: project_out (h → word_embed_proj_dim) and project_in (back) without bias when the two differ;
    // per layer self_attn.k/v/q/out_proj and fc1 / fc2 (bias = enable_bias), LayerNorms with biases
    // (layer_norm_elementwise_affine); final_layer_norm when do_layer_norm_before and not _remove_final_layer_norm; lm_head (wp → V).
    const h = n(c, 'hidden_size'); const L = n(c, 'num_hidden_layers'); const V = n(c, 'vocab_size'); const F = n(c, 'ffn_dim');
    if (!h || !L || !V || !F) return { why: 'config.json (opt) lacks hidden_size / num_hidden_layers / vocab_size / ffn_dim' };
    const wp = n(c, 'word_embed_proj_dim') ?? h; const b = flag(c, 'enable_bias', true);
    const pre = base ? 'decoder.' : 'model.decoder.';
    const linears: LinearModule[] = [];
    if (wp !== h) linears.push({ name: `${pre}project_out`, in: h, out: wp, bias: false }, { name: `${pre}project_in`, in: wp, out: h, bias: false });
    for (let i = 0; i < L; i++) {
      const p = `${pre}layers.${i}`;
      for (const m of ['k_proj', 'v_proj', 'q_proj', 'out_proj']) linears.push({ name: `${p}.self_attn.${m}`, in: h, out: h, bias: b });
      linears.push({ name: `${p}.fc1`, in: h, out: F, bias: b }, { name: `${p}.fc2`, in: F, out: h, bias: b });
    }
    if (!base) linears.push({ name: 'lm_head', in: wp, out: V, bias: false });
    const lnBias = flag(c, 'layer_norm_elementwise_affine', true) ? h : 0;
    const finalLn = flag(c, 'do_layer_norm_before', true) && !flag(c, '_remove_final_layer_norm', false) ? lnBias : 0;
    return {
      linears, others: [{ name: `${pre}embed_tokens`, params: V * wp }, { name: `${pre}embed_positions`, params: ((n(c, 'max_position_embeddings') ?? 2048) + 2) * h }],
      outputLayer: base ? undefined : 'lm_head', otherBiases: 2 * L * lnBias + finalLn,
    };
  }
  return { why: `the Linear layers of model_type "${t}" are not listed by oomlens (it lists ${LAYOUT_FAMILIES.join(', ')})` };
}
