// The load phase of a model that DeepSpeed ZeRO-3 or full-shard FSDP takes from the host (phases/shardedLoad.ts), and a
// DeepSpeed config oomlens cannot read (training.ts unreadSharding): neither puts the whole model on one device, so
// neither may give a verdict on the undivided model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const TRAIN = `import transformers
args = transformers.TrainingArguments(output_dir="o", per_device_train_batch_size=1, deepspeed="ds.json")
model = transformers.AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b")
transformers.Trainer(model=model, args=args).train()
`;
const P = 6_738_415_616; // Llama-7B (test/catalog/transformers.test.ts), float32 as loaded without torch_dtype

async function run(ds: string | undefined, device = '8xa10g') {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-zload-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    writeFileSync(join(root, 'train.py'), TRAIN);
    if (ds !== undefined) writeFileSync(join(root, 'ds.json'), ds);
    const r = await analyze(TRAIN, { path: join(root, 'train.py'), device, versions: { transformers: '4.45.0' } });
    const phase = (n: string) => r.models[0].estimate.phases.find((x) => x.phase === n)!;
    return { r, load: phase('load'), training: phase('training') };
  } finally { rmSync(root, { recursive: true, force: true }); }
}

test('ZeRO-3: the parameters of a model loaded on the host are partitioned, 1/N on each device (no OOM001 at load)', async () => {
  const { r, load } = await run(JSON.stringify({ zero_optimization: { stage: 3 }, train_micro_batch_size_per_gpu: 'auto' }));
  assert.deepEqual(r.findings.filter((f) => f.code === 'OOM001'), []);
  const params = load.breakdown.filter((b) => /^model\.|^lm_head/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  assert.ok(Math.abs(params - (4 * P) / 8) < 1e6, `${params} vs ${(4 * P) / 8}`);
  // transformers gathers each module whole while it copies the checkpoint in: not sized, so a lower bound.
  assert.equal(load.peakIsLowerBound, true);
  assert.ok(load.unknowns.some((u) => u.what === 'ZeRO-3 checkpoint load'), JSON.stringify(load.unknowns));
});

test('ZeRO-3 with offload_param: nothing of the parameters on the device at load', async () => {
  const { load } = await run(JSON.stringify({ zero_optimization: { stage: 3, offload_param: { device: 'cpu' } } }));
  assert.equal(load.breakdown.filter((b) => /^model\.|^lm_head/.test(b.label)).length, 0, JSON.stringify(load.breakdown));
  assert.notEqual(load.fits, false);
});

test('ZeRO-2 keeps the whole model on each device: the load is the undivided model', async () => {
  const { load } = await run(JSON.stringify({ zero_optimization: { stage: 2 } }));
  assert.equal(load.fits, false); // 27.0 GB of float32 on a 24 GB A10G
  assert.equal(load.peakIsLowerBound, false);
});

test('a DeepSpeed config that cannot be read: sized as the least a device could hold, a lower bound, no verdict on the whole model', async () => {
  for (const ds of ['{"zero_optimization": {"stage": 3,}}', undefined]) {
    const { r, training } = await run(ds);
    assert.deepEqual(r.findings.filter((f) => f.code === 'OOM001'), [], String(ds));
    assert.equal(training.peakIsLowerBound, true);
    assert.ok(training.unknowns.some((u) => u.what === 'sharding' && /least a device could hold/.test(u.reason)), JSON.stringify(training.unknowns));
    assert.equal(training.breakdown.filter((b) => /^optimizer state/.test(b.label)).length, 0, 'optimizer state offloaded in the lower bound');
  }
});

test('full-shard FSDP of a model on the host: the load is the shards, a lower bound (one unit is whole while it is wrapped)', async () => {
  const src = `import torch
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8192, 8192) for _ in range(16)])

    def forward(self, x):
        for l in self.layers:
            x = l(x)
        return x


torch.distributed.init_process_group("nccl")
model = Net()
model = FSDP(model, device_id=torch.cuda.current_device())
opt = torch.optim.AdamW(model.parameters())
x = torch.randn(8, 8192, device="cuda")
for _ in range(3):
    model(x).sum().backward()
    opt.step()
    opt.zero_grad()
`;
  const r = await analyze(src, { device: '4xt4', versions: {} });
  const load = r.models[0].estimate.phases.find((x) => x.phase === 'load')!;
  assert.ok(r.models[0].estimate.phases.some((x) => x.phase === 'training'));
  const N = 16 * (8192 * 8192 + 8192);
  assert.equal(load.peakIsLowerBound, true);
  assert.ok(load.unknowns.some((u) => u.what === 'FSDP wrapping'), JSON.stringify(load.unknowns));
  assert.ok(Math.abs(load.peakBytes! - (4 * N) / 4) < 1e6, `${load.peakBytes} vs ${N}`);
  assert.deepEqual(r.findings.filter((f) => f.code === 'OOM001' && /load/.test(f.message)), []);
});
