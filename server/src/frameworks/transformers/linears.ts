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
}

function n(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}

/** The Llama-shaped families whose attention is q/k/v/o_proj and MLP gate/up/down_proj (modeling_llama.py LlamaAttention, LlamaMLP). */
const LLAMA_SHAPED = ['llama', 'mistral', 'qwen2', 'qwen3', 'gemma', 'gemma2', 'gemma3_text', 'olmo', 'olmo2'];

export const LAYOUT_FAMILIES = [...LLAMA_SHAPED, 'phi3', 'gpt2'];

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
export function linearLayout(c: HfConfig, className = 'AutoModelForCausalLM'): ModelLayout | { why: string } {
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
  return { why: `the Linear layers of model_type "${t}" are not listed by oomlens (it lists ${LAYOUT_FAMILIES.join(', ')})` };
}
