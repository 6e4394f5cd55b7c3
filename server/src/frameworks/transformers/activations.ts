/**
 * MLP activations that transformers writes in Python, so that autograd and the
 * no-grad forward see every intermediate as its own tensor.
 *
 * The families whose MLP is fc → ACT2FN[act] → proj (modeling_gpt2.py GPT2MLP,
 * modeling_gpt_neo.py GPTNeoMLP, modeling_gptj.py GPTJMLP, modeling_phi.py
 * PhiMLP; transformers v5.23) with `act` = "gelu_new" run NewGELUActivation
 * (activations.py):
 *   0.5 * input * (1.0 + torch.tanh(c * (input + 0.044715 * torch.pow(input, 3.0))))
 * - Training (what autograd saves, tools/autograd/derivatives.yaml): pow saves its
 *   input (the GeLU input the transformer formula already counts), tanh its result,
 *   and the final tensor × tensor mul both factors (`0.5 * input`, `1.0 + tanh`);
 *   scalar mul / add save nothing: 3 inner-sized tensors more than a fused GeLU.
 * - No-grad forward (temporaries freed when unreferenced): `0.5 * input` is made
 *   first and lives to the end, and each op of the right factor has its operand
 *   and result alive: input, 0.5·input, operand, result = 4 inner-sized tensors
 *   at once, 2 more than a fused GeLU's input and output.
 * Fused activations (gelu, gelu_pytorch_tanh, relu, silu) return undefined.
 */
const FAMILIES: Record<string, { act: string; inner: string[] }> = {
  gpt2: { act: 'activation_function', inner: ['n_inner'] },
  gpt_neo: { act: 'activation_function', inner: ['intermediate_size'] },
  gptj: { act: 'activation_function', inner: ['n_inner'] },
  phi: { act: 'hidden_act', inner: ['intermediate_size'] },
};

export interface PythonActivation { name: string; inner: number; savedExtra: number; liveExtra: number; citation: string }

/** The config's MLP activation when it is a Python one (config fields read as given; may throw on an unknown field). */
export function pythonActivation(c: Record<string, unknown>, hidden: number): PythonActivation | undefined {
  const f = FAMILIES[String(c.model_type)];
  if (!f || c[f.act] !== 'gelu_new') return undefined;
  const inner = f.inner.map((k) => c[k]).find((x): x is number => typeof x === 'number') ?? 4 * hidden;
  return {
    name: 'NewGELUActivation (gelu_new)', inner, savedExtra: 3, liveExtra: 2,
    citation: 'transformers activations.py NewGELUActivation (v5.23); tools/autograd/derivatives.yaml pow.Tensor_Scalar (self), tanh (result), mul.Tensor (self, other)',
  };
}

/**
 * Hidden-sized tensors a family's base-model forward keeps in local variables while its blocks run:
 * modeling_gpt2.py GPT2Model.forward (v5.23) holds `inputs_embeds = self.wte(input_ids)` and
 * `position_embeds = self.wpe(position_ids)` until it returns, besides `hidden_states = inputs_embeds + position_embeds`.
 */
export function heldHidden(c: { model_type?: unknown }): number {
  return c.model_type === 'gpt2' ? 2 : 0;
}

/**
 * Hidden-sized copies a family's training forward keeps besides what the transformer formula counts, when the
 * forward builds a KV cache (config `use_cache`, true by default; transformers turns it off under gradient
 * checkpointing in training). From transformers 4.56 every cache layer starts empty and `update` concatenates
 * (cache_utils.py DynamicLayer.lazy_initialization: `torch.tensor([])`, then `torch.cat([self.keys, key_states])`;
 * huggingface/transformers#39797, "all caches are initialized lazily"), so the keys and values attention reads
 * are new tensors. GPT-2 splits one fused projection into views (modeling_gpt2.py GPT2Attention.forward:
 * `self.c_attn(hidden_states).split(self.split_size, dim=2)`, v5.23): the query view keeps the whole
 * [b, s, 3h] projection alive for the attention's backward, so the key and value copies come on top
 * (2·b·s·h per layer). Models with separate, rotated projections (Llama) save the copies instead of the
 * rotated keys and the projected values, which are then freed: nothing on top.
 */
export function trainingCacheCopies(c: { model_type?: unknown; use_cache?: unknown }): { hiddenCopies: number; citation: string } | undefined {
  if (c.model_type !== 'gpt2' || c.use_cache === false) return undefined;
  return { hiddenCopies: 2, citation: 'transformers cache_utils.py DynamicLayer.update (lazy_initialization + torch.cat, from 4.56: huggingface/transformers#39797); modeling_gpt2.py GPT2Attention.forward (c_attn(...).split); tools/autograd/derivatives.yaml _scaled_dot_product_*_attention (query, key, value)' };
}

/**
 * Llama-family decoder layers (modeling_llama.py LlamaDecoderLayer, LlamaMLP, LlamaRMSNorm; MistralMLP /
 * MistralRMSNorm and Qwen2MLP / Qwen2RMSNorm are the same code; transformers v5.23) keep more per token than the
 * GPT block of the transformer formula (Korthikanti et al.: per layer two LayerNorm inputs, the attention's and the
 * MLP's input, a 4h GeLU input and its output), by what autograd saves (tools/autograd/derivatives.yaml):
 * - the gated MLP `down_proj(act_fn(gate_proj(x)) * up_proj(x))`: silu saves its input (gate's output), the
 *   product both factors (silu's output, up's output), down_proj its input (the product): 4 × intermediate_size per
 *   token in the compute dtype, where the formula counts 2 × 4h;
 * - each RMSNorm (two per layer) `weight * (x.to(float32) * rsqrt(mean(x²) + eps)).to(dtype)`: pow and mul save
 *   the float32 copy (4 B), the weight's mul the cast-back normalised tensor, and the next projection the result;
 *   in float32, the input, the normalised tensor and the result: 4 B per element more than the formula's input and
 *   output either way.
 * Extra bytes per token and layer: (4·i − 8·h)·e + 2 · 4·h. Measured (test/truth llama7b_*_fake, FakeTensorMode):
 * 22.75 × 2·h B per token per layer in bfloat16 with i = 11008, h = 4096, against the formula's 16 × 2·h.
 * Not for autocast (the residual stream and the norms' dtypes differ) nor checkpointing (only layer inputs kept).
 */
const LLAMA_BLOCKS = new Set(['llama', 'mistral', 'qwen2']);

export function llamaBlockExtra(c: Record<string, unknown>, hidden: number, e: number): { bytesPerToken: number; formula: string; citation: string } | undefined {
  if (!LLAMA_BLOCKS.has(String(c.model_type))) return undefined;
  const i = c.intermediate_size;
  if (typeof i !== 'number' || c.hidden_act !== 'silu') return undefined;
  const bytesPerToken = (4 * i - 8 * hidden) * e + 8 * hidden;
  return {
    bytesPerToken,
    formula: `(4·${i} − 8·${hidden})·${e} B (gated MLP: gate, up, silu, product) + 2 × 4·${hidden} B (RMSNorm's float32 copy) per token per layer`,
    citation: 'transformers models/llama/modeling_llama.py LlamaMLP.forward, LlamaRMSNorm.forward (v5.23); tools/autograd/derivatives.yaml silu (self), mul.Tensor (self, other), mm (self), pow.Tensor_Scalar (self)',
  };
}
