// PyTorch Lightning: a LightningModule is the model (not its layers one by one), and
// Trainer(...).fit(model, loader) is a training step: configure_optimizers' optimizer, one batch
// through training_step, precision as autocast, strategy="fsdp" over `devices`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const src = (trainer: string) => `import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L
from torch.utils.data import DataLoader, TensorDataset


class LitMLP(L.LightningModule):
    def __init__(self, d_in=512, hidden=2048, n_classes=10, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)


ds = TensorDataset(torch.randn(1000, 512), torch.randint(0, 10, (1000,)))
loader = DataLoader(ds, batch_size=256)
model = LitMLP()
${trainer}.fit(model, loader)
`;

test('a LightningModule trained by Trainer.fit: one model, AdamW state, activations of the loader\'s batch', async () => {
  const [truth] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: '.', path: [''], modules: [], code: 'import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10))' }]);
  const r = await analyze(src('L.Trainer(accelerator="gpu", devices=1, precision="bf16-mixed")'), { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['LitMLP']);
  const m = r.models[0];
  assert.equal(m.facts.paramCount, truth.params);
  const p = m.estimate.phases.find((x) => x.phase === 'training')!;
  assert.ok(p, 'a training phase');
  const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.equal(part(/^optimizer state/), 2 * truth.params! * 4);
  assert.ok(p.notes.some((n) => /torch\.autocast\(bfloat16\)/.test(n)), JSON.stringify(p.notes));
  assert.equal(p.peakIsLowerBound, false, JSON.stringify(p.unknowns));
});

test('Lightning strategy="fsdp" with devices=4 divides parameters, gradients and optimizer state by 4', async () => {
  const r = await analyze(src('L.Trainer(accelerator="gpu", devices=4, strategy="fsdp")'), { device: 'a100-80gb', versions: {} });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  const n = r.models[0].facts.paramCount!;
  assert.equal(part(/^optimizer state/), (2 * n * 4) / 4);
});

test('hydra.utils.instantiate: _target_ classes of the workspace and libraries, nested configs, _partial_; a module handed to another model is part of it', async () => {
  const { mkdtempSync, writeFileSync, rmSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-hydra-'));
  try {
    mkdirSync(join(root, 'configs', 'model'), { recursive: true });
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'src', '__init__.py'), '');
    writeFileSync(join(root, 'src', 'nets.py'), 'import torch.nn as nn\n\nclass Dense(nn.Module):\n    def __init__(self, d_in, hidden, d_out):\n        super().__init__()\n        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))\n');
    writeFileSync(join(root, 'src', 'module.py'), `import torch
import lightning as L

class Lit(L.LightningModule):
    def __init__(self, net, optimizer):
        super().__init__()
        self.save_hyperparameters(logger=False)
        self.net = net

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return self.hparams.optimizer(params=self.trainer.model.parameters())
`);
    writeFileSync(join(root, 'configs', 'train.yaml'), 'defaults:\n  - _self_\n  - model: dense\ntrainer:\n  _target_: lightning.pytorch.trainer.Trainer\n  devices: 1\n  precision: 16-mixed\n');
    writeFileSync(join(root, 'configs', 'model', 'dense.yaml'), '_target_: src.module.Lit\noptimizer:\n  _target_: torch.optim.AdamW\n  _partial_: true\n  lr: 0.001\nnet:\n  _target_: src.nets.Dense\n  d_in: 784\n  hidden: 1024\n  d_out: 10\n');
    const text = `import hydra
from omegaconf import DictConfig

@hydra.main(version_base="1.3", config_path="configs", config_name="train.yaml")
def main(cfg: DictConfig):
    model = hydra.utils.instantiate(cfg.model)
    trainer = hydra.utils.instantiate(cfg.trainer)
    trainer.fit(model=model)

if __name__ == "__main__":
    main()
`;
    writeFileSync(join(root, 'train.py'), text);
    const r = await analyze(text, { path: join(root, 'train.py'), device: 'a100-80gb', versions: {} });
    assert.deepEqual(r.models.map((m) => m.facts.name), ['Lit'], 'Dense is part of Lit');
    const n = 784 * 1024 + 1024 + 1024 * 10 + 10;
    assert.equal(r.models[0].facts.paramCount, n);
    const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
    const part = (re: RegExp) => p.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
    assert.equal(part(/^optimizer state/), 2 * n * 4, 'the _partial_ AdamW from the config, bound to the module\'s parameters');
  } finally { rmSync(root, { recursive: true, force: true }); }
});

test('LightningDataModule.from_argparse_args and a model from **vars(args): sized by the data module\'s dims', async () => {
  const file = join(__dirname, '..', 'fixtures', 'projects', 'lightning_argparse', 'main.py');
  const r = await analyze(readFileSync(file, 'utf8'), { path: file, device: 'a100-80gb', versions: {} });
  // Linear(64, 128) + 2 × Linear(128, 128) + Linear(128, 10): in·out + out each (torch/nn/modules/linear.py).
  const linear = (i: number, o: number) => i * o + o;
  const m = r.models.find((x) => x.facts.name === 'Classifier');
  assert.ok(m, r.models.map((x) => x.facts.name).join(', '));
  assert.deepEqual([m.facts.paramCount, m.facts.unknowns.map((u) => u.reason)], [linear(64, 128) + 2 * linear(128, 128) + linear(128, 10), []]);
});

test('Trainer.fit of a module oomlens could not build (a wrapper from a package that is not installed): a file-level unknown, not silence', async () => {
  const src = `from lightning import Trainer
from aigc_zoo.model_zoo.chatglm3.llm_model import MyTransformer

pl_model = MyTransformer(model_name_or_path="THUDM/chatglm3-6b", lora_args={"r": 8}, load_in_4bit=True)
trainer = Trainer(accelerator="gpu", devices=1, precision="16-mixed", max_epochs=1)
trainer.fit(pl_model, train_dataloaders=None)
`;
  const r = await analyze(src, { device: 'rtx-4090', versions: {} });
  assert.equal(r.models.length, 0);
  assert.ok(r.unknowns.some((u) => /Trainer\.fit\(…\)`: a model is built by a library here/.test(u.reason)), JSON.stringify(r.unknowns));
});
