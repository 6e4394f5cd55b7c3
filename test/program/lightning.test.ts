// LightningModule subclasses are torch modules; save_hyperparameters() stores the __init__ arguments
// in self.hparams; argparse parents= and Trainer.add_argparse_args keep the model's flags and defaults.
// Regression fixtures for the shapes of Lightning training scripts (frameworks/torch/lightning.ts,
// program/entrypoints.ts); the real-repository check is `npm run realcode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const OPTS = { device: 'a100-80gb', versions: {} };
// Linear(784, h) + Linear(h, 10): weights and biases (torch/nn/modules/linear.py).
const mlp = (h: number): number => 784 * h + h + h * 10 + 10;

const script = (base: string, init: string, main: string): string => `import torch
${base}
from argparse import ArgumentParser

class Lit(${base.includes('import LightningModule') ? 'LightningModule' : 'pl.LightningModule'}):
${init}
    def forward(self, x):
        return self.l2(torch.relu(self.l1(x.view(x.size(0), -1))))

    @staticmethod
    def add_model_specific_args(parent_parser):
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
        parser.add_argument('--hidden_dim', type=int, default=96)
        return parser

def cli_main():
${main}

if __name__ == '__main__':
    cli_main()
`;

const HPARAMS_INIT = `    def __init__(self, hidden_dim=128, learning_rate=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.l1 = torch.nn.Linear(28 * 28, self.hparams.hidden_dim)
        self.l2 = torch.nn.Linear(self.hparams["hidden_dim"], 10)
`;
const PARENTS_MAIN = `    parser = ArgumentParser()
    parser.add_argument('--batch_size', default=32, type=int)
    parser = pl.Trainer.add_argparse_args(parser)
    parser = Lit.add_model_specific_args(parser)
    args = parser.parse_args()
    model = Lit(args.hidden_dim)
`;

test('a LightningModule with save_hyperparameters is sized from the arguments the program passes (parents= parser)', async () => {
  for (const base of ['import pytorch_lightning as pl', 'import lightning.pytorch as pl', 'import lightning as pl']) {
    const r = await analyze(script(base, HPARAMS_INIT, PARENTS_MAIN), OPTS);
    const lit = r.models.find((m) => m.facts.name === 'Lit');
    assert.ok(lit, `${base}: ${r.models.map((m) => m.facts.name).join(', ')}`);
    assert.equal(lit.facts.paramCount, mlp(96), base);
    assert.deepEqual(lit.facts.unknowns, []);
  }
});

test('save_hyperparameters keeps only the named arguments and drops ignore=: a dropped one read back is unknown, not a number', async () => {
  const init = (call: string) => `    def __init__(self, hidden_dim=128, learning_rate=1e-3):
        super().__init__()
        ${call}
        self.l1 = torch.nn.Linear(28 * 28, self.hparams.hidden_dim)
        self.l2 = torch.nn.Linear(self.hparams.hidden_dim, 10)
`;
  const main = '    model = Lit(64)\n';
  const kept = await analyze(script('import pytorch_lightning as pl', init("self.save_hyperparameters('hidden_dim')"), main), OPTS);
  assert.equal(kept.models.find((m) => m.facts.name === 'Lit')?.facts.paramCount, mlp(64));
  const dropped = await analyze(script('import pytorch_lightning as pl', init("self.save_hyperparameters(ignore=['hidden_dim'])"), main), OPTS);
  const lit = dropped.models.find((m) => m.facts.name === 'Lit');
  assert.ok(lit);
  assert.equal(lit.facts.paramCount, null, 'hparams.hidden_dim was ignored: no confident count');
});

test('ArgumentParser(parents=) of a parser that is not known leaves the flags unknown', async () => {
  const main = `    parser = ArgumentParser(parents=[make_parser()])
    args = parser.parse_args()
    model = Lit(args.hidden_dim)
`;
  const r = await analyze(script('from pytorch_lightning import LightningModule', HPARAMS_INIT, main), OPTS);
  const lit = r.models.find((m) => m.facts.name === 'Lit');
  assert.ok(lit, r.models.map((m) => m.facts.name).join(', '));
  assert.equal(lit.facts.paramCount, null, 'no confident count from an unknown parent parser');
});

// Trainer.add_argparse_args adds the Trainer's parameters as flags; Trainer.from_argparse_args builds the Trainer
// from them (pytorch_lightning 1.x utilities/argparse.py): `--gpus 4 --strategy fsdp --precision 16` from the command
// line is a Trainer(gpus=4, strategy="fsdp", precision=16) — FSDP over 4 devices, fp16 autocast.
const FIT_SCRIPT = `import torch
import torch.nn.functional as F
import pytorch_lightning as pl
from argparse import ArgumentParser
from torch.utils.data import DataLoader, TensorDataset

class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(784, 512)
        self.l2 = torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())

def cli_main():
    parser = ArgumentParser()
    parser = pl.Trainer.add_argparse_args(parser)
    args = parser.parse_args()
    loader = DataLoader(TensorDataset(torch.randn(256, 784), torch.randint(0, 10, (256,))), batch_size=64)
    trainer = pl.Trainer.from_argparse_args(args)
    trainer.fit(Lit(), loader)

if __name__ == '__main__':
    cli_main()
`;

test('Trainer.from_argparse_args: the Trainer flags of the command line configure the fit', async () => {
  const launch = (argv: string[]) => ({ source: 'run.sh:1', file: '/ws/run.sh', script: '/ws/train.py', argv, launcher: 'python' as const });
  const run = async (argv: string[]) => {
    const r = await analyze(FIT_SCRIPT, { ...OPTS, path: '/ws/train.py', launch: launch(argv) });
    const lit = r.models.find((m) => m.facts.name === 'Lit')!;
    assert.ok(lit, r.models.map((m) => m.facts.name).join(', '));
    return lit.estimate.phases.find((x) => x.phase === 'training')!;
  };
  const part = (p: Awaited<ReturnType<typeof run>>, re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  const n = mlp(512);
  const plain = await run([]);
  assert.equal(part(plain, /^optimizer state/), 2 * n * 4, JSON.stringify(plain.breakdown.map((c) => c.label)));
  assert.ok(!plain.notes.some((x) => /autocast/.test(x)));
  const sharded = await run(['--gpus', '4', '--strategy', 'fsdp', '--precision', '16']);
  // Adam's exp_avg and exp_avg_sq (float32) per parameter, FULL_SHARD over 4 processes (strategies/fsdp.py).
  assert.equal(part(sharded, /^optimizer state/), (2 * n * 4) / 4);
  assert.ok(sharded.notes.some((x) => /torch\.autocast\(float16\)/.test(x)), JSON.stringify(sharded.notes));
});
