/**
 * transformers checkpoints: a shipped table of popular configs (never the
 * network) and the parameter arithmetic of each architecture family, so that
 * `AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")` can be
 * sized from the config alone, module by module (for device_map splitting).
 *
 * Counts are not typed in: `moduleSizes` rebuilds each model the way the
 * modeling file does (huggingface/transformers src/transformers/models/<arch>/
 * modeling_<arch>.py, v4.45), and test/catalog/transformers.test.ts checks the
 * totals against published numbers (cost-facts §9).
 *
 * Config values are those of each checkpoint's config.json on the Hugging
 * Face Hub (huggingface.co/<id>/blob/main/config.json), copied into the table.
 */
import { EXTRA_FAMILIES, FAMILY_TIE_DEFAULT, extraFamilySizes } from './families';
import { ENCODER_FAMILIES, ENCODER_TIE_DEFAULT, encoderFamilySizes } from './families-encoders';

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

export interface CheckpointEntry {
  id: string; config: HfConfig; source: string;
  /** Matched by its full id only (a re-upload's short name, "llama-2-7b", says nothing of another organisation's). */
  exactOnly?: boolean;
}

export interface ModuleSize {
  name: string;
  params: number;
  /** A dtype the load keeps whatever dtype is asked for (integer tensors of a quantized checkpoint, as stored). */
  keepDtype?: string;
  /** A quantised entry: `params` is its byte count (uint8) and it holds this many parameters. */
  holds?: number;
}

// ---------------------------------------------------------------------------
// The table. GPT-2, BERT and T5 configs use their own key names on the Hub
// (n_embd, d_model ...); they are stored here under the HfConfig names, and
// the family functions below also read the original keys so a config.json
// from the local cache works unchanged.

type Partial = Omit<HfConfig, 'model_type'> & Pick<HfConfig, 'vocab_size' | 'hidden_size' | 'num_hidden_layers' | 'num_attention_heads' | 'intermediate_size'>;
const src = (id: string) => `huggingface.co/${id} config.json`;

function add(table: CheckpointEntry[], ids: string[], model_type: string, c: Partial): void {
  for (const id of ids) table.push({ id, source: src(id), config: { model_type, ...c } });
}

const TABLE: CheckpointEntry[] = [];

