// The training phase read from code (issue 5): optimizers, gradient
// transforms, mixed precision, checkpointing, accumulation, FSDP / ZeRO, and
// activations from Korthikanti et al. 2022 or from the traced forward. Each
// expected number is derived in a comment from the formula's source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import type { PhaseEstimate } from '../../shared/src/types';

async function training(src: string, device = 'a100-80gb', model?: string): Promise<{ phase: PhaseEstimate; params: number; all: Awaited<ReturnType<typeof analyze>> }> {
  const r = await analyze(src, { device });
  const m = model ? r.models.find((x) => x.facts.name === model) : r.models.find((x) => x.estimate.phases.some((p) => p.phase === 'training'));
  assert.ok(m, `a model with a training phase: ${r.models.map((x) => x.facts.name).join(', ')}`);
  const phase = m.estimate.phases.find((p) => p.phase === 'training');
  assert.ok(phase, 'training phase');
  return { phase, params: m.facts.paramCount ?? NaN, all: r };
}

const part = (p: PhaseEstimate, re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);

const EQX_LM = `
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Block(eqx.Module):
    attn: eqx.nn.MultiheadAttention
    mlp: eqx.nn.MLP

    def __init__(self, dim, heads, key):
        k1, k2 = jax.random.split(key)
        self.attn = eqx.nn.MultiheadAttention(heads, dim, key=k1)
        self.mlp = eqx.nn.MLP(dim, dim, 4 * dim, 1, key=k2)


class LM(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: list
    n_head: int = eqx.field(static=True)

    def __init__(self, key):
        keys = jax.random.split(key, 3)
        self.embed = eqx.nn.Embedding(1000, 256, key=keys[0])
        self.blocks = [Block(256, 4, k) for k in keys[1:]]
        self.n_head = 4
`;

test('optax MultiSteps(chain(clip, adamw(mu_dtype=bf16))), bf16 compute by casting, jax.checkpoint', async () => {
  const src = EQX_LM + `

def loss_fn(model, x):
    model = jax.tree_util.tree_map(lambda p: p.astype(jnp.bfloat16) if eqx.is_array(p) else p, model)
    h = jax.checkpoint(lambda m, x: x)(model, x)
    return optax.softmax_cross_entropy_with_integer_labels(h, x).mean()


model = LM(jax.random.PRNGKey(0))
opt = optax.MultiSteps(optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(3e-4, mu_dtype=jnp.bfloat16)), every_k_schedule=4)
opt_state = opt.init(eqx.filter(model, eqx.is_array))
x = jnp.zeros((8, 128), dtype=jnp.int32)

for i in range(1000000):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x)
    updates, opt_state = opt.update(grads, opt_state, model)
    model = eqx.apply_updates(model, updates)
`;
  const t0 = Date.now();
  const { phase, params: P } = await training(src);
  // The million-step loop is followed for two iterations only.
  assert.ok(Date.now() - t0 < 20_000);
  assert.ok(P > 1_000_000);
  // optax scale_by_adam: mu in bfloat16 (2 B) + nu in float32 (4 B) per parameter + int32 count (4 B).
  assert.equal(part(phase, /^optimizer state: optax\.adamw/), 6 * P + 4);
  // MultiSteps acc_grads = zeros_like(params): 4 B per parameter; gradients the same.
  assert.equal(part(phase, /^MultiSteps accumulator/), 4 * P);
  assert.equal(part(phase, /^gradients/), 4 * P);
  // jax.checkpoint: full recomputation keeps each layer's input: e·s·b·h per layer, e = 2 (bf16 compute)
  // = 2 · 128 · 8 · 256 = 524,288 B × 2 layers = 1,048,576 B.
  assert.equal(part(phase, /^activations saved/), 1_048_576);
  // Under jit only the saved log-probs [8, 128, 1000] in bf16: 1,024,000 elements × 2 B.
  assert.equal(part(phase, /log-probs/), 2_048_000);
  assert.equal(part(phase, /^logits/), 0);
});

