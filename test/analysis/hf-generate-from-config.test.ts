// generate() and a training step of a transformers model built from a config
// written in the program: the last-position logits of generate() from
// transformers 5 for every causal-LM family, and the intermediates of an MLP
// activation written in Python (GPT-2's gelu_new) in the saved activations
// and in the no-grad forward's working memory. The measured peaks of the same
// programs are in test/truth (hf_generate, hf_gpt2_train, hf_gpt2_lora).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { KNOWN_MODEL_TYPES } from '../../server/src/frameworks/transformers/catalog';
import { runPythonJson } from '../python/venv';

test('transformers 5: every causal-LM family oomlens sizes takes logits_to_keep (generate asks for the last position only)', () => {
  const causal = KNOWN_MODEL_TYPES.filter((t) => !['bert', 'roberta', 't5', 'deberta-v2', 'bart', 'whisper', 'vit', 'clip', 'clip_text_model'].includes(t));
  const r = runPythonJson<Record<string, boolean | string>>('hf_logits_to_keep.py', causal);
  const no = causal.filter((t) => r[t] !== true).map((t) => `${t}: ${r[t]}`);
  assert.deepEqual(no, []);
});

const program = (act: string, step: string) => `import torch
from transformers import GPT2Config, GPT2LMHeadModel
config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4${act})
model = GPT2LMHeadModel(config)
${step}
`;
const TRAIN = `optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randint(0, 8192, (4, 128))
for _ in range(2):
    out = model(input_ids=x, labels=x)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()`;
const GEN = `model.eval()
x = torch.randint(0, 8192, (4, 32))
out = model.generate(x, max_new_tokens=64, do_sample=False)`;

async function phase(src: string, name: string) {
  const r = await analyze(src, { device: 'a100-80gb' });
  const p = r.models[0].estimate.phases.find((q) => q.phase === name);
  assert.ok(p, name);
  return p;
}

test('training a GPT2LMHeadModel(config): gelu_new keeps three inner-sized tensors more per layer than a fused gelu', async () => {
  const py = await phase(program('', TRAIN), 'training');
  const fused = await phase(program(', activation_function="gelu"', TRAIN), 'training');
  const extra = py.breakdown.find((b) => /NewGELUActivation/.test(b.label));
  assert.ok(extra, 'gelu_new intermediates listed');
  assert.equal(extra.bytes, 3 * 4 * 128 * 1024 * 4 * 4); // 3 · b·s·inner · 4 B · 4 layers
  assert.ok(!fused.breakdown.some((b) => /NewGELUActivation/.test(b.label)));
  assert.equal(py.peakBytes! - fused.peakBytes!, extra.bytes);
  // Built in the program, the model is in training mode (dropout on) without a model.train() call.
  assert.ok(!py.notes?.some((n) => /eval mode/.test(n)));
});

test('generate() on a GPT2LMHeadModel(config): the prompt cache and the prefill with the last position\'s logits', async () => {
  const p = await phase(program('', GEN), 'inference');
  const kv = p.breakdown.find((b) => /^KV cache/.test(b.label));
  // At the prefill: 2 (k, v) × 4 layers × 4 × 32 positions × 256 × 4 B.
  assert.equal(kv?.bytes, 2 * 4 * 4 * 32 * 256 * 4);
  const prefill = p.breakdown.find((b) => /^prefill forward/.test(b.label));
  // residual (+ the two embeddings GPT2Model.forward holds) 3·128·256·4 B + MLP 128·(256 + 4·1024)·4 B (gelu_new).
  assert.equal(prefill?.bytes, 3 * 128 * 256 * 4 + 128 * (256 + 4 * 1024) * 4);
});

test('generate() on a LlamaForCausalLM(LlamaConfig(...)) with grouped KV heads: the cache uses num_key_value_heads', async () => {
  const src = `import torch
from transformers import LlamaConfig, LlamaForCausalLM
config = LlamaConfig(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=8, num_key_value_heads=2)
model = LlamaForCausalLM(config)
model.eval()
x = torch.randint(0, 1000, (2, 16))
out = model.generate(x, max_new_tokens=48, do_sample=True, top_k=50)
`;
  const r = await analyze(src, { device: 'a100-80gb' });
  const p = r.models[0].estimate.phases.find((q) => q.phase === 'inference')!;
  const kv = p.breakdown.find((b) => /^KV cache/.test(b.label));
  // The peak is the prefill (its MLP working set is larger than a decode step's): the prompt's 16 positions
  // × 2 (k, v) × 3 layers × 2 KV heads × head_dim 32 (256 / 8) × batch 2 × 4 B (float32).
  assert.equal(kv?.bytes, 16 * 2 * 3 * 2 * 32 * 2 * 4);
});
