// from_pretrained's other keyword arguments update the config it builds the model from (modeling_utils.py
// from_pretrained: "each key of kwargs that corresponds to a configuration attribute will be used to override said
// attribute"): `num_labels=1` (a reward or value model: trl's PPO, huggingface/trl#2719) was ignored, so the score
// head had PretrainedConfig's 2 outputs; `num_hidden_layers=1` / `n_layer=…` changes the architecture. Checked against
// transformers, which reads the same config.json with the same keywords (test/python/hf_param_counts.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const CASES: { config: Record<string, unknown>; cls: string; kwargs: Record<string, unknown>; py: string }[] = [
  { config: { model_type: 'llama', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96 }, cls: 'AutoModelForSequenceClassification', kwargs: { num_labels: 1 }, py: 'num_labels=1' },
  // GPT-2's config.json names its depth n_layer; the keyword uses the attribute_map's name.
  { config: { model_type: 'gpt2', vocab_size: 1000, n_embd: 64, n_layer: 4, n_head: 4, n_positions: 128 }, cls: 'AutoModelForCausalLM', kwargs: { num_hidden_layers: 1 }, py: 'num_hidden_layers=1' },
  { config: { model_type: 'bert', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96 }, cls: 'AutoModelForSequenceClassification', kwargs: { id2label: { 0: 'a', 1: 'b', 2: 'c' } }, py: 'id2label={0: "a", 1: "b", 2: "c"}' },
];

async function oomlens(c: (typeof CASES)[number], args: string): Promise<number | null> {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-hfkw-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(c.config));
    const text = `import sys\nimport torch\nfrom transformers import ${c.cls}\nmodel = ${c.cls}.from_pretrained("./ckpt", torch_dtype=torch.float32, ${args}).cuda()\n`;
    return (await analyze(text, { path: join(root, 't.py'), device: 'a100-40gb', versions: { transformers: '5.0.0' } })).models[0].facts.paramCount;
  } finally { rmSync(root, { recursive: true, force: true }); }
}

test('from_pretrained keyword arguments update the config: the count transformers gives', async () => {
  const truth = runPythonJson<({ params: number } | { error: string })[]>('hf_param_counts.py', CASES.map((c) => ({ config: c.config, class: c.cls, kwargs: c.kwargs })));
  for (const [i, c] of CASES.entries()) {
    const t = truth[i];
    assert.ok('params' in t, JSON.stringify(t));
    assert.equal(await oomlens(c, c.py), t.params, c.py);
  }
});

test('a config keyword whose value is not known leaves the size unknown, not the config.json default', async () => {
  assert.equal(await oomlens(CASES[1], 'n_layer=int(sys.argv[1])'), null);
});