test('optax adafactor and sgd: factored / no state', async () => {
  const base = EQX_LM + `
model = LM(jax.random.PRNGKey(0))
params = eqx.filter(model, eqx.is_array)
`;
  const sgd = await training(base + 'opt = optax.sgd(0.1)\nstate = opt.init(params)\n');
  // optax.sgd without momentum keeps no state.
  assert.equal(part(sgd.phase, /^optimizer state/), 0);
  const mom = await training(base + 'opt = optax.sgd(0.1, momentum=0.9)\nstate = opt.init(params)\n');
  // trace(): one float32 buffer per parameter.
  assert.equal(part(mom.phase, /^optimizer state/), 4 * mom.params);
  const af = await training(base + 'opt = optax.adafactor(1e-3)\nstate = opt.init(params)\n');
  // Factored: far less than a full v (4 B per parameter).
  const s = part(af.phase, /^optimizer state/);
  assert.ok(s > 0 && s < 4 * af.params / 4, `adafactor state ${s}`);
  // No forward input was seen: activations unknown with the reason, the rest still reported.
  assert.ok(af.phase.unknowns.some((u) => u.what === 'activations' && /not sized/.test(u.reason)));
  assert.equal(af.phase.fits, null);
});

test('torch: FSDP divides parameters, gradients and SGD momentum over the devices', async () => {
  const src = `
import torch
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4096, 4096)
        self.fc2 = nn.Linear(4096, 4096)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = FSDP(MLP())
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(10):
    x = torch.randn(64, 4096, device="cuda")
    loss = model(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const { phase, params: P } = await training(src, '8xa100-80gb');
  // 2 × (4096² + 4096) = 33,562,624 parameters × 4 B = 134,250,496 B; FULL_SHARD over 8: 16,781,312 B each.
  assert.equal(P, 33_562_624);
  assert.equal(part(phase, /^parameters/), 16_781_312);
  assert.equal(part(phase, /^gradients/), 16_781_312);
  assert.equal(part(phase, /^optimizer state: torch\.optim\.SGD/), 16_781_312);
  // Not a transformer: what autograd saves, op by op (derivatives.yaml): fc1 saves x (the program's own
  // input, not an activation), relu its result [64, 4096], which fc2 saves too (one storage): 1,048,576 B.
  // fc2's output [64, 4096] is returned (1,048,576 B); `.sum()` keeps nothing.
  assert.equal(part(phase, /^activations: saved for the backward/), 1_048_576);
  assert.equal(part(phase, /^activations: forward output/), 1_048_576);
});

test('op-level activations of a torchvision-style CNN block: conv, BatchNorm, ReLU, max-pool, residual add', async () => {
  const src = `
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.block = BasicBlock(16)
        self.fc = nn.Linear(16 * 16 * 16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.stem(x)), 2)
        x = self.block(x)
        return self.fc(torch.flatten(x, 1))


model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 32, 32, device="cuda")
y = torch.randint(0, 10, (8,), device="cuda")
for step in range(2):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
`;
  const { phase } = await training(src, 'a100-80gb');
  // Saved storages (float32, B = 8): stem's ReLU result [8,16,32,32] = 524,288 B (relu: result; max_pool2d: self);
  // max_pool2d indices [8,16,16,16] int64 = 262,144 B; its output [8,16,16,16] = 131,072 B (conv1: input; the
  // residual add saves nothing); conv1's output (bn1: input) 131,072; bn1 statistics 2 × 16 × 4 = 128; relu result
  // (conv2: input) 131,072; conv2's output (bn2: input) 131,072; bn2 statistics 128; the final relu result (fc's
  // input, a flatten view) 131,072. Total 524,288 + 262,144 + 5 × 131,072 + 256 = 1,442,048 B.
  // Alive from the end of the forward (the timeline's step that adds them) until the backward releases them.
  const at = phase.timeline.findIndex((t) => /^\+ activations: saved for the backward/.test(t.label));
  assert.ok(at > 0, 'the saved activations are in the timeline');
  assert.equal(phase.timeline[at].liveBytes - phase.timeline[at - 1].liveBytes, 1_442_048);
  // The backward, op by op (.grad set to None by zero_grad before the forward): its peak is at bn2's backward, with
  // fc's weight gradient (4096·10 + 10 = 40,970 × 4 = 163,880 B) and bn2's affine gradients (2 × 16 × 4 = 128 B)
  // made, everything but fc's input still saved (1,442,048 − 131,072), and three [8,16,16,16] activation gradients
  // (the flatten view's, the final relu's input and bn2's input: 3 × 131,072 B).
  assert.equal(part(phase, /^gradients \(float32\) made so far/), 163_880 + 128);
  assert.equal(part(phase, /^activations: still saved at the backward's peak/), 1_442_048 - 131_072);
  assert.equal(part(phase, /^activations: backward/), 3 * 131_072);
  assert.equal(phase.unknowns.filter((u) => u.what === 'activations').length, 0);
});

test('DeepSpeed ZeRO stage 2 from the config dict, optimizer from its "optimizer" entry', async () => {
  const src = `
