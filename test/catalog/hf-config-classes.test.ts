// transformers models built from a config written in the program
// (`GPT2Config(n_layer=4, ...)` then `GPT2LMHeadModel(config)` /
// `AutoModelForCausalLM.from_config(config)`), as pretraining-from-scratch
// scripts do. The config classes' defaults (config-defaults.ts) are compared
// with the installed transformers, and each program's parameter count and
// dtype with the same program run by transformers on the meta device
// (test/python/hf_snippet_params.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { CONFIG_CLASSES, CONFIG_CLASSES_SKIPPED } from '../../server/src/frameworks/transformers/config-defaults';
import { KNOWN_MODEL_TYPES } from '../../server/src/frameworks/transformers/catalog';
import { runPythonJson } from '../python/venv';

test('config-defaults.ts equals the installed transformers\' configuration classes (defaults and attribute_map)', () => {
  const types = [...Object.values(CONFIG_CLASSES).map((c) => c.modelType), ...Object.keys(CONFIG_CLASSES_SKIPPED)];
  const truth = runPythonJson<Record<string, { class: string; defaults: Record<string, unknown>; attribute_map: Record<string, string> } | { error: string }>>('hf_config_defaults.py', types);
  for (const [name, c] of Object.entries(CONFIG_CLASSES)) {
    const t = truth[c.modelType];
    assert.ok(t && !('error' in t), `${c.modelType}: ${t && 'error' in t ? t.error : 'missing'}`);
    assert.equal(t.class, name);
    assert.deepEqual(c.defaults, t.defaults, `${name} defaults`);
    assert.deepEqual(c.attributeMap, t.attribute_map, `${name} attribute_map`);
  }
  for (const mt of Object.keys(CONFIG_CLASSES_SKIPPED)) assert.ok('error' in truth[mt], `${mt} is now a flat config class: regenerate config-defaults.ts`);
  // Every family with a parameter formula is either listed or skipped with its reason.
  for (const mt of KNOWN_MODEL_TYPES) {
    assert.ok(Object.values(CONFIG_CLASSES).some((c) => c.modelType === mt) || mt in CONFIG_CLASSES_SKIPPED, `${mt}: no config class entry`);
  }
});

const SMALL = 'hidden_size=64, num_hidden_layers=2, num_attention_heads=4, vocab_size=1000, intermediate_size=96';
/** Per config class, what makes a small model of it (the aliases every class accepts, plus family-specific fields). */
const EXTRA: Record<string, string> = {
  DeepseekV2Config: ', moe_intermediate_size=32, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16, n_group=2, topk_group=1, first_k_dense_replace=1',
  DeepseekV3Config: ', moe_intermediate_size=32, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=32, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16, n_group=2, topk_group=1, first_k_dense_replace=1',
  Qwen2MoeConfig: ', num_experts=4, moe_intermediate_size=32, shared_expert_intermediate_size=48, num_experts_per_tok=2',
  MixtralConfig: ', num_local_experts=4, num_experts_per_tok=2',
  GemmaConfig: ', head_dim=16', Gemma2Config: ', head_dim=16', Gemma3TextConfig: ', head_dim=16',
  GPTNeoConfig: ', attention_types=[[["global", "local"], 1]], max_position_embeddings=128',
  GPTJConfig: ', rotary_dim=8', BartConfig: ', encoder_ffn_dim=96, decoder_ffn_dim=80, decoder_layers=3, decoder_attention_heads=4, max_position_embeddings=128',
  WhisperConfig: ', decoder_layers=3, decoder_attention_heads=4, encoder_ffn_dim=96, decoder_ffn_dim=80, max_source_positions=100, max_target_positions=64, num_mel_bins=16, pad_token_id=1, bos_token_id=2, eos_token_id=2, decoder_start_token_id=3',
  OPTConfig: ', ffn_dim=96, word_embed_proj_dim=64, max_position_embeddings=128', Phi3Config: ', pad_token_id=0', FalconConfig: ', num_kv_heads=2',
  T5Config: ', d_ff=96, d_kv=16, num_decoder_layers=3', ViTConfig: ', image_size=32, patch_size=8', BertConfig: ', max_position_embeddings=128', RobertaConfig: ', max_position_embeddings=130',
  GPT2Config: ', n_positions=128', BloomConfig: '', DebertaV2Config: ', max_position_embeddings=128',
};
/** The model class built from it: the causal LM where oomlens lists one, else the family's base model. */
const BUILD: Record<string, string> = {
  BertConfig: 'AutoModel', RobertaConfig: 'AutoModelForMaskedLM', T5Config: 'AutoModelForSeq2SeqLM', DebertaV2Config: 'AutoModel',
  BartConfig: 'AutoModelForSeq2SeqLM', WhisperConfig: 'AutoModelForSpeechSeq2Seq', ViTConfig: 'AutoModel', CLIPTextConfig: 'AutoModel',
};

