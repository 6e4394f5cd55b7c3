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
import { autoClassFor, numLabels, type HfConfig } from './catalog';

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
  /**
   * Parameters of modules that are not Linear layers, which peft adapts only through `target_parameters`
   * (tuners/lora/layer.py ParamWrapper): fused MoE experts, a 3-D [experts, out, in] tensor (`gate_up_proj`,
   * `down_proj`), and MoE routers' 2-D [out, in] weight (`gate.weight`, experts = 1). Full parameter names.
   */
  params?: { name: string; experts: number; in: number; out: number }[];
  /** Modules that are neither Linear nor Embedding (MoE routers and expert blocks): a `target_modules` name matching one makes peft raise. */
  unsupported?: string[];
  /**
   * peft's renaming of transformers v4 MoE target names to the v5 fused parameters for this model_type
   * (peft utils/transformers_weight_conversion.py _MODEL_TO_CONVERSION_PATTERN, _MOE_TARGET_MODULE_MAPPING,
   * _MOE_FUSED_TARGETS, peft 0.21): absent where peft leaves the targets alone.
   */
  moeRename?: { map: Record<string, string>; fused: Record<string, string[]> };
  /**
   * A *ForSequenceClassification model's classifier (`score`): get_output_embeddings() is None, so peft's
   * "all-linear" excludes it only with task_type SEQ_CLS; bitsandbytes leaves it unconverted as the last module
   * (quantizers/base.py get_keys_to_not_convert), which `outputLayer` carries.
   */
  seqClsHead?: string;
}

/** peft 0.21 utils/transformers_weight_conversion.py _MOE_TARGET_MODULE_MAPPING / _MOE_FUSED_TARGETS. */
const MOE_RENAME: Record<'mixtral' | 'qwen2_moe', NonNullable<ModelLayout['moeRename']>> = {
  mixtral: { map: { gate: 'gate.weight', w1: 'gate_up_proj', w3: 'gate_up_proj', w2: 'down_proj' }, fused: { gate_up_proj: ['w1', 'w3'] } },
  qwen2_moe: { map: { gate: 'gate.weight', gate_proj: 'gate_up_proj', up_proj: 'gate_up_proj', down_proj: 'down_proj' }, fused: { gate_up_proj: ['gate_proj', 'up_proj'] } },
};
/**
 * The model types peft renames, with the pattern they use: transformers' conversion_mapping.py
 * _MODEL_TO_CONVERSION_PATTERN (v5.x: deepseek_v2 / deepseek_v3 → qwen2_moe; qwen2_moe itself is not a key)
 * plus peft's own `"mixtral": "mixtral"` (transformers_weight_conversion.py).
 */
const MOE_RENAME_FOR: Record<string, 'mixtral' | 'qwen2_moe'> = { mixtral: 'mixtral', deepseek_v2: 'qwen2_moe', deepseek_v3: 'qwen2_moe' };

function n(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}

/** The Llama-shaped families whose attention is q/k/v/o_proj and MLP gate/up/down_proj (modeling_llama.py LlamaAttention, LlamaMLP). */
const LLAMA_SHAPED = ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma', 'gemma2', 'gemma3_text', 'olmo', 'olmo2'];

