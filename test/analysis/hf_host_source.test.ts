// A transformers model loaded without a device_map lives on the host (modeling_utils.py from_pretrained
// materialises the weights on the CPU) until the program moves it. One that is only read for its state dict —
// a source of weights copied into the program's own model — is no device model: it is listed with its host
// size and gets no device phase or verdict. A model the program moves, runs, hands to a library or keeps
// inside another module stays a device model, and so does one only loaded (nothing read from it yet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `import torch
import torch.nn as nn
from transformers import AutoModelForCausalLM


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 64)
        self.head = nn.Linear(64, 1000)

    def forward(self, x):
        return self.head(self.emb(x))

    @classmethod
    def from_source(cls, name):
        model = cls()
        hf = AutoModelForCausalLM.from_pretrained(name)
        sd_hf = hf.state_dict()
        for k in list(sd_hf.keys())[:1]:
            with torch.no_grad():
                model.emb.weight.copy_(sd_hf[k][:1000, :64])
        #EXTRA
        return model


model = Small.from_source("gpt2")
model.to("cuda")
`;

const run = (text: string) => analyze(text, { device: 'a100-80gb', versions: { transformers: '4.45.0' } });

test('a transformers model read only for its state dict is listed on the host, not as a device model', async () => {
  const r = await run(PROGRAM);
  assert.deepEqual(r.models.map((m) => m.facts.framework), ['torch'], 'only the program\'s own model is a device model');
  assert.equal(r.host?.length, 1, JSON.stringify(r.host));
  const h = r.host![0];
  assert.equal(h.name, 'gpt2');
  assert.equal(h.paramCount, 124439808); // GPT2LMHeadModel("gpt2"): test/catalog/hf-families checks it against transformers
  assert.equal(h.bytes, 124439808 * 4); // float32: transformers 4.45 loads float32 without a dtype
  assert.match(h.reason, /without a device_map.*state_dict\(\)/);
});

test('the float32 load of a host-only copy is host memory: the device rule about it (OOM201) does not speak of it', async () => {
  // Qwen2-0.5B is stored in bfloat16: transformers 4.45 loads it in float32, which OOM201 warns about on the device.
  const bf16 = PROGRAM.replace('Small.from_source("gpt2")', 'Small.from_source("Qwen/Qwen2-0.5B")');
  const r = await run(bf16);
  assert.equal(r.host?.[0]?.name, 'Qwen/Qwen2-0.5B');
  assert.deepEqual(r.findings.filter((f) => f.code === 'OOM201'), []);
  const moved = await run(bf16.replace('#EXTRA', 'hf.to("cuda")'));
  assert.equal(moved.findings.filter((f) => f.code === 'OOM201').length, 1, 'the same load, moved, is warned about');
});

for (const [what, extra] of [
  ['moved to the accelerator', 'hf.to("cuda")'],
  ['run', 'hf(torch.zeros(1, 8, dtype=torch.long))'],
  ['handed to a library', 'torch.compile(hf)'],
  ['kept inside the program\'s module', 'model.source = hf'],
] as const) {
  test(`a state-dict source that is also ${what} stays a device model`, async () => {
    const r = await run(PROGRAM.replace('#EXTRA', extra));
    assert.equal((r.host ?? []).length, 0, JSON.stringify(r.host));
    assert.ok(r.models.some((m) => m.facts.framework === 'transformers' && m.facts.paramCount === 124439808), r.models.map((m) => m.facts.name).join(', '));
  });
}

test('a transformers model only loaded (nothing read yet) keeps its device report', async () => {
  const r = await run('from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2")\n');
  assert.equal((r.host ?? []).length, 0);
  assert.equal(r.models[0]?.facts.paramCount, 124439808);
  assert.ok(r.models[0].estimate.phases.some((p) => p.phase === 'load' && (p.peakBytes ?? 0) >= 124439808 * 4));
});

test('device_map="cpu" keeps the model on the host', async () => {
  const r = await run('from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cpu")\n');
  assert.equal(r.models.length, 0);
  assert.match(r.host?.[0]?.reason ?? '', /device_map="cpu"/);
  const moved = await run('from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cpu")\nmodel.to("cuda")\n');
  assert.equal((moved.host ?? []).length, 0);
  assert.equal(moved.models[0]?.facts.paramCount, 124439808);
});