import deepspeed
import torch
from transformers import AutoModelForCausalLM

ds_config = {"train_batch_size": 8, "zero_optimization": {"stage": 2}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}
model = AutoModelForCausalLM.from_pretrained("gpt2")
engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
`;
  const { phase } = await training(src, '8xa100-40gb');
  // GPT-2: 124,439,808 × 4 B = 497,759,232 B. Stage 2: parameters whole, gradients and AdamW state / 8:
  // 62,219,904 and 995,518,464 / 8 = 124,439,808 B.
  assert.equal(part(phase, /^parameters/), 497_759_232);
  assert.equal(part(phase, /^gradients/), 62_219_904);
  assert.equal(part(phase, /^optimizer state/), 124_439_808);
  assert.ok(phase.notes.some((n) => /ZeRO stage 2/.test(n)));
});

test('transformers: autocast bf16 and gradient_checkpointing_enable', async () => {
  const src = `
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model.gradient_checkpointing_enable()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(100):
    batch = torch.randint(0, 50257, (16, 1024), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(input_ids=batch, labels=batch)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;
  const { phase } = await training(src);
  // Full recomputation keeps each layer's input in bf16: 2 · s·b·h = 2 · 1024·16·768 = 25,165,824 B × 12 layers.
  assert.equal(part(phase, /^activations saved/), 301_989_888);
  // bf16 logits 16·1024·50257 × 2 B = 1,646,821,376; float32 log-probs (log_softmax autocasts to fp32) twice that.
  assert.equal(part(phase, /^logits/), 1_646_821_376);
  assert.equal(part(phase, /log-probs/), 3_293_642_752);
  // AdamW state follows the float32 parameters: 2 × 497,759,232 B.
  assert.equal(part(phase, /^optimizer state/), 995_518_464);
});

test('torch.utils.checkpoint in a hand-written model, and 8-bit AdamW', async () => {
  const src = `
import bitsandbytes as bnb
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.n_head = h
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 512)
        self.blocks = nn.ModuleList([Block(512, 8) for _ in range(4)])

    def forward(self, idx):
        x = self.emb(idx)
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False)
        return x


model = Net()
opt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-3)
for step in range(10):
    idx = torch.randint(0, 1000, (4, 256))
    loss = model(idx).sum()
    loss.backward()
    opt.step()
`;
  const { phase, params: P } = await training(src);
  // 8-bit AdamW: 2 B per parameter.
  assert.equal(part(phase, /^optimizer state: bnb\.optim\.AdamW8bit/), 2 * P);
  // Checkpointed layers keep their fp32 input: 4 · s·b·h = 4 · 256·4·512 = 2,097,152 B × 4 layers.
  assert.equal(part(phase, /^activations saved/), 8_388_608);
});

test('activations unknown with the reason when the batch comes from an unknown loader', async () => {
  const src = `
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 512)
        self.n_head = 8
        self.blocks = nn.ModuleList([nn.Linear(512, 512) for _ in range(4)])

    def forward(self, idx):
        return self.emb(idx)


model = Net()
opt = torch.optim.AdamW(model.parameters())


def train_step(batch):
    loss = model(batch).sum()
    loss.backward()
    opt.step()


for batch in loader:
    train_step(batch)
`;
  const { phase, params: P } = await training(src);
  const u = phase.unknowns.find((x) => x.what === 'activations');
  assert.ok(u, 'activations unknown');
  assert.match(u.reason, /not sized/);
  // Still reported: weights, gradients and AdamW state (4 + 4 + 8 B per parameter).
  assert.equal(part(phase, /^parameters/) + part(phase, /^gradients/) + part(phase, /^optimizer state/), 16 * P);
  assert.equal(phase.fits, null);
});

test('no training phase for a model that is only run', async () => {
  const r = await analyze(`
import torch
import torch.nn as nn
model = nn.Linear(10, 10)
with torch.no_grad():
    y = model(torch.randn(4, 10))
`, { device: 'a100-80gb' });
  assert.ok(r.models.every((m) => m.estimate.phases.every((p) => p.phase !== 'training')));
});

