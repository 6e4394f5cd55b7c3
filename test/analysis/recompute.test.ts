// Full activation checkpointing re-runs one layer's forward with autograd on in the backward
// (torch/utils/checkpoint.py): that layer's saved set, and with eager attention its softmax backward's two
// [b, heads, s, s] gradients, exist for a moment beside the kept layer inputs. A QLoRA Llama-2-7B at batch 4 × 2048
// under transformers 4.31 (eager attention) ran out of memory on a T4 asking for exactly that softmax's 2 GiB
// (edumunozsala/llama-2-7B-4bit-python-coder, docs/accuracy.md); oomlens had said "10.9 GB fits".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const SRC = `import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments
from peft import LoraConfig
from trl import SFTTrainer

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("NousResearch/Llama-2-7b-hf", quantization_config=bnb, use_cache=False, device_map="auto")
args = TrainingArguments("out", per_device_train_batch_size=4, gradient_checkpointing=True, fp16=True, optim="paged_adamw_32bit")
trainer = SFTTrainer(model=model, train_dataset=None, peft_config=LoraConfig(r=64, lora_alpha=16, task_type="CAUSAL_LM"),
                     max_seq_length=2048, packing=True, args=args)
trainer.train()
`;

test('checkpointing: one recomputed layer and, with eager attention, its float32 softmax backward are in the step', async () => {
  const r = await analyze(SRC, { device: 't4', versions: { transformers: '4.31.0', peft: '0.4.0', trl: '0.4.7' } });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const t = p.breakdown.find((b) => /one layer recomputed/.test(b.label));
  assert.ok(t, JSON.stringify(p.breakdown.map((b) => b.label)));
  // The softmax backward alone: 2 × 4 · 32 heads · 2048² · 4 B = 4,294,967,296 B.
  assert.ok(t.bytes > 2 * 4 * 32 * 2048 * 2048 * 4, String(t.bytes));
  assert.equal(p.fits, false);
  // With SDPA (a current transformers), no [b, heads, s, s] is made: the transient is the layer's saved set only.
  const sdpa = await analyze(SRC, { device: 't4', versions: { transformers: '4.45.0', peft: '0.13.0', trl: '0.11.0' } });
  const q = sdpa.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const u = q.breakdown.find((b) => /one layer recomputed/.test(b.label));
  assert.ok(!u || u.bytes < 2 * 4 * 32 * 2048 * 2048 * 4, String(u?.bytes));
});
