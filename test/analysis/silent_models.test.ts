// Programs where a model was built and trained but oomlens said "No model found" or "All checks passed" with no
// training phase (public repositories replayed in docs/accuracy.md, round 12): a model of the program's own on
// transformers' PreTrainedModel, a Trainer run once per federated round, layers whose sizes are not known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { commandFromText } from '../../server/src/program/launch';
import { workspaceFor } from '../../server/src/program/workspace';

const OPTS = { device: 't4', versions: {} };

test('a model of the program\'s own on PreTrainedModel is a torch module: one model, its exact count, a training phase', async () => {
  const src = `import torch
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class Cfg(PretrainedConfig):
    model_type = "tiny"
    def __init__(self, dim: int = 512, n_layers: int = 8, vocab_size: int = 6400, **kwargs):
        self.dim, self.n_layers, self.vocab_size = dim, n_layers, vocab_size
        super().__init__(**kwargs)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ff = nn.Linear(cfg.dim, 4 * cfg.dim)


def rotary(dim, end):
    freqs = 1.0 / (1e6 ** (torch.arange(0, dim, 2).float() / dim))
    f = torch.outer(torch.arange(end), freqs).float()
    return torch.polar(torch.ones_like(f), f)


class LM(PreTrainedModel):
    config_class = Cfg
    def __init__(self, params: Cfg = None):
        self.params = params or Cfg()
        super().__init__(self.params)
        self.emb = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList([Block(params) for _ in range(params.n_layers)])
        self.out = nn.Linear(params.dim, params.vocab_size, bias=False)
        self.register_buffer("pos_cis", rotary(params.dim // 8, 1024), persistent=False)
        self.OUT = CausalLMOutputWithPast()
        self.post_init()

    def forward(self, x):
        h = self.emb(x)
        for l in self.layers:
            h = h + l.ff(h)[..., :h.shape[-1]]
        self.OUT.__setitem__("logits", self.out(h))
        return self.OUT


model = LM(Cfg(dim=512, n_layers=8)).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randint(0, 6400, (8, 512), device="cuda")
for _ in range(3):
    loss = model(x).logits.float().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const r = await analyze(src, OPTS);
  assert.deepEqual(r.models.map((m) => m.facts.name), ['LM']);
  // Embedding 6400·512 + 8 × Linear(512, 2048) + Linear(512, 6400, bias=False), as transformers counts it on meta.
  assert.equal(r.models[0].facts.paramCount, 6400 * 512 + 8 * (512 * 2048 + 2048) + 512 * 6400);
  assert.ok(r.models[0].estimate.phases.some((p) => p.phase === 'training'));
  // torch.polar of float32 operands is complex64 (8 B an element): [1024, 32] → 262,144 B.
  const buf = r.models[0].facts.buffers.find((b) => b.label === 'polar');
  assert.deepEqual(buf && [buf.shape, buf.dtype], [[1024, 32], 'complex64']);
});

const TRAINER = (loop: string) => `import random
from tqdm import tqdm
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments

cfg = LlamaConfig(hidden_size=2048, intermediate_size=5504, num_hidden_layers=24, num_attention_heads=16, vocab_size=32000)
model = LlamaForCausalLM(cfg)
args = TrainingArguments("out", per_device_train_batch_size=1)

for client in ${loop}:
    trainer = Trainer(model=model, args=args, train_dataset=None)
    trainer.train()
`;

test('a Trainer run in a loop oomlens cannot enumerate (federated rounds) is still a training phase', async () => {
  for (const loop of ['random.sample(range(5), 2)', 'tqdm(range(5))']) {
    const r = await analyze(TRAINER(loop), { device: 'rtx-3090', versions: {} });
    assert.equal(r.models.length, 1, loop);
    assert.ok(r.models[0].estimate.phases.some((p) => p.phase === 'training'), `${loop}: a training phase`);
  }
});

test('layers whose sizes are not known: a model of unknown size, never "No model found"', async () => {
  const env = `import os
import torch
from torch import nn

width = int(os.environ["WIDTH"])
model = nn.Sequential(nn.Linear(width, width), nn.Linear(width, width)).cuda()
opt = torch.optim.AdamW(model.parameters())
`;
  const bare = `import os
import torch
from torch import nn

d = int(os.environ["D"])
model = nn.Linear(d, d).cuda()
opt = torch.optim.Adam(model.parameters())
`;
  const star = `import os
from torch import nn

n = int(os.environ["N"])
model = nn.Sequential(*[nn.Linear(64, 64) for _ in range(n)]).cuda()
`;
  for (const src of [env, bare, star]) {
    const r = await analyze(src, { device: 'rtx-4090', versions: {} });
    assert.equal(r.models.length, 1, src);
    assert.equal(r.models[0].facts.paramCount, null, src);
    assert.ok(r.models[0].facts.unknowns.length > 0, src);
    assert.ok(r.models[0].estimate.phases.every((p) => p.fits !== true), src);
  }
  // A bare layer of unknown size that never goes to the accelerator stays a building block.
  const idle = await analyze(`import os\nfrom torch import nn\nd = int(os.environ["D"])\nlayer = nn.Linear(d, d)\n`, OPTS);
  assert.equal(idle.models.length, 0);
});

test('tyro.extras.overridable_config_cli: the command line names the config and overrides its fields', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-tyro-'));
  const src = `import dataclasses
import torch
import tyro
from torch import nn


@dataclasses.dataclass
class Config:
    width: int = 64
    layers: int = 2


CONFIGS = {
    "big": ("24 layers of 8192", Config(width=8192, layers=24)),
    "small": ("2 layers of 64", Config(width=64, layers=2)),
}


def main(cfg: Config):
    model = nn.Sequential(*[nn.Linear(cfg.width, cfg.width) for _ in range(cfg.layers)]).cuda()


if __name__ == "__main__":
    main(tyro.extras.overridable_config_cli(CONFIGS))
`;
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'train.py'), src);
    const count = async (run: string | undefined) => {
      const launch = run ? commandFromText(workspaceFor(root), run, '--run', root) : null;
      const r = await analyze(src, { path: join(root, 'train.py'), device: 'rtx-4090', versions: {}, launch });
      return r.models.map((m) => m.facts.paramCount);
    };
    assert.deepEqual(await count('python train.py big'), [24 * (8192 * 8192 + 8192)]);
    assert.deepEqual(await count('python train.py big --width 1024'), [24 * (1024 * 1024 + 1024)]);
    assert.deepEqual(await count(undefined), [null], 'no command line: a model of unknown size');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('timm\'s NativeScaler runs the backward and the optimizer step (DeiT, ConvNeXt, MAE, timm\'s train.py)', async () => {
  const src = `import torch
import torch.nn as nn
from timm.utils import NativeScaler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(1024, 4096)
        self.l2 = nn.Linear(4096, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


model = Net().cuda()
opt = torch.optim.AdamW(model.parameters())
loss_scaler = NativeScaler()
x = torch.randn(64, 1024, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for _ in range(3):
    with torch.cuda.amp.autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss_scaler(loss, opt, clip_grad=None, parameters=model.parameters())
`;
  const r = await analyze(src, OPTS);
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, 'a training phase');
  // AdamW: two float32 moments per parameter.
  assert.equal(p.breakdown.filter((b) => /^optimizer state/.test(b.label)).reduce((a, b) => a + b.bytes, 0), 2 * 4 * (1024 * 4096 + 4096 + 4096 * 10 + 10));
});

test('a backward on a loss a library computed (a training wrapper oomlens does not follow): a file-level unknown, not "All checks passed"', async () => {
  // Two models, and the backward runs inside the loss scaler on the loss of a wrapper oomlens does not follow: which
  // model trains is not known (timm's train.py: ClassificationTask, then NativeScaler).
  const src = `import torch
import torch.nn as nn
from timm.utils import NativeScaler
from sometrainer import Task

model = nn.Sequential(nn.Linear(1024, 1024)).cuda()
probe = nn.Sequential(nn.Linear(256, 256)).cuda()
task = Task(model)
opt = torch.optim.SGD(task.parameters(), lr=0.1)
scaler = NativeScaler()
x = torch.randn(64, 1024, device="cuda")
for _ in range(3):
    scaler(task(x)["loss"], opt)
`;
  const r = await analyze(src, OPTS);
  assert.equal(r.models.length, 2);
  assert.ok(r.unknowns.some((u) => u.what === 'training step' && /backward pass runs/.test(u.reason)), JSON.stringify(r.unknowns));
});

test('parse_known_args keeps the words it does not take in the command\'s order: a second parser reads them (timm\'s train.py)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-known-'));
  const src = `import argparse, torch, torch.nn as nn
config_parser = argparse.ArgumentParser(add_help=False)
config_parser.add_argument("-c", "--config", default="")
parser = argparse.ArgumentParser(parents=[config_parser])
parser.add_argument("data", nargs="?")
parser.add_argument("--width", type=int, default=1024)
parser.add_argument("--amp", action="store_true")
args_config, remaining = config_parser.parse_known_args()
args = parser.parse_args(remaining)
model = nn.Linear(args.width, args.width).cuda()
opt = torch.optim.Adam(model.parameters())
`;
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'train.py'), src);
    for (const [cmd, width] of [['python train.py /data --width 4096 --amp', 4096], ['python train.py --width 512 /data -c x.yaml', 512]] as const) {
      const r = await analyze(src, { path: join(root, 'train.py'), device: 'a100-80gb', versions: {}, launch: commandFromText(workspaceFor(root), cmd, '--run', root) });
      assert.deepEqual(r.models.map((m) => m.facts.paramCount), [width * width + width], cmd);
    }
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a second Module.init of the same flax module makes its parameters afresh (was "0 parameters")', async () => {
  const src = `import jax, jax.numpy as jnp
import flax.linen as nn

key = jax.random.PRNGKey(0)
xs = jax.random.normal(key, (150, 1024))
model = nn.Dense(features=1024)
params = model.init(key, xs)
params = model.init(key, xs)
`;
  const r = await analyze(src, { device: 'a100-40gb', versions: {} });
  // flax/linen/module.py Module.init: apply with empty variables, every parameter made again: 1024·1024 + 1024.
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [1_049_600, 1_049_600]);
});

test('find_executable_batch_size runs the training loop at its starting batch size (a vendored Trainer copy, accelerate scripts)', async () => {
  const peaks: (number | null)[] = [];
  for (const form of ['call', 'decorator'] as const) {
    const loop = form === 'call'
      ? `def inner(batch_size, steps):
    for _ in range(steps):
        model(torch.randn(batch_size, 1024, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()


run = find_executable_batch_size(inner, 64)
run(3)`
      : `@find_executable_batch_size(starting_batch_size=64)
def inner(batch_size, steps):
    for _ in range(steps):
        model(torch.randn(batch_size, 1024, device="cuda")).sum().backward()
        opt.step()
        opt.zero_grad()


inner(3)`;
    const src = `import torch
import torch.nn as nn
from accelerate.utils import find_executable_batch_size

model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters())


${loop}
`;
    const r = await analyze(src, OPTS);
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
    assert.ok(p, `${form}: a training phase`);
    assert.ok(!p.unknowns.some((u) => /batch/.test(u.reason)), JSON.stringify(p.unknowns));
    peaks.push(p.peakBytes);
  }
  assert.equal(peaks[0], peaks[1], 'the call and the decorator run the same step');
});

test("padding layers have no parameters and pad the last dimensions (melgan's ReflectionPad1d made the count unknown)", async () => {
  const src = `import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.ReflectionPad1d(3), nn.Conv1d(80, 512, kernel_size=7), nn.ReplicationPad2d((1, 1, 2, 2)))

    def forward(self, x):
        return self.model(x)


g = Generator()
`;
  const r = await analyze(src, OPTS);
  assert.equal(r.models[0].facts.paramCount, 80 * 512 * 7 + 512);
});

test('a subclass of a transformers model class built by its constructor: the library\'s modules and its own (dalle-mini\'s pattern, in PyTorch)', async () => {
  const src = (body: string) => `import torch
import torch.nn as nn
from transformers import BartConfig, BartForConditionalGeneration


class MyBart(BartForConditionalGeneration):
${body}


config = BartConfig(d_model=1024, encoder_layers=12, decoder_layers=12, encoder_ffn_dim=4096, decoder_ffn_dim=4096, vocab_size=50264)
model = MyBart(config).cuda()
`;
  // BartForConditionalGeneration(config) on the meta device, transformers 5.23: 406,290,432 parameters.
  const BART = 406_290_432;
  const plain = await analyze(src('    pass'), OPTS);
  assert.deepEqual(plain.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MyBart', BART]]);
  const own = await analyze(src('    def __init__(self, config):\n        super().__init__(config)\n        self.proj = nn.Linear(512, config.d_model)'), OPTS);
  assert.deepEqual(own.models.map((m) => [m.facts.name, m.facts.paramCount]), [['MyBart', BART + 512 * 1024 + 1024]]);
});

test('a flax parameter whose init function is the program\'s own (a lambda): its shape and dtype from what the function returns', async () => {
  const src = (call: string) => `import jax, jax.numpy as jnp
import flax.linen as nn


class Temperature(nn.Module):
    init_value: float = 1.0

    @nn.compact
    def __call__(self):
        log_temp = ${call}
        return jnp.exp(log_temp)


params = Temperature().init(jax.random.PRNGKey(0))
`;
  for (const call of ['self.param("log_temp", init_fn=lambda key: jnp.full((), jnp.log(self.init_value)))', 'self.param("log_temp", lambda key, shape: jnp.zeros(shape), (64, 32))']) {
    const r = await analyze(src(call), { device: 'a100-40gb', versions: {} });
    assert.deepEqual(r.models.map((m) => m.facts.paramCount), [call.includes('(64, 32)') ? 64 * 32 : 1], call);
  }
});

test('a program\'s class on ninjax\'s Module (dreamerv3): "No model found" says a model is built by a library oomlens does not model', async () => {
  const src = `import jax.numpy as jnp
import ninjax as nj


class MLP(nj.Module):
    def __call__(self, x):
        return x @ self.value("kernel", jnp.zeros, (x.shape[-1], 8192), jnp.float32)


model = MLP(name="mlp")
state = nj.init(model)({}, jnp.zeros((16, 8192)))
`;
  const r = await analyze(src, OPTS);
  assert.equal(r.models.length, 0);
  assert.ok(r.unknowns.some((u) => /built by ninjax/.test(u.reason)), JSON.stringify(r.unknowns));
});

test('from_pretrained of a subclass whose __init__ may replace the library\'s modules: no lower bound, no verdict (was a false OOM001)', async () => {
  const src = (init: string) => `import torch, torch.nn as nn, transformers


def convert_to_int8(model):
    for module in list(model.modules()):
        for name, child in module.named_children():
            if isinstance(child, nn.Linear):
                setattr(module, name, nn.Identity())


class MyLlama(transformers.LlamaForCausalLM):
${init}


model = MyLlama.from_pretrained("meta-llama/Llama-2-7b-hf")
model.to("cuda")
`;
  const swap = await analyze(src('    def __init__(self, config):\n        super().__init__(config)\n        convert_to_int8(self)'), OPTS);
  const load = swap.models[0].estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.peakBytes, null);
  assert.equal(load.fits, null);
  assert.deepEqual(swap.findings.filter((f) => f.code === 'OOM001'), []);
  // Only adding a module: the library's count is a lower bound ("≥"), over a T4 in float32.
  const adds = await analyze(src('    def __init__(self, config):\n        super().__init__(config)\n        self.projector = nn.Linear(1024, config.hidden_size)'), OPTS);
  const l2 = adds.models[0].estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(l2.peakIsLowerBound, true);
  assert.equal(l2.fits, false);
  // No __init__ of its own: exactly the library's model.
  const same = await analyze(src('    def describe(self):\n        return "mine"'), OPTS);
  assert.equal(same.models[0].facts.paramCount, 6_738_415_616);
  assert.equal(same.models[0].estimate.phases.find((p) => p.phase === 'load')!.peakIsLowerBound, false);
});

test('a Flax from_pretrained holds the random initial weights beside the loaded ones (transformers#15766); _do_init=False does not', async () => {
  const src = (extra: string) => `from transformers import FlaxAutoModelForCausalLM
model = FlaxAutoModelForCausalLM.from_pretrained("gpt2-xl"${extra})
`;
  const N = 1_557_611_200; // gpt2-xl (test/catalog/transformers.test.ts)
  const two = await analyze(src(''), { device: 'tpu-v3', versions: {} });
  const load = two.models[0].estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.peakBytes, 2 * 4 * N);
  const one = await analyze(src(', _do_init=False'), { device: 'tpu-v3', versions: {} });
  assert.equal(one.models[0].estimate.phases.find((p) => p.phase === 'load')!.peakBytes, 4 * N);
});

test('AutoModelWithLMHead (transformers 4.x) is the model type\'s LM head: causal for GPT-2, masked for BERT', async () => {
  const r = await analyze('from transformers import AutoModelWithLMHead\nmodel = AutoModelWithLMHead.from_pretrained("gpt2")\nm2 = AutoModelWithLMHead.from_pretrained("bert-base-uncased")\n', OPTS);
  // GPT2LMHeadModel (tied head) and BertForMaskedLM, as transformers counts them.
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [124_439_808, 109_514_298]);
});

test('apex amp: initialize returns the model and optimizer (O1 autocasts), scale_loss yields the loss the backward runs on', async () => {
  const src = `import torch
import torch.nn as nn
from apex import amp

model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10)).cuda()
opt = torch.optim.Adam(model.parameters())
model, opt = amp.initialize(model, opt, opt_level="O1")
x = torch.randn(64, 1024, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for _ in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    with amp.scale_loss(loss, opt) as scaled_loss:
        scaled_loss.backward()
    opt.step()
    opt.zero_grad()
`;
  const r = await analyze(src, OPTS);
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, 'a training phase');
  assert.ok(!p.unknowns.some((u) => /training step|scale_loss/.test(u.reason)), JSON.stringify(p.unknowns));
});

test('flax self.variable / has_variable during init: the running mean is state (a buffer) of its init function\'s shape', async () => {
  const src = `import jax, jax.numpy as jnp
import flax.linen as nn


class BiasAdderWithRunningMean(nn.Module):
    decay: float = 0.99

    @nn.compact
    def __call__(self, x):
        is_initialized = self.has_variable("batch_stats", "mean")
        ra_mean = self.variable("batch_stats", "mean", jnp.zeros, x.shape[1:])
        bias = self.param("bias", lambda rng, shape: jnp.zeros(shape), x.shape[1:])
        if is_initialized:
            ra_mean.value = self.decay * ra_mean.value + (1.0 - self.decay) * jnp.mean(x, axis=0, keepdims=True)
        return x - ra_mean.value + bias


variables = BiasAdderWithRunningMean().init(jax.random.PRNGKey(0), jnp.ones((10, 4096)))
`;
  const r = await analyze(src, { device: 'a100-40gb', versions: {} });
  // flax init: params {bias: (4096,)}, batch_stats {mean: (4096,)}.
  assert.equal(r.models[0].facts.paramCount, 4096);
  assert.deepEqual(r.models[0].facts.buffers.map((b) => b.shape), [[4096]]);
});

test('a transformers base model (no LM head) trained on its hidden states makes no vocabulary-sized logits', async () => {
  const src = (cls: string) => `import torch
from transformers import ${cls}
model = ${cls}.from_pretrained("gpt2").cuda()
opt = torch.optim.AdamW(model.parameters())
ids = torch.randint(0, 50257, (2, 128), device="cuda")
for _ in range(3):
    out = model(ids)[0]
    out.float().pow(2).mean().backward()
    opt.step(); opt.zero_grad()
`;
  const base = await analyze(src('AutoModel'), OPTS);
  const p = base.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  assert.ok(!p.breakdown.some((b) => /^logits|log-probs|cross-entropy/.test(b.label)), JSON.stringify(p.breakdown.map((b) => b.label)));
  const lm = await analyze(src('AutoModelForCausalLM'), OPTS);
  assert.ok(lm.models[0].estimate.phases.find((x) => x.phase === 'training')!.breakdown.some((b) => /^logits/.test(b.label)));
});

test('PixelUnshuffle / PixelShuffle have no parameters (T2I-Adapter\'s adapter was "parameters unknown")', async () => {
  const src = `import torch.nn as nn


class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.unshuffle = nn.PixelUnshuffle(8)
        self.conv = nn.Conv2d(192, 320, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)


m = Adapter()
`;
  const r = await analyze(src, OPTS);
  assert.equal(r.models[0].facts.paramCount, 192 * 320 * 9 + 320);
});

test('popping a collection from the variables flax init returned does not take the parameters out of the model\'s count', async () => {
  const src = `import jax, jax.numpy as jnp
import flax.linen as nn

model = nn.Dense(4096)
variables = model.init(jax.random.PRNGKey(0), jnp.ones((10, 1024)))
params = variables.pop("params")
del variables
`;
  const r = await analyze(src, { device: 'a100-40gb', versions: {} });
  // Dense(4096) on 1024 features: kernel 1024·4096 + bias 4096 (flax/linen/linear.py).
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [1024 * 4096 + 4096]);
});
