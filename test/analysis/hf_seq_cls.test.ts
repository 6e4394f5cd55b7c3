// AutoModelForSequenceClassification end to end: the parameter count equals the
// model transformers builds from the same config.json (meta device,
// test/python/hf_param_counts.py), and training holds num_labels-wide logits,
// not vocabulary-wide ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const CONFIGS = [
  { model_type: 'llama', vocab_size: 32000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96, num_labels: 3 },
  { model_type: 'bert', vocab_size: 30522, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96 },
  { model_type: 'deberta-v2', vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 96, relative_attention: true, position_buckets: 32, pos_att_type: 'p2c|c2p', num_labels: 5 },
];

async function oomlens(config: Record<string, unknown>) {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-seqcls-'));
  try {
    mkdirSync(join(root, 'ckpt'));
    writeFileSync(join(root, 'ckpt', 'config.json'), JSON.stringify(config));
    const text = `import torch
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
model = AutoModelForSequenceClassification.from_pretrained("./ckpt", torch_dtype=torch.float32)
Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=8, max_length=128)).train()
`;
    return (await analyze(text, { path: join(root, 't.py'), device: 'a100-40gb', versions: { transformers: '5.0.0' } })).models[0];
  } finally { rmSync(root, { recursive: true, force: true }); }
}

test('sequence-classification models: transformers\' parameter count, and logits of num_labels (not the vocabulary)', async () => {
  const truth = runPythonJson<({ params: number } | { error: string })[]>('hf_param_counts.py', CONFIGS.map((config) => ({ config, class: 'AutoModelForSequenceClassification' })));
  for (let i = 0; i < CONFIGS.length; i++) {
    const c = CONFIGS[i];
    const t = truth[i];
    assert.ok('params' in t, JSON.stringify(t));
    const m = await oomlens(c);
    assert.equal(m.facts.paramCount, t.params, c.model_type);
    const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
    const logits = tr.breakdown.filter((b) => /^logits/.test(b.label));
    assert.ok(logits.length > 0, `${c.model_type}: ${JSON.stringify(tr.breakdown.map((b) => b.label))}`);
    assert.ok(logits.every((b) => !b.label.includes(String(c.vocab_size))), JSON.stringify(logits));
    assert.ok(!tr.breakdown.some((b) => /log-probs/.test(b.label)), c.model_type);
  }
});
