// Launch commands (program/launch.ts) and the argument readers that take their words
// (program/entrypoints.ts, argv.ts): which command runs a script, the launcher's process
// count, and what each reader makes of the words. Counts here are small enough to check by
// hand in the comment; the multi-file projects in projects.test.ts check against PyTorch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { launchCommandsFor } from '../../server/src/program/launch';
import { workspaceFor } from '../../server/src/program/workspace';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-launch-'));
  writeFileSync(join(root, 'pyproject.toml'), files['pyproject.toml'] ?? '');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

// Linear(d, d) stacked `depth` times: depth·(d² + d) parameters.
const ARGPARSE = `import argparse
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--width", type=int, required=True)
p.add_argument("--depth", type=int, default=1)
p.add_argument("--sizes", type=int, nargs="+", default=[])
p.add_argument("-v", "--verbose", action="count")
args = p.parse_args()
model = nn.Sequential(*[nn.Linear(args.width, args.width) for _ in range(args.depth + len(args.sizes))])
`;

async function paramsOf(root: string, file: string, launch?: null) {
  const r = await analyze(readFile(root, file), { path: join(root, file), device: 'a100-80gb', versions: {}, ...(launch === null ? { launch: null } : {}) });
  return { count: r.models[0]?.facts.paramCount ?? null, run: r.models[0]?.run, unknowns: r.models[0]?.facts.unknowns ?? [], result: r };
}
import { readFileSync } from 'node:fs';
const readFile = (root: string, f: string) => readFileSync(join(root, f), 'utf8');

