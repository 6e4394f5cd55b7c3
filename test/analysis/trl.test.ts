// trl's SFT script shape (TrlParser over trl's own dataclasses, SFTTrainer loading the model from its id,
// get_peft_config from --use_peft): run as its command line says, the LoRA adapters equal what peft itself
// makes on the same model (test/python/peft_truth.py builds it with transformers + peft on the CPU).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const QWEN = { model_type: 'qwen2', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96, tie_word_embeddings: true, torch_dtype: 'bfloat16' };

const SCRIPT = `import argparse
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser, get_peft_config, get_quantization_config

def main(script_args, training_args, model_args):
    trainer = SFTTrainer(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=None,
        quantization_config=get_quantization_config(model_args),
        peft_config=get_peft_config(model_args),
    )
    trainer.train()

if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
    main(script_args, training_args, model_args)
`;

async function run(command: string, config?: string) {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-trl-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(QWEN));
    writeFileSync(join(root, 'pyproject.toml'), `[[tool.oomlens.runs]]\ncommand = "${command}"\n`);
    if (config) writeFileSync(join(root, 'sft.yaml'), config);
    writeFileSync(join(root, 'sft.py'), SCRIPT);
    const r = await analyze(SCRIPT, { path: join(root, 'sft.py'), device: 'a100-40gb', versions: { transformers: '4.56.0' } });
    return r.models[0];
  } finally { rmSync(root, { recursive: true, force: true }); }
}

test('trl sft: --use_peft --lora_r 8 gives peft\'s own adapter count; the model loads float32 (SFTTrainer\'s default)', async () => {
  const [truth] = runPythonJson<{ trainable: number }[]>('peft_truth.py', [{ config: QWEN, lora: { r: 8, lora_alpha: 32, task_type: 'CAUSAL_LM' }, dtype: 'float32' }]);
  const m = await run('python sft.py --model_name_or_path ./ckpt --use_peft --lora_r 8 --per_device_train_batch_size 2 --max_length 128 --output_dir out');
  assert.equal(m.run, 'args from pyproject.toml:1');
  assert.deepEqual(Object.keys(m.estimate.bytesByDtype), ['float32']);
  const p = m.estimate.phases.find((x) => x.phase === 'training')!;
  const adapters = p.breakdown.filter((c) => /^LoRA adapters \(float32\)/.test(c.label)).reduce((a, c) => a + c.bytes, 0) / 4;
  assert.equal(adapters, truth.trainable);
  assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
});

test('trl sft: a --config YAML gives defaults the command line overrides; without --use_peft the whole model trains', async () => {
  const m = await run('python sft.py --config sft.yaml --per_device_train_batch_size 4', 'model_name_or_path: ./ckpt\nper_device_train_batch_size: 1\nmax_length: 64\noutput_dir: out\n');
  const p = m.estimate.phases.find((x) => x.phase === 'training')!;
  assert.ok(p.notes.some((n) => /per-device batch 4 × sequence 64/.test(n)), JSON.stringify(p.notes));
  assert.equal(p.breakdown.filter((c) => /^LoRA/.test(c.label)).length, 0);
  assert.ok(p.breakdown.some((c) => /^optimizer state/.test(c.label)));
});