// Llama 2 (no biases, RMSNorm, SwiGLU, untied head, stored float16).
const LLAMA2_7B = { vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 11008, tie_word_embeddings: false, torch_dtype: 'float16' };
add(TABLE, ['meta-llama/Llama-2-7b-hf', 'meta-llama/Llama-2-7b-chat-hf'], 'llama', LLAMA2_7B);
add(TABLE, ['meta-llama/Llama-2-13b-hf', 'meta-llama/Llama-2-13b-chat-hf'], 'llama', { ...LLAMA2_7B, hidden_size: 5120, num_hidden_layers: 40, num_attention_heads: 40, num_key_value_heads: 40, intermediate_size: 13824 });
add(TABLE, ['meta-llama/Llama-2-70b-hf', 'meta-llama/Llama-2-70b-chat-hf'], 'llama', { ...LLAMA2_7B, hidden_size: 8192, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 8, intermediate_size: 28672 });
// Llama 3 / 3.1 (GQA with 8 KV heads, 128256 vocabulary, stored bfloat16).
const LLAMA3_8B = { vocab_size: 128256, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, tie_word_embeddings: false, torch_dtype: 'bfloat16' };
add(TABLE, ['meta-llama/Meta-Llama-3-8B', 'meta-llama/Meta-Llama-3-8B-Instruct', 'meta-llama/Meta-Llama-3.1-8B', 'meta-llama/Meta-Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B', 'meta-llama/Llama-3.1-8B-Instruct'], 'llama', LLAMA3_8B);
const LLAMA3_70B = { ...LLAMA3_8B, hidden_size: 8192, num_hidden_layers: 80, num_attention_heads: 64, intermediate_size: 28672 };
add(TABLE, ['meta-llama/Meta-Llama-3-70B', 'meta-llama/Meta-Llama-3-70B-Instruct', 'meta-llama/Meta-Llama-3.1-70B', 'meta-llama/Meta-Llama-3.1-70B-Instruct', 'meta-llama/Llama-3.1-70B', 'meta-llama/Llama-3.1-70B-Instruct'], 'llama', LLAMA3_70B);
// Mistral / Mixtral.
const MISTRAL_7B = { vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, tie_word_embeddings: false, torch_dtype: 'bfloat16' };
add(TABLE, ['mistralai/Mistral-7B-v0.1', 'mistralai/Mistral-7B-Instruct-v0.1', 'mistralai/Mistral-7B-Instruct-v0.2'], 'mistral', MISTRAL_7B);
add(TABLE, ['mistralai/Mixtral-8x7B-v0.1', 'mistralai/Mixtral-8x7B-Instruct-v0.1'], 'mixtral', { ...MISTRAL_7B, num_local_experts: 8, num_experts_per_tok: 2 });
// Qwen2.5 and Qwen2 (the same architecture and sizes: huggingface.co/Qwen/Qwen2-0.5B etc. config.json; q/k/v
// projections carry biases; small models tie the head).
const QWEN = { num_hidden_layers: 28, tie_word_embeddings: false, torch_dtype: 'bfloat16' };
add(TABLE, ['Qwen/Qwen2.5-0.5B', 'Qwen/Qwen2.5-0.5B-Instruct', 'Qwen/Qwen2-0.5B', 'Qwen/Qwen2-0.5B-Instruct'], 'qwen2', { ...QWEN, vocab_size: 151936, hidden_size: 896, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, intermediate_size: 4864, tie_word_embeddings: true });
add(TABLE, ['Qwen/Qwen2.5-1.5B', 'Qwen/Qwen2.5-1.5B-Instruct', 'Qwen/Qwen2-1.5B', 'Qwen/Qwen2-1.5B-Instruct'], 'qwen2', { ...QWEN, vocab_size: 151936, hidden_size: 1536, num_attention_heads: 12, num_key_value_heads: 2, intermediate_size: 8960, tie_word_embeddings: true });
add(TABLE, ['Qwen/Qwen2.5-7B', 'Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen2-7B', 'Qwen/Qwen2-7B-Instruct'], 'qwen2', { ...QWEN, vocab_size: 152064, hidden_size: 3584, num_attention_heads: 28, num_key_value_heads: 4, intermediate_size: 18944 });
add(TABLE, ['Qwen/Qwen2.5-14B', 'Qwen/Qwen2.5-14B-Instruct'], 'qwen2', { ...QWEN, vocab_size: 152064, hidden_size: 5120, num_hidden_layers: 48, num_attention_heads: 40, num_key_value_heads: 8, intermediate_size: 13824 });
add(TABLE, ['Qwen/Qwen2.5-72B', 'Qwen/Qwen2.5-72B-Instruct'], 'qwen2', { ...QWEN, vocab_size: 152064, hidden_size: 8192, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 8, intermediate_size: 29568 });
// Gemma / Gemma 2 (head_dim is published, not hidden/heads; tied head).
add(TABLE, ['google/gemma-2b', 'google/gemma-2b-it'], 'gemma', { vocab_size: 256000, hidden_size: 2048, num_hidden_layers: 18, num_attention_heads: 8, num_key_value_heads: 1, head_dim: 256, intermediate_size: 16384, tie_word_embeddings: true, torch_dtype: 'bfloat16' });
add(TABLE, ['google/gemma-7b', 'google/gemma-7b-it'], 'gemma', { vocab_size: 256000, hidden_size: 3072, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 16, head_dim: 256, intermediate_size: 24576, tie_word_embeddings: true, torch_dtype: 'bfloat16' });
add(TABLE, ['google/gemma-2-2b', 'google/gemma-2-2b-it'], 'gemma2', { vocab_size: 256000, hidden_size: 2304, num_hidden_layers: 26, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256, intermediate_size: 9216, tie_word_embeddings: true, torch_dtype: 'float32' });
add(TABLE, ['google/gemma-2-9b', 'google/gemma-2-9b-it'], 'gemma2', { vocab_size: 256000, hidden_size: 3584, num_hidden_layers: 42, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 256, intermediate_size: 14336, tie_word_embeddings: true, torch_dtype: 'float32' });
// Phi.
add(TABLE, ['microsoft/phi-2'], 'phi', { vocab_size: 51200, hidden_size: 2560, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 10240, tie_word_embeddings: false, torch_dtype: 'float16' });
add(TABLE, ['microsoft/Phi-3-mini-4k-instruct', 'microsoft/Phi-3-mini-128k-instruct'], 'phi3', { vocab_size: 32064, hidden_size: 3072, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 8192, tie_word_embeddings: false, torch_dtype: 'bfloat16' });
// GPT-2 (n_embd, n_layer, n_head, n_positions 1024, MLP 4 * n_embd, tied head, stored float32).
const GPT2 = { vocab_size: 50257, n_positions: 1024, tie_word_embeddings: true, torch_dtype: 'float32' };
add(TABLE, ['gpt2', 'openai-community/gpt2'], 'gpt2', { ...GPT2, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072 });
add(TABLE, ['gpt2-medium', 'openai-community/gpt2-medium'], 'gpt2', { ...GPT2, hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16, intermediate_size: 4096 });
add(TABLE, ['gpt2-large', 'openai-community/gpt2-large'], 'gpt2', { ...GPT2, hidden_size: 1280, num_hidden_layers: 36, num_attention_heads: 20, intermediate_size: 5120 });
add(TABLE, ['gpt2-xl', 'openai-community/gpt2-xl'], 'gpt2', { ...GPT2, hidden_size: 1600, num_hidden_layers: 48, num_attention_heads: 25, intermediate_size: 6400 });
// BERT (512 positions, 2 token types, stored float32).
const BERT = { vocab_size: 30522, max_position_embeddings: 512, type_vocab_size: 2, tie_word_embeddings: true, torch_dtype: 'float32' };
add(TABLE, ['bert-base-uncased', 'google-bert/bert-base-uncased'], 'bert', { ...BERT, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072 });
add(TABLE, ['bert-large-uncased', 'google-bert/bert-large-uncased'], 'bert', { ...BERT, hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16, intermediate_size: 4096 });
// The cased checkpoints: the same shapes with a 28,996-token vocabulary (google-bert/bert-base-cased and
// google-bert/bert-large-cased config.json).
add(TABLE, ['bert-base-cased', 'google-bert/bert-base-cased'], 'bert', { ...BERT, vocab_size: 28996, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072 });
add(TABLE, ['bert-large-cased', 'google-bert/bert-large-cased'], 'bert', { ...BERT, vocab_size: 28996, hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16, intermediate_size: 4096 });
// T5 v1.0 (d_model, d_ff, d_kv 64, relu FFN, 32 relative-position buckets, tied head).
const T5 = { vocab_size: 32128, d_kv: 64, relative_attention_num_buckets: 32, feed_forward_proj: 'relu', tie_word_embeddings: true, torch_dtype: 'float32' };
add(TABLE, ['t5-small', 'google-t5/t5-small'], 't5', { ...T5, hidden_size: 512, intermediate_size: 2048, num_hidden_layers: 6, num_attention_heads: 8 });
add(TABLE, ['t5-base', 'google-t5/t5-base'], 't5', { ...T5, hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, num_attention_heads: 12 });
add(TABLE, ['t5-large', 'google-t5/t5-large'], 't5', { ...T5, hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, num_attention_heads: 16 });

