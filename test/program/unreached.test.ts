// Model constructions in functions the run never calls (program/unreached.ts): a function handed to a launcher
// oomlens does not follow, or a method of a class nothing creates, is named with what it builds and the
// arguments it needs, never sized; a function the program does call is reported as before, with no such unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

interface Report { files: { models: { name: string; params: number | null }[]; unknowns: { what: string; reason: string; line: number | null }[] }[] }

const MODEL = `import torch.nn as nn

class Tower(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.a = nn.Linear(hidden, hidden)
        self.b = nn.Linear(hidden, hidden)
`;

function check(files: Record<string, string>, file: string): Report['files'][0] {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-unreached-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const r = spawnSync(process.execPath, [cli, 'check', file, '--format', 'json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    return (JSON.parse(r.stdout) as Report).files[0];
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

test('a function handed to a launcher oomlens does not follow: the model and its missing argument are named', () => {
  const f = check({
    'model.py': MODEL,
    'train.py': `import somelauncher
from model import Tower

def setup(hidden):
    model = Tower(hidden)
    return model

if __name__ == "__main__":
    somelauncher.CLI(setup)
`,
  }, 'train.py');
  assert.deepEqual(f.models, []);
  const u = f.unknowns.filter((x) => x.what === 'not run');
  assert.equal(u.length, 1, JSON.stringify(f.unknowns));
  assert.match(u[0].reason, /^`setup` builds `Tower` but nothing the program runs calls it .*\(it is used at line 9\).*\(hidden\)/);
  assert.equal(u[0].line, 5);
});

test('a construction that would have a size from its defaults is still not sized when nothing runs it', () => {
  const f = check({
    'model.py': MODEL,
    'job.py': `import remote
from model import Tower

@remote.function(gpu="a100")
def run():
    return Tower(64)

@remote.entrypoint()
def main():
    run.remote()
`,
  }, 'job.py');
  // No number: whether and how the program calls `run` is not known.
  assert.deepEqual(f.models, []);
  assert.ok(f.unknowns.some((x) => x.what === 'not run' && /^`run` builds `Tower`/.test(x.reason)), JSON.stringify(f.unknowns));
});

test('a method of a class nothing creates that loads a checkpoint named by its config', () => {
  const f = check({
    'trainer.py': `from transformers import AutoModelForCausalLM

class Trainer:
    def __init__(self, config):
        self.config = config

    def load(self):
        self.model = AutoModelForCausalLM.from_pretrained(self.config["model"])
`,
  }, 'trainer.py');
  assert.deepEqual(f.models, []);
  const u = f.unknowns.filter((x) => x.what === 'not run');
  assert.equal(u.length, 1, JSON.stringify(f.unknowns));
  assert.match(u[0].reason, /^`Trainer\.load` loads a model \(.*from_pretrained: the checkpoint name is /);
});

test('a function the program calls, or one that builds nothing, gets no "not run" unknown', () => {
  const called = check({
    'model.py': MODEL,
    'main.py': `from model import Tower

def build(hidden):
    return Tower(hidden)

model = build(8)
`,
  }, 'main.py');
  // 2 × Linear(8, 8): 2 × (8·8 weight + 8 bias) (torch/nn/modules/linear.py).
  assert.deepEqual(called.models.map((m) => [m.name, m.params]), [['Tower', 2 * (8 * 8 + 8)]]);
  assert.ok(!called.unknowns.some((x) => x.what === 'not run'), JSON.stringify(called.unknowns));

  const helpers = check({
    'util.py': `def lr(step, warmup):
    return min(1.0, step / warmup)
`,
  }, 'util.py');
  assert.deepEqual(helpers.models, []);
  assert.deepEqual(helpers.unknowns, []);
});

test('a workspace program that calls the function: its build is reported, no "not run" unknown', () => {
  const f = check({
    'model.py': MODEL,
    'lib.py': `from model import Tower

def train(hidden):
    return Tower(hidden)
`,
    'main.py': `import lib

if __name__ == "__main__":
    lib.train(8)
`,
  }, 'lib.py');
  assert.deepEqual(f.models.map((m) => m.params), [2 * (8 * 8 + 8)]);
  assert.ok(!f.unknowns.some((x) => x.what === 'not run'), JSON.stringify(f.unknowns));
});

test('a helper file that no program gets to build from: the input the importing program lacks is named', () => {
  const f = check({
    'model.py': MODEL,
    'lib.py': `import model

def train(cfg):
    cls = {"tower": model.Tower}[cfg.kind]
    return cls(cfg.hidden)
`,
    'main.py': `import argparse
import yaml
import lib

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    args = p.parse_args()
    lib.train(yaml.safe_load(open(args.config)))
`,
  }, 'lib.py');
  assert.deepEqual(f.models, []);
  assert.ok(f.unknowns.some((x) => x.what === 'command line' && /^as run by main\.py: .*--config/.test(x.reason)), JSON.stringify(f.unknowns));
  assert.ok(!f.unknowns.some((x) => x.what === 'not run'), JSON.stringify(f.unknowns));
});

test('a method of an object the program makes and hands to code it does not follow runs on that object', () => {
  const f = check({
    'model.py': MODEL,
    'agent.py': `import launcher
from model import Tower

class Agent:
    def __init__(self, hidden):
        self.hidden = hidden

    def initial_params(self):
        self.net = Tower(self.hidden)
        return self.net

def main():
    agent = Agent(32)
    launcher.run_loop(agent=agent)

main()
`,
  }, 'agent.py');
  // Tower(32) has a size, but when (and whether) the launcher calls the method is not known: no number.
  assert.deepEqual(f.models, []);
  const u = f.unknowns.filter((x) => x.what === 'not run');
  assert.equal(u.length, 1, JSON.stringify(f.unknowns));
  assert.match(u[0].reason, /^`Agent\.initial_params` builds `Tower` but the `Agent` object the program makes is handed to code oomlens does not follow/);
  assert.equal(u[0].line, 9);
});

test('a module of configurations a program picks from by a required flag names that flag', () => {
  const f = check({
    'model.py': MODEL,
    'sizes.py': `SIZES = {
    "small": {"hidden": 8},
    "large": {"hidden": 64},
}
`,
    'run.py': `import argparse
from model import Tower
from sizes import SIZES

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--size", required=True)
    args = p.parse_args()
    model = Tower(SIZES[args.size]["hidden"])
`,
  }, 'sizes.py');
  assert.deepEqual(f.models, []);
  assert.ok(f.unknowns.some((x) => x.what === 'command line' && /^as run by run\.py: .*`--size` is required/.test(x.reason)), JSON.stringify(f.unknowns));
});

test('a helper of a program whose model has a size gets none of its command-line unknowns', () => {
  const f = check({
    'model.py': MODEL,
    'consts.py': `WIDTH = 8
`,
    'run.py': `import argparse
from model import Tower
from consts import WIDTH

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    args = p.parse_args()
    model = Tower(WIDTH)
`,
  }, 'consts.py');
  assert.deepEqual(f.models, []);
  assert.deepEqual(f.unknowns, []);
});