// SFTTrainer(model=<a loaded model>, peft_config=LoraConfig(...)) (trl sft_trainer.py: get_peft_model when the model is
// not a PeftModel yet): the adapters were applied only when the model was given by name, so a model object trained in
// full ("65.8 GB fits" for a LoRA run of Llama-3-8B). peft's own adapter count on the same model.
test('trl sft: a model object with peft_config trains only the adapters peft makes', async () => {
  const [truth] = runPythonJson<{ trainable: number }[]>('peft_truth.py', [{ config: QWEN, lora: { r: 8, lora_alpha: 16, target_modules: ['q_proj', 'v_proj'], task_type: 'CAUSAL_LM' }, dtype: 'bfloat16' }]);
  const root = mkdtempSync(join(tmpdir(), 'oomlens-trl-obj-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(QWEN));
    const text = `import torch
from transformers import AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer
from peft import LoraConfig

model = AutoModelForCausalLM.from_pretrained("./ckpt", torch_dtype=torch.bfloat16)
trainer = SFTTrainer(model=model, args=SFTConfig(output_dir="o", per_device_train_batch_size=2, max_length=128),
                     train_dataset=None, peft_config=LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
trainer.train()
`;
    writeFileSync(join(root, 'sft.py'), text);
    const r = await analyze(text, { path: join(root, 'sft.py'), device: 'a100-40gb', versions: { transformers: '4.56.0' } });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    const adapters = p.breakdown.filter((c) => /^LoRA adapters/.test(c.label)).reduce((a, c) => a + c.bytes, 0) / 4;
    assert.equal(adapters, truth.trainable);
    assert.ok(!p.breakdown.some((c) => /^gradients/.test(c.label) && c.bytes > truth.trainable * 4), JSON.stringify(p.breakdown.map((c) => [c.label, c.bytes])));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// trl DPOTrainer (helper rounds 10 and 11: trl#1024, trl#3168 had "load fits" and no training phase): the policy
// trains on the chosen and rejected completions together (twice the batch); without adapters the reference model is
// a frozen copy on the device (trl modeling_base.py create_reference_model: deepcopy); with peft_config the reference
// is the policy with its adapters disabled (no copy). The DPO loss itself is an unknown of the phase.
test('trl dpo: a training phase; the reference copy on the device without adapters, none with them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-dpo-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(QWEN));
    const program = (peft: string) => `import torch
from transformers import AutoModelForCausalLM
from trl import DPOConfig, DPOTrainer
from peft import LoraConfig

model = AutoModelForCausalLM.from_pretrained("./ckpt", torch_dtype=torch.float32)
trainer = DPOTrainer(model=model, args=DPOConfig(output_dir="o", per_device_train_batch_size=2, max_length=128),
                     train_dataset=None${peft})
trainer.train()
`;
    const run = async (peft: string) => {
      const text = program(peft);
      writeFileSync(join(root, 'dpo.py'), text);
      const r = await analyze(text, { path: join(root, 'dpo.py'), device: 'a100-40gb', versions: { transformers: '4.56.0' } });
      return r.models[0];
    };
    const full = await run('');
    const weights = full.facts.paramCount! * 4;
    const tr = full.estimate.phases.find((p) => p.phase === 'training')!;
    assert.ok(tr, 'a training phase');
    assert.equal(tr.breakdown.filter((b) => /^another module on the device/.test(b.label)).reduce((a, b) => a + b.bytes, 0), weights);
    assert.ok(tr.notes.some((n) => /per-device batch 4 × sequence 128/.test(n)), JSON.stringify(tr.notes));
    assert.equal(tr.fits, null, 'the DPO loss is an unknown of the phase');
    const lora = await run(', peft_config=LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")');
    const trl = lora.estimate.phases.find((p) => p.phase === 'training')!;
    assert.equal(trl.breakdown.filter((b) => /^another module on the device/.test(b.label)).length, 0);
    assert.ok(trl.breakdown.some((b) => /^LoRA adapters/.test(b.label)));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// `model, tokenizer = setup_chat_format(model, tokenizer)` then, later, `model = from_pretrained("./out")` for
// inference (philschmid's TRL notebooks): the SFT training phase of the first model vanished. setup_chat_format
// returns the same model, its embeddings grown by rows oomlens does not count (an unknown, not a smaller number).
test('trl setup_chat_format returns the model it was given; the vocabulary it adds is an unknown', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-chatfmt-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(QWEN));
    const text = `import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer, setup_chat_format

model = AutoModelForCausalLM.from_pretrained("./ckpt", torch_dtype=torch.bfloat16)
tokenizer = AutoTokenizer.from_pretrained("./ckpt")
model, tokenizer = setup_chat_format(model, tokenizer)
trainer = SFTTrainer(model=model, args=SFTConfig(output_dir="o", per_device_train_batch_size=2, max_length=64), train_dataset=None)
trainer.train()

model = AutoModelForCausalLM.from_pretrained("./ckpt", torch_dtype=torch.float16)
`;
    writeFileSync(join(root, 'sft.py'), text);
    const r = await analyze(text, { path: join(root, 'sft.py'), device: 'a100-40gb', versions: { transformers: '4.56.0' } });
    const first = r.models[0];
    assert.ok(first.estimate.phases.some((p) => p.phase === 'training'), 'the first model keeps its training phase');
    assert.equal(first.facts.paramCount, null);
    assert.ok(first.facts.unknowns.some((u) => /setup_chat_format/.test(u.reason)));
  } finally { rmSync(root, { recursive: true, force: true }); }
});
