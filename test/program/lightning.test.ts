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
