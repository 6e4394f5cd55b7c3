// torch.multiprocessing.spawn(fn, args=(...), nprocs=n) runs fn(rank, *args) in each process
// (torch/multiprocessing/spawn.py _wrap): the program is followed as process 0, so the model its
// worker builds is found and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const SRC = `
import torch
import torch.nn as nn
import torch.multiprocessing as mp

class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

def run(rank, n_gpus, width):
    model = Net(width).cuda(rank)

def main():
    n_gpus = torch.cuda.device_count()
    mp.spawn(run, nprocs=n_gpus, args=(n_gpus, 32,))

if __name__ == "__main__":
    main()
`;

test('the worker of torch.multiprocessing.spawn runs as rank 0 with its args', async () => {
  const r = await analyze(SRC, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m, r.models.map((x) => x.facts.name).join(', ') || 'no model');
  assert.equal(m.facts.paramCount, 32 * 32 + 32);
});
