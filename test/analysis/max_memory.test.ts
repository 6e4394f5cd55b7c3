// from_pretrained(device_map="auto", max_memory=...): the per-GPU caps the user
// gives decide where accelerate puts each decoder layer, so the load peak on
// each device follows them. Llama-2-7B in float16: 32 layers of 202,383,360
// params (4·4096² attention + 3·4096·11008 MLP + 2·4096 norms) = 404,766,720 B
// each; embed_tokens and lm_head 32000·4096·2 B = 262,144,000 B each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const GiB = 2 ** 30;
const LAYER = 404_766_720;
const EMBED = 262_144_000;

async function load(maxMemory: string, device = '2xa100-40gb') {
  const src = `import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, device_map="auto", max_memory=${maxMemory})
`;
  const r = await analyze(src, { device, versions: { transformers: '4.40.0' } });
  const m = r.models[0];
  return { phase: m.estimate.phases.find((p) => p.phase === 'load')!, unknowns: m.facts.unknowns.map((u) => u.reason) };
}

describe('device_map="auto" with max_memory', () => {
  it('caps GPU 0 at its max_memory, keeps room there for one more layer, and leaves the rest to the last GPU', async () => {
    // GPU 0 cap = min(13,476,831,232 // 2 + int(1.25 × 404,766,720) = 7,244,374,016, 6 GiB = 6,442,450,944) = 6 GiB,
    // less the largest layer still to place (404,766,720 B: GPU 0 is where offloaded layers would come back) =
    // 6,037,684,224 B. embed_tokens + 14 layers = 5,928,878,080 B fits, a 15th would make 6,333,644,800 B.
    // So 14 layers on GPU 0, as transformers' own _get_device_map gives (test/analysis/accelerate_placement.test.ts).
    const { phase, unknowns } = await load('{0: "6GiB", 1: "30GiB"}');
    assert.deepEqual(unknowns, []);
    assert.equal(phase.perDeviceBytes[0], EMBED + 14 * LAYER);
    assert.ok(phase.perDeviceBytes[0] <= 6 * GiB);
    // GPU 1: 18 layers + final norm (8,192 B) + lm_head.
    assert.equal(phase.perDeviceBytes[1], 18 * LAYER + 8192 + EMBED);
  });

  it('a size that cannot be read makes the placement unknown, with the reason', async () => {
    const { unknowns } = await load('{0: "six gigs", 1: "30GiB"}');
    assert.ok(unknowns.some((u) => /max_memory: the size for GPU 0 is not known/.test(u)), unknowns.join('; '));
  });

  it('modules with no room and no "cpu" entry are not estimated silently', async () => {
    const { unknowns } = await load('{0: "2GiB", 1: "2GiB"}');
    assert.ok(unknowns.some((u) => /no room for/.test(u)), unknowns.join('; '));
  });
});