test('a shell script gives the script its words: variables, defaults, continuations, redirects, abbreviations', async () => {
  const root = project({
    'train.py': ARGPARSE,
    'scripts/run.sh': 'W=64\nexport D=${DEPTH:-2}\npython -u train.py --width $W \\\n  --dep=$D --sizes 1 2 -vv > out.log 2>&1 &\n',
  });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.count, 4 * (64 * 64 + 64)); // depth 2 + two sizes
    assert.equal(r.run, 'args from scripts/run.sh:3');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a word the shell fills at run time ($1) is an unknown, never a guess', async () => {
  const root = project({ 'train.py': ARGPARSE, 'run.sh': 'python train.py --width $1\n' });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.count, null);
    assert.ok(r.result.models.length === 0 || r.result.models.every((m) => m.facts.paramCount === null), 'no confident number');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('without a command, a required option stays unknown; launch: null means a run with no arguments', async () => {
  const root = project({ 'train.py': ARGPARSE, 'run.sh': 'python train.py --width 8\n' });
  try {
    assert.equal((await paramsOf(root, 'train.py')).count, 8 * 8 + 8);
    assert.equal((await paramsOf(root, 'train.py', null)).count, null);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('launchers: process counts from torchrun, python -m torch.distributed.run, accelerate (+ config file), deepspeed, mpirun', () => {
  const root = project({
    'train.py': 'print(1)\n',
    'pkg/__init__.py': '',
    'pkg/main.py': 'print(2)\n',
    'acc.yaml': 'num_processes: 8\nmixed_precision: bf16\n',
    'a.sh': [
      'torchrun --nnodes 2 --nproc-per-node 4 train.py --a 1',
      'python3 -m torch.distributed.run --nproc_per_node=2 train.py',
      'accelerate launch --config_file acc.yaml train.py',
      'accelerate launch --multi_gpu --num_processes 3 train.py --b',
      'deepspeed --include localhost:0,1,2 train.py --deepspeed ds.json',
      'CUDA_VISIBLE_DEVICES=0,1 deepspeed train.py',
      'mpirun -np 16 python train.py',
      'python -m pkg.main --x 1',
      'echo python train.py',
      // torchrun's parser drops the `--` before the script's words (argparse REMAINDER); python passes it on.
      'torchrun --standalone --nproc_per_node=8 -m pkg.main -- --depth=12',
      'torchrun --nproc_per_node 2 train.py -- --c 3',
      'python train.py -- --d 4',
    ].join('\n'),
  });
  try {
    const ws = workspaceFor(root);
    const got = launchCommandsFor(ws, join(root, 'train.py')).map((c) => [c.source, c.launcher, c.world ?? null, c.argv.join(' ')]);
    assert.deepEqual(got, [
      ['a.sh:1', 'torchrun', 8, '--a 1'],
      ['a.sh:2', 'torchrun', 2, ''],
      ['a.sh:3', 'accelerate', 8, ''],
      ['a.sh:4', 'accelerate', 3, '--b'],
      ['a.sh:5', 'deepspeed', 3, '--deepspeed ds.json'],
      ['a.sh:6', 'deepspeed', 2, ''],
      ['a.sh:7', 'mpirun', 16, ''],
      ['a.sh:11', 'torchrun', 2, '--c 3'],
      ['a.sh:12', 'python', 1, '-- --d 4'],
    ]);
    const mod = launchCommandsFor(ws, join(root, 'pkg', 'main.py'));
    assert.deepEqual(mod.map((c) => [c.source, c.argv.join(' ')]), [['a.sh:8', '--x 1'], ['a.sh:10', '--depth=12']]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('python -m of a package in a src layout (pip install -e . with where = ["src"]) finds src/<pkg>', () => {
  const root = project({
    'src/mypkg/__init__.py': '',
    'src/mypkg/train.py': 'print(1)\n',
    'run.sh': 'python -m mypkg.train --width 8\n',
  });
  try {
    const got = launchCommandsFor(workspaceFor(root), join(root, 'src', 'mypkg', 'train.py')).map((c) => [c.source, c.argv.join(' ')]);
    assert.deepEqual(got, [['run.sh:1', '--width 8']]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('environment runners and scripts run directly: uv run (its options skipped), poetry run, ./train.py; jsonargparse.cli.CLI takes the words', async () => {
  const root = project({
    'train.py': ARGPARSE,
    'cli.py': `from jsonargparse.cli import CLI
import torch.nn as nn


def main(width: int = 8, depth: int = 1):
    return nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])


if __name__ == "__main__":
    model = CLI(main)
`,
    'a.sh': [
      'uv run --with rich --python 3.11 train.py --width 4',
      'poetry run python train.py --width 5',
      './train.py --width 6',
      'uv run cli.py --width 16 --depth 3',
    ].join('\n'),
  });
  try {
    const ws = workspaceFor(root);
    const got = launchCommandsFor(ws, join(root, 'train.py')).map((c) => [c.source, c.launcher, c.world ?? null, c.argv.join(' ')]);
    assert.deepEqual(got, [
      ['a.sh:1', 'python', 1, '--width 4'],
      ['a.sh:2', 'python', 1, '--width 5'],
      ['a.sh:3', 'python', 1, '--width 6'],
    ]);
    // jsonargparse.cli.CLI(main) with `--width 16 --depth 3`: 3 × Linear(16, 16) = 3 · 272 = 816.
    const r = await paramsOf(root, 'cli.py');
    assert.equal(r.run, 'args from a.sh:4');
    assert.equal(r.count, 816);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a weights file absent from the workspace may exist where the program runs: a raise guard on it is not taken; a program that raises says so', async () => {
  const body = (path: string) => `import os
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)


def main():
    path = "${path}"
    if not os.path.isfile(path):
        raise FileNotFoundError(f"download {path} first")
    return Net()


model = main()
`;
  const root = project({ 'weights.py': body('checkpoints/net.pth'), 'data.py': body('data/train.txt') });
  try {
    // checkpoints/net.pth: whether it exists is unknown, so the raise-only branch is not taken: Linear(32, 32) = 1,056.
    const w = await paramsOf(root, 'weights.py', null);
    assert.equal(w.count, 1_056);
    // data/train.txt is not in the workspace (a fresh checkout): the guard raises; the analysis says where.
    const d = await paramsOf(root, 'data.py', null);
    assert.equal(d.result.models.length, 0);
    assert.ok(JSON.stringify(d.result.unknowns).includes('the program raises here'), JSON.stringify(d.result.unknowns));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('sources in order: [[tool.oomlens.runs]] first, then launch.json, shell scripts, Markdown', () => {
  const root = project({
    'pyproject.toml': '[[tool.oomlens.runs]]\ncommand = "python train.py --width 3"\n',
    'train.py': ARGPARSE,
    '.vscode/launch.json': '{ "configurations": [ { "type": "python", "program": "${workspaceFolder}/train.py", "args": ["--width", "5"] } ] }',
    'z.sh': 'python train.py --width 7\n',
    'README.md': '```console\n$ python train.py --width 9\n```\n',
  });
  try {
    const got = launchCommandsFor(workspaceFor(root), join(root, 'train.py')).map((c) => [c.source, c.argv.join(' ')]);
    assert.deepEqual(got, [['pyproject.toml:1', '--width 3'], ['.vscode/launch.json:1', '--width 5'], ['z.sh:1', '--width 7'], ['README.md:2', '--width 9']]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('the world size divides ZeRO-3 state; DDP keeps a full copy per process', async () => {
  // 1024·1024 + 1024 = 1,049,600 float32 parameters; AdamW keeps two more copies.
  const code = (sharded: boolean) => `import torch, torch.nn as nn
${sharded ? 'from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n' : ''}class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1024, 1024)
    def forward(self, x):
        return self.a(x)
model = M().cuda()
${sharded ? 'model = FSDP(model)\n' : ''}opt = torch.optim.AdamW(model.parameters())
for x in range(10):
    loss = model(torch.randn(8, 1024, device="cuda")).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;
  for (const sharded of [false, true]) {
    const root = project({ 'train.py': code(sharded), 'go.sh': 'torchrun --nproc_per_node 4 train.py\n' });
    try {
      const r = await paramsOf(root, 'train.py');
      assert.equal(r.run, 'args from go.sh:1, torchrun ×4');
      const tr = r.result.models[0].estimate.phases.find((p) => p.phase === 'training')!;
      const opt = tr.breakdown.filter((b) => b.role === 'optimizer' && /^optimizer state/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
      assert.equal(opt, (sharded ? 2 / 4 : 2) * 1_049_600 * 4, JSON.stringify(tr.breakdown.map((b) => [b.label, b.bytes])));
    } finally { rmSync(root, { recursive: true, force: true }); }
  }
});

test('fire into **kwargs, a config dataclass updated by setattr, AutoConfig.model_type deciding the class, type(x) == type(True)', async () => {
  const root = project({
    'configs.py': 'from dataclasses import dataclass\n\n@dataclass\nclass train_config:\n    model_name: str = "PATH/to/Model"\n    quantization: str = None\n    use_fp16: bool = False\n',
    'finetune.py': `import fire
import torch
from transformers import AutoConfig, LlamaForCausalLM
from configs import train_config as TRAIN_CONFIG

def update_config(config, **kwargs):
    for k, v in kwargs.items():
        if hasattr(config, k):
            setattr(config, k, v)

def main(**kwargs):
    cfg = TRAIN_CONFIG()
    update_config(cfg, **kwargs)
    if cfg.quantization:
        if type(cfg.quantization) == type(True):
            cfg.quantization = "8bit"
    if torch.distributed.is_initialized():
        torch.cuda.set_device(local_rank)
    config = AutoConfig.from_pretrained(cfg.model_name)
    if config.model_type == "mllama":
        raise ValueError("vision")
    elif config.model_type == "llama":
        model = LlamaForCausalLM.from_pretrained(cfg.model_name, torch_dtype=torch.float16 if cfg.use_fp16 else "auto")
    else:
        raise ValueError(f"Model type {config.model_type} is not supported")
    return model

if __name__ == "__main__":
    fire.Fire(main)
`,
    'run.sh': 'python finetune.py --model_name meta-llama/Llama-2-7b-hf --quantization --output_dir out\n',
  });
  try {
    const r = await paramsOf(root, 'finetune.py');
    assert.equal(r.count, 6_738_415_616); // Llama-2-7B (test/catalog/transformers.test.ts)
    assert.equal(r.run, 'args from run.sh:1');
    // torch_dtype="auto" takes the checkpoint's float16.
    assert.deepEqual(Object.keys(r.result.models[0].estimate.bytesByDtype), ['float16']);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a script missing required flags gets a [[tool.oomlens.runs]] template naming them; filled in, it gives the number', async () => {
  const { missingFlags, runTemplate } = await import('../../server/src/lsp/handlers/declare');
  const root = project({ 'train.py': ARGPARSE });
  try {
    const before = await paramsOf(root, 'train.py');
    assert.equal(before.count, null);
    const flags = missingFlags(before.result);
    assert.deepEqual(flags, ['--width']);
    const template = runTemplate('train.py', flags);
    assert.match(template, /\[\[tool\.oomlens\.runs\]\]\ncommand = "python train\.py --width \.\.\."/);
    writeFileSync(join(root, 'pyproject.toml'), template.replace('--width ...', '--width 16'));
    workspaceFor(root).forgetListing();
    const after = await paramsOf(root, 'train.py');
    assert.equal(after.count, 16 * 16 + 16);
    assert.equal(after.run, 'args from pyproject.toml:2');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('accelerate launch --mixed_precision / --config_file reach Accelerator() through the environment it sets', async () => {
  const code = `import torch, torch.nn as nn
from accelerate import Accelerator
acc = Accelerator()
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
opt = torch.optim.AdamW(model.parameters())
model, opt = acc.prepare(model, opt)
for step in range(10):
    x = torch.randn(32, 1024, device=acc.device)
    loss = model(x).pow(2).mean()
    acc.backward(loss)
    opt.step()
    opt.zero_grad()
`;
  const root = project({
    'train.py': code,
    'fsdp.yaml': 'distributed_type: FSDP\nnum_processes: 4\nmixed_precision: bf16\n',
    'run.sh': 'accelerate launch --config_file fsdp.yaml train.py\n',
  });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.run, 'args from run.sh:1, accelerate ×4');
    const p = r.result.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    assert.ok(p.notes.some((n) => /autocast\(bfloat16\)/.test(n)), JSON.stringify(p.notes));
    const n = 1024 * 4096 + 4096 + 4096 * 1024 + 1024;
    const opt = p.breakdown.filter((c) => c.role === 'optimizer' && /^optimizer state/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    assert.equal(opt, (2 * n * 4) / 4, 'FSDP from the config divides AdamW state over 4 processes');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('accelerate launch --use_deepspeed --deepspeed_config_file: the JSON\'s zero_optimization decides the stage and offloading', async () => {
  const code = `import torch, torch.nn as nn
from accelerate import Accelerator
acc = Accelerator()
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
opt = torch.optim.AdamW(model.parameters())
model, opt = acc.prepare(model, opt)
for step in range(10):
    x = torch.randn(32, 1024, device=acc.device)
    loss = model(x).pow(2).mean()
    acc.backward(loss)
    opt.step()
    opt.zero_grad()
`;
  const n = 1024 * 4096 + 4096 + 4096 * 1024 + 1024;
  const optState = (p: { breakdown: { role?: string; label: string; bytes: number }[] }) => p.breakdown.filter((c) => c.role === 'optimizer' && /^optimizer state/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  for (const [json, expected, extra] of [
    ['{"zero_optimization": {"stage": 3}, "train_batch_size": "auto"}', (2 * n * 4) / 4, /ZeRO stage 3 \(ds\.json\)/],
    ['{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}', 0, /ZeRO-Offload/],
  ] as const) {
    const root = project({ 'train.py': code, 'ds.json': json, 'run.sh': 'accelerate launch --num_processes 4 --use_deepspeed --zero_stage 1 --deepspeed_config_file ds.json train.py\n' });
    try {
      const r = await paramsOf(root, 'train.py');
      const p = r.result.models[0].estimate.phases.find((x) => x.phase === 'training')!;
      assert.equal(optState(p), expected, json);
      assert.ok(p.notes.some((x) => extra.test(x)), JSON.stringify(p.notes));
    } finally { rmSync(root, { recursive: true, force: true }); }
  }
  // A config file that cannot be read: the sharding is unknown, not "none".
  const root = project({ 'train.py': code, 'run.sh': 'accelerate launch --num_processes 4 --use_deepspeed --deepspeed_config_file missing.json train.py\n' });
  try {
    const r = await paramsOf(root, 'train.py');
    const p = r.result.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    assert.ok(p.unknowns.some((u) => /ZeRO stage is not readable/.test(u.reason)), JSON.stringify(p.unknowns));
    assert.equal(p.fits, null);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a program\'s subclass of a parser class reads the command line like its base (argparse, HfArgumentParser)', async () => {
  const root = project({
    // No __init__ of its own: the base's runs with the call's arguments.
    'plain.py': 'import argparse\nimport torch.nn as nn\nclass P(argparse.ArgumentParser):\n    def extra(self):\n        return 1\np = P(description="x")\np.add_argument("--width", type=int, default=8)\nargs = p.parse_args()\nmodel = nn.Sequential(nn.Linear(args.width, args.width), nn.Linear(args.width, 2))\n',
    // An __init__ that calls super().__init__ and adds the arguments itself.
    'own.py': 'import argparse\nimport torch.nn as nn\nclass P(argparse.ArgumentParser):\n    def __init__(self):\n        super().__init__(description="x")\n        self.add_argument("--width", type=int, default=8)\n    def get(self):\n        return self.parse_args()\nargs = P().get()\nmodel = nn.Sequential(nn.Linear(args.width, args.width), nn.Linear(args.width, 2))\n',
    // An HfArgumentParser subclass defined in another module of the workspace (allenai/open-instruct's ArgumentParserPlus).
    'myutils.py': 'from transformers import HfArgumentParser\nclass ParserPlus(HfArgumentParser):\n    def parse_yaml(self, path):\n        return self.parse_yaml_file(path)\n',
    'hf.py': 'from dataclasses import dataclass\nimport torch.nn as nn\nfrom myutils import ParserPlus\n@dataclass\nclass Args:\n    width: int = 8\nargs, = ParserPlus((Args,)).parse_args_into_dataclasses()\nmodel = nn.Sequential(nn.Linear(args.width, args.width), nn.Linear(args.width, 2))\n',
    'run.sh': 'python plain.py --width 64\npython own.py --width 64\npython hf.py --width 64\n',
  });
  try {
    for (const f of ['plain.py', 'own.py', 'hf.py']) assert.equal((await paramsOf(root, f)).count, 64 * 64 + 64 + 64 * 2 + 2, f);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('configargparse: the is_config_file option\'s file gives options before the command line\'s (which wins); default_config_files', async () => {
  const code = (ctor: string) => `import configargparse
import torch.nn as nn
p = ${ctor}
p.add_argument("--config", is_config_file=True)
p.add("--width", type=int, default=8)
p.add_argument("--depth", type=int, default=1)
p.add_argument("--sizes", type=int, nargs="+", default=[])
p.add_argument("--wide", action="store_true")
args = p.parse_args()
w = args.width * (2 if args.wide else 1)
model = nn.Sequential(*[nn.Linear(w, w) for _ in range(args.depth + len(args.sizes))])
`;
  const root = project({
    'a.py': code('configargparse.ArgumentParser()'),
    'b.py': code('configargparse.ArgParser(default_config_files=["conf/default.txt"])'),
    'conf/exp.txt': '# experiment\nwidth = 32\ndepth: 2\nsizes = [1, 2]\nwide = True\n',
    'conf/default.txt': 'width 16\n',
    'run.sh': 'python a.py --config conf/exp.txt --depth 3\n',
  });
  try {
    // width 32 doubled by wide; depth 3 from the command line over the file's 2, plus the file's two sizes.
    assert.equal((await paramsOf(root, 'a.py')).count, 5 * (64 * 64 + 64));
    // No command: the default config file (width 16), the other options' defaults.
    assert.equal((await paramsOf(root, 'b.py')).count, 16 * 16 + 16);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a console script (pyproject [project.scripts], setup.py console_scripts) runs its module as imported, then its function', async () => {
  const cli = `import fire
import torch.nn as nn

def train(hidden=8, layers=2):
    model = nn.Sequential(*[nn.Linear(hidden, hidden) for _ in range(layers)])

def main():
    fire.Fire(train)

if __name__ == "__main__":
    train(hidden=2)
`;
  for (const decl of [
    { 'pyproject.toml': '[project]\nname = "tool"\n[project.scripts]\nmytool = "pkg.cli:main"\n' },
    { 'setup.py': 'from setuptools import setup\nsetup(name="tool", entry_points={"console_scripts": ["mytool = pkg.cli:main"]})\n' },
  ] as Record<string, string>[]) {
    const root = project({ ...decl, 'pkg/__init__.py': '', 'pkg/cli.py': cli, 'run.sh': 'mytool --hidden 64 --layers 3\n' });
    try {
      const r = await paramsOf(root, 'pkg/cli.py');
      // main() runs (not the __main__ block): fire reads --hidden 64 --layers 3.
      assert.equal(r.count, 3 * (64 * 64 + 64), Object.keys(decl)[0]);
      assert.equal(r.run, 'args from run.sh:1');
    } finally { rmSync(root, { recursive: true, force: true }); }
  }
});

test('ml_collections config_flags imported as its module (`from ml_collections.config_flags import config_flags`) reads --config', async () => {
  const root = project({
    'configs/small.py': 'import ml_collections\n\ndef get_config():\n    c = ml_collections.ConfigDict()\n    c.model = ml_collections.ConfigDict()\n    c.model.nf = 64\n    return c\n',
    'main.py': `from absl import app, flags
from ml_collections.config_flags import config_flags
import torch.nn as nn

FLAGS = flags.FLAGS
config_flags.DEFINE_config_file("config", None, "Training configuration.", lock_config=True)
flags.mark_flags_as_required(["config"])

def main(argv):
    nf = FLAGS.config.model.nf
    model = nn.Sequential(nn.Linear(nf, nf), nn.Linear(nf, 10))

if __name__ == "__main__":
    app.run(main)
`,
    'run.sh': 'python main.py --config configs/small.py --config.model.nf=128\n',
  });
  try {
    assert.equal((await paramsOf(root, 'main.py')).count, 128 * 128 + 128 + 128 * 10 + 10);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('hydra command-line overrides: group=option picks the config file, key.sub=value sets a value', async () => {
  const root = project({
    'conf/config.yaml': 'defaults:\n  - model: small\n  - _self_\nbatch: 8\n',
    'conf/model/small.yaml': 'width: 64\ndepth: 2\n',
    'conf/model/big.yaml': 'width: 512\ndepth: 4\n',
    'train.py': `import hydra
import torch.nn as nn

@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    model = nn.Sequential(*[nn.Linear(cfg.model.width, cfg.model.width) for _ in range(cfg.model.depth)])

if __name__ == "__main__":
    main()
`,
    'run.sh': 'python train.py model=big model.depth=3 +extra.note=x\n',
  });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.count, 3 * (512 * 512 + 512));
    assert.equal(r.run, 'args from run.sh:1');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('fire reads a bracketed word as Python with bare names as strings: `[q_proj,v_proj]` is a list of two names, `3,5` a tuple', async () => {
  // fire/parser.py _LiteralEval: bare names (not True/False/None) become strings before ast.literal_eval.
  const root = project({
    'train.py': `import fire
import torch.nn as nn

def main(widths=[8], names=("x",), shape=(1, 1)):
    layers = [nn.Linear(w, w) for w in widths]
    layers += [nn.Linear(2, 2) for n in names if n.endswith("_proj")]
    layers.append(nn.Linear(shape[0], shape[1]))
    return nn.Sequential(*layers)

if __name__ == "__main__":
    fire.Fire(main)
`,
    'run.sh': "python train.py --widths '[4, 6]' --names '[q_proj,v_proj]' --shape 3,5\n",
  });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.run, 'args from run.sh:1');
    // Linear(4,4) 20 + Linear(6,6) 42 + 2 × Linear(2,2) 6 + Linear(3,5) 20 = 94 (read as the string "[q_proj,v_proj]"
    // its characters never end with "_proj": 82).
    assert.equal(r.count, 94);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a config script run by exec(open(...).read()) over globals(), and a memmap batch window: the batch and sequence reach the activations; the loss in the model file counts the logits', async () => {
  // exec of a workspace file's text runs it in the caller's namespace; `globals()[key] = literal_eval(val)` with
  // `key = arg.split("=")[0][2:]` rebinds the module's name. np.memmap without a shape is a 1-D array of unknown
  // length; `data[i:i + seq]` holds seq elements; torch.stack of `batch` of them is [batch, seq].
  const root = project({
    'model.py': `import torch.nn as nn
import torch.nn.functional as F

class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.n_head = h
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(x)

class Net(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d, 4) for _ in range(2)])
        self.head = nn.Linear(d, vocab)

    def forward(self, idx, targets):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        logits = self.head(x)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
`,
    'configurator.py': `import sys
from ast import literal_eval
for arg in sys.argv[1:]:
    key, val = arg.split("=")
    key = key[2:]
    if key in globals():
        attempt = literal_eval(val)
        globals()[key] = attempt
`,
    'train.py': `import numpy as np
import torch
from model import Net

batch_size = 4
block_size = 64
exec(open("configurator.py").read())
data = np.memmap("train.bin", dtype=np.uint16, mode="r")

def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64)) for i in ix])
    return x.pin_memory().to("cuda", non_blocking=True), y.pin_memory().to("cuda", non_blocking=True)

model = Net(1000, 128).to("cuda")
opt = torch.optim.AdamW(model.parameters())
X, Y = get_batch()
loss = model(X, Y)
loss.backward()
opt.step()
`,
    'run.sh': 'python train.py --batch_size=16\n',
  });
  try {
    const r = await paramsOf(root, 'train.py');
    assert.equal(r.run, 'args from run.sh:1');
    const tr = r.result.models[0].estimate.phases.find((p) => p.phase === 'training')!;
    // The logits [16, 64, 1000] in float32: 16·64·1000 × 4 B = 4,096,000 B (batch 16 from the command, not the 4 written).
    const logits = tr.breakdown.filter((b) => /^logits/.test(b.label));
    assert.deepEqual(logits.map((b) => [b.label, b.bytes]), [['logits [16, 64, 1000] (float32)', 4_096_000]]);
    assert.ok(tr.breakdown.some((b) => /log-probs/.test(b.label)), tr.breakdown.map((b) => b.label).join('; '));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('importlib.import_module of a workspace module and str.rsplit/split with maxsplit build a model named by a config string', async () => {
  const root = project({
    'pkg/__init__.py': '',
    'pkg/models.py': `import torch.nn as nn

class Net(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
`,
    'train.py': `import importlib

def get_obj_from_str(string):
    module, cls = string.rsplit(".", 1)
    return getattr(importlib.import_module(module, package=None), cls)

def instantiate_from_config(config):
    return get_obj_from_str(config["target"])(**config.get("params", dict()))

name, width = "width=8=unused".split("=", 1)
model = instantiate_from_config({"target": "pkg.models.Net", "params": {"width": int(width.split("=")[0]), "depth": 3}})
`,
  });
  try {
    const r = await paramsOf(root, 'train.py');
    // 3 × Linear(8, 8) = 3 × 72 = 216 ("width=8=unused".split("=", 1) is ["width", "8=unused"]).
    assert.equal(r.count, 216);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// `model = __import__(config['model'])` (a model file chosen on the command line, helper round 10): __import__ returns
// the top-level module, or the named one when fromlist is given.
test('__import__ of a workspace module named by a parser default builds its model', async () => {
  const root = project({
    'nets/__init__.py': '',
    'nets/mlp.py': `import torch.nn as nn

class Generator(nn.Module):
    def __init__(self, dim=64, depth=3, **kwargs):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Linear(dim, dim) for _ in range(depth)])
`,
    'MyNet.py': `import torch.nn as nn

class Generator(nn.Module):
    def __init__(self, dim=32, depth=2, **kwargs):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Linear(dim, dim) for _ in range(depth)])
`,
    'train.py': `import argparse
p = argparse.ArgumentParser()
p.add_argument("--model", type=str, default="MyNet")
p.add_argument("--pkg", type=str, default="nets.mlp")
config = vars(p.parse_args())
G = __import__(config["model"]).Generator(**config)
H = __import__(config["pkg"], fromlist=["Generator"]).Generator()
top = __import__(config["pkg"])
K = top.mlp.Generator(dim=16, depth=1)
`,
  });
  try {
    const r = await analyze(readFile(root, 'train.py'), { path: join(root, 'train.py'), device: 'a100-80gb', versions: {}, launch: null });
    assert.deepEqual(r.models.map((m) => m.facts.paramCount), [2 * (32 * 32 + 32), 3 * (64 * 64 + 64), 16 * 16 + 16]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('a README is one shell session: a variable exported in an earlier code block is what $VAR means in a later one', () => {
  const root = project({
    'train.py': ARGPARSE,
    'README.md': 'Set up:\n\n```bash\nexport WIDTH=11\n```\n\nThen train:\n\n```bash\npython train.py --width $WIDTH\n```\n\nAgain, wider:\n\n```bash\nexport WIDTH=13\npython train.py --width $WIDTH\n```\n',
  });
  try {
    const got = launchCommandsFor(workspaceFor(root), join(root, 'train.py')).map((c) => c.argv.join(' '));
    assert.deepEqual(got, ['--width 11', '--width 13']);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('the README beside a script is read even when the repository has more Markdown files than the listing holds', () => {
  // 450 documentation pages sort before examples/ and fill the workspace listing (MAX_FILES, name order).
  const files: Record<string, string> = { 'examples/train/train.py': ARGPARSE, 'examples/train/README.md': '```bash\npython train.py --width 21\n```\n' };
  for (let i = 0; i < 450; i++) files[`docs/page${String(i).padStart(3, '0')}.md`] = `# page ${i}\n`;
  const root = project(files);
  try {
    const got = launchCommandsFor(workspaceFor(root), join(root, 'examples', 'train', 'train.py')).map((c) => [c.source, c.argv.join(' ')]);
    assert.deepEqual(got, [['examples/train/README.md:2', '--width 21']]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// fire.Fire() with no component: the command's first word names the module's function it runs
// (chenyuntc/simple-faster-rcnn-pytorch: `python train.py train --env=fasterrcnn`). "Nothing calls it" before.
test('fire.Fire() without a component runs the function the command names, with the rest as its arguments', async () => {
  const root = project({
    'train.py': `import fire
import torch.nn as nn


def train(width=16, depth=1):
    return nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])


def evaluate():
    return None


if __name__ == "__main__":
    fire.Fire()
`,
    'README.md': '```\npython train.py train --width=64 --depth=3\n```\n',
  });
  try {
    const { count } = await paramsOf(root, 'train.py');
    assert.equal(count, 3 * (64 * 64 + 64));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// yacs configs (Swin-Transformer, detectron-style repositories): `_C.clone()`, `merge_from_file(yaml)`,
// `merge_from_list(opts)`; and `python -m torch.distributed.launch`, which gives the script `--local_rank=<rank>`
// (a required `--local_rank` read "is required and has no default").
test('yacs CfgNode clone / merge_from_file / merge_from_list, under the legacy launcher that passes --local_rank', async () => {
  const root = project({
    'configs/big.yaml': 'MODEL:\n  DIM: 48\n',
    'train.py': `import argparse
import torch.nn as nn
from yacs.config import CfgNode as CN

_C = CN()
_C.MODEL = CN()
_C.MODEL.DIM = 16
_C.MODEL.DEPTH = 2

class Net(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Linear(dim, dim) for _ in range(depth)])

parser = argparse.ArgumentParser()
parser.add_argument("--cfg", type=str, required=True)
parser.add_argument("--opts", nargs="+", default=None)
parser.add_argument("--local_rank", type=int, required=True)
args = parser.parse_args()
config = _C.clone()
config.defrost()
config.merge_from_file(args.cfg)
if args.opts:
    config.merge_from_list(args.opts)
config.freeze()
model = Net(config.MODEL.DIM, config.MODEL.DEPTH)
`,
    'README.md': '```bash\npython -m torch.distributed.launch --nproc_per_node 2 train.py --cfg configs/big.yaml --opts MODEL.DEPTH 3\n```\n',
  });
  try {
    const r = await analyze(readFile(root, 'train.py'), { path: join(root, 'train.py'), device: 'a100-80gb', versions: {} });
    assert.deepEqual(r.models.map((m) => m.facts.paramCount), [3 * (48 * 48 + 48)]);
    assert.ok(!r.unknowns.some((u) => /local_rank/.test(u.reason)), JSON.stringify(r.unknowns));
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// A command's relative paths are relative to the folder it runs in (`cd training && deepspeed scripts/train.py
// --deepspeed configs/z3.json`): the config was looked up from the script's folder and the root only, so ZeRO-3 was
// "not readable" and nothing was divided (a lower bound of 24.9 GB for 3.1 GB).
test('a path in the command is found from the folder the command runs in', async () => {
  const root = project({
    'training/configs/z3.json': JSON.stringify({ zero_optimization: { stage: 3 } }),
    'training/scripts/train.py': `import argparse
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
p = argparse.ArgumentParser()
p.add_argument("--deepspeed", type=str, default=None)
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained("gpt2")
Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=1, deepspeed=args.deepspeed)).train()
`,
  });
  try {
    const script = join(root, 'training', 'scripts', 'train.py');
    const launch = { source: '--run', file: join(root, 'training', '.oomlens-run'), script, argv: ['--deepspeed', 'configs/z3.json'], launcher: 'deepspeed' as const, world: 8 };
    const r = await analyze(readFileSync(script, 'utf8'), { path: script, device: '8xa100-80gb', versions: {}, launch });
    const tr = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
    assert.ok(tr.notes.some((n) => /ZeRO stage 3|divided over 8/.test(n)), JSON.stringify(tr.notes));
    assert.ok(!tr.unknowns.some((u) => /deepspeed config/.test(u.reason)), JSON.stringify(tr.unknowns));
  } finally { rmSync(root, { recursive: true, force: true }); }
});
