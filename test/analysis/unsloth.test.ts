// unsloth's FastLanguageModel (frameworks/unsloth/semantics.ts): what its from_pretrained and get_peft_model do is
// transformers + bitsandbytes + peft with the arguments unsloth's own code passes (nf4 double-quant 4-bit in the
// device's 16-bit dtype; LoRA r=16 on the seven projections). The same tiny model is loaded and wrapped that way
// by the real libraries (test/python/peft_truth.py); oomlens reads only the config.json and the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const LLAMA = { model_type: 'llama', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96 };
const TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

async function run(script: string, device: string, config?: Record<string, unknown>) {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-unsloth-'));
  try {
    if (config) {
      mkdirSync(join(root, 'ckpt'));
      writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(config));
    }
    return await analyze(script, { path: join(root, 'train.py'), device, versions: { transformers: '4.45.0' } });
  } finally { rmSync(root, { recursive: true, force: true }); }
}

const script = (maxSeq: number, peft = 'model = FastLanguageModel.get_peft_model(model)') => `from unsloth import FastLanguageModel
from trl import SFTTrainer
from transformers import TrainingArguments
model, tokenizer = FastLanguageModel.from_pretrained(model_name="./ckpt", max_seq_length=${maxSeq}, dtype=None, load_in_4bit=True)
${peft}
trainer = SFTTrainer(model=model, tokenizer=tokenizer, train_dataset=None, max_seq_length=${maxSeq},
                     args=TrainingArguments(per_device_train_batch_size=2, output_dir="outputs"))
trainer.train()
`;