const snippet = (body: string) => {
  const names = [...new Set(body.match(/\b(?:Auto|[A-Z][A-Za-z0-9]*)(?:Config|Model|For[A-Za-z0-9]+)\b/g) ?? [])];
  return `import torch\nfrom transformers import ${names.join(', ')}\n${body}\n`;
};

async function oomlens(src: string): Promise<{ params: number | null; dtype?: string; unknowns: string[] }> {
  const r = await analyze(src, { device: 'a100-80gb', versions: { transformers: '5.23.0' } });
  const m = r.models[0];
  const reasons = [...(m?.facts.unknowns ?? []), ...(r.unknowns ?? [])].map((u) => u.reason);
  return { params: m ? m.facts.paramCount : null, dtype: m?.facts.params[0]?.dtype, unknowns: reasons };
}

test('every config class, with keyword overrides, from_config: parameters equal transformers\' count (meta device)', async () => {
  const cases = Object.keys(CONFIG_CLASSES).map((name) => snippet(`config = ${name}(${SMALL}${EXTRA[name] ?? ''})\nmodel = ${BUILD[name] ?? 'AutoModelForCausalLM'}.from_config(config)`));
  const truth = runPythonJson<({ params: number; dtype: string } | { error: string })[]>('hf_snippet_params.py', cases);
  const bad: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const t = truth[i];
    if ('error' in t) { bad.push(`${Object.keys(CONFIG_CLASSES)[i]}: transformers: ${t.error}`); continue; }
    const o = await oomlens(cases[i]);
    if (o.params !== t.params || o.dtype !== t.dtype) bad.push(`${Object.keys(CONFIG_CLASSES)[i]}: oomlens ${o.params} ${o.dtype}, transformers ${t.params} ${t.dtype}${o.unknowns.length ? ` (${o.unknowns.join('; ')})` : ''}`);
  }
  assert.deepEqual(bad, []);
});

const PROGRAMS: { what: string; src: string }[] = [
  { what: 'GPT2LMHeadModel(GPT2Config(...)) with field names', src: 'config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)\nmodel = GPT2LMHeadModel(config)' },
  { what: 'aliases (hidden_size → n_embd) and the base model', src: 'config = GPT2Config(hidden_size=128, num_hidden_layers=3, num_attention_heads=4, max_position_embeddings=64)\nmodel = GPT2Model(config)' },
  { what: 'attribute assignment before construction, through an alias', src: 'config = GPT2Config(n_embd=128, n_head=4)\nconfig.num_hidden_layers = 2\nconfig.n_positions = 256\nmodel = GPT2LMHeadModel(config)' },
  { what: 'config.update', src: 'config = LlamaConfig(hidden_size=128, intermediate_size=256, num_attention_heads=4, vocab_size=500)\nconfig.update({"num_hidden_layers": 3, "num_key_value_heads": 2})\nmodel = LlamaForCausalLM(config)' },
  { what: 'untied head', src: 'config = GPT2Config(n_embd=64, n_layer=2, n_head=4, tie_word_embeddings=False)\nmodel = GPT2LMHeadModel(config)' },
  { what: 'Model(config) ignores the config dtype (float32)', src: 'config = LlamaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, vocab_size=300, dtype="bfloat16")\nmodel = LlamaForCausalLM(config)' },
  { what: 'from_config uses the config dtype', src: 'config = LlamaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, vocab_size=300, dtype="bfloat16")\nmodel = AutoModelForCausalLM.from_config(config)' },
  { what: 'from_config(dtype=) over the config', src: 'config = MistralConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=300)\nmodel = AutoModelForCausalLM.from_config(config, dtype=torch.float16)' },
  { what: 'defaults alone (GPT-2 small)', src: 'model = GPT2LMHeadModel(GPT2Config())' },
];

test('programs that build a model from a config: parameters and dtype equal transformers\' (meta device)', async () => {
  const truth = runPythonJson<({ params: number; dtype: string } | { error: string })[]>('hf_snippet_params.py', PROGRAMS.map((p) => snippet(p.src)));
  for (let i = 0; i < PROGRAMS.length; i++) {
    const t = truth[i];
    assert.ok(!('error' in t), `${PROGRAMS[i].what}: ${'error' in t ? t.error : ''}`);
    const o = await oomlens(snippet(PROGRAMS[i].src));
    assert.deepEqual({ params: o.params, dtype: o.dtype }, { params: t.params, dtype: t.dtype }, PROGRAMS[i].what);
  }
});

