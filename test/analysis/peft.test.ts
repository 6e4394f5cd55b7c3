// PEFT LoRA and bitsandbytes loading against the real libraries: the same tiny
// model is built by transformers, wrapped by peft (get_nb_trainable_parameters)
// and quantised by bitsandbytes on the CPU (test/python/peft_truth.py); oomlens
// reads only the config.json and the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const LLAMA = { model_type: 'llama', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96 };
const QWEN2 = { model_type: 'qwen2', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96 };
const GPT2 = { model_type: 'gpt2', vocab_size: 1000, n_embd: 64, n_layer: 2, n_head: 4, n_positions: 128 };
const MIXTRAL = { model_type: 'mixtral', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96, num_local_experts: 4 };
const QWEN2_MOE = { model_type: 'qwen2_moe', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96, moe_intermediate_size: 40, shared_expert_intermediate_size: 80, num_experts: 4, num_experts_per_tok: 2, mlp_only_layers: [1] };
const DEEPSEEK = { vocab_size: 1000, hidden_size: 64, num_hidden_layers: 3, num_attention_heads: 4, num_key_value_heads: 4, intermediate_size: 96, moe_intermediate_size: 40, n_routed_experts: 4, n_shared_experts: 2, first_k_dense_replace: 1, kv_lora_rank: 16, q_lora_rank: 24, qk_nope_head_dim: 8, qk_rope_head_dim: 4, v_head_dim: 8, num_experts_per_tok: 2, n_group: 1, topk_group: 1 };
const DEEPSEEK_V2 = { model_type: 'deepseek_v2', ...DEEPSEEK, q_lora_rank: null };
const DEEPSEEK_V3 = { model_type: 'deepseek_v3', ...DEEPSEEK };
const FALCON = { model_type: 'falcon', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4 };
const FALCON_NDA = { ...FALCON, new_decoder_architecture: true, num_kv_heads: 2, bias: true };
const BLOOM = { model_type: 'bloom', vocab_size: 1000, hidden_size: 64, n_layer: 2, n_head: 4 };
const OPT = { model_type: 'opt', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, ffn_dim: 96, num_attention_heads: 4, max_position_embeddings: 128, word_embed_proj_dim: 32 };
const NEOX = { model_type: 'gpt_neox', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96 };

