// A model loaded while an earlier one is still referenced on the same device (a fine-tuning notebook reloading the
// base model in float16 to merge the adapters, with the 4-bit model and its trainer still alive): the second load
// lands beside the first (phases/heldAtLoad.ts). mshumer/gpt-llm-trainer's notebook on a V100 / T4 (its issues #15
// and #3) ran out of memory at exactly that load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const SRC = (between: string) => `import gc
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

name = "NousResearch/llama-2-7b-chat-hf"
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb, device_map={"": 0})
model.save_pretrained("adapter")
${between}
base = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16, device_map={"": 0})
`;

test('the 4-bit model still referenced when the float16 copy loads: both on the device, OOM001 on a V100 16 GB', async () => {
  const r = await analyze(SRC(''), { device: 'v100-16gb', versions: {} });
  assert.equal(r.models.length, 2);
  const [first, second] = r.models.map((m) => m.estimate.phases.find((p) => p.phase === 'load')!);
  const held = second.breakdown.filter((b) => /^another model on the device/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  // Every tensor of the first load (its quantised layers, float16 embeddings and head) is there when the second loads.
  assert.ok(Math.abs(held - first.peakBytes!) <= first.peakBytes! * 0.001, `${held} vs ${first.peakBytes}`);
  assert.equal(second.fits, false);
  const at = SRC('').indexOf('base = ') + 'base = '.length;
  assert.ok(r.findings.some((f) => f.code === 'OOM001' && f.span.start === at), JSON.stringify(r.findings.map((f) => [f.code, f.span.start, at])));
});

test('a model deleted before the reload is not counted', async () => {
  const r = await analyze(SRC('del model\ngc.collect()\ntorch.cuda.empty_cache()'), { device: 'v100-16gb', versions: {} });
  const second = r.models.at(-1)!.estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(second.breakdown.filter((b) => /^another model on the device/.test(b.label)).length, 0);
  assert.equal(second.fits, true);
});

test('a model loaded without a device_map stays on the host until moved: not counted beside a later load', async () => {
  const src = `import torch
from transformers import AutoModelForCausalLM
teacher = AutoModelForCausalLM.from_pretrained("gpt2-xl")
student = AutoModelForCausalLM.from_pretrained("NousResearch/llama-2-7b-chat-hf", torch_dtype=torch.float16, device_map={"": 0})
`;
  const r = await analyze(src, { device: 'v100-16gb', versions: {} });
  const load = r.models.at(-1)!.estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.breakdown.filter((b) => /^another model on the device/.test(b.label)).length, 0);
});

test('a model loaded on the host and moved to the device while another is still there: counted at the move', async () => {
  const src = `import torch
from transformers import AutoModelForCausalLM
name = "NousResearch/llama-2-7b-chat-hf"
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16, device_map={"": 0})
base = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16)
base = base.to("cuda")
`;
  const r = await analyze(src, { device: 'a10g', versions: {} });
  const load = r.models.at(-1)!.estimate.phases.find((p) => p.phase === 'load')!;
  assert.ok(load.breakdown.some((b) => /^another model on the device/.test(b.label)), JSON.stringify(load.breakdown.map((b) => b.label)));
  // 2 × 13.5 GB of float16 Llama-2-7B: over an A10G's 24 GB (each alone fits).
  assert.equal(r.models[0].estimate.phases.find((p) => p.phase === 'load')!.fits, true);
  assert.equal(load.fits, false);
});