// Other families (formulas in families.ts; counts checked in test/catalog/hf-families.test.ts).
const OPT = { vocab_size: 50272, max_position_embeddings: 2048, tie_word_embeddings: true, torch_dtype: 'float16' };
add(TABLE, ['facebook/opt-125m'], 'opt', { ...OPT, hidden_size: 768, word_embed_proj_dim: 768, num_hidden_layers: 12, num_attention_heads: 12, ffn_dim: 3072, intermediate_size: 3072 });
// opt-350m projects its 512-wide embeddings to 1024 (project_in / project_out) and has no final layer norm (do_layer_norm_before false).
add(TABLE, ['facebook/opt-350m'], 'opt', { ...OPT, hidden_size: 1024, word_embed_proj_dim: 512, num_hidden_layers: 24, num_attention_heads: 16, ffn_dim: 4096, intermediate_size: 4096, do_layer_norm_before: false });
add(TABLE, ['facebook/opt-1.3b'], 'opt', { ...OPT, hidden_size: 2048, word_embed_proj_dim: 2048, num_hidden_layers: 24, num_attention_heads: 32, ffn_dim: 8192, intermediate_size: 8192 });
add(TABLE, ['facebook/opt-6.7b'], 'opt', { ...OPT, hidden_size: 4096, word_embed_proj_dim: 4096, num_hidden_layers: 32, num_attention_heads: 32, ffn_dim: 16384, intermediate_size: 16384 });
add(TABLE, ['facebook/opt-13b'], 'opt', { ...OPT, hidden_size: 5120, word_embed_proj_dim: 5120, num_hidden_layers: 40, num_attention_heads: 40, ffn_dim: 20480, intermediate_size: 20480 });
add(TABLE, ['EleutherAI/pythia-160m'], 'gpt_neox', { vocab_size: 50304, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072, tie_word_embeddings: false, torch_dtype: 'float16' });
// The rest of the Pythia suite (EleutherAI/pythia-* config.json; Biderman et al. 2023, table 1): the totals are the
// published counts (pythia-1.4b 1,414,647,808; 2.8b 2,775,208,960; 12b 11,846,072,320), checked in
// test/catalog/transformers.test.ts.
const PYTHIA = { vocab_size: 50304, tie_word_embeddings: false, torch_dtype: 'float16' };
add(TABLE, ['EleutherAI/pythia-70m'], 'gpt_neox', { ...PYTHIA, hidden_size: 512, num_hidden_layers: 6, num_attention_heads: 8, intermediate_size: 2048 });
add(TABLE, ['EleutherAI/pythia-410m'], 'gpt_neox', { ...PYTHIA, hidden_size: 1024, num_hidden_layers: 24, num_attention_heads: 16, intermediate_size: 4096 });
add(TABLE, ['EleutherAI/pythia-1b'], 'gpt_neox', { ...PYTHIA, hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 8, intermediate_size: 8192 });
add(TABLE, ['EleutherAI/pythia-1.4b'], 'gpt_neox', { ...PYTHIA, hidden_size: 2048, num_hidden_layers: 24, num_attention_heads: 16, intermediate_size: 8192 });
add(TABLE, ['EleutherAI/pythia-2.8b'], 'gpt_neox', { ...PYTHIA, hidden_size: 2560, num_hidden_layers: 32, num_attention_heads: 32, intermediate_size: 10240 });
add(TABLE, ['EleutherAI/pythia-12b'], 'gpt_neox', { ...PYTHIA, vocab_size: 50688, hidden_size: 5120, num_hidden_layers: 36, num_attention_heads: 40, intermediate_size: 20480 });
add(TABLE, ['EleutherAI/pythia-6.9b'], 'gpt_neox', { vocab_size: 50432, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, intermediate_size: 16384, tie_word_embeddings: false, torch_dtype: 'float16' });
add(TABLE, ['EleutherAI/gpt-neo-125m', 'EleutherAI/gpt-neo-125M'], 'gpt_neo', { vocab_size: 50257, hidden_size: 768, num_layers: 12, num_hidden_layers: 12, num_heads: 12, num_attention_heads: 12, intermediate_size: 3072, max_position_embeddings: 2048, attention_types: [[['global', 'local'], 6]], torch_dtype: 'float32' });
add(TABLE, ['tiiuae/falcon-7b', 'tiiuae/falcon-7b-instruct'], 'falcon', { vocab_size: 65024, hidden_size: 4544, num_hidden_layers: 32, num_attention_heads: 71, multi_query: true, parallel_attn: true, bias: false, new_decoder_architecture: false, intermediate_size: 18176, torch_dtype: 'bfloat16' });
add(TABLE, ['Qwen/Qwen3-8B'], 'qwen3', { vocab_size: 151936, hidden_size: 4096, num_hidden_layers: 36, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, intermediate_size: 12288, tie_word_embeddings: false, torch_dtype: 'bfloat16' });
add(TABLE, ['allenai/OLMo-7B-hf'], 'olmo', { vocab_size: 50304, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, intermediate_size: 11008, tie_word_embeddings: false, torch_dtype: 'float32' });

// LLaMA (1) and the re-uploads people load it by (the same config.json: huggingface.co/huggyllama/llama-7b etc.),
// and popular re-uploads / fine-tunes of Llama 2 that keep its architecture (huggingface.co/NousResearch/Llama-2-7b-hf,
// huggingface.co/lmsys/vicuna-7b-v1.5: max_position_embeddings 4096, the rest as Llama-2-7b).
const LLAMA1_7B = { ...LLAMA2_7B, max_position_embeddings: 2048 };
add(TABLE, ['huggyllama/llama-7b', 'decapoda-research/llama-7b-hf', 'baffo32/decapoda-research-llama-7B-hf', 'yahma/llama-7b-hf', 'lmsys/vicuna-7b-v1.3'], 'llama', LLAMA1_7B);
add(TABLE, ['huggyllama/llama-13b', 'decapoda-research/llama-13b-hf', 'yahma/llama-13b-hf', 'lmsys/vicuna-13b-v1.3'], 'llama', { ...LLAMA1_7B, hidden_size: 5120, num_hidden_layers: 40, num_attention_heads: 40, num_key_value_heads: 40, intermediate_size: 13824 });
add(TABLE, ['huggyllama/llama-30b', 'decapoda-research/llama-30b-hf'], 'llama', { ...LLAMA1_7B, hidden_size: 6656, num_hidden_layers: 60, num_attention_heads: 52, num_key_value_heads: 52, intermediate_size: 17920 });
add(TABLE, ['huggyllama/llama-65b', 'decapoda-research/llama-65b-hf'], 'llama', { ...LLAMA1_7B, hidden_size: 8192, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 64, intermediate_size: 22016 });
add(TABLE, ['NousResearch/Llama-2-7b-hf', 'NousResearch/Llama-2-7b-chat-hf', 'TheBloke/Llama-2-7B-fp16', 'lmsys/vicuna-7b-v1.5'], 'llama', { ...LLAMA2_7B, max_position_embeddings: 4096 });
add(TABLE, ['NousResearch/Llama-2-13b-hf', 'NousResearch/Llama-2-13b-chat-hf', 'lmsys/vicuna-13b-v1.5'], 'llama', { ...LLAMA2_7B, max_position_embeddings: 4096, hidden_size: 5120, num_hidden_layers: 40, num_attention_heads: 40, num_key_value_heads: 40, intermediate_size: 13824 });