interface Case { config: Record<string, unknown>; lora?: Record<string, unknown>; quant?: Record<string, unknown>; dtype?: string; kbit?: boolean; tv?: string; class?: string; taskEnum?: boolean }
const CASES: Case[] = [
  { config: LLAMA, lora: { r: 8, target_modules: ['q_proj', 'v_proj'] }, dtype: 'bfloat16' },
  { config: LLAMA, lora: { r: 4, target_modules: 'all-linear', modules_to_save: ['lm_head'] }, dtype: 'bfloat16' },
  { config: LLAMA, lora: { r: 16, target_modules: '.*\\.(q_proj|down_proj)', use_dora: true }, dtype: 'float32' },
  { config: LLAMA, lora: { r: 8, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], rank_pattern: { o_proj: 2 }, exclude_modules: ['layers.0.self_attn.k_proj'] }, dtype: 'bfloat16' },
  { config: QWEN2, lora: { r: 8, target_modules: ['q_proj', 'v_proj'], bias: 'lora_only' }, dtype: 'bfloat16' },
  { config: QWEN2, lora: { r: 8, target_modules: ['k_proj'], bias: 'all', modules_to_save: ['embed_tokens'] }, dtype: 'bfloat16' },
  { config: GPT2, lora: { r: 8, target_modules: ['c_attn'], fan_in_fan_out: true, bias: 'all' }, dtype: 'float32' },
  { config: LLAMA, lora: { r: 4, target_modules: 'all-linear' }, quant: { load_in_4bit: true, bnb_4bit_quant_type: 'nf4', bnb_4bit_use_double_quant: true, bnb_4bit_compute_dtype: 'bfloat16' }, dtype: 'bfloat16' },
  { config: LLAMA, quant: { load_in_4bit: true, bnb_4bit_quant_type: 'fp4' }, dtype: 'float16' },
  { config: MIXTRAL, lora: { r: 8, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: MIXTRAL, lora: { r: 4, target_modules: ['q_proj', 'v_proj', 'gate'] }, dtype: 'bfloat16', tv: '5.0.0' },
  // MoE: peft renames the v4 expert / router names onto transformers v5's fused parameters (target_parameters).
  { config: MIXTRAL, lora: { r: 8, target_modules: 'all-linear' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: MIXTRAL, lora: { r: 4, target_modules: ['q_proj', 'v_proj', 'w1', 'w2', 'w3', 'gate'] }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: MIXTRAL, lora: { r: 4, target_modules: ['o_proj', 'w2'], bias: 'all' }, dtype: 'float32', tv: '5.0.0' },
  { config: QWEN2_MOE, lora: { r: 8, target_modules: 'all-linear', bias: 'all' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: QWEN2_MOE, lora: { r: 4, target_modules: ['q_proj', 'gate_proj', 'up_proj', 'down_proj'], bias: 'lora_only' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: DEEPSEEK_V2, lora: { r: 8, target_modules: 'all-linear' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: DEEPSEEK_V3, lora: { r: 8, target_modules: 'all-linear' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: DEEPSEEK_V3, lora: { r: 4, target_modules: ['q_a_proj', 'kv_b_proj', 'gate_proj', 'up_proj', 'down_proj', 'gate'], modules_to_save: ['embed_tokens'] }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: FALCON, lora: { r: 8, target_modules: ['query_key_value', 'dense_h_to_4h'], bias: 'all' }, dtype: 'bfloat16' },
  { config: FALCON_NDA, lora: { r: 8, target_modules: 'all-linear', bias: 'all' }, dtype: 'bfloat16' },
  { config: BLOOM, lora: { r: 8, bias: 'all', modules_to_save: ['word_embeddings'] }, dtype: 'float32' },
  { config: OPT, lora: { r: 8, target_modules: 'all-linear', bias: 'all' }, dtype: 'float16' },
  { config: OPT, lora: { r: 16 }, dtype: 'float16' },
  { config: NEOX, lora: { r: 8, target_modules: 'all-linear', bias: 'all' }, dtype: 'bfloat16' },
  { config: LLAMA, quant: { load_in_8bit: true }, dtype: 'bfloat16' },
  // Sequence classification: the classifier `score` is a Linear "all-linear" adapts unless task_type is SEQ_CLS,
  // which makes it a modules_to_save copy instead; bitsandbytes leaves it (the last module) unconverted.
  { config: { ...LLAMA, num_labels: 3 }, class: 'AutoModelForSequenceClassification', lora: { r: 4, target_modules: 'all-linear' }, dtype: 'bfloat16' },
  { config: { ...LLAMA, num_labels: 3 }, class: 'AutoModelForSequenceClassification', lora: { r: 4, target_modules: 'all-linear', task_type: 'SEQ_CLS' }, dtype: 'bfloat16' },
  { config: GPT2, class: 'AutoModelForSequenceClassification', lora: { r: 8, target_modules: ['c_attn'], task_type: 'SEQ_CLS', modules_to_save: ['wte'] }, dtype: 'float32', taskEnum: true },
  { config: { ...QWEN2, num_labels: 5 }, class: 'AutoModelForSequenceClassification', lora: { r: 8, target_modules: ['q_proj', 'v_proj'], task_type: 'SEQ_CLS' }, quant: { load_in_4bit: true, bnb_4bit_quant_type: 'nf4' }, dtype: 'bfloat16' },
  // bitsandbytes converts Linear layers only: MoE routers and fused experts stay in the load dtype.
  { config: MIXTRAL, quant: { load_in_4bit: true, bnb_4bit_quant_type: 'nf4' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: QWEN2_MOE, quant: { load_in_8bit: true }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: DEEPSEEK_V3, lora: { r: 8, target_modules: 'all-linear' }, quant: { load_in_4bit: true, bnb_4bit_compute_dtype: 'bfloat16' }, dtype: 'bfloat16', tv: '5.0.0' },
  { config: { ...LLAMA, hidden_size: 96, intermediate_size: 200 }, quant: { load_in_4bit: true, bnb_4bit_use_double_quant: true }, dtype: 'bfloat16' },
];

/** JSON → a Python literal. */
function py(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  if (typeof v === 'string') return JSON.stringify(v).replace(/^"/, 'r"').replace(/\\\\/g, '\\');
  if (Array.isArray(v)) return `[${v.map(py).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${JSON.stringify(k)}: ${py(x)}`).join(', ')}}`;
  return String(v);
}
const kwargs = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `${k}=${k === 'bnb_4bit_compute_dtype' ? `torch.${v}` : py(v)}`).join(', ');
const BYTES: Record<string, number> = { float32: 4, bfloat16: 2, float16: 2 };

async function oomlens(c: Case) {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-peft-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(c.config));
    const q = c.quant ? `, quantization_config=BitsAndBytesConfig(${kwargs(c.quant)})` : '';
    const cls = c.class ?? 'AutoModelForCausalLM';
    let lora = c.lora ? kwargs(c.lora) : '';
    if (c.taskEnum) lora = lora.replace('task_type=r"SEQ_CLS"', 'task_type=TaskType.SEQ_CLS');
    const text = `import torch
from transformers import ${cls}, BitsAndBytesConfig, Trainer, TrainingArguments
from peft import LoraConfig, TaskType, get_peft_model, prepare_model_for_kbit_training
model = ${cls}.from_pretrained("./ckpt", torch_dtype=torch.${c.dtype}${q})
${c.kbit ? 'model = prepare_model_for_kbit_training(model)\n' : ''}${c.lora ? `model = get_peft_model(model, LoraConfig(${lora}))\n` : ''}Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=1, max_length=16)).train()
`;
    const r = await analyze(text, { path: join(root, 't.py'), device: 'a100-40gb', versions: { transformers: c.tv ?? '4.45.0' } });
    return r.models[0];
  } finally { rmSync(root, { recursive: true, force: true }); }
}

test('LoRA trainable parameters and bitsandbytes weight bytes equal peft / bitsandbytes on the same model', async () => {
  const truth = runPythonJson<{ trainable?: number; adapter_dtypes?: string[]; weight_bytes: number; params: number }[]>('peft_truth.py', CASES);
  const bad: string[] = [];
  for (let i = 0; i < CASES.length; i++) {
    const c = CASES[i];
    const t = truth[i];
    const m = await oomlens(c);
    const tag = `${c.config.model_type} ${JSON.stringify(c.lora ?? {})} ${JSON.stringify(c.quant ?? {})}`;
    const tr = m.estimate.phases.find((p) => p.phase === 'training');
    if (c.lora) {
      let n = 0;
      const dtypes = new Set<string>();
      for (const b of tr?.breakdown ?? []) {
        const mm = /^(LoRA adapters|trainable copies and biases) \((\w+)\)/.exec(b.label);
        if (mm) { n += b.bytes / BYTES[mm[2]]; dtypes.add(mm[2]); }
      }
      if (n !== t.trainable) bad.push(`${tag}: oomlens ${n} trainable, peft ${t.trainable}`);
      if ([...dtypes].sort().join() !== (t.adapter_dtypes ?? []).join()) bad.push(`${tag}: trainable dtypes ${[...dtypes]} vs ${t.adapter_dtypes}`);
    }
    if (c.quant) {
      const load = m.estimate.phases.find((p) => p.phase === 'load')!;
      if (load.peakBytes !== t.weight_bytes) bad.push(`${tag}: load ${load.peakBytes} B, bitsandbytes ${t.weight_bytes} B`);
      if (m.facts.paramCount !== t.params && !c.quant.load_in_4bit) bad.push(`${tag}: ${m.facts.paramCount} parameters, transformers ${t.params}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('a LoRA model trains only its adapters: gradients and AdamW state are those of the adapters alone', async () => {
  const m = await oomlens({ config: LLAMA, lora: { r: 8, target_modules: ['q_proj', 'v_proj'] }, dtype: 'bfloat16' });
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  const part = (re: RegExp) => tr.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  const adapters = 2 * (8 * 64 + 64 * 8 + 8 * 64 + 32 * 8) * 4; // 2 layers × (q: 64→64, v: 64→32 with 2 KV heads of 16), float32
  assert.equal(part(/^LoRA adapters/), adapters);
  assert.equal(part(/^optimizer state/), 2 * adapters);
  // Trainer zeroes gradients with set_to_none, so they exist only from the backward on: they may not be
  // live at the peak (the cross-entropy backward can be it), but when the backward makes them they are
  // the adapters' alone. The timeline's gradients event adds exactly that many bytes.
  const tl = tr.timeline;
  const settled = tl.filter((p) => !p.label.startsWith('⚡')); // a transient (⚡) is gone by the next event
  const made = settled.map((p, i) => (i > 0 && /^\+ gradients/.test(p.label) ? p.liveBytes - settled[i - 1].liveBytes : null)).filter((x) => x !== null);
  assert.deepEqual(made, [adapters], JSON.stringify(tl.map((p) => p.label)));
  assert.ok([0, adapters].includes(part(/^gradients/)));
});

test('a LoRA config that matches nothing leaves the trainable state unknown, never zero', async () => {
  const m = await oomlens({ config: LLAMA, lora: { r: 8, target_modules: ['query_key_value'] }, dtype: 'bfloat16' });
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.notEqual(tr.fits, true);
  assert.ok(tr.unknowns.some((u) => /matches no Linear layer/.test(u.reason)), JSON.stringify(tr.unknowns));
});

test('LoRA configs peft refuses on MoE models, and transformers 4.x expert Linears, are unknown, never zero', async () => {
  const refused: Case[] = [
    { config: MIXTRAL, lora: { r: 8, target_modules: 'all-linear', lora_dropout: 0.05 }, dtype: 'bfloat16', tv: '5.0.0' },
    { config: MIXTRAL, lora: { r: 8, target_modules: ['q_proj', 'w1', 'w2'] }, dtype: 'bfloat16', tv: '5.0.0' },
    { config: QWEN2_MOE, lora: { r: 8, target_modules: ['q_proj', 'gate'] }, dtype: 'bfloat16', tv: '5.0.0' },
    { config: DEEPSEEK_V3, lora: { r: 8, target_modules: 'all-linear', lora_bias: true }, dtype: 'bfloat16', tv: '5.0.0' },
  ];
  const truth = runPythonJson<{ error?: string }[]>('peft_truth.py', refused);
  for (let i = 0; i < refused.length; i++) {
    const c = refused[i];
    assert.ok(truth[i].error, `peft accepts ${JSON.stringify(c.lora)} on ${c.config.model_type}`);
    const m = await oomlens(c);
    const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
    assert.notEqual(tr.fits, true);
    assert.ok(tr.unknowns.some((u) => /get_peft_model: .*peft (raises|refuses)/.test(u.reason)), `${JSON.stringify(c.lora)}: ${JSON.stringify(tr.unknowns)}`);
  }
  for (const c of [{ config: MIXTRAL, lora: { r: 8, target_modules: ['q_proj'] }, dtype: 'bfloat16', tv: '4.45.0' }, { config: MIXTRAL, lora: { r: 8, target_modules: '.*q_proj' }, dtype: 'bfloat16', tv: '5.0.0' }]) {
    const m = await oomlens(c);
    const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
    assert.notEqual(tr.fits, true);
    assert.ok(tr.unknowns.length > 0 || m.facts.unknowns.length > 0, JSON.stringify(c.lora));
  }
});

test('adapters on fused MoE experts: their saved activations are unknown, so training activations are a lower bound', async () => {
  const m = await oomlens({ config: MIXTRAL, lora: { r: 8, target_modules: 'all-linear' }, dtype: 'bfloat16', tv: '5.0.0' });
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.notEqual(tr.fits, true);
  assert.ok(tr.unknowns.some((u) => /fused MoE parameters/.test(u.reason)), JSON.stringify(tr.unknowns));
});

test('LoRA targets collected by looping over a transformers model\'s named_modules are unknown, never an empty list; vars() of a dataclass feeds argparse.Namespace', async () => {
  // Written for this test. The model is sized from its config, so its submodules are not listed: the loop's set
  // of names is unknown (it was [] — "matches no Linear layer"). `argparse.Namespace(**vars(args))` carries the
  // dataclass's fields, so the checkpoint name is read.
  const r = await analyze(`
import argparse
from dataclasses import dataclass
import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model


@dataclass
class Options:
    checkpoint: str = "gpt2"
    rank: int = 8


def linear_names(model):
    found = set()
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            found.add(name.split(".")[-1])
    found.discard("lm_head")
    return sorted(found)


opts = argparse.Namespace(**vars(Options()))
model = AutoModelForCausalLM.from_pretrained(opts.checkpoint)
model = get_peft_model(model, LoraConfig(r=opts.rank, target_modules=linear_names(model)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randint(0, 50257, (2, 128))
for step in range(10):
    out = model(input_ids=x, labels=x)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 'a100-80gb' });
  const m = r.models.find((x) => x.facts.name === 'gpt2');
  assert.ok(m, `models: ${r.models.map((x) => x.facts.name).join(', ')}; ${JSON.stringify(r.unknowns)}`);
  // GPT-2 small: 124,439,808 parameters (transformers GPT2LMHeadModel, lm_head tied to wte).
  assert.equal(m.facts.paramCount, 124_439_808);
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.notEqual(tr.fits, true);
  assert.ok(tr.unknowns.some((u) => /trainable parameters/.test(u.what) && !/matches no Linear layer/.test(u.reason)), JSON.stringify(tr.unknowns));
});

// A frozen projection keeps no input for its backward (derivatives.yaml addmm: mat1 is saved for mat2's
// gradient only); an adapter on it still reads the input (peft lora Linear.forward). Measured on the GPT-2 of
// test/truth hf_gpt2_lora (LoRA on c_attn, 4 layers, 512 tokens, h = 256): the attention output projection's,
// c_fc's and the MLP c_proj's inputs are absent from the live set at the backward's start (142.3 MB with CUDA's
// kernels; the formula with them was 152.7).
test('LoRA with the base frozen: the inputs of projections no adapter reads are not saved', async () => {
  const prog = (targets: string) => `import torch
from transformers import GPT2Config, GPT2LMHeadModel
from peft import LoraConfig, get_peft_model
config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=${targets}, lora_dropout=0.0, fan_in_fan_out=True))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
ids = torch.randint(0, 8192, (4, 128))
for _ in range(2):
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const layerActs = async (targets: string) => {
    const r = await analyze(prog(targets), { device: 'a100-80gb', versions: { transformers: '5.0.0' } });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    return { p, bytes: p.breakdown.filter((c) => /^activations saved for backward \(4 layers/.test(c.label)).reduce((a, c) => a + c.bytes, 0) };
  };
  const sbh4 = 512 * 256 * 4;
  const attnOnly = await layerActs('["c_attn"]');
  const all = await layerActs('["c_attn", "c_proj", "c_fc"]');
  // c_attn only: attn c_proj's input (1), c_fc's (1) and mlp c_proj's (4) are not saved, 6·s·b·h·4 B per layer.
  assert.ok(all.bytes > 0);
  assert.equal(all.bytes - attnOnly.bytes, 6 * sbh4 * 4);
  assert.ok(attnOnly.p.notes.some((n) => /base model is frozen \(PEFT\)/.test(n)));
  assert.ok(!all.p.notes.some((n) => /base model is frozen \(PEFT\)/.test(n)));
  // A target whose role in the block is not known (the LM head): nothing is taken off.
  const unknownRole = await layerActs('["c_attn", "lm_head"]');
  assert.equal(unknownRole.bytes, all.bytes);
});

// ljy0ustc/LLaRA (docs/accuracy.md, OOM reports replayed): the PEFT model is an attribute of the program's own
// module (`self.llama_model = get_peft_model(self.llama_model, cfg)`). Its freezing was lost: AdamW state and
// gradients for all 6.7B parameters, "OOM001 over by 42.6 GB" on a 24 GB card for a LoRA run.
test('a PEFT model held by a module of the program: only its adapters (and the module\'s own layers) train', async () => {
  const r = await analyze(`import torch, torch.nn as nn
from transformers import LlamaForCausalLM
from peft import LoraConfig, get_peft_model, TaskType

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.llama_model = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
        cfg = LoraConfig(task_type=TaskType.CAUSAL_LM, r=8, lora_alpha=32, target_modules=['q_proj', 'v_proj'])
        self.llama_model = get_peft_model(self.llama_model, cfg)
        self.proj = nn.Linear(256, 4096)

model = M().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
for _ in range(3):
    ids = torch.randint(0, 32000, (1, 512), device="cuda")
    loss = model.llama_model(input_ids=ids, labels=ids).loss
    loss.backward(); opt.step(); opt.zero_grad()
`, { device: 'rtx-4090', versions: {} });
  const t = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
  const part = (re: RegExp) => t.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  // LoRA r=8 on q_proj and v_proj of 32 layers: 32 · 2 · (4096·8 + 8·4096) = 4,194,304 float32 adapter parameters
  // (peft keeps adapters in float32), plus the module's own Linear(256, 4096) in float32.
  const trainable = 4_194_304 * 4 + (256 * 4096 + 4096) * 4;
  assert.equal(part(/^optimizer state/), 2 * trainable);
  assert.equal(part(/^gradients/), trainable);
  assert.notEqual(t.fits, false);
});

// A 4-bit QLoRA without torch_dtype and without prepare_model_for_kbit_training (helper round 11, found on the way):
// transformers 4.x loads the unquantised modules in float16 (quantizer_bnb_4bit.py update_torch_dtype), 5.x in the
// checkpoint's dtype; and the hidden states are the base model's, not the float32 adapters': activations were sized
// in float32 (twice), and a run that fits an A10G read OOM001.
test('QLoRA without a dtype: 16-bit unquantised modules and activations, whatever the unpinned transformers', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-qlora-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify({ ...LLAMA, torch_dtype: 'bfloat16' }));
    const text = `import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

model = AutoModelForCausalLM.from_pretrained("./ckpt", quantization_config=BitsAndBytesConfig(load_in_4bit=True), device_map={"": 0})
model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
batch = torch.randint(0, 1000, (2, 64), device="cuda")
for _ in range(3):
    model(input_ids=batch, labels=batch).loss.backward()
    opt.step()
    opt.zero_grad()
`;
    writeFileSync(join(root, 't.py'), text);
    const r = await analyze(text, { path: join(root, 't.py'), device: 'a10g', versions: {} });
    const m = r.models[0];
    assert.ok(!Object.keys(m.estimate.bytesByDtype).includes('float32') || m.estimate.bytesByDtype.float32 === 0, JSON.stringify(m.estimate.bytesByDtype));
    const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
    const acts = tr.breakdown.filter((b) => /^activations saved for backward \(/.test(b.label));
    assert.ok(acts.length > 0 && acts.every((b) => /float16/.test(b.label)), JSON.stringify(tr.breakdown.map((b) => b.label)));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('modules_to_save copies after prepare_model_for_kbit_training are float32 (the cast happens before the copy)', async () => {
  const src = `import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16, llm_int8_skip_modules=["embed_tokens", "lm_head"])
model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", quantization_config=bnb, torch_dtype=torch.bfloat16)
model = prepare_model_for_kbit_training(model)
cfg = LoraConfig(r=64, lora_alpha=128, target_modules=["q_proj", "v_proj"], modules_to_save=["embed_tokens", "lm_head"], task_type="CAUSAL_LM")
model = get_peft_model(model, cfg)
Trainer(model=model, args=TrainingArguments("out", per_device_train_batch_size=1, bf16=True), train_dataset=None).train()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: { peft: '0.13.0', transformers: '4.45.0' } });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const copies = p.breakdown.find((b) => /trainable copies/.test(b.label));
  // embed_tokens and lm_head of Llama-3-8B: 2 × 128,256 × 4096 parameters, float32 (peft utils/other.py casts, then
  // ModulesToSaveWrapper deep-copies).
  assert.equal(copies?.bytes, 2 * 128_256 * 4096 * 4, JSON.stringify(p.breakdown.map((b) => [b.label, b.bytes])));
});
