// from_pretrained(load_in_4bit=True, quantization_config=BitsAndBytesConfig(...)): the config decides
// (transformers 4.3x modeling_utils.py from_pretrained reads load_in_4bit/load_in_8bit from the config when one is
// given; later versions refuse the pair). The bare keyword read first dropped the config's nf4 type and its double
// quantisation, over-counting the 4-bit weights' constants (a float32 absmax per 64 weights instead of a uint8 one
// plus a float32 per 256 blocks: bitsandbytes functional.py quantize_4bit, compress_statistics, v0.45–0.50).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { quantFromCall, quantizedWeightBytes } from '../../server/src/frameworks/transformers/quantization';

const load = (args: string) => `import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", device_map="auto", ${args})
`;
const CONFIG = 'quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)';

async function loadBytes(args: string): Promise<number> {
  const r = await analyze(load(args), { device: 'a100-80gb', versions: { transformers: '4.31.0' } });
  const p = r.models[0]?.estimate.phases.find((x) => x.phase === 'load');
  assert.ok(p?.peakBytes, JSON.stringify(r.unknowns));
  return p.peakBytes;
}

test('a quantization_config given with load_in_4bit=True decides the quantisation', async () => {
  const both = await loadBytes(`load_in_4bit=True, ${CONFIG}`);
  const config = await loadBytes(CONFIG);
  const bare = await loadBytes('load_in_4bit=True');
  assert.equal(both, config);
  // Llama-2-7B: 32 layers × (4 × 4096² + 3 × 4096 × 11008) quantised weights; double quantisation saves, per 64
  // weights, a float32 absmax (4 B) for a uint8 (1 B), plus a float32 per 256 blocks and an offset per layer.
  const layer = { name: 'x', in: 4096, out: 4096, bias: false };
  const single = quantizedWeightBytes(layer, { method: 'bnb-4bit', quantType: 'nf4', doubleQuant: false, skip: [], how: '' });
  const dq = quantizedWeightBytes(layer, { method: 'bnb-4bit', quantType: 'nf4', doubleQuant: true, skip: [], how: '' });
  const blocks = 4096 * 4096 / 64;
  assert.equal(single - dq, 4 * blocks - (blocks + 4 * Math.ceil(blocks / 256) + 4));
  // Over the model: 32 layers × 4 (4096 × 4096) + 3 (4096 × 11008) layers, each the per-layer formula's saving.
  const saving = (i: number, o: number) => {
    const b = Math.ceil(i * o / 64);
    return 4 * b - (b + 4 * Math.ceil(b / 256) + 4);
  };
  assert.equal(bare - config, 32 * (4 * saving(4096, 4096) + 3 * saving(4096, 11008))); // 301,980,800 B
});

test('without a quantization_config the bare keywords still quantise', () => {
  const m = (k: string) => new Map([[k, { t: 'bool', v: true } as const]]);
  assert.equal((quantFromCall(m('load_in_4bit')) as { method: string }).method, 'bnb-4bit');
  assert.equal((quantFromCall(m('load_in_8bit')) as { method: string }).method, 'bnb-8bit');
});
