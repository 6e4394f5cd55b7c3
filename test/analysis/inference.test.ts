// The inference phase read from code (issue 5): generate()'s KV cache and
// step working memory for transformers models, hand-written caches of torch
// modules, and what stays unknown. The done-check is the example
// examples/llama2_generate: the breakdown the CLI prints must match the hand
// calculation below, component by component, within 10%.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const root = join(__dirname, '..', '..');

function near(got: number | undefined, want: number, what: string): void {
  assert.ok(got !== undefined, `${what}: missing`);
  assert.ok(Math.abs(got - want) <= 0.1 * want, `${what}: ${got} is not within 10% of ${want}`);
}

test('Llama-2-7B fp16, 4,096-token KV cache, batch 1: the CLI breakdown matches the hand calculation', () => {
  // Hand calculation (meta-llama/Llama-2-7b-hf config.json: 32 layers, 32 heads, 32 KV heads, hidden 4096,
  // head_dim 128, intermediate 11008, vocab 32000; 6,738,415,616 parameters):
  //   weights  6,738,415,616 × 2 B (float16)                         = 13,476,831,232 B ≈ 13.48 GB
  //            of which 32 layers × 202,383,360 × 2 B               = 12,952,535,040 B
  //            embed_tokens = lm_head = 32000 × 4096 × 2 B         =    262,144,000 B each
  //   KV cache prompt 512 + 3585 new − 1 = 4096 positions (generation/utils.py max_cache_length = max_length − 1):
  //            2 × 32 layers × 32 heads × 128 × 4096 × 1 × 2 B       =  2,147,483,648 B = 2 GiB
  //   last decode step: residual 1 × 4096 × 2 = 8,192 B plus the largest working set, DynamicLayer.update's
  //            torch.cat copy of one layer's keys 32 × 128 × 4096 × 2 = 33,554,432 B (MLP 74,240 B and the
  //            logits 32000 × (2 + 4) = 192,000 B are smaller)       =     33,562,624 B
  //   peak = 13,476,831,232 + 2,147,483,648 + 33,562,624             = 15,657,877,504 B ≈ 15.66 GB
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'server/src/cli/main.ts'), 'check', join(root, 'examples/llama2_generate'), '--format', 'json'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const report = JSON.parse(r.stdout) as { files: { device: string; models: { name: string; params: number; phases: { name: string; peakBytes: number; fits: boolean; breakdown: { label: string; bytes: number }[] }[] }[] }[] };
  const file = report.files[0];
  assert.equal(file.device, 'v100-16gb');
  const m = file.models.find((x) => x.name === 'meta-llama/Llama-2-7b-hf')!;
  assert.equal(m.params, 6_738_415_616);
  const inf = m.phases.find((p) => p.name === 'inference')!;
  assert.ok(inf, 'an inference phase is reported');
  const part = (re: RegExp) => inf.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  near(part(/^model\.layers/), 12_952_535_040, 'decoder layers');
  near(part(/embed_tokens/), 262_144_000, 'embed_tokens');
  near(part(/lm_head/), 262_144_000, 'lm_head');
  near(part(/^KV cache/), 2_147_483_648, 'KV cache');
  near(part(/^decode step/), 33_562_624, 'decode step working memory');
  near(inf.peakBytes, 15_657_877_504, 'inference peak');
  // The printed text names the cache and its line.
  const text = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'server/src/cli/main.ts'), 'check', join(root, 'examples/llama2_generate')], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.match(text.stdout, /inference\s+15\.7 GB\s+16\.5 GB\s+✓/);
  assert.match(text.stdout, /largest at the inference peak:\n +13\.0 GB  model\.layers \(float16\), 32 tensors · line 14\n +2\.1 GB  KV cache \(DynamicCache, float16\), 32 tensors · line 19\n/);
});

test('beams and prompts multiply the cache; an unknown prompt length gives a lower bound with the reason', async () => {
  const text = [
    'import torch',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    'tok = AutoTokenizer.from_pretrained("mistralai/Mistral-7B-v0.1")',
    'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", torch_dtype=torch.bfloat16)',
    'inputs = tok(["Hello", "Bonjour"], return_tensors="pt", padding=True).to("cuda")',
    'out = model.generate(**inputs, max_new_tokens=1001, num_beams=3)',
  ].join('\n');
  const r = await analyze(text, { device: 'h100-80gb', versions: { transformers: '4.46.3' } });
  const inf = r.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // Mistral-7B: 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 131,072 B per position and sequence.
  // Known part: 1001 − 1 = 1000 positions × (2 prompts × 3 beams = 6 sequences) × 131,072 = 786,432,000 B.
  const kv = inf.breakdown.filter((c) => c.role === 'kv-cache').reduce((a, c) => a + c.bytes, 0);
  assert.equal(kv, 786_432_000);
  assert.equal(inf.fits, null, 'a lower bound cannot say it fits');
  assert.ok(inf.unknowns.some((u) => /vocabulary/.test(u.reason)), JSON.stringify(inf.unknowns));
});