test('@eqx.filter_checkpoint as a decorator: full recomputation', async () => {
  const src = `
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Block(eqx.Module):
    mlp: eqx.nn.MLP

    def __init__(self, key):
        self.mlp = eqx.nn.MLP(256, 256, 1024, 1, key=key)

    @eqx.filter_checkpoint
    def __call__(self, x):
        return self.mlp(x)


class LM(eqx.Module):
    embed: eqx.nn.Embedding
    blocks: list
    n_heads: int = 4

    def __init__(self, key):
        keys = jax.random.split(key, 3)
        self.embed = eqx.nn.Embedding(1000, 256, key=keys[0])
        self.blocks = [Block(k) for k in keys[1:]]


def loss_fn(model, x):
    return jnp.mean(x)


model = LM(jax.random.PRNGKey(0))
opt = optax.adam(1e-3)
state = opt.init(eqx.filter(model, eqx.is_array))
x = jnp.zeros((8, 128), dtype=jnp.int32)
for i in range(10):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x)
`;
  const { phase, params: P } = await training(src);
  // Layer inputs only, float32: 4 · s·b·h = 4 · 128·8·256 = 1,048,576 B × 2 layers.
  assert.equal(part(phase, /^activations saved/), 2_097_152);
  // optax.adam, no mu_dtype: mu and nu in float32 (8 B per parameter) + the int32 count.
  assert.equal(part(phase, /^optimizer state/), 8 * P + 4);
  // No cross-entropy in the file: no logits counted, and a note says so.
  assert.equal(part(phase, /log-probs|^logits/), 0);
  assert.ok(phase.notes.some((n) => /no cross-entropy/.test(n)));
});

test('transformers before GPT-2 had SDPA (4.40): attention scores are stored', async () => {
  const src = `
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(100):
    batch = torch.randint(0, 50257, (2, 512))
    out = model(input_ids=batch, labels=batch)
    out.loss.backward()
    optimizer.step()
`;
  const act = async (versions: Record<string, string>) => {
    const r = await analyze(src, { device: 'a100-80gb', versions });
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    return part(p, /^activations saved/);
  };
  // eval mode (no .train()): no dropout. s·b·h = 512·2·768 = 786,432; a·s²·b = 12·512²·2 = 6,291,456.
  // 4.40 (eager): (64·786,432 + 4·6,291,456) × 12 = (50,331,648 + 25,165,824) × 12 = 905,969,664 B.
  assert.equal(await act({ transformers: '4.40.0' }), 905_969_664);
  // 4.46 (SDPA): 64·786,432 × 12 = 603,979,776 B.
  assert.equal(await act({ transformers: '4.46.0' }), 603_979_776);
});

// A jitted JAX step without donation returns new parameters and optimizer state in buffers of their own, beside
// its arguments (measured: test/truth/programs/*_eager_init.py, 151.4 MB = 2 × (25.2 + 50.4) MB); with
// donate_argnums / equinox donate= the outputs reuse the arguments' buffers (test/truth/programs/linen_donate.py).
test('jitted JAX step: 2 × (parameters + optimizer state) without donation, 1× with it', async () => {
  const mlp = (decorator: string, wrap = '') => `
import functools
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class MLP(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Linear(512, 2048, key=k1), eqx.nn.Linear(2048, 512, key=k2)]

    def __call__(self, x):
        return self.layers[1](jax.nn.relu(self.layers[0](x)))


model = MLP(jax.random.PRNGKey(0))
optim = optax.adam(1e-3)
opt_state = optim.init(eqx.filter(model, eqx.is_array))

${decorator}
def train_step(model, opt_state, x):
    def loss_fn(model):
        return jnp.mean(jax.vmap(model)(x) ** 2)

    loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, loss

${wrap}
x = jnp.ones((64, 512))
for step in range(2):
    model, opt_state, loss = ${wrap ? 'step' : 'train_step'}(model, opt_state, x)
`;
  const P = 2 * 512 * 2048 + 2048 + 512;
  const plain = (await training(mlp('@eqx.filter_jit'))).phase;
  // Arguments (P float32 + Adam's mu and nu + int32 count) and the outputs beside them.
  assert.equal(part(plain, /^updated parameters/), 4 * P);
  assert.equal(part(plain, /^updated optimizer state/), 8 * P + 4);
  assert.ok(plain.notes.some((n) => /without donate_argnums/.test(n)));
  for (const [dec, wrap] of [
    ['@eqx.filter_jit(donate="all")', ''],
    ['@functools.partial(jax.jit, donate_argnums=(0, 1))', ''],
    ['', 'step = jax.jit(train_step, donate_argnums=(0, 1))'],
  ]) {
    const d = (await training(mlp(dec, wrap))).phase;
    assert.equal(part(d, /^updated /), 0, dec || wrap);
    assert.ok(d.peakBytes! < plain.peakBytes! - 8 * P, `${dec || wrap}: ${d.peakBytes} vs ${plain.peakBytes}`);
  }
  // Not jitted at all: no outputs beside the arguments either.
  assert.equal(part((await training(mlp('', ''))).phase, /^updated /), 0);
  // donate="none" is equinox's default: no donation.
  assert.equal(part((await training(mlp('@eqx.filter_jit(donate="none")', ''))).phase, /^updated parameters/), 4 * P);
});

