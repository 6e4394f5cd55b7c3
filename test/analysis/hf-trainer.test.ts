// transformers Trainer / trl SFTTrainer → a training phase read from the
// TrainingArguments: optimizer by `optim`, batch × sequence, checkpointing,
// mixed precision, FSDP over the target's devices; unknown optimizers stay unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { workspaceFor } from '../../server/src/program/workspace';

const P = 6_738_415_616; // Llama-2-7B (test/catalog/transformers.test.ts)
const src = (args: string, extra = '') => `import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments
from trl import SFTTrainer, SFTConfig
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
enc = tok(["hello"], padding="max_length", max_length=512)
args = TrainingArguments(output_dir="out", ${args})
trainer = Trainer(model=model, args=args${extra})
trainer.train()
`;

async function training(text: string, device = 'a100-80gb') {
  const r = await analyze(text, { device, versions: { transformers: '4.45.0' } });
  const m = r.models.find((x) => x.facts.name === 'meta-llama/Llama-2-7b-hf')!;
  const p = m.estimate.phases.find((x) => x.phase === 'training');
  return { r, m, p };
}

test('Trainer: AdamW state (2 × params × 2 B in bf16), gradients, activations at batch 4 × 512', async () => {
  const { p } = await training(src('per_device_train_batch_size=4, bf16=True'));
  assert.ok(p, 'no training phase');
  const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.equal(part(/^optimizer state/), 2 * P * 2);
  assert.equal(part(/^gradients/), P * 2);
  // transformers 4.45's default optim="adamw_torch" is torch's AdamW, foreach on CUDA: the step's square roots of
  // exp_avg_sq for every parameter (P × 2 B) are the peak, after the backward released the activations
  assert.equal(part(/^optimizer step temporaries/), P * 2);
  assert.equal(part(/^activations/), 0);
  assert.equal(p.fits, true);
  // optim="adamw_torch_fused" (the default from transformers 4.54 with torch ≥ 2.8) updates in place: the peak is in the backward
  const fused = (await training(src('per_device_train_batch_size=4, bf16=True, optim="adamw_torch_fused"'))).p!;
  assert.equal(fused.breakdown.filter((c) => /^optimizer step temporaries/.test(c.label)).length, 0);
  assert.ok(fused.breakdown.filter((c) => /^activations/.test(c.label)).reduce((a, c) => a + c.bytes, 0) > 0);
  assert.ok(fused.peakBytes! < p.peakBytes!);
});