test('static cache is allocated at full length from the prefill; no length given is unknown', async () => {
  const text = [
    'import torch',
    'from transformers import AutoModelForCausalLM',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16)',
    'ids = torch.zeros((2, 100), dtype=torch.long, device="cuda")',
    'a = model.generate(ids, max_new_tokens=925, cache_implementation="static")',
    'b = model.generate(ids)',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-80gb', versions: { transformers: '4.46.3' } });
  const inf = r.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // 100 + 925 − 1 = 1024 positions × 2 sequences × 524,288 B = 1,073,741,824 B (1 GiB), held from the prefill,
  // where the working set is residual 2×100×4096×2 = 1,638,400 + MLP 2×100×(4096 + 3×11008)×2 = 14,848,000.
  const kv = inf.breakdown.filter((c) => c.role === 'kv-cache').reduce((a, c) => a + c.bytes, 0);
  assert.equal(kv, 1_073_741_824);
  assert.ok(inf.breakdown.some((c) => /^prefill forward/.test(c.label) && c.bytes === 16_486_400), JSON.stringify(inf.breakdown.map((c) => [c.label, c.bytes])));
  assert.ok(inf.unknowns.some((u) => /generation_config\.json/.test(u.reason)));
});

test('a hand-written cache (Meta Llama model.py style cache_k / cache_v) counts in inference as kv-cache', async () => {
  const text = [
    'import torch',
    'from torch import nn',
    'class Attention(nn.Module):',
    '    def __init__(self, dim, n_heads, max_batch, max_seq):',
    '        super().__init__()',
    '        self.head_dim = dim // n_heads',
    '        self.wq = nn.Linear(dim, dim, bias=False)',
    '        self.cache_k = torch.zeros((max_batch, max_seq, n_heads, self.head_dim), dtype=torch.float16).cuda()',
    '        self.cache_v = torch.zeros((max_batch, max_seq, n_heads, self.head_dim), dtype=torch.float16).cuda()',
    'class Model(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.layers = nn.ModuleList([Attention(4096, 32, 4, 2048) for _ in range(2)])',
    '    def forward(self, tokens, start_pos):',
    '        return tokens',
    'model = Model().cuda()',
    'tokens = torch.zeros((4, 16), dtype=torch.long, device="cuda")',
    'with torch.inference_mode():',
    '    out = model.forward(tokens, 0)',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Model')!;
  const inf = m.estimate.phases.find((p) => p.phase === 'inference')!;
  // 2 layers × 2 (k, v) × 4 × 2048 × 32 × 128 × 2 B = 268,435,456 B.
  const kv = inf.breakdown.filter((c) => c.role === 'kv-cache');
  assert.equal(kv.reduce((a, c) => a + c.bytes, 0), 268_435_456);
  assert.match(kv[0].label, /KV cache/);
  // `model.forward(tokens, 0)` runs like `model(tokens, 0)`: the forward is traced (it returns its input: nothing more).
  assert.ok(!inf.unknowns.some((u) => /not estimated for user-defined modules/.test(u.reason)), inf.unknowns.map((u) => u.reason).join('; '));
  assert.ok(inf.breakdown.some((c) => c.role === 'input'));
});

test('the Mistral example still reads: load and an inference phase bounded below, with the prompt-length reason', async () => {
  const path = join(root, 'examples', 'hf_mistral_load', 'generate.py');
  const r = await analyze(readFileSync(path, 'utf8'), { path, device: '2xv100-32gb' });
  const inf = r.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // 32 − 1 = 31 positions known; float32 (transformers 4.40 default): 2 × 8 × 128 × 4 B = 8,192 B per layer and
  // position. device_map="auto" puts 16 of the 32 layers on device 0 (accelerate keeps room there for one more
  // layer; the real accelerate gives 16 for the same model and 32 GiB − 400 MiB per GPU) and each layer's
  // cache with its layer: 16 × 31 × 8,192 = 4,063,232 B on device 0.
  const kv = inf.breakdown.filter((c) => c.role === 'kv-cache').reduce((a, c) => a + c.bytes, 0);
  assert.equal(kv, 4_063_232);
  assert.ok(inf.unknowns.some((u) => /vocabulary/.test(u.reason)));
});

test('a user-defined module\'s forward is traced with Python liveness: torch under no_grad, Equinox eager, and jit is a lower bound', async () => {
  const torchText = [
    'import torch',
    'from torch import nn',
    'class MLP(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.fc1 = nn.Linear(4096, 16384)',
    '        self.fc2 = nn.Linear(16384, 4096)',
    '    def forward(self, x):',
    '        h = torch.relu(self.fc1(x))',
    '        return self.fc2(h)',
    'model = MLP().cuda()',
    'x = torch.randn(64, 4096, device="cuda")',
    'with torch.no_grad():',
    '    y = model(x)',
  ].join('\n');
  const t = await analyze(torchText, { device: 'a100-40gb', versions: {} });
  const inf = t.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // weights (4096·16384 + 16384 + 16384·4096 + 4096) × 4 B = 536,952,832; input 64 × 4096 × 4 = 1,048,576;
  // fc1's output [64, 16384] f32 = 4,194,304 is still referenced while relu makes its own 4,194,304:
  // peak = 536,952,832 + 1,048,576 + 2 × 4,194,304 = 546,390,016.
  assert.equal(inf.peakBytes, 546_390_016);
  assert.equal(inf.fits, true);

  const eqxText = [
    'import jax',
    'import jax.numpy as jnp',
    'import equinox as eqx',
    'class MLP(eqx.Module):',
    '    l1: eqx.nn.Linear',
    '    l2: eqx.nn.Linear',
    '    def __init__(self, key):',
    '        k1, k2 = jax.random.split(key)',
    '        self.l1 = eqx.nn.Linear(4096, 16384, key=k1)',
    '        self.l2 = eqx.nn.Linear(16384, 4096, key=k2)',
    '    def __call__(self, x):',
    '        return self.l2(jax.nn.relu(self.l1(x)))',
    'model = MLP(jax.random.PRNGKey(0))',
    'x = jnp.ones((4096,))',
  ];
  const eager = await analyze([...eqxText, 'y = model(x)'].join('\n'), { device: 'a100-40gb', versions: {} });
  const e = eager.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // Nested calls: l1's output is an argument of relu only, dropped once relu returns (CPython frees it with the
  // argument tuple; memory.ts dropArguments), so the peak is during relu: weights 536,952,832 + input 4096 × 4 =
  // 16,384 + l1 output 65,536 + relu 65,536 = 537,100,288 (then relu 65,536 + l2 output 16,384).
  assert.equal(e.peakBytes, 537_100_288);
  const jitted = await analyze([...eqxText, '@eqx.filter_jit', 'def forward(m, x):', '    return m(x)', 'y = forward(model, x)'].join('\n'), { device: 'a100-40gb', versions: {} });
  const j = jitted.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  assert.equal(j.fits, null);
  assert.ok(j.unknowns.some((u) => /under jit: XLA's temporaries/.test(u.reason)));
});

test('a forward followed by .backward() in its loop is a training step: no inference phase from it', async () => {
  const text = [
    'import torch',
    'from torch import nn',
    'model = nn.Linear(1024, 1024).cuda()',
    'opt = torch.optim.SGD(model.parameters(), lr=0.1)',
    'for step in range(3):',
    '    x = torch.randn(8, 1024, device="cuda")',
    '    loss = model(x).sum()',
    '    loss.backward()',
    '    opt.step()',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-40gb', versions: {} });
  for (const m of r.models) assert.ok(!m.estimate.phases.some((p) => p.phase === 'inference'), JSON.stringify(m.estimate.phases.map((p) => p.phase)));
  assert.ok(!r.findings.some((f) => f.code === 'OOM302'));
});

test('attn_implementation="eager" materialises the prefill attention scores', async () => {
  const text = [
    'import torch',
    'from transformers import AutoModelForCausalLM',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, attn_implementation="eager").to("cuda")',
    'ids = torch.zeros((1, 2048), dtype=torch.long, device="cuda")',
    'out = model.generate(ids, max_new_tokens=1)',
  ].join('\n');
  const r = await analyze(text, { device: 'a100-80gb', versions: { transformers: '4.46.3' } });
  const inf = r.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  // Prefill of 2048 tokens: residual 2048 × 4096 × 2 = 16,777,216 + attention 2048 × 20,480 × 2 = 83,886,080
  // + scores and their fp32 softmax 32 × 2048 × 2048 × (2 + 4) = 805,306,368 → 905,969,664 B (more than the MLP's 152,043,520).
  assert.ok(inf.breakdown.some((c) => /^prefill forward/.test(c.label) && c.bytes === 905_969_664), JSON.stringify(inf.breakdown.map((c) => [c.label, c.bytes])));
  // Without the keyword (SDPA): 16,777,216 + MLP 2048 × 37,120 × 2 = 152,043,520 → 168,820,736 B.
  const sdpa = await analyze(text.replace(', attn_implementation="eager"', ''), { device: 'a100-80gb', versions: { transformers: '4.46.3' } });
  const inf2 = sdpa.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
  assert.ok(inf2.breakdown.some((c) => /^prefill forward/.test(c.label) && c.bytes === 168_820_736), JSON.stringify(inf2.breakdown.map((c) => [c.label, c.bytes])));
});

test('a StaticCache object holds max_cache_len positions, for its max_batch_size before transformers 4.56 and for the generated batch after', async () => {
  const text = (mb: number) => `import torch
from transformers import AutoModelForCausalLM, StaticCache
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, device_map="cuda:0")
ids = torch.randint(0, 32000, (2, 512), device="cuda:0")
cache = StaticCache(config=model.config, max_batch_size=${mb}, max_cache_len=4096, device="cuda:0", dtype=torch.float16)
out = model.generate(ids, max_new_tokens=64, past_key_values=cache)
`;
  const kv = async (mb: number, transformers?: string) => {
    const r = await analyze(text(mb), { device: 'a100-80gb', versions: transformers ? { transformers } : {} });
    const inf = r.models[0].estimate.phases.find((p) => p.phase === 'inference')!;
    return { bytes: inf.breakdown.filter((c) => c.role === 'kv-cache').reduce((a, c) => a + c.bytes, 0), inf };
  };
  // 32 layers × 2 × batch × 32 KV heads × 4096 positions × 128 × 2 B = 2,147,483,648 B per sequence.
  assert.equal((await kv(2, '4.45.0')).bytes, 2 * 2_147_483_648);
  // Eager allocation (cache_utils.py StaticCache.__init__ before 4.56): the cache's own batch.
  assert.equal((await kv(8, '4.45.0')).bytes, 8 * 2_147_483_648);
  // Lazy from 4.56 (huggingface/transformers#39797): the batch generate runs.
  assert.equal((await kv(8, '4.56.0')).bytes, 2 * 2_147_483_648);
  // Unpinned: which of the two is not known.
  const u = await kv(8);
  assert.notEqual(u.inf.fits, true);
  assert.ok(u.inf.unknowns.some((x) => /4\.56/.test(x.reason)));
});

// Measured: test/truth/programs/eval_grad_kept.py, 213.4 MB (PyTorch 2.13 on CPU) for three kept graphs.
test('an eval loop that keeps each loss with autograd on holds every iteration\'s graph (OOM302)', async () => {
  const src = (n: number) => `
import torch
import torch.nn as nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(64)
        self.attn = nn.Linear(64, 3 * 64)
        self.proj = nn.Linear(64, 64)
        self.n_head = 4

    def forward(self, x):
        return x + self.proj(self.attn(self.ln_1(x))[..., :64])


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(1000, 64)
        self.h = nn.ModuleList([Block() for _ in range(2)])
        self.lm_head = nn.Linear(64, 1000, bias=False)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.lm_head(x)


model = LM()
model.eval()
losses = []
for i in range(${n}):
    x = torch.randint(0, 1000, (2, 32))
    logits = model(x)
    losses.append(F.cross_entropy(logits.view(-1, 1000), x.view(-1)))
`;
  const kept = async (n: number) => {
    const r = await analyze(src(n), { device: 'a100-80gb' });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'inference')!;
    return p.breakdown.filter((c) => /activations kept by autograd/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  };
  // Per graph, float32, eval (no dropout), materialised scores: per layer 64·s·b·h + 4·a·s²·b
  // = 64·32·2·64 + 4·4·32²·2 = 262,144 + 32,768 = 294,912 B × 2 layers = 589,824 B; log-probs 2·32·1000·4 = 256,000 B.
  const per = 589_824 + 256_000;
  assert.equal(await kept(1), 589_824);
  assert.equal(await kept(3) - await kept(1), 2 * per);
});