export const LAYOUT_FAMILIES = [...LLAMA_SHAPED, 'phi3', 'gpt2', 'mixtral', 'qwen2_moe', 'deepseek_v2', 'deepseek_v3', 'falcon', 'bloom', 'opt', 'gpt_neox'];

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
  if (kind === 'seq-cls') {
    // The decoders' *ForSequenceClassification: the causal model's modules under the same prefix, with
    // score = Linear(in of lm_head → num_labels, bias=False) in place of lm_head (catalog.ts seqClsSizes).
    if (['bert', 'roberta', 'deberta-v2', 'bart', 't5'].includes(t)) return { why: `the Linear layers of ${className} (${t}) are not listed by oomlens` };
    const lm = linearLayout(c, 'AutoModelForCausalLM', version);
    if ('why' in lm) return lm;
    const head = lm.linears.find((l) => l.name === lm.outputLayer);
    if (!head) return { why: `the output layer of ${t} is not known` };
    return { ...lm, linears: [...lm.linears.filter((l) => l !== head), { name: 'score', in: head.in, out: numLabels(c), bias: false }], outputLayer: 'score', seqClsHead: 'score' };
  }
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
  if (t === 'mixtral' || t === 'qwen2_moe' || t === 'deepseek_v2' || t === 'deepseek_v3') {
    // transformers v5 MoE blocks (modeling_mixtral.py MixtralSparseMoeBlock, modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock,
    // modeling_deepseek_v3.py DeepseekV3MoE): the router `mlp.gate` is a TopKRouter module holding weight [E, h], the
    // experts `mlp.experts` hold fused gate_up_proj [E, 2·I_e, h] and down_proj [E, h, I_e]; neither is a Linear layer.
    // 4.x built them as Linear layers (block_sparse_moe.experts.N.w1/w2/w3, mlp.experts.N.gate_proj, ...): not listed here.
    const tv = Number(String(version ?? '').split('.')[0]);
    if (Number.isFinite(tv) && tv > 0 && tv < 5) return { why: `transformers 4.x builds the experts of ${t} as one Linear layer per expert, which oomlens lists only for v5 (fused experts)` };
    const h = n(c, 'hidden_size'); const heads = n(c, 'num_attention_heads'); const L = n(c, 'num_hidden_layers'); const V = n(c, 'vocab_size');
    const I = n(c, 'intermediate_size');
    if (!h || !heads || !L || !V || !I) return { why: `config.json (${t}) lacks hidden_size / num_attention_heads / num_hidden_layers / vocab_size / intermediate_size` };
    const kv = n(c, 'num_key_value_heads') ?? heads; const hd = n(c, 'head_dim') ?? Math.floor(h / heads);
    const pre = base ? '' : 'model.';
    const linears: LinearModule[] = [];
    const params: NonNullable<ModelLayout['params']> = [];
    const unsupported: string[] = [];
    // Per layer: the expert width, the number of experts and the shared experts' width (0: none), or undefined for a dense MLP.
    let moe: (i: number) => { E: number; eI: number; sI: number } | undefined;
    if (t === 'mixtral') {
      const E = n(c, 'num_local_experts') ?? 8;
      moe = () => ({ E, eI: I, sI: 0 });
    } else if (t === 'qwen2_moe') {
      // modeling_qwen2_moe.py Qwen2MoeDecoderLayer: sparse on (i + 1) % decoder_sparse_step == 0, not in mlp_only_layers.
      const E = n(c, 'num_experts'); const eI = n(c, 'moe_intermediate_size'); const sI = n(c, 'shared_expert_intermediate_size');
      if (!E || !eI || !sI) return { why: 'config.json (qwen2_moe) lacks num_experts / moe_intermediate_size / shared_expert_intermediate_size' };
      const step = n(c, 'decoder_sparse_step') ?? 1;
      const only = Array.isArray(c.mlp_only_layers) ? (c.mlp_only_layers as number[]) : [];
      moe = (i) => (!only.includes(i) && (i + 1) % step === 0 ? { E, eI, sI } : undefined);
    } else {
      // modeling_deepseek_v2.py / _v3.py: sparse from first_k_dense_replace on; shared experts of n_shared_experts · moe_intermediate_size.
      const E = n(c, 'n_routed_experts'); const eI = n(c, 'moe_intermediate_size'); const shared = n(c, 'n_shared_experts');
      if (!E || !eI || !shared) return { why: `config.json (${t}) lacks n_routed_experts / moe_intermediate_size / n_shared_experts` };
      if (c.attention_bias === true || c.mlp_bias === true) return { why: `the Linear biases of ${t} with attention_bias / mlp_bias are not listed by oomlens` };
      const firstDense = n(c, 'first_k_dense_replace') ?? 0;
      const freq = t === 'deepseek_v2' ? n(c, 'moe_layer_freq') ?? 1 : 1;
      moe = (i) => (i >= firstDense && i % freq === 0 ? { E, eI, sI: eI * shared } : undefined);
    }
    const qkvBias = t === 'qwen2_moe' ? flag(c, 'qkv_bias', true) : false;
    for (let i = 0; i < L; i++) {
      const p = `${pre}layers.${i}`;
      if (t === 'deepseek_v2' || t === 'deepseek_v3') {
        // Multi-head latent attention (modeling_deepseek_v3.py DeepseekV3Attention).
        const nope = n(c, 'qk_nope_head_dim'); const rope = n(c, 'qk_rope_head_dim'); const vd = n(c, 'v_head_dim'); const rkv = n(c, 'kv_lora_rank');
        if (!nope || !rope || !vd || !rkv) return { why: `config.json (${t}) lacks qk_nope_head_dim / qk_rope_head_dim / v_head_dim / kv_lora_rank` };
        const rq = n(c, 'q_lora_rank');
        if (rq) linears.push({ name: `${p}.self_attn.q_a_proj`, in: h, out: rq, bias: false }, { name: `${p}.self_attn.q_b_proj`, in: rq, out: heads * (nope + rope), bias: false });
        else linears.push({ name: `${p}.self_attn.q_proj`, in: h, out: heads * (nope + rope), bias: false });
        linears.push({ name: `${p}.self_attn.kv_a_proj_with_mqa`, in: h, out: rkv + rope, bias: false }, { name: `${p}.self_attn.kv_b_proj`, in: rkv, out: heads * (nope + vd), bias: false },
          { name: `${p}.self_attn.o_proj`, in: heads * vd, out: h, bias: false });
      } else {
        linears.push({ name: `${p}.self_attn.q_proj`, in: h, out: heads * hd, bias: qkvBias }, { name: `${p}.self_attn.k_proj`, in: h, out: kv * hd, bias: qkvBias },
          { name: `${p}.self_attn.v_proj`, in: h, out: kv * hd, bias: qkvBias }, { name: `${p}.self_attn.o_proj`, in: heads * hd, out: h, bias: false });
      }
      const m = moe(i);
      if (!m) {
        linears.push({ name: `${p}.mlp.gate_proj`, in: h, out: I, bias: false }, { name: `${p}.mlp.up_proj`, in: h, out: I, bias: false }, { name: `${p}.mlp.down_proj`, in: I, out: h, bias: false });
        continue;
      }
      params.push({ name: `${p}.mlp.gate.weight`, experts: 1, in: h, out: m.E },
        { name: `${p}.mlp.experts.gate_up_proj`, experts: m.E, in: h, out: 2 * m.eI }, { name: `${p}.mlp.experts.down_proj`, experts: m.E, in: m.eI, out: h });
      unsupported.push(`${p}.mlp.gate`, `${p}.mlp.experts`);
      if (t === 'qwen2_moe') {
        const s = `${p}.mlp.shared_expert`;
        linears.push({ name: `${s}.gate_proj`, in: h, out: m.sI, bias: false }, { name: `${s}.up_proj`, in: h, out: m.sI, bias: false }, { name: `${s}.down_proj`, in: m.sI, out: h, bias: false },
          { name: `${p}.mlp.shared_expert_gate`, in: h, out: 1, bias: false });
      } else if (m.sI) {
        const s = `${p}.mlp.shared_experts`;
        linears.push({ name: `${s}.gate_proj`, in: h, out: m.sI, bias: false }, { name: `${s}.up_proj`, in: h, out: m.sI, bias: false }, { name: `${s}.down_proj`, in: m.sI, out: h, bias: false });
      }
    }
    if (!base) linears.push({ name: 'lm_head', in: h, out: V, bias: false });
    const rename = MOE_RENAME_FOR[t];
    return {
      linears, others: [{ name: `${pre}embed_tokens`, params: V * h }], outputLayer: base ? undefined : 'lm_head', params, unsupported,
      ...(rename ? { moeRename: MOE_RENAME[rename] } : {}),
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