test('FastLanguageModel 4-bit load and default LoRA equal bitsandbytes + peft with unsloth\'s arguments (bfloat16 card, float16 card)', async () => {
  for (const [device, dtype] of [['a100-40gb', 'bfloat16'], ['t4', 'float16']] as const) {
    const [t] = runPythonJson<{ trainable: number; adapter_dtypes: string[]; weight_bytes: number }[]>('peft_truth.py', [{
      config: LLAMA, dtype,
      quant: { load_in_4bit: true, bnb_4bit_use_double_quant: true, bnb_4bit_quant_type: 'nf4', bnb_4bit_compute_dtype: dtype },
      lora: { r: 16, target_modules: TARGETS, lora_alpha: 16, lora_dropout: 0, bias: 'none' },
    }]);
    const r = await run(script(16), device, LLAMA);
    assert.equal(r.models.length, 1, r.models.map((m) => m.facts.name).join());
    const m = r.models[0];
    assert.equal(m.estimate.phases.find((p) => p.phase === 'load')!.peakBytes, t.weight_bytes, device);
    const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
    const adapters = tr.breakdown.filter((b) => /^LoRA adapters \(float32\)/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
    assert.equal(adapters / 4, t.trainable, device);
    assert.deepEqual(t.adapter_dtypes, ['float32']);
    assert.ok(m.facts.params.some((p) => p.dtype === dtype), `${device}: the unquantised modules load in ${dtype}`);
  }
});

test('use_gradient_checkpointing="unsloth" keeps each layer\'s input on the host at max_seq_length ≥ 512, on the device below', async () => {
  // The device bytes the layer activations add in the training timeline (e·s·b·h per layer with checkpointing).
  const onDevice = (r: Awaited<ReturnType<typeof run>>) => {
    const tl = r.models[0].estimate.phases.find((p) => p.phase === 'training')!.timeline;
    const i = tl.findIndex((e) => /^\+ activations saved for backward/.test(e.label));
    assert.ok(i > 0, JSON.stringify(tl.map((e) => e.label)));
    return (tl[i].liveBytes ?? NaN) - (tl[i - 1].liveBytes ?? NaN);
  };
  const long = onDevice(await run(script(1024), 'a100-40gb', LLAMA));
  assert.equal(long, 0);
  const short = onDevice(await run(script(256), 'a100-40gb', LLAMA));
  assert.equal(short, 2 * 2 * 256 * 2 * 64); // 2 layers × bfloat16 × s·b·h
  const off = await run(script(1024, 'model = FastLanguageModel.get_peft_model(model, use_gradient_checkpointing=False)'), 'a100-40gb', LLAMA);
  assert.ok(!off.models[0].estimate.phases.find((p) => p.phase === 'training')!.notes.some((n) => /gradient checkpointing/.test(n)));
});

test('unsloth re-uploads resolve to the checkpoint they copy; a -bnb-4bit copy loads 4-bit through plain transformers too', async () => {
  const viaUnsloth = await run(`from unsloth import FastLanguageModel
model, tok = FastLanguageModel.from_pretrained("unsloth/llama-3-8b-bnb-4bit", max_seq_length=2048, load_in_4bit=True)
`, 'a100-40gb');
  const viaHf = await run(`import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("unsloth/llama-3-8b-bnb-4bit", torch_dtype=torch.bfloat16)
`, 'a100-40gb');
  const orig = await run(`import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype=torch.bfloat16)
`, 'a100-40gb');
  const load = (r: Awaited<ReturnType<typeof run>>): number => r.models[0].estimate.phases.find((p) => p.phase === "load")!.peakBytes ?? NaN;
  // Meta-Llama-3-8B: 8,030,261,248 parameters (huggingface.co/meta-llama/Meta-Llama-3-8B).
  for (const r of [viaUnsloth, viaHf, orig]) assert.equal(r.models[0].facts.paramCount, 8_030_261_248);
  assert.equal(load(viaUnsloth), load(viaHf));
  assert.ok(load(viaHf) < load(orig) / 2.5, `4-bit ${load(viaHf)} vs bfloat16 ${load(orig)}`);
  // A dynamic quant: its 16-bit layers are not listed, so the bytes are a lower bound.
  const dyn = await run(`from unsloth import FastLanguageModel
model, tok = FastLanguageModel.from_pretrained("unsloth/Qwen2.5-7B-Instruct-unsloth-bnb-4bit", load_in_4bit=True)
`, 'a100-40gb');
  assert.ok(dyn.models[0].facts.unknowns.some((u) => /dynamic 4-bit quant/.test(u.reason)));
});

test('a model name unsloth cannot be read from is an unknown, not silence', async () => {
  const r = await run(`import sys
from unsloth import FastLanguageModel
model, tok = FastLanguageModel.from_pretrained(model_name=sys.argv[1], load_in_4bit=True)
`, 't4');
  assert.ok([...r.unknowns, ...r.models.flatMap((m) => m.facts.unknowns)].some((u) => /FastLanguageModel\.from_pretrained|not known/.test(u.reason)), JSON.stringify(r.unknowns));
});

// unsloth's own notebooks fine-tune Gemma-2-9B and Qwen2.5-7B on a free T4 (unslothai/notebooks nb/*-Alpaca.ipynb):
// counted the transformers way, their float32 logits and loss gradients alone made a false OOM001 on the T4.
test('an unsloth model\'s training has no vocabulary-sized logits: the fused cross-entropy is an unknown', async () => {
  const r = await run(script(1024), 't4', LLAMA);
  const tr = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
  assert.ok(!tr.breakdown.some((b) => /logits|log-probs|cross-entropy/.test(b.label)), JSON.stringify(tr.breakdown.map((b) => b.label)));
  assert.ok(tr.unknowns.some((u) => /unsloth_fused_ce_loss/.test(u.reason)));
  assert.equal(tr.fits, null);
});

test('FastVisionModel: a checkpoint outside the table is a model of unknown size, not "no model found"', async () => {
  const r = await run(`from unsloth import FastVisionModel
model, tokenizer = FastVisionModel.from_pretrained("unsloth/Qwen2-VL-7B-Instruct", load_in_4bit=True)
model = FastVisionModel.get_peft_model(model, r=16)
`, 't4');
  assert.equal(r.models.length, 1);
  assert.equal(r.models[0].facts.paramCount, null);
  assert.ok(r.models[0].estimate.phases.every((p) => p.fits === null));
});