// unsloth's re-uploads of checkpoints in the table (unsloth/models/mapper.py __INT_TO_FLOAT_MAPPER @ 015bdef: each
// unsloth id and the original it is a copy of). The `-bnb-4bit` ones are stored pre-quantised with unsloth's
// BitsAndBytesConfig (unsloth/models/llama.py FastLlamaModel.from_pretrained: load_in_4bit, nf4, double
// quantisation), which their config.json carries as quantization_config; plain transformers loads them 4-bit too.
// The `-unsloth-bnb-4bit` "dynamic" quants keep layers that unsloth chose in 16-bit, which no table says: left out
// (frameworks/unsloth/semantics.ts sizes them as a lower bound).
const UNSLOTH_COPIES: [string, string[]][] = [
  ['Qwen/Qwen2-0.5B', ['unsloth/Qwen2-0.5B', 'unsloth/Qwen2-0.5B-bnb-4bit']],
  ['Qwen/Qwen2-0.5B-Instruct', ['unsloth/Qwen2-0.5B-Instruct', 'unsloth/Qwen2-0.5B-Instruct-bnb-4bit']],
  ['Qwen/Qwen2-1.5B', ['unsloth/Qwen2-1.5B', 'unsloth/Qwen2-1.5B-bnb-4bit']],
  ['Qwen/Qwen2-1.5B-Instruct', ['unsloth/Qwen2-1.5B-Instruct', 'unsloth/Qwen2-1.5B-Instruct-bnb-4bit']],
  ['Qwen/Qwen2-7B', ['unsloth/Qwen2-7B', 'unsloth/Qwen2-7B-bnb-4bit']],
  ['Qwen/Qwen2-7B-Instruct', ['unsloth/Qwen2-7B-Instruct', 'unsloth/Qwen2-7B-Instruct-bnb-4bit']],
  ['Qwen/Qwen2.5-0.5B', ['unsloth/Qwen2.5-0.5B', 'unsloth/Qwen2.5-0.5B-bnb-4bit', 'unsloth/Qwen2.5-0.5B-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-0.5B-Instruct', ['unsloth/Qwen2.5-0.5B-Instruct', 'unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit', 'unsloth/Qwen2.5-0.5B-Instruct-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-1.5B', ['unsloth/Qwen2.5-1.5B', 'unsloth/Qwen2.5-1.5B-bnb-4bit', 'unsloth/Qwen2.5-1.5B-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-1.5B-Instruct', ['unsloth/Qwen2.5-1.5B-Instruct', 'unsloth/Qwen2.5-1.5B-Instruct-bnb-4bit', 'unsloth/Qwen2.5-1.5B-Instruct-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-14B', ['unsloth/Qwen2.5-14B', 'unsloth/Qwen2.5-14B-bnb-4bit', 'unsloth/Qwen2.5-14B-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-14B-Instruct', ['unsloth/Qwen2.5-14B-Instruct', 'unsloth/Qwen2.5-14B-Instruct-bnb-4bit', 'unsloth/Qwen2.5-14B-Instruct-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-72B', ['unsloth/Qwen2.5-72B', 'unsloth/Qwen2.5-72B-bnb-4bit']],
  ['Qwen/Qwen2.5-72B-Instruct', ['unsloth/Qwen2.5-72B-Instruct', 'unsloth/Qwen2.5-72B-Instruct-bnb-4bit']],
  ['Qwen/Qwen2.5-7B', ['unsloth/Qwen2.5-7B', 'unsloth/Qwen2.5-7B-bnb-4bit', 'unsloth/Qwen2.5-7B-unsloth-bnb-4bit']],
  ['Qwen/Qwen2.5-7B-Instruct', ['unsloth/Qwen2.5-7B-Instruct', 'unsloth/Qwen2.5-7B-Instruct-bnb-4bit', 'unsloth/Qwen2.5-7B-Instruct-unsloth-bnb-4bit']],
  ['google/gemma-2-2b', ['unsloth/gemma-2-2b', 'unsloth/gemma-2-2b-bnb-4bit']],
  ['google/gemma-2-2b-it', ['unsloth/gemma-2-2b-it', 'unsloth/gemma-2-2b-it-bnb-4bit']],
  ['google/gemma-2-9b', ['unsloth/gemma-2-9b', 'unsloth/gemma-2-9b-bnb-4bit']],
  ['google/gemma-2-9b-it', ['unsloth/gemma-2-9b-it', 'unsloth/gemma-2-9b-it-bnb-4bit']],
  ['google/gemma-2b', ['unsloth/gemma-2b', 'unsloth/gemma-2b-bnb-4bit']],
  ['google/gemma-2b-it', ['unsloth/gemma-2b-it', 'unsloth/gemma-2b-it-bnb-4bit']],
  ['google/gemma-7b', ['unsloth/gemma-7b', 'unsloth/gemma-7b-bnb-4bit']],
  ['google/gemma-7b-it', ['unsloth/gemma-7b-it', 'unsloth/gemma-7b-it-bnb-4bit']],
  ['meta-llama/Llama-2-13b-hf', ['unsloth/llama-2-13b', 'unsloth/llama-2-13b-bnb-4bit']],
  ['meta-llama/Llama-2-7b-chat-hf', ['unsloth/llama-2-7b-chat', 'unsloth/llama-2-7b-chat-bnb-4bit']],
  ['meta-llama/Llama-2-7b-hf', ['unsloth/llama-2-7b', 'unsloth/llama-2-7b-bnb-4bit']],
  ['meta-llama/Llama-3.1-8B', ['unsloth/Llama-3.1-8B', 'unsloth/Llama-3.1-8B-bnb-4bit', 'unsloth/Llama-3.1-8B-unsloth-bnb-4bit']],
  ['meta-llama/Meta-Llama-3-70B', ['unsloth/llama-3-70b-bnb-4bit']],
  ['meta-llama/Meta-Llama-3-70B-Instruct', ['unsloth/llama-3-70b-Instruct-bnb-4bit']],
  ['meta-llama/Meta-Llama-3-8B', ['unsloth/llama-3-8b', 'unsloth/llama-3-8b-bnb-4bit']],
  ['meta-llama/Meta-Llama-3-8B-Instruct', ['unsloth/llama-3-8b-Instruct', 'unsloth/llama-3-8b-Instruct-bnb-4bit']],
  ['meta-llama/Meta-Llama-3.1-70B', ['unsloth/Meta-Llama-3.1-70B', 'unsloth/Meta-Llama-3.1-70B-bnb-4bit']],
  ['meta-llama/Meta-Llama-3.1-70B-Instruct', ['unsloth/Meta-Llama-3.1-70B-Instruct', 'unsloth/Meta-Llama-3.1-70B-Instruct-bnb-4bit']],
  ['meta-llama/Meta-Llama-3.1-8B', ['unsloth/Meta-Llama-3.1-8B', 'unsloth/Meta-Llama-3.1-8B-bnb-4bit', 'unsloth/Meta-Llama-3.1-8B-unsloth-bnb-4bit']],
  ['microsoft/Phi-3-mini-4k-instruct', ['unsloth/Phi-3-mini-4k-instruct', 'unsloth/Phi-3-mini-4k-instruct-bnb-4bit']],
  ['mistralai/Mistral-7B-Instruct-v0.1', ['unsloth/mistral-7b-instruct-v0.1', 'unsloth/mistral-7b-instruct-v0.1-bnb-4bit']],
  ['mistralai/Mistral-7B-Instruct-v0.2', ['unsloth/mistral-7b-instruct-v0.2', 'unsloth/mistral-7b-instruct-v0.2-bnb-4bit']],
  ['mistralai/Mistral-7B-v0.1', ['unsloth/mistral-7b', 'unsloth/mistral-7b-bnb-4bit']],
  ['mistralai/Mixtral-8x7B-Instruct-v0.1', ['unsloth/Mixtral-8x7B-Instruct-v0.1', 'unsloth/Mixtral-8x7B-Instruct-v0.1-bnb-4bit', 'unsloth/Mixtral-8x7B-Instruct-v0.1-unsloth-bnb-4bit']],
  ['mistralai/Mixtral-8x7B-v0.1', ['unsloth/Mixtral-8x7B-v0.1', 'unsloth/Mixtral-8x7B-v0.1-bnb-4bit', 'unsloth/Mixtral-8x7B-v0.1-unsloth-bnb-4bit']],
];
const BNB_4BIT_NF4 = { quant_method: 'bitsandbytes', load_in_4bit: true, load_in_8bit: false, bnb_4bit_quant_type: 'nf4', bnb_4bit_use_double_quant: true, bnb_4bit_compute_dtype: 'bfloat16' };
for (const [orig, copies] of UNSLOTH_COPIES) {
  const e = TABLE.find((x) => x.id === orig)!;
  for (const id of copies) {
    if (/-unsloth-bnb-4bit$/.test(id)) continue;
    const config = /-bnb-4bit$/.test(id) ? { ...e.config, quantization_config: BNB_4BIT_NF4 } : { ...e.config };
    TABLE.push({ id, source: `${src(id)} (a copy of ${orig}: unsloth/models/mapper.py)`, config, exactOnly: true });
  }
}
/** The original of an unsloth re-upload (`unsloth/llama-3-8b-bnb-4bit` → `meta-llama/Meta-Llama-3-8B`), dynamic quants included. */
export function unslothOriginal(id: string): string | undefined {
  const k = id.trim().toLowerCase();
  return UNSLOTH_COPIES.find(([, copies]) => copies.some((c) => c.toLowerCase() === k))?.[0];
}

export const CHECKPOINTS: readonly CheckpointEntry[] = TABLE;

/**
 * Finds a checkpoint: case-insensitive, trailing slashes ignored, and an id
 * with or without its organisation ("gpt2" and "openai-community/gpt2",
 * "Llama-2-7b-hf" and "meta-llama/Llama-2-7b-hf") when the name is unique.
 */
export function lookupCheckpoint(id: string): CheckpointEntry | undefined {
  const key = id.trim().replace(/\/+$/, '').replace(/^https?:\/\/huggingface\.co\//i, '').toLowerCase();
  const exact = TABLE.find((e) => e.id.toLowerCase() === key);
  if (exact) return exact;
  // A filesystem path (absolute, ./ ../ ~/, a drive letter, or more than one `/`) is not a Hub id (repo ids are
  // `name` or `namespace/name`: huggingface_hub validate_repo_id): what its folder holds is not known from its
  // name, so it is not matched by its last segment ("/model/llama-13b-hf" may hold anything).
  if (/^(\/|\.{1,2}\/|~|[a-z]:[\\/])/.test(key) || key.split('/').length > 2) return undefined;
  const name = key.split('/').pop()!;
  const hits = TABLE.filter((e) => !e.exactOnly && e.id.toLowerCase().split('/').pop() === name);
  // Ids differing only by organisation share a config, so any hit will do.
  return hits[0];
}

// ---------------------------------------------------------------------------
// Which head a class adds.

export type HeadKind = 'causal-lm' | 'base' | 'masked-lm' | 'seq2seq-lm' | 'seq-cls' | 'unknown';

/**
 * The head an auto or concrete class puts on the base model:
 * *ForCausalLM / GPT2LMHeadModel → the LM head; AutoModel / *Model → none;
 * *ForMaskedLM → the MLM head; *ForConditionalGeneration / AutoModelForSeq2SeqLM → LM head on an encoder–decoder;
 * *ForSequenceClassification → a classifier of num_labels outputs (seqClsSizes). Any other head
 * (token classification, question answering, ...) is 'unknown': no sizes, never a guess.
 */
export function autoClassFor(name: string): HeadKind {
  if (/ForCausalLM$|LMHeadModel$/.test(name)) return 'causal-lm';
  if (/ForMaskedLM$/.test(name)) return 'masked-lm';
  if (/ForConditionalGeneration$|ForSeq2SeqLM$/.test(name)) return 'seq2seq-lm';
  if (/ForSequenceClassification$/.test(name)) return 'seq-cls';
  if (/^(AutoModel|[A-Z]\w*Model)$/.test(name)) return 'base';
  return 'unknown';
}

// ---------------------------------------------------------------------------
// Parameter arithmetic per family.

function num(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}

function req(c: HfConfig, ...keys: string[]): number {
  const v = num(c, ...keys);
  if (v === undefined) throw new Error(`config has no ${keys.join(' / ')}`);
  return v;
}

/**
 * Decoder-only Llama-style models (llama, mistral, mixtral, qwen2, gemma,
 * gemma2, phi3). Per layer, from modeling_llama.py LlamaDecoderLayer:
 *   attention q (h → heads·hd), k and v (h → kv·hd), o (heads·hd → h);
 *   biases on q/k/v when `attention_bias` (llama) or always (qwen2:
 *   modeling_qwen2.py Qwen2Attention `bias=True` on q/k/v, o without);
 *   MLP gate/up (h → I) and down (I → h) without bias; mixtral replaces the
 *   MLP with a router `gate` (h → E, no bias) and E experts w1/w2/w3
 *   (modeling_mixtral.py MixtralSparseMoeBlock); phi3 fuses qkv_proj and
 *   gate_up_proj (modeling_phi3.py), which changes names, not counts;
 *   RMSNorm weights (h): two per layer, four for gemma2
 *   (modeling_gemma2.py: input, post_attention, pre_feedforward, post_feedforward).
 * Then the final norm (h) and the untied lm_head (V × h).
 */
function llamaLike(c: HfConfig): { embed: number; layer: number; norm: number; head: number } {
  const h = c.hidden_size;
  const heads = c.num_attention_heads;
  const kv = c.num_key_value_heads ?? heads;
  const hd = c.head_dim ?? Math.floor(h / heads);
  const I = c.intermediate_size;
  const qkvBias = c.model_type === 'qwen2' || c.attention_bias === true;
  const oBias = c.attention_bias === true && c.model_type !== 'qwen2';
  let attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h;
  if (qkvBias) attn += heads * hd + 2 * kv * hd;
  if (oBias) attn += h;
  const mlp3 = 3 * h * I + (c.mlp_bias === true ? 2 * I + h : 0);
  const experts = num(c, 'num_local_experts');
  const mlp = c.model_type === 'mixtral' && experts ? h * experts + experts * 3 * h * I : mlp3;
  const norms = (c.model_type === 'gemma2' ? 4 : 2) * h;
  return { embed: c.vocab_size * h, layer: attn + mlp + norms, norm: h, head: c.vocab_size * h };
}

/**
 * Phi-1/1.5/2 (modeling_phi.py): LayerNorm (2h) before a parallel
 * attention (q/k/v/dense with biases) + MLP (fc1 h → I, fc2 I → h, with
 * biases) block; final_layernorm (2h); lm_head with bias (V × h + V).
 */
function phi(c: HfConfig): { embed: number; layer: number; norm: number; head: number } {
  const h = c.hidden_size;
  const heads = c.num_attention_heads;
  const kv = c.num_key_value_heads ?? heads;
  const hd = c.head_dim ?? Math.floor(h / heads);
  const I = c.intermediate_size;
  const attn = (h * heads * hd + heads * hd) + 2 * (h * kv * hd + kv * hd) + (heads * hd * h + h);
  const mlp = h * I + I + I * h + h;
  return { embed: c.vocab_size * h, layer: 2 * h + attn + mlp, norm: 2 * h, head: c.vocab_size * h + c.vocab_size };
}

/**
 * Per-module parameter counts in load order. Tied weights are counted
 * once: a tied lm_head (or MLM decoder weight) is not listed, only its bias
 * if it has one. `className` picks the head (autoClassFor); the base model
 * (AutoModel) has no head and its modules carry no `model.` prefix, as in
 * the base class's state_dict.
 */
export function moduleSizes(c: HfConfig, className = 'AutoModelForCausalLM', rethrowUnknown = false): ModuleSize[] {
  try {
    return familySizes(c, className);
  } catch (e) {
    // A field the program set to a value that is not known (semantics.ts UnknownConfigField): the caller names it.
    if (rethrowUnknown && e instanceof Error && e.name === 'UnknownConfigField') throw e;
    // A config missing a needed field: no sizes rather than a guess (see hasArithmetic).
    return [];
  }
}

/** Whether `moduleSizes` knows this config's architecture; an empty list otherwise means "unknown", not zero. */
export function hasArithmetic(c: HfConfig, className?: string): boolean {
  return FAMILIES.includes(c.model_type) && moduleSizes(c, className).length > 0;
}

/**
 * tie_word_embeddings when config.json omits it: each config class's
 * default (configuration_llama.py, _mistral, _mixtral, _qwen2, _phi, _phi3:
 * False; configuration_gemma.py, _gemma2: True; GPT-2, BERT and T5 inherit
 * PretrainedConfig's True).
 */
const TIE_DEFAULT: Record<string, boolean> = { llama: false, mistral: false, mixtral: false, qwen2: false, phi: false, phi3: false, gemma: true, gemma2: true, gpt2: true, bert: true, roberta: true, t5: true, ...FAMILY_TIE_DEFAULT, ...ENCODER_TIE_DEFAULT };

const FAMILIES = ['llama', 'mistral', 'mixtral', 'qwen2', 'gemma', 'gemma2', 'phi3', 'phi', 'gpt2', 'bert', 'roberta', 't5', ...EXTRA_FAMILIES, ...ENCODER_FAMILIES];

/** The model_types whose parameters oomlens computes from config.json. */
export const KNOWN_MODEL_TYPES: readonly string[] = FAMILIES;

/**
 * Sequence-classification heads (num_labels outputs, PretrainedConfig's default 2), on the base model under its
 * base_model_prefix (transformers v5, modeling_<arch>.py *ForSequenceClassification):
 * - decoders (GenericForSequenceClassification in modeling_layers.py, and GPT2 / GPT-J / GPT-Neo / GPT-NeoX /
 *   Bloom / Falcon / MPT / OPT's own classes): `score`, Linear(h → num_labels) without bias (OPT: from
 *   word_embed_proj_dim);
 * - bert (modeling_bert.py BertForSequenceClassification): BertModel with its pooler + `classifier` (h → L, bias);
 * - roberta (modeling_roberta.py): RobertaModel without pooler + RobertaClassificationHead dense (h → h) and out_proj (h → L);
 * - deberta-v2 (modeling_deberta_v2.py): DebertaV2Model + ContextPooler dense (pooler_hidden_size → pooler_hidden_size)
 *   + classifier (ContextPooler.output_dim = hidden_size → L);
 * - bart (modeling_bart.py): BartModel + BartClassificationHead dense (d → d) and out_proj (d → L).
 * Checked against transformers on the meta device: test/catalog/hf-families.test.ts.
 */
const SEQ_CLS_PREFIX: Record<string, string> = {
  llama: 'model.', mistral: 'model.', mixtral: 'model.', qwen2: 'model.', qwen2_moe: 'model.', qwen3: 'model.', gemma: 'model.', gemma2: 'model.',
  gemma3_text: 'model.', phi: 'model.', phi3: 'model.', olmo: 'model.', olmo2: 'model.', starcoder2: 'model.', deepseek_v2: 'model.', deepseek_v3: 'model.',
  gpt2: 'transformer.', gptj: 'transformer.', gpt_neo: 'transformer.', bloom: 'transformer.', falcon: 'transformer.', mpt: 'transformer.',
  gpt_neox: 'gpt_neox.', opt: 'model.', bert: 'bert.', roberta: 'roberta.', 'deberta-v2': 'deberta.', bart: 'model.',
};
export function numLabels(c: HfConfig): number {
  if (typeof c.num_labels === 'number') return c.num_labels;
  if (c.id2label && typeof c.id2label === 'object') return Object.keys(c.id2label as object).length;
  return c.model_type === 'bart' ? 3 : 2; // BartConfig's num_labels=3 (configuration_bart.py); PretrainedConfig's 2 (configuration_utils.py)
}
function seqClsSizes(c: HfConfig): ModuleSize[] {
  const t = c.model_type;
  const pre = SEQ_CLS_PREFIX[t];
  if (pre === undefined) throw new Error(`the sequence-classification head of model_type "${t}" is not listed`);
  const h = req(c, 'hidden_size', 'n_embd', 'd_model');
  const L = numLabels(c);
  const base = familySizes(c, 'AutoModel').filter((m) => !(t === 'roberta' && m.name === 'pooler')).map((m) => ({ ...m, name: `${pre}${m.name}` }));
  if (t === 'bert') return [...base, { name: 'classifier', params: h * L + L }];
  if (t === 'roberta' || t === 'bart') return [...base, { name: t === 'bart' ? 'classification_head' : 'classifier', params: h * h + h + h * L + L }];
  if (t === 'deberta-v2') {
    const ph = num(c, 'pooler_hidden_size') ?? h;
    return [...base, { name: 'pooler', params: ph * ph + ph }, { name: 'classifier', params: h * L + L }];
  }
  return [...base, { name: 'score', params: (t === 'opt' ? num(c, 'word_embed_proj_dim') ?? h : h) * L }];
}

function familySizes(c: HfConfig, className: string): ModuleSize[] {
  // AutoModelWithLMHead (transformers 4.x, deprecated; modeling_auto.py MODEL_WITH_LM_HEAD_MAPPING): the model type's
  // language-model head — masked LM for BERT-style encoders, the seq2seq LM for T5, the causal LM for decoders.
  const kind = className === 'AutoModelWithLMHead' || className === 'TFAutoModelWithLMHead'
    ? (c.model_type === 'bert' || c.model_type === 'roberta' || ENCODER_FAMILIES.includes(c.model_type) ? 'masked-lm' : c.model_type === 't5' ? 'seq2seq-lm' : 'causal-lm')
    : autoClassFor(className);
  if (kind === 'seq-cls') return seqClsSizes(c);
  if (kind === 'unknown' && !ENCODER_FAMILIES.includes(c.model_type)) throw new Error(`the head of ${className} is not listed`);
  const base = kind === 'base';
  const tied = typeof c.tie_word_embeddings === 'boolean' ? c.tie_word_embeddings : TIE_DEFAULT[c.model_type] ?? true;
  switch (c.model_type) {
    case 'llama': case 'mistral': case 'mixtral': case 'qwen2': case 'gemma': case 'gemma2': case 'phi3': case 'phi': {
      const s = c.model_type === 'phi' ? phi(c) : llamaLike(c);
      const pre = base ? '' : 'model.';
      const out: ModuleSize[] = [{ name: `${pre}embed_tokens`, params: s.embed }];
      for (let i = 0; i < c.num_hidden_layers; i++) out.push({ name: `${pre}layers.${i}`, params: s.layer });
      out.push({ name: c.model_type === 'phi' ? `${pre}final_layernorm` : `${pre}norm`, params: s.norm });
      // phi's lm_head has a bias that is never tied (modeling_phi.py PhiForCausalLM: nn.Linear(..., bias=True)).
      if (!base) {
        if (!tied) out.push({ name: 'lm_head', params: s.head });
        else if (c.model_type === 'phi') out.push({ name: 'lm_head', params: c.vocab_size });
      }
      return out;
    }
    case 'gpt2': return gpt2Sizes(c, base, tied);
    case 'bert': return bertSizes(c, kind);
    // RoBERTa (modeling_roberta.py) builds BERT's modules under `roberta.`, its MLM head as `lm_head` (same sizes).
    case 'roberta': return bertSizes(c, kind, 'roberta.', 'lm_head');
    case 't5': return t5Sizes(c, base, tied);
    default: {
      const enc = encoderFamilySizes(c, className, tied);
      if (enc) return enc;
      const extra = extraFamilySizes(c, base, tied);
      if (extra) return extra;
      throw new Error(`no parameter arithmetic for model_type "${c.model_type}"`);
    }
  }
}

/**
 * GPT-2 (modeling_gpt2.py): wte (V × h), wpe (n_positions × h); per block
 * ln_1 (2h), attn.c_attn Conv1D h → 3h with bias, attn.c_proj h → h with
 * bias, ln_2 (2h), mlp.c_fc h → inner, mlp.c_proj inner → h (both with
 * bias; inner = n_inner or 4h); ln_f (2h); lm_head tied to wte.
 */
function gpt2Sizes(c: HfConfig, base: boolean, tied: boolean): ModuleSize[] {
  const h = req(c, 'hidden_size', 'n_embd');
  const L = req(c, 'num_hidden_layers', 'n_layer');
  // modeling_gpt2.py GPT2Block: `inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size` (GPT2Config has no intermediate_size).
  const inner = num(c, 'n_inner') ?? 4 * h;
  const pos = req(c, 'n_positions', 'max_position_embeddings');
  const block = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * h + (h * inner + inner) + (inner * h + h);
  const pre = base ? '' : 'transformer.';
  const out: ModuleSize[] = [{ name: `${pre}wte`, params: c.vocab_size * h }, { name: `${pre}wpe`, params: pos * h }];
  for (let i = 0; i < L; i++) out.push({ name: `${pre}h.${i}`, params: block });
  out.push({ name: `${pre}ln_f`, params: 2 * h });
  if (!base && !tied) out.push({ name: 'lm_head', params: c.vocab_size * h });
  return out;
}

/**
 * BERT (modeling_bert.py): embeddings = word (V × h) + position (P × h) +
 * token_type (T × h) + LayerNorm (2h); per layer attention q/k/v/output
 * dense 4(h² + h) + LayerNorm 2h, intermediate h → I with bias, output
 * I → h with bias + LayerNorm 2h; BertModel adds the pooler (h² + h).
 * BertForMaskedLM builds BertModel(add_pooling_layer=False) plus
 * cls.predictions: transform dense (h² + h) + LayerNorm (2h), decoder tied
 * to the word embeddings, decoder bias (V).
 */
function bertSizes(c: HfConfig, kind: HeadKind, prefix = 'bert.', mlmHead = 'cls.predictions'): ModuleSize[] {
  const h = c.hidden_size;
  const I = c.intermediate_size;
  const P = num(c, 'max_position_embeddings') ?? 512;
  const T = num(c, 'type_vocab_size') ?? 2;
  const layer = 4 * (h * h + h) + 2 * h + (h * I + I) + (I * h + h) + 2 * h;
  const pre = kind === 'base' ? '' : prefix;
  const out: ModuleSize[] = [{ name: `${pre}embeddings`, params: (c.vocab_size + P + T) * h + 2 * h }];
  for (let i = 0; i < c.num_hidden_layers; i++) out.push({ name: `${pre}encoder.layer.${i}`, params: layer });
  if (kind === 'masked-lm') out.push({ name: mlmHead, params: h * h + h + 2 * h + c.vocab_size });
  else out.push({ name: `${pre}pooler`, params: h * h + h });
  return out;
}

/**
 * T5 (modeling_t5.py): shared embedding (V × d); each stack's block i has
 * layer[0] self-attention q/k/v (d → heads·d_kv) and o (heads·d_kv → d)
 * without bias + T5LayerNorm (d), with relative_attention_bias
 * (buckets × heads) in block 0 only (has_relative_attention_bias=bool(i == 0));
 * decoder blocks add layer[1] cross-attention (same size, no relative bias)
 * + norm; the FF layer is wi (d → d_ff) and wo (d_ff → d), or wi_0, wi_1, wo
 * for gated activations, + norm; each stack ends with final_layer_norm (d).
 * T5ForConditionalGeneration adds lm_head (V × d) unless tied (v1.0 ties it).
 */
function t5Sizes(c: HfConfig, base: boolean, tied: boolean): ModuleSize[] {
  const d = req(c, 'hidden_size', 'd_model');
  const ff = req(c, 'intermediate_size', 'd_ff');
  const heads = req(c, 'num_attention_heads', 'num_heads');
  const Le = req(c, 'num_hidden_layers', 'num_layers');
  const Ld = num(c, 'num_decoder_layers') ?? Le;
  const dkv = num(c, 'd_kv') ?? 64;
  const buckets = num(c, 'relative_attention_num_buckets') ?? 32;
  const gated = String(c.feed_forward_proj ?? 'relu').startsWith('gated');
  const attn = 4 * d * heads * dkv;
  const ffn = (gated ? 2 : 1) * d * ff + ff * d;
  const out: ModuleSize[] = [{ name: 'shared', params: c.vocab_size * d }];
  for (let i = 0; i < Le; i++) out.push({ name: `encoder.block.${i}`, params: attn + d + ffn + d + (i === 0 ? buckets * heads : 0) });
  out.push({ name: 'encoder.final_layer_norm', params: d });
  for (let i = 0; i < Ld; i++) out.push({ name: `decoder.block.${i}`, params: 2 * (attn + d) + ffn + d + (i === 0 ? buckets * heads : 0) });
  out.push({ name: 'decoder.final_layer_norm', params: d });
  if (!base && !tied) out.push({ name: 'lm_head', params: c.vocab_size * d });
  return out;
}

/** The total parameter count, tied weights once. */
export function countParams(c: HfConfig, className?: string): number {
  return moduleSizes(c, className).reduce((a, m) => a + m.params, 0);
}

// ---------------------------------------------------------------------------
// Version-dependent loading behaviour (cost-facts §6.3).

/** Compares a version string with major.minor; NaN when it cannot be parsed. */
function vcmp(v: string, major: number, minor: number): number {
  const m = /^\s*v?(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) return Number.NaN;
  const a = Number(m[1]);
  const b = m[2] === undefined ? 0 : Number(m[2]);
  return a !== major ? a - major : b - minor;
}

/**
 * What `from_pretrained` loads without a dtype: float32 through 4.x ("Under
 * Pytorch a model normally gets instantiated with torch.float32 format",
 * transformers docs/source/en/main_classes/model.md; trl#4770: "With
 * transformers<=4.57 ... float32 by default"), the checkpoint's dtype
 * ('auto') from 5.0 (huggingface/transformers#42805 "Default auto").
 * 'unknown' when the version is not pinned or cannot be read.
 */
export function defaultLoadDType(version?: string): 'float32' | 'auto' | 'unknown' {
  if (!version) return 'unknown';
  const c = vcmp(version, 5, 0);
  if (Number.isNaN(c)) return 'unknown';
  return c >= 0 ? 'auto' : 'float32';
}

/**
 * The keyword to suggest: `dtype` from 4.56 (transformers#39782 deprecated
 * `torch_dtype`), `torch_dtype` before and when the version is unknown
 * (older versions reject `dtype`, newer ones still accept `torch_dtype`).
 */
export function dtypeKeyword(version?: string): 'dtype' | 'torch_dtype' {
  if (!version) return 'torch_dtype';
  const c = vcmp(version, 4, 56);
  return !Number.isNaN(c) && c >= 0 ? 'dtype' : 'torch_dtype';
}
