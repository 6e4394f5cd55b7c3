/**
 * transformers checkpoints (bootstrap version with the Llama/Mistral family;
 * the owner is writing the full table). Parameter counts are computed from
 * the config as the modeling code builds the model
 * (transformers/models/llama/modeling_llama.py: embed_tokens, per layer
 * q/k/v/o projections, gate/up/down MLP, two RMSNorms; final norm; lm_head
 * unless tied).
 */
export interface HfConfig {
  model_type: string;
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads?: number;
  head_dim?: number;
  intermediate_size: number;
  tie_word_embeddings?: boolean;
  torch_dtype?: string;
  [k: string]: unknown;
}

export interface CheckpointEntry { id: string; config: HfConfig; source: string }

const TABLE: CheckpointEntry[] = [
  { id: 'meta-llama/Llama-2-7b-hf', source: 'huggingface.co/meta-llama/Llama-2-7b-hf config.json', config: { model_type: 'llama', vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 11008, tie_word_embeddings: false, torch_dtype: 'float16' } },
  { id: 'meta-llama/Llama-2-7b-chat-hf', source: 'huggingface.co/meta-llama/Llama-2-7b-chat-hf config.json', config: { model_type: 'llama', vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 11008, tie_word_embeddings: false, torch_dtype: 'float16' } },
  { id: 'mistralai/Mistral-7B-v0.1', source: 'huggingface.co/mistralai/Mistral-7B-v0.1 config.json', config: { model_type: 'mistral', vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, tie_word_embeddings: false, torch_dtype: 'bfloat16' } },
];

export function lookupCheckpoint(id: string): CheckpointEntry | undefined {
  const key = id.replace(/\/+$/, '').toLowerCase();
  return TABLE.find((e) => e.id.toLowerCase() === key);
}

/** Module sizes in load order: embeddings, each decoder layer, final norm, lm_head (untied). */
export function moduleSizes(c: HfConfig, className = 'AutoModelForCausalLM'): { name: string; params: number }[] {
  const h = c.hidden_size;
  const heads = c.num_attention_heads;
  const kv = c.num_key_value_heads ?? heads;
  const hd = c.head_dim ?? h / heads;
  const layer = h * heads * hd + 2 * h * kv * hd + heads * hd * h + 3 * h * c.intermediate_size + 2 * h;
  const out = [{ name: 'model.embed_tokens', params: c.vocab_size * h }];
  for (let i = 0; i < c.num_hidden_layers; i++) out.push({ name: `model.layers.${i}`, params: layer });
  out.push({ name: 'model.norm', params: h });
  if (/ForCausalLM$/.test(className) && !c.tie_word_embeddings) out.push({ name: 'lm_head', params: c.vocab_size * h });
  return out;
}

export function countParams(c: HfConfig, className?: string): number {
  return moduleSizes(c, className).reduce((a, m) => a + m.params, 0);
}

function vcmp(v: string, major: number, minor: number): number {
  const [a, b] = v.split('.').map((x) => Number.parseInt(x, 10));
  return a !== major ? a - major : (b ?? 0) - minor;
}

/**
 * What `from_pretrained` loads without a dtype: float32 through 4.57
 * ("Under Pytorch a model normally gets instantiated with torch.float32",
 * docs main_classes/model.md), the checkpoint's dtype from 5.0
 * (huggingface/transformers#42805). Unknown when the version is not pinned.
 */
export function defaultLoadDType(version?: string): 'float32' | 'auto' | 'unknown' {
  if (!version) return 'unknown';
  return vcmp(version, 5, 0) >= 0 ? 'auto' : 'float32';
}

/** `dtype` from 4.56 (transformers#39782 renamed `torch_dtype`), `torch_dtype` before. */
export function dtypeKeyword(version?: string): 'dtype' | 'torch_dtype' {
  return version && vcmp(version, 4, 56) >= 0 ? 'dtype' : 'torch_dtype';
}