test('torch.compile returns the model; DistributedDataParallel keeps it (`.module`) and adds its gradient buckets unless gradient_as_bucket_view', async () => {
  const src = (view: string) => `
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.n_head = h
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 256)
        self.blocks = nn.ModuleList([Block(256, 4) for _ in range(2)])

    def forward(self, idx):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        return x


model = Net().cuda()
model = torch.compile(model)
model = DDP(model, device_ids=[0]${view})
raw_model = model.module
opt = torch.optim.AdamW(raw_model.parameters(), lr=1e-3)
for step in range(10):
    idx = torch.randint(0, 1000, (4, 128), device="cuda")
    loss = model(idx).sum()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
`;
  const plain = await training(src(''));
  // 1000·256 + 2·(256·256 + 256) = 387,584 float32 parameters: the buckets hold their gradients again, 4 B each.
  assert.equal(plain.params, 387_584);
  assert.equal(part(plain.phase, /^DistributedDataParallel gradient buckets/), 4 * 387_584);
  // The forward through the compiled, wrapped model is sized (the input [4, 128] reaches the layers).
  assert.ok(part(plain.phase, /^activations saved/) > 0, plain.phase.breakdown.map((b) => b.label).join('; '));
  const view = await training(src(', gradient_as_bucket_view=True'));
  assert.equal(part(view.phase, /^DistributedDataParallel gradient buckets/), 0);
});

test('parameter groups named through sets (set.add, set difference, sorted) bind the optimizer to its model when another model is built too', async () => {
  // Written for this test: a student trained with AdamW whose two groups are picked by name (weights that decay,
  // biases and norms that do not), beside a frozen teacher that is only built. With two models the optimizer is
  // matched to a model by its parameters, so the groups must hold the student's parameter tensors.
  const src = `
import torch
import torch.nn as nn


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(128, 512)
        self.norm = nn.LayerNorm(512)
        self.out = nn.Linear(512, 10)

    def forward(self, x):
        return self.out(self.norm(self.proj(x)))

    def param_groups(self, wd):
        decay, keep = set(), set()
        for name, p in self.named_parameters():
            (keep if name.endswith("bias") or name.startswith("norm") else decay).add(name)
        decay.add("proj.weight")  # already there: a set keeps one
        by_name = dict(self.named_parameters())
        assert len(set(by_name.keys()) - (decay | keep)) == 0
        assert not (decay & keep)
        return [
            {"params": [by_name[n] for n in sorted(decay, reverse=True)], "weight_decay": wd},
            {"params": [by_name[n] for n in sorted(list(keep), key=len)], "weight_decay": 0.0},
        ]


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(128, 4096)
        self.head = nn.Linear(4096, 10)

    def forward(self, x):
        return self.head(self.body(x))


teacher = Teacher()
student = Student()
opt = torch.optim.AdamW(student.param_groups(0.1), lr=1e-3)
x = torch.randn(32, 128)
for step in range(100):
    loss = student(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const { phase, params: P, all } = await training(src, 'a100-80gb', 'Student');
  // 128·512 + 512 + 2·512 + 512·10 + 10 = 72,202 parameters, all in the two groups: AdamW keeps exp_avg and
  // exp_avg_sq, 2 × 4 B per float32 parameter (torch/optim/adamw.py _init_group).
  assert.equal(P, 72_202);
  assert.equal(part(phase, /^optimizer state/), 8 * P);
  assert.equal(part(phase, /^gradients/), 4 * P);
  // The teacher is built, never stepped: no training phase of its own.
  const teacher = all.models.find((m) => m.facts.name === 'Teacher');
  assert.ok(teacher && !teacher.estimate.phases.some((p) => p.phase === 'training'));
});

test('parameters frozen with `p.requires_grad = False` get no gradient or optimizer state; every parameter frozen while training is unknown', async () => {
  // Written for this test: a backbone frozen by name, a head that trains (torch/optim/adamw.py _init_group makes
  // state only for parameters with a .grad).
  const src = (rule: string) => `
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256))
        self.head = nn.Linear(256, 16)

    def forward(self, x):
        return self.head(self.backbone(x))