test('a config field set to a value oomlens does not know: the size is unknown and names the field, never a default', async () => {
  const o = await oomlens(snippet('import sys\nconfig = GPT2Config(n_embd=256, n_layer=int(sys.argv[1]), n_head=4)\nmodel = GPT2LMHeadModel(config)'));
  assert.equal(o.params, null);
  assert.ok(o.unknowns.some((u) => /n_layer/.test(u)), o.unknowns.join('; '));
  // A field the parameter formula does not read leaves the count known.
  const p = await oomlens(snippet('import sys\nconfig = GPT2Config(n_embd=64, n_layer=2, n_head=4, summary_first_dropout=float(sys.argv[1]))\nmodel = GPT2LMHeadModel(config)'));
  assert.ok(p.params !== null && p.params > 0);
});

test('a config class without a parameter formula: unknown with the reason, never zero', async () => {
  const o = await oomlens(snippet('config = MambaConfig(hidden_size=64, num_hidden_layers=2)\nmodel = MambaForCausalLM(config)'));
  assert.equal(o.params, null);
  assert.ok(o.unknowns.some((u) => /MambaConfig/.test(u)), o.unknowns.join('; '));
});

test('Model(config) on a real device: the load peak holds the untied head weight until tie_weights()', async () => {
  const r = await analyze(snippet('config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)\nmodel = GPT2LMHeadModel(config)'), { device: 'a100-80gb' });
  const load = r.models[0].estimate.phases.find((p) => p.phase === 'load')!;
  // 5,289,472 parameters (transformers' count, above) + the 8192 × 256 head weight, float32: measured 29,546,496 B by test/truth (hf_gpt2_train, build).
  assert.equal(load.peakBytes, (5_289_472 + 8192 * 256) * 4);
});

test('run_clm-style configs: AutoConfig.for_model and update_from_string (--config_overrides) as transformers applies them', async () => {
  const srcs = [
    'from transformers import AutoConfig, AutoModelForCausalLM\nconfig = AutoConfig.for_model("gpt2", n_embd=128, n_head=4)\nconfig.update_from_string("n_layer=3,n_positions=256,resid_pdrop=0.2,scale_attn_weights=false")\nmodel = AutoModelForCausalLM.from_config(config)\n',
    'from transformers import CONFIG_MAPPING, AutoModelForCausalLM\nconfig = CONFIG_MAPPING["gpt2"]()\nconfig.update_from_string("n_embd=64,n_layer=2,n_head=4,vocab_size=300")\nmodel = AutoModelForCausalLM.from_config(config)\n',
    'from transformers import AutoConfig, AutoModelForCausalLM\nconfig = AutoConfig.for_model("llama", hidden_size=64, intermediate_size=96, num_attention_heads=4, vocab_size=500)\nconfig.update_from_string("num_hidden_layers=2,intermediate_size=80,tie_word_embeddings=true")\nmodel = AutoModelForCausalLM.from_config(config)\n',
  ];
  const truth = runPythonJson<({ params: number; dtype: string } | { error: string })[]>('hf_snippet_params.py', srcs);
  for (let i = 0; i < srcs.length; i++) {
    const t = truth[i];
    assert.ok(!('error' in t), 'error' in t ? t.error : '');
    const o = await oomlens(srcs[i]);
    assert.deepEqual({ params: o.params, dtype: o.dtype }, { params: t.params, dtype: t.dtype }, srcs[i]);
  }
  // An override string oomlens cannot read leaves every field unknown: no size.
  const u = await oomlens('import sys\nfrom transformers import AutoConfig, AutoModelForCausalLM\nconfig = AutoConfig.for_model("gpt2")\nconfig.update_from_string(sys.argv[1])\nmodel = AutoModelForCausalLM.from_config(config)\n');
  assert.equal(u.params, null);
});

test('OOM201 (from_pretrained in float32) stays quiet for a model built from a config: there is no checkpoint dtype, and Model(config) takes no dtype', async () => {
  for (const build of ['GPT2LMHeadModel(config)', 'AutoModelForCausalLM.from_config(config)']) {
    const r = await analyze(snippet(`config = GPT2Config(n_embd=64, n_layer=2, n_head=4)\nmodel = ${build}`), { device: 'a100-80gb', versions: { transformers: '4.45.0' } });
    assert.deepEqual(r.findings.map((f) => f.code).filter((c) => c === 'OOM201'), [], build);
  }
});

test('a data collator called with a tokenizer is no model built from a config', async () => {
  const r = await analyze('from transformers import AutoTokenizer, DataCollatorForLanguageModeling\ntok = AutoTokenizer.from_pretrained("gpt2")\ncollator = DataCollatorForLanguageModeling(tok, mlm=False)\n', { device: 'a100-80gb' });
  assert.deepEqual(r.models.map((m) => m.facts.name), []);
});
