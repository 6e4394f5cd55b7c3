// Calls that add flags to a parser and return it, and OmegaConf's command-line overrides: latent-diffusion's main.py
// (copied by Stable Diffusion, ControlNet, taming-transformers) and DALLE-pytorch lost their parser or their config
// here, and reported no model and no unknown (docs/accuracy.md, "Held-out round 9").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import type { LaunchCommand } from '../../server/src/program/launch';

const lin = (i: number, o: number) => i * o + o;
const STACK = `
model = nn.Sequential(*[nn.Linear(args.width, args.width) for _ in range(args.depth)]).cuda()
`;
const PARSER = `import argparse
import torch.nn as nn
parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default=256)
parser.add_argument("--depth", type=int, default=3)
`;

/** The command line `python <file> ...argv` (program/launch.ts LaunchCommand). */
const launch = (file: string, argv: string[]): LaunchCommand => ({ source: 'test', file, script: file, argv, launcher: 'python' });

async function params(text: string, argv?: string[]): Promise<number | null | undefined> {
  const path = join(tmpdir(), 'oomlens-passthrough.py');
  const r = await analyze(text, { path, device: 't4', versions: {}, launch: argv ? launch(path, argv) : null });
  return r.models[0]?.facts.paramCount;
}

test('Trainer.add_argparse_args with Trainer imported from pytorch_lightning.trainer keeps the parser', async () => {
  const text = `${PARSER}from pytorch_lightning.trainer import Trainer\nparser = Trainer.add_argparse_args(parser)\nargs = parser.parse_args()\n${STACK}`;
  assert.equal(await params(text), 3 * lin(256, 256));
});

test('deepspeed.add_config_arguments adds --deepspeed / --deepspeed_config and returns the parser', async () => {
  const text = `${PARSER}import deepspeed\nparser = deepspeed.add_config_arguments(parser)\nargs = parser.parse_args()\n${STACK}`;
  assert.equal(await params(text), 3 * lin(256, 256));
  assert.equal(await params(text, ['--deepspeed', '--deepspeed_config', 'ds.json', '--width', '64']), 3 * lin(64, 64));
});

test('OmegaConf.from_dotlist of parse_known_args\' leftover words overrides the YAML config', async () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-dotlist-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    mkdirSync(join(root, 'configs'));
    writeFileSync(join(root, 'configs', 'm.yaml'), 'model:\n  width: 128\n  depth: 2\n');
    const file = join(root, 'main.py');
    const text = `import argparse
import torch.nn as nn
from omegaconf import OmegaConf
parser = argparse.ArgumentParser()
parser.add_argument("-b", "--base", nargs="*", default=list())
parser.add_argument("-t", "--train", action="store_true")
opt, unknown = parser.parse_known_args()
configs = [OmegaConf.load(c) for c in opt.base]
config = OmegaConf.merge(*configs, OmegaConf.from_dotlist(unknown))
args = config.model
${STACK}`;
    writeFileSync(file, text);
    const run = async (argv: string[]) => (await analyze(text, { path: file, device: 't4', versions: {}, launch: launch(file, argv) })).models[0]?.facts.paramCount;
    assert.equal(await run(['--base', 'configs/m.yaml', '-t']), 2 * lin(128, 128));
    // Words no option takes are parse_known_args' leftovers; "model.depth=4" is read as YAML reads it (an int).
    assert.equal(await run(['--base', 'configs/m.yaml', '-t', 'model.depth=4', 'model.width=64']), 4 * lin(64, 64));
  } finally { rmSync(root, { recursive: true, force: true }); }
});