test('Trainer: gradient checkpointing shrinks activations; 8-bit AdamW is 2 bytes per parameter', async () => {
  // batch 16, so that the start of the backward (every activation saved) is the peak without checkpointing, not its
  // end (every gradient, the first layer's activations)
  const full = (await training(src('per_device_train_batch_size=16, bf16=True, optim="adamw_torch_fused"'))).p!;
  const ck = (await training(src('per_device_train_batch_size=16, bf16=True, optim="adamw_torch_fused", gradient_checkpointing=True'))).p!;
  const act = (p: typeof full) => p.breakdown.filter((c) => /^activations/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.ok(act(ck) < act(full) / 10, `${act(ck)} vs ${act(full)}`);
  const o8 = (await training(src('per_device_train_batch_size=4, bf16=True, optim="adamw_bnb_8bit"'))).p!;
  assert.equal(o8.breakdown.filter((c) => /^optimizer state/.test(c.label)).reduce((a, c) => a + c.bytes, 0), 2 * P);
});

test('Trainer with fsdp="full_shard" on 8 devices divides parameters, gradients and optimizer state', async () => {
  const p = (await training(src('per_device_train_batch_size=4, bf16=True, fsdp="full_shard"'), '8xa100-80gb')).p!;
  const opt = p.breakdown.filter((c) => /^optimizer state/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.equal(opt, (2 * P * 2) / 8);
});

test('an optimizer oomlens does not model is unknown: the phase never says it fits', async () => {
  const p = (await training(src('per_device_train_batch_size=1, bf16=True, optim="lion_32bit"'))).p!;
  assert.notEqual(p.fits, true);
  assert.equal(p.peakIsLowerBound, true);
  assert.ok(p.unknowns.some((u) => /lion_32bit/.test(u.reason)));
});

test('SFTTrainer without a length uses trl\'s default max_length 1024', async () => {
  const text = src('per_device_train_batch_size=2, bf16=True').replace('trainer = Trainer(model=model, args=args)', 'trainer = SFTTrainer(model=model, args=SFTConfig(output_dir="o", per_device_train_batch_size=2, bf16=True))').replace(/enc = tok.*\n/, '');
  const p = (await training(text)).p!;
  assert.ok(p.notes.some((n) => /batch 2 × sequence 1024/.test(n)), p.notes.join('\n'));
});

// The shape of the most copied LoRA fine-tuning scripts: 8-bit load, the older peft preparation,
// tokenization inside a dataset.map function whose max_length comes from a parameter.
const lora8 = (prep: string, maxLen: string) => `import torch
from datasets import load_dataset
from peft import LoraConfig, get_peft_model, ${prep}
from transformers import LlamaForCausalLM, LlamaTokenizer, Trainer, TrainingArguments

def train(base_model="meta-llama/Llama-2-7b-hf", cutoff_len=${maxLen}, micro_batch_size=4):
    model = LlamaForCausalLM.from_pretrained(base_model, load_in_8bit=True, torch_dtype=torch.float16)
    tokenizer = LlamaTokenizer.from_pretrained(base_model)

    def tokenize(example):
        return tokenizer(example["text"], truncation=True, max_length=cutoff_len, padding=False)

    model = ${prep}(model)
    model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
    data = load_dataset("json", data_files="data.json")
    train_data = data["train"].shuffle().map(tokenize)
    trainer = Trainer(model=model, train_dataset=train_data, args=TrainingArguments(output_dir="o", per_device_train_batch_size=micro_batch_size, fp16=True))
    trainer.train()

train()
`;

test('8-bit LoRA with prepare_model_for_int8_training: only the adapters train; the map function\'s tokenizer bounds the sequence', async () => {
  for (const prep of ['prepare_model_for_int8_training', 'prepare_model_for_kbit_training']) {
    const r = await analyze(lora8(prep, '256'), { device: 'a10g', versions: { transformers: '4.30.0' } });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    // r=8 on q_proj and v_proj (4096 → 4096) in 32 layers: 32 × 2 × (8·4096 + 4096·8) = 4,194,304 float32 adapter parameters.
    assert.equal(part(/^LoRA adapters/), 4_194_304 * 4, prep);
    assert.equal(part(/^optimizer state/), 2 * 4_194_304 * 4, prep);
    assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
    assert.ok(p.notes.some((n) => /sequence 256 \(tokenizer\(max_length=256, truncation=True\) in the program/.test(n)), JSON.stringify(p.notes));
    assert.equal(p.fits, true, prep);
  }
  // A bound the program does not fix (a parameter with no default value reaching max_length) stays unknown.
  const r = await analyze(lora8('prepare_model_for_int8_training', 'None'), { device: 'a10g', versions: { transformers: '4.30.0' } });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  assert.notEqual(p.fits, true);
});

test('a train script run by torchrun with HfArgumentParser flags: the program\'s TrainingArguments subclass, FSDP over the processes, the tokenizer length from the dataset\'s __getitem__', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-hfargs-'));
  const text = `from dataclasses import dataclass, field
import transformers
from torch.utils.data import Dataset

@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="facebook/opt-125m")

@dataclass
class TrainingArguments(transformers.TrainingArguments):
    optim: str = field(default="adamw_torch")
    model_max_length: int = field(default=512)

def preprocess(texts, tokenizer):
    return tokenizer(texts, padding="max_length", max_length=tokenizer.model_max_length, truncation=True)

class LazyDataset(Dataset):
    def __init__(self, raw, tokenizer):
        super().__init__()
        self.raw, self.tokenizer, self.cache = raw, tokenizer, {}
    def __getitem__(self, i):
        if i in self.cache:
            return self.cache[i]
        return preprocess([self.raw[i]["text"]], self.tokenizer)

def train():
    parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_args.model_name_or_path, model_max_length=training_args.model_max_length)
    trainer = transformers.Trainer(model=model, tokenizer=tokenizer, args=training_args, **dict(train_dataset=LazyDataset([], tokenizer)))
    trainer.train()

if __name__ == "__main__":
    train()
`;
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'train.py'), text);
    writeFileSync(join(root, 'run.sh'), `torchrun --nproc_per_node=4 train.py --model_name_or_path meta-llama/Llama-2-7b-hf \\\n  --bf16 True --output_dir out --per_device_train_batch_size 2 --gradient_accumulation_steps 16 \\\n  --fsdp "full_shard auto_wrap" --model_max_length 2048 --gradient_checkpointing True\n`);
    const r = await analyze(text, { path: join(root, 'train.py'), device: 'a100-40gb', versions: { transformers: '4.45.0' } });
    const m = r.models[0];
    assert.equal(m.facts.name, 'meta-llama/Llama-2-7b-hf');
    assert.equal(m.run, 'args from run.sh:1, torchrun ×4');
    const p = m.estimate.phases.find((x) => x.phase === 'training')!;
    assert.ok(p.notes.some((n) => /per-device batch 2 × sequence 2048 \(tokenizer\(max_length=2048, padding="max_length"\)/.test(n)), JSON.stringify(p.notes));
    assert.ok(p.notes.some((n) => /gradient_accumulation_steps=16/.test(n)));
    const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    // float32 weights (no torch_dtype), AdamW: 2 × 4 B per parameter, all divided over the 4 processes by FSDP full_shard.
    assert.equal(part(/^optimizer state/), (2 * P * 4) / 4);
    assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('the program\'s subclasses of a transformers model and of Trainer; a deepspeed JSON file; deepspeed without a process count', async () => {
  const { mkdtempSync, writeFileSync, rmSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-sub-'));
  const text = `import torch
import torch.nn as nn
import transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments

class VisionLlama(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.projector = nn.Linear(1024, config.hidden_size)

class MyTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        return super().compute_loss(model, inputs, return_outputs)

model = VisionLlama.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, max_length=512, bf16=True, deepspeed="configs/zero3.json")
MyTrainer(model=model, args=args).train()
`;
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    mkdirSync(join(root, 'configs'));
    writeFileSync(join(root, 'configs', 'zero3.json'), JSON.stringify({ zero_optimization: { stage: 3, overlap_comm: true }, train_micro_batch_size_per_gpu: 'auto' }));
    writeFileSync(join(root, 'train.py'), text);
    const go = async (device: string) => {
      const r = await analyze(text, { path: join(root, 'train.py'), device, versions: { transformers: '4.45.0' } });
      return r.models[0];
    };
    // Without a launch command: 8 devices given, ZeRO-3 from the JSON file divides parameters, gradients and AdamW state.
    const m = await go('8xa100-80gb');
    assert.equal(m.facts.name, 'VisionLlama (meta-llama/Llama-2-7b-hf)');
    assert.ok(m.facts.unknowns.some((u) => /VisionLlama extends transformers LlamaForCausalLM/.test(u.reason)), 'the subclass\'s own modules are an unknown');
    const p = m.estimate.phases.find((x) => x.phase === 'training')!;
    assert.ok(p, 'the Trainer subclass trains');
    const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    assert.equal(part(/^optimizer state/), (2 * P * 2) / 8);
    assert.equal(p.peakIsLowerBound, true);
    // deepspeed with no --num_gpus on a one-card target: what ZeRO divides is unknown, never the undivided total.
    writeFileSync(join(root, 'run.sh'), 'deepspeed train.py\n');
    workspaceFor(root).forgetListing(); // as the language server does on a watched-files event
    const one = (await go('a100-80gb')).estimate.phases.find((x) => x.phase === 'training')!;
    assert.notEqual(one.fits, false);
    assert.ok(one.unknowns.some((u) => /processes deepspeed \(run\.sh:1\) starts/.test(u.reason)), JSON.stringify(one.unknowns));
    assert.equal(one.breakdown.filter((c) => /^optimizer state/.test(c.label)).length, 0);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('DeepSpeed config files: the fp16 engine keeps 16-bit weights and gradients on the device and 12 B per parameter in the optimizer; ZeRO-Offload moves that to the host', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-ds-'));
  const text = `from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("gpt2-xl")
args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, max_length=256, fp16=True, deepspeed="ds.json")
Trainer(model=model, args=args).train()
`;
  const N = 1_557_611_200; // gpt2-xl (test/catalog/transformers.test.ts)
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 't.py'), text);
    const phase = async (zero: Record<string, unknown>) => {
      writeFileSync(join(root, 'ds.json'), JSON.stringify({ fp16: { enabled: 'auto' }, zero_optimization: zero, train_micro_batch_size_per_gpu: 'auto' }));
      const r = await analyze(text, { path: join(root, 't.py'), device: 'v100-16gb', versions: { transformers: '4.45.0' } });
      return r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    };
    const part = (p: Awaited<ReturnType<typeof phase>>, re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    const on = await phase({ stage: 2 });
    assert.equal(part(on, /^parameters \(float16\)/), 2 * N);
    assert.equal(part(on, /^optimizer state/), 12 * N);
    assert.equal(on.fits, false); // 3.1 + 3.1 + 18.7 GB on one 16 GB card
    const off = await phase({ stage: 2, offload_optimizer: { device: 'cpu' } });
    assert.equal(part(off, /^optimizer state/), 0, 'offloaded state is not on the device');
    assert.equal(off.fits, true);
    const legacy = await phase({ stage: 2, cpu_offload: true });
    assert.equal(part(legacy, /^optimizer state/), 0);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// A model built from a config and a torch Dataset whose examples are tensors (the truth harness's hf_trainer.py
// shape of program): the sequence comes from the examples; transformers ≥ 5 turns the training cache off; the
// Trainer keeps only the loss, so the logits are gone by the backward.
const fromDataset = (args: string) => `import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

class Tokens(Dataset):
    def __init__(self, n, seq_len, vocab):
        self.ids = torch.randint(0, vocab, (n, seq_len))
    def __len__(self):
        return self.ids.shape[0]
    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}

config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="out", max_steps=2, per_device_train_batch_size=4${args})
Trainer(model=model, args=args, train_dataset=Tokens(8, 128, config.vocab_size)).train()
`;

test('Trainer over a Dataset of tensor examples: the sequence from the examples, no training cache (transformers ≥ 5), logits released before the backward', async () => {
  const run = async (args: string, transformers: string) => {
    const r = await analyze(fromDataset(args), { device: 'a100-80gb', versions: { transformers } });
    return r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  };
  const p = await run('', '5.23.0');
  assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
  const part = (q: typeof p, re: RegExp) => q.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  // the loss's two vocabulary-sized gradients, b·s·V·2·4 B, at the start of the backward
  assert.equal(part(p, /cross-entropy backward/), 4 * 128 * 8192 * 2 * 4);
  assert.equal(part(p, /^logits/), 0, 'the Trainer does not keep the logits through the backward');
  assert.equal(part(p, /key and value cache copies/), 0);
  // TrainingArguments(use_cache=True), or a transformers 4.x Trainer (config.use_cache stays on): GPT-2's cache copies
  const on = await run(', use_cache=True', '5.23.0');
  assert.equal(part(on, /key and value cache copies/), 2 * 4 * 128 * 256 * 4 * 4);
  const old = await run('', '4.57.0');
  assert.equal(part(old, /key and value cache copies/), 2 * 4 * 128 * 256 * 4 * 4);
});

// After trainer.train() the Trainer still holds its optimizer (its state stays), but it set the gradients to None
// after every step (trainer.py _inner_training_loop: optimizer.step(), then model.zero_grad()): a generate() after
// training holds the AdamW state and no gradient (phases/afterTraining.ts).
test('Trainer: a generate() after train() runs beside the optimizer state, not the gradients', async () => {
  const after = src('per_device_train_batch_size=4, bf16=True') + 'out = model.generate(**tok(["hi"], return_tensors="pt"), max_new_tokens=16)\n';
  const before = src('per_device_train_batch_size=4, bf16=True').replace('trainer.train()\n', 'out = model.generate(**tok(["hi"], return_tensors="pt"), max_new_tokens=16)\ntrainer.train()\n');
  const inf = async (text: string) => (await training(text)).m.estimate.phases.find((x) => x.phase === 'inference')!;
  const a = await inf(after);
  const b = await inf(before);
  const part = (p: typeof a, re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((s, c) => s + c.bytes, 0);
  assert.equal(part(a, /^optimizer state/), 2 * P * 2);
  assert.equal(part(a, /^gradients/), 0);
  assert.equal(part(b, /^optimizer state/), 0);
  assert.equal(a.peakBytes! - b.peakBytes!, 2 * P * 2);
});

// peft's prepare_model_for_int8_training casts every float16/bfloat16 parameter (embeddings, lm_head, norms) to
// float32 from peft 0.3.0 (utils/other.py at v0.3.0); peft 0.2 cast only 1-D layer-norm parameters. juyongjiang/CodeUp
// (an OOM on a T4, replayed in docs/accuracy.md) kept them in float16: 524.8 MB where peft makes ~1.05 GB.
test('prepare_model_for_int8_training: every 16-bit parameter in float32 (peft ≥ 0.3), layer norms only (peft 0.2)', async () => {
  const fp32 = async (peft: string | undefined) => {
    const r = await analyze(lora8('prepare_model_for_int8_training', '256'), { device: 'a10g', versions: { transformers: '4.30.0', ...(peft ? { peft } : {}) } });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    return p.breakdown.filter((c) => /^parameters \(float32\)/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  };
  // Llama-2-7B's 16-bit parameters outside the int8 Linears: embed_tokens and lm_head (32000 × 4096 each) and the
  // 65 RMSNorm weights (4096 each), 4 bytes each in float32.
  const all = (2 * 32000 * 4096 + 65 * 4096) * 4;
  assert.equal(await fp32(undefined), all);
  assert.equal(await fp32('0.3.0'), all);
  assert.equal(await fp32('0.2.0'), 0); // LLaMA's norms are named "norm", not "layer_norm": nothing matches
});

// A TrainingArguments field the program does not set reads as transformers' default (training_args.py), not as an
// object that is true: `if training_args.do_predict: raise ...` made "the program raises here" and "No model found"
// (hiyouga/LLaMA-Factory replay, docs/accuracy.md).
test('unset TrainingArguments flags read as their defaults in conditions (direct and through HfArgumentParser)', async () => {
  for (const make of [
    'training_args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)',
    'training_args, = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses(args=["--output_dir", "o"])',
  ]) {
    const r = await analyze(`from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments
${make}
if training_args.do_predict or training_args.fp16:
    raise ValueError("not supported")
if training_args.resume_from_checkpoint is not None:
    raise ValueError("no resume")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
Trainer(model=model, args=training_args).train()
`, { device: 'a100-80gb', versions: { transformers: '4.45.0' } });
    assert.equal(r.models.length, 1, make);
    assert.equal(r.models[0].facts.paramCount, P);
    assert.ok(!r.unknowns.some((u) => /raises here/.test(u.reason)), JSON.stringify(r.unknowns));
  }
});