def freeze(model):
    for name, p in model.named_parameters():
        if ${rule}:
            p.requires_grad = False


model = Tagger()
freeze(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(64, 256)
for step in range(100):
    loss = model(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const head = await training(src('not name.startswith("head")'), 'a100-80gb', 'Tagger');
  // Parameters: 256·1024 + 1024 + 1024·256 + 256 + 256·16 + 16 = 529,680; the head alone 4,112.
  assert.equal(head.params, 529_680);
  assert.equal(part(head.phase, /^optimizer state/), 8 * 4_112);
  assert.ok([0, 4 * 4_112].includes(part(head.phase, /^gradients/)));
  // Everything frozen, yet the loop trains: what trains was not found — unknown, never zero.
  const r = await analyze(src('True'), { device: 'a100-80gb' });
  const tr = r.models.find((m) => m.facts.name === 'Tagger')!.estimate.phases.find((p) => p.phase === 'training')!;
  assert.notEqual(tr.fits, true);
  assert.ok(tr.unknowns.some((u) => /requires_grad=False/.test(u.reason)), JSON.stringify(tr.unknowns));
});

test('torch AdamW step: foreach unset (CUDA default) adds sqrt(exp_avg_sq) of every parameter after the backward; foreach=False 2 × the largest; fused=True nothing', async () => {
  const mlp = (kw: string) => `import torch
import torch.nn as nn

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4096, 4096, bias=False)
        self.b = nn.Linear(4096, 1024, bias=False)
    def forward(self, x):
        return self.b(torch.relu(self.a(x)))

model = MLP().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4${kw})
for step in range(10):
    x = torch.randn(8, 4096, device="cuda")
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;
  const P = (4096 * 4096 + 4096 * 1024) * 4;
  // float32 parameters P, gradients P, exp_avg + exp_avg_sq 2P, and the step's temporaries; what autograd saved
  // ([8, 4096] inputs) is released before the step, so this is the peak (the forward's [8, 1024] output is kept: the
  // loop may still hold it)
  const dflt = (await training(mlp(''))).phase;
  assert.equal(part(dflt, /^optimizer step temporaries/), P);
  assert.equal(part(dflt, /^activations: (saved|still saved)/), 0);
  assert.equal(part(dflt, /^activations/), 8 * 1024 * 4);
  const single = (await training(mlp(', foreach=False'))).phase;
  assert.equal(part(single, /^optimizer step temporaries/), 2 * 4096 * 4096 * 4);
  const fused = (await training(mlp(', fused=True'))).phase;
  assert.equal(part(fused, /^optimizer step temporaries/), 0);
  assert.equal(dflt.peakBytes! - fused.peakBytes! > 0.9 * P, true);
});

test('a Llama-family model from its config: gated MLP and RMSNorm float32 copies, float32 loss, and the backward\'s two ends', async () => {
  const src = (batch: number, seq = 1024) => `import torch
from transformers import AutoModelForCausalLM, LlamaConfig

config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=4, num_attention_heads=16, vocab_size=8000)
model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
input_ids = torch.randint(0, config.vocab_size, (${batch}, ${seq}))
for step in range(2):
    loss = model(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;
  const big = (await training(src(8))).phase;
  // per token and layer: (4·2816 − 8·1024)·2 B (gate, up, silu, product against the formula's 2 × 4h) + 2 × 4·1024 B
  // (each RMSNorm's float32 copy), × b·s × 4 layers
  assert.equal(part(big, /gated MLP and RMSNorm/), ((4 * 2816 - 8 * 1024) * 2 + 8 * 1024) * 8 * 1024 * 4);
  // transformers' loss upcasts the logits: float32 log-probs, b·s·V·4 B
  assert.equal(part(big, /log-probs/), 8 * 1024 * 8000 * 4);
  // activations outweigh the gradients: the start of the backward is the peak, no .grad exists yet
  assert.equal(part(big, /^gradients/), 0);
  // one short sequence: the end of the backward (every gradient, the first layer's activations) is the peak
  const small = (await training(src(1, 64))).phase;
  assert.ok(part(small, /^gradients/) > 0);
  assert.equal(part(small, /gated MLP and RMSNorm/), 0);
  assert.ok(part(small, /^activations saved for backward \(/) > 0, 'the first layer\'s saved activations');
});
