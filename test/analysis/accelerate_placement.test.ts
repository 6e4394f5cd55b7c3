// device_map placement against the real libraries: each model is built from the
// same config on the meta device and the real transformers (from_pretrained's
// _get_device_map) or accelerate (load_checkpoint_and_dispatch's
// get_balanced_memory + infer_auto_device_map) says where every module goes
// (test/python/hf_device_map.py); oomlens's placement (shared/src/accelerate.ts)
// over its config.json module sizes must put every module on the same device.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileSizeToInt, inferDeviceMap, treeFromSizes, type MapDevice, type MapMode } from '../../shared/src/accelerate';
import { moduleSizes, type HfConfig } from '../../server/src/frameworks/transformers/catalog';
import { runPythonJson } from '../python/venv';

const LLAMA2_7B = { model_type: 'llama', vocab_size: 32000, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, intermediate_size: 11008, tie_word_embeddings: false };
const QWEN_05B = { model_type: 'qwen2', vocab_size: 151936, hidden_size: 896, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, intermediate_size: 4864, tie_word_embeddings: true };
const GPT2_MED = { model_type: 'gpt2', vocab_size: 50257, n_embd: 1024, n_layer: 24, n_head: 16, n_positions: 1024 };
const MIXTRAL_SMALL = { model_type: 'mixtral', vocab_size: 32000, hidden_size: 1024, num_hidden_layers: 8, num_attention_heads: 16, num_key_value_heads: 4, intermediate_size: 3584, num_local_experts: 8, num_experts_per_tok: 2, tie_word_embeddings: false };

interface Case { config: Record<string, unknown>; class?: string; dtype: 'float16' | 'bfloat16' | 'float32'; device_map: MapMode; max_memory: Record<string, string>; via: 'transformers' | 'accelerate' }
const CASES: Case[] = [
  { config: LLAMA2_7B, dtype: 'float16', device_map: 'auto', max_memory: { 0: '6GiB', 1: '30GiB' }, via: 'transformers' },
  { config: LLAMA2_7B, dtype: 'float16', device_map: 'auto', max_memory: { 0: '6GiB', 1: '30GiB' }, via: 'accelerate' },
  { config: LLAMA2_7B, dtype: 'float16', device_map: 'auto', max_memory: { 0: '2GiB', 1: '2GiB' }, via: 'transformers' },
  { config: LLAMA2_7B, dtype: 'float16', device_map: 'auto', max_memory: { 0: '4GiB', cpu: '30GiB' }, via: 'transformers' },
  { config: LLAMA2_7B, dtype: 'bfloat16', device_map: 'balanced_low_0', max_memory: { 0: '10GiB', 1: '10GiB', 2: '10GiB' }, via: 'transformers' },
  { config: LLAMA2_7B, dtype: 'float32', device_map: 'auto', max_memory: { 0: '12GB', 1: '12GB', 2: '12GB', cpu: '64GB' }, via: 'accelerate' },
  { config: LLAMA2_7B, dtype: 'float16', device_map: 'sequential', max_memory: { 0: '5GiB', 1: '20GiB' }, via: 'transformers' },
  { config: QWEN_05B, dtype: 'bfloat16', device_map: 'auto', max_memory: { 0: '300MiB', 1: '2GiB' }, via: 'transformers' },
  { config: GPT2_MED, class: 'GPT2LMHeadModel', dtype: 'float32', device_map: 'auto', max_memory: { 0: '600MB', 1: '600MB', cpu: '4GB' }, via: 'transformers' },
  { config: MIXTRAL_SMALL, dtype: 'bfloat16', device_map: 'auto', max_memory: { 0: '1GiB', 1: '1GiB', 2: '4GiB' }, via: 'transformers' },
];

const BYTES = { float16: 2, bfloat16: 2, float32: 4 };

function ours(c: Case): Record<string, MapDevice> {
  const sizes = moduleSizes(c.config as HfConfig, c.class ?? 'AutoModelForCausalLM');
  assert.ok(sizes.length > 0, `${c.config.model_type}: no sizes`);
  const gpus: Record<number, number> = {};
  let cpu: number | undefined;
  for (const [k, v] of Object.entries(c.max_memory)) {
    const b = fileSizeToInt(v)!;
    if (k === 'cpu') cpu = b; else gpus[Number(k)] = b;
  }
  const plan = inferDeviceMap(treeFromSizes(sizes.map((s) => ({ name: s.name, bytes: s.params * BYTES[c.dtype] }))), {
    mode: c.device_map, gpus, cpu, userSet: true, variant: c.via, deviceCount: Object.keys(gpus).length,
  });
  assert.ok(plan.exact, 'balance buffer exact');
  return plan.assignment;
}

/** The device the real map gives a module: its own entry or the nearest enclosing one. */
function real(map: Record<string, MapDevice>, name: string): MapDevice | undefined {
  for (let p = name; ; p = p.slice(0, p.lastIndexOf('.'))) {
    if (p in map) return map[p];
    if (!p.includes('.')) return map[''];
  }
}

test('device_map placement equals transformers\' and accelerate\'s own (models built on the meta device)', () => {
  const truth = runPythonJson<({ device_map: Record<string, MapDevice> } | { error: string })[]>('hf_device_map.py', CASES.map((c) => ({ ...c, class: c.class ?? 'AutoModelForCausalLM' })));
  const bad: string[] = [];
  CASES.forEach((c, i) => {
    const t = truth[i];
    const what = `${c.config.model_type} ${c.dtype} ${c.device_map} ${JSON.stringify(c.max_memory)} via ${c.via}`;
    if (!('device_map' in t)) { bad.push(`${what}: ${t.error}`); return; }
    const mine = ours(c);
    const diffs = Object.entries(mine).filter(([name, d]) => real(t.device_map, name) !== d).map(([name, d]) => `${name}: oomlens ${d}, real ${real(t.device_map, name)}`);
    if (diffs.length) bad.push(`${what}: ${diffs.slice(0, 4).join('; ')}${diffs.length > 4 ? ` (+${diffs.length - 4})` : ''}`);
  });
  assert.deepEqual(bad, []);
});
