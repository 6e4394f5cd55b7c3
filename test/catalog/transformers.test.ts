// The transformers checkpoint table and parameter arithmetic: exact totals
// against published numbers (cost-facts §9, model cards), per-module lists
// for device_map splitting, lookups, version logic, and the local HF cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINTS, autoClassFor, countParams, defaultLoadDType, dtypeKeyword, hasArithmetic, lookupCheckpoint, moduleSizes, type HfConfig } from '../../server/src/frameworks/transformers/catalog';
import { hubCacheDir, readLocalConfig } from '../../server/src/frameworks/transformers/hf-cache';

function total(id: string, cls?: string): number {
  const e = lookupCheckpoint(id);
  assert.ok(e, `${id} not in the table`);
  return countParams(e.config, cls);
}

test('published totals (cost-facts §9 and model cards)', () => {
  // cost-facts §9: s5 scenario / "6.74B"; per layer 202,383,360.
  assert.equal(total('meta-llama/Llama-2-7b-hf'), 6_738_415_616);
  // cost-facts §9: s1 scenario "exactly 7,241,732,096"; per layer 218,112,000.
  assert.equal(total('mistralai/Mistral-7B-v0.1'), 7_241_732_096);
  // cost-facts §9: "GPT2LMHeadModel<all params:124439808>"; head tied to wte.
  assert.equal(total('gpt2', 'GPT2LMHeadModel'), 124_439_808);
  // cost-facts §9: BertModel with pooler 109,482,240; without pooler 108,891,648 (pooler = 768² + 768 = 590,592).
  assert.equal(total('bert-base-uncased', 'BertModel'), 109_482_240);
  // cost-facts §9: T5-base tied, 222,903,552; t5-small by the same code 60,506,624.
  assert.equal(total('t5-base', 'T5ForConditionalGeneration'), 222_903_552);
  assert.equal(total('t5-small', 'T5ForConditionalGeneration'), 60_506_624);
  // The Pythia suite's published counts (Biderman et al. 2023, "Pythia", table 1, exact totals on the model cards).
  for (const [id, n] of [['pythia-70m', 70_426_624], ['pythia-410m', 405_334_016], ['pythia-1b', 1_011_781_632], ['pythia-1.4b', 1_414_647_808], ['pythia-2.8b', 2_775_208_960], ['pythia-12b', 11_846_072_320]] as const) assert.equal(total(`EleutherAI/${id}`), n, id);
  // cost-facts §9: Gemma-2B 2,506,172,416 ("2.51B"); Gemma-7B 8,537,680,896 ("8.54B").
  assert.equal(total('google/gemma-2b'), 2_506_172_416);
  assert.equal(total('google/gemma-7b'), 8_537_680_896);
  // cost-facts §9: Meta-Llama-3-8B 8,030,261,248 ("8.03B").
  assert.equal(total('meta-llama/Meta-Llama-3-8B'), 8_030_261_248);
});

test('derived totals for the other families', () => {
  // Llama-2-13b: emb 32000·5120 = 163,840,000 (twice, untied); per layer 4·5120² + 3·5120·13824 + 2·5120
  // = 104,857,600 + 212,336,640 + 10,240 = 317,204,480; × 40 = 12,688,179,200; + 5120 → 13,015,864,320.
  assert.equal(total('meta-llama/Llama-2-13b-chat-hf'), 13_015_864_320);
  // Llama-2-70b (GQA 8 kv heads of 128): per layer 2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192
  // = 134,217,728 + 16,777,216 + 704,643,072 + 16,384 = 855,654,400; × 80 = 68,452,352,000;
  // + 2·32000·8192 = 524,288,000 + 8192 → 68,976,648,192 ("69B").
  assert.equal(total('meta-llama/Llama-2-70b-hf'), 68_976_648_192);
  // Llama-3-70B: same layers with vocabulary 128256: 68,452,352,000 + 2·128256·8192 (2,101,346,304) + 8192 = 70,553,706,496 ("70.6B").
  assert.equal(total('meta-llama/Meta-Llama-3.1-70B-Instruct'), 70_553_706_496);
  // Mixtral-8x7B: per layer attention 2·4096² + 2·4096·1024 = 41,943,040, router 4096·8 = 32,768,
  // experts 8·3·4096·14336 = 1,409,286,144, norms 8192 → 1,451,270,144; × 32 = 46,440,644,608;
  // + 2·131,072,000 + 4096 = 46,702,792,704 ("46.7B").
  assert.equal(total('mistralai/Mixtral-8x7B-v0.1'), 46_702_792_704);
  // Qwen2.5-7B (q/k/v biases, untied, vocab 152064): model card "Number of Parameters: 7.61B".
  // per layer 3584² ·2 + 2·3584·512 + (3584 + 1024) + 3·3584·18944 + 2·3584 = 233,373,184; × 28 = 6,534,449,152;
  // + 2·152064·3584 (1,089,994,752) + 3584 = 7,615,616,512 (= the 7,615,616,512 reported for the checkpoint).
  assert.equal(total('Qwen/Qwen2.5-7B-Instruct'), 7_615_616_512);
  // Qwen2.5-0.5B (tied): model card "0.49B": 494,032,768.
  assert.equal(total('Qwen/Qwen2.5-0.5B'), 494_032_768);
  // Phi-2: model card "2.7 billion"; 51200·2560 + 32·78,671,360 + 5120 + (51200·2560 + 51200) = 2,779,683,840.
  assert.equal(total('microsoft/phi-2'), 2_779_683_840);
  // Phi-3-mini: model card "3.8B": 2·32064·3072 + 32·(4·3072² + 3·3072·8192 + 2·3072) + 3072 = 3,821,079,552.
  assert.equal(total('microsoft/Phi-3-mini-4k-instruct'), 3_821_079_552);
  // Gemma-2-9b (four norms per layer, tied): 9,241,705,984 ("9.24B").
  assert.equal(total('google/gemma-2-9b'), 9_241_705_984);
  // GPT-2 sizes: 354,823,168 / 774,030,080 / 1,557,611,200 (HF model cards: 355M / 774M / 1.5B).
  assert.equal(total('gpt2-medium'), 354_823_168);
  assert.equal(total('gpt2-large'), 774_030_080);
  assert.equal(total('openai-community/gpt2-xl'), 1_557_611_200);
  // bert-large-uncased with pooler: 335,141,888 ("336M"); t5-large 737,668,096 ("770M" in the paper counts differently).
  assert.equal(total('bert-large-uncased', 'BertModel'), 335_141_888);
  // The cased BERTs (28,996-token vocabulary): BertModel built from the same config with transformers 5.23 on the
  // meta device counts 108,310,272 and 333,579,264.
  assert.equal(total('bert-base-cased', 'BertModel'), 108_310_272);
  assert.equal(total('google-bert/bert-large-cased', 'BertModel'), 333_579_264);
  assert.equal(total('t5-large', 'T5ForConditionalGeneration'), 737_668_096);
});

test('heads: AutoModel drops lm_head, masked LM adds its head, tied weights count once', () => {
  const llama = lookupCheckpoint('meta-llama/Llama-2-7b-hf')!.config;
  // AutoModel (LlamaModel) = total − lm_head (32000·4096 = 131,072,000).
  assert.equal(countParams(llama, 'AutoModel'), 6_738_415_616 - 131_072_000);
  const bert = lookupCheckpoint('bert-base-uncased')!.config;
  // BertForMaskedLM: no pooler (−590,592), transform 768² + 768 + LayerNorm 1536, decoder bias 30522 → 108,891,648 + 622,650.
  assert.equal(countParams(bert, 'BertForMaskedLM'), 108_891_648 + 590_592 + 1_536 + 30_522);
  // Gemma ties the head: the CausalLM count equals the base model's count.
  const gemma = lookupCheckpoint('google/gemma-2b')!.config;
  assert.equal(countParams(gemma, 'AutoModelForCausalLM'), countParams(gemma, 'AutoModel'));
  assert.equal(autoClassFor('AutoModelForCausalLM'), 'causal-lm');
  assert.equal(autoClassFor('GPT2LMHeadModel'), 'causal-lm');
  assert.equal(autoClassFor('AutoModel'), 'base');
  assert.equal(autoClassFor('BertForMaskedLM'), 'masked-lm');
  assert.equal(autoClassFor('AutoModelForSeq2SeqLM'), 'seq2seq-lm');
});

test('moduleSizes lists embeddings, each layer, the norm and the head', () => {
  const m = moduleSizes(lookupCheckpoint('mistralai/Mistral-7B-v0.1')!.config);
  assert.equal(m.length, 1 + 32 + 1 + 1);
  assert.deepEqual(m[0], { name: 'model.embed_tokens', params: 131_072_000 });
  assert.deepEqual(m[1], { name: 'model.layers.0', params: 218_112_000 });
  assert.deepEqual(m[33], { name: 'model.norm', params: 4096 });
  assert.deepEqual(m[34], { name: 'lm_head', params: 131_072_000 });
  const g = moduleSizes(lookupCheckpoint('gpt2')!.config, 'GPT2LMHeadModel');
  assert.equal(g.find((x) => x.name === 'lm_head'), undefined, 'tied head is not listed twice');
  assert.deepEqual(g[2], { name: 'transformer.h.0', params: 7_087_872 });
  const t5 = moduleSizes(lookupCheckpoint('t5-base')!.config, 'T5ForConditionalGeneration');
  assert.ok(t5.some((x) => x.name === 'decoder.block.11'));
});

test('every table entry has arithmetic and a stored dtype', () => {
  for (const e of CHECKPOINTS) {
    assert.ok(hasArithmetic(e.config), e.id);
    assert.match(String(e.config.torch_dtype), /^(float32|float16|bfloat16)$/, e.id);
  }
  assert.equal(hasArithmetic({ model_type: 'internlm2', vocab_size: 1, hidden_size: 1, num_hidden_layers: 1, num_attention_heads: 1, intermediate_size: 1 }), false);
  assert.deepEqual(moduleSizes({ model_type: 'internlm2', vocab_size: 1, hidden_size: 1, num_hidden_layers: 1, num_attention_heads: 1, intermediate_size: 1 }), []);
});

test('lookupCheckpoint is case-insensitive and tolerant', () => {
  assert.equal(lookupCheckpoint('META-LLAMA/llama-2-7B-HF/')?.id, 'meta-llama/Llama-2-7b-hf');
  assert.equal(lookupCheckpoint('Llama-2-7b-hf')?.id, 'meta-llama/Llama-2-7b-hf');
  assert.equal(lookupCheckpoint('openai-community/gpt2')?.id, 'openai-community/gpt2');
  assert.equal(lookupCheckpoint('someone-else/gpt2')?.config.model_type, 'gpt2');
  assert.equal(lookupCheckpoint('https://huggingface.co/t5-base')?.id, 't5-base');
  assert.equal(lookupCheckpoint('nobody/nothing'), undefined);
});

test('version logic (cost-facts §6.3)', () => {
  assert.equal(defaultLoadDType('4.57.1'), 'float32');
  assert.equal(defaultLoadDType('4.36'), 'float32');
  assert.equal(defaultLoadDType('5.0.0'), 'auto');
  assert.equal(defaultLoadDType('5.0.0rc1'), 'auto');
  assert.equal(defaultLoadDType(undefined), 'unknown');
  assert.equal(defaultLoadDType('main'), 'unknown');
  assert.equal(dtypeKeyword('4.55.4'), 'torch_dtype');
  assert.equal(dtypeKeyword('4.56.0'), 'dtype');
  assert.equal(dtypeKeyword('5.1'), 'dtype');
  assert.equal(dtypeKeyword(undefined), 'torch_dtype');
});

test('readLocalConfig reads the local HF cache and local directories, never the network', () => {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-hf-'));
  try {
    const hub = join(root, 'hub');
    const repo = join(hub, 'models--acme--tiny-llama');
    const cfg = { model_type: 'llama', vocab_size: 100, hidden_size: 8, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 16 };
    mkdirSync(join(repo, 'snapshots', 'aaaa'), { recursive: true });
    mkdirSync(join(repo, 'snapshots', 'bbbb'), { recursive: true });
    mkdirSync(join(repo, 'refs'), { recursive: true });
    writeFileSync(join(repo, 'snapshots', 'aaaa', 'config.json'), JSON.stringify({ ...cfg, hidden_size: 999 }));
    writeFileSync(join(repo, 'snapshots', 'bbbb', 'config.json'), JSON.stringify(cfg));
    writeFileSync(join(repo, 'refs', 'main'), 'bbbb\n');
    // HF_HUB_CACHE wins; refs/main picks snapshot bbbb over the alphabetically first aaaa.
    const r = readLocalConfig('acme/tiny-llama/', { HF_HUB_CACHE: hub });
    assert.ok(r && 'config' in r);
    assert.equal(r.config.hidden_size, 8);
    assert.equal(r.path, join(repo, 'snapshots', 'bbbb', 'config.json'));
    // The parsed config feeds the arithmetic: 2·100·8 + 2·(4·64 + 3·8·16 + 16) + 8 = 2,960.
    assert.equal(countParams(r.config as HfConfig), 1600 + 2 * (256 + 384 + 16) + 8);
    // HF_HOME/hub when HF_HUB_CACHE is unset; ~/.cache/huggingface/hub otherwise.
    assert.equal(hubCacheDir({ HF_HOME: root }), hub);
    assert.equal(hubCacheDir({ HOME: '/home/u' }), join('/home/u', '.cache', 'huggingface', 'hub'));
    assert.ok(readLocalConfig('acme/tiny-llama', { HF_HOME: root }));
    assert.equal(readLocalConfig('acme/other', { HF_HUB_CACHE: hub }), undefined);
    // Bad JSON gives a reason, not an exception.
    const bad = join(hub, 'models--acme--broken', 'snapshots', 'cccc');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'config.json'), '{ not json');
    const b = readLocalConfig('acme/broken', { HF_HUB_CACHE: hub });
    assert.ok(b && 'unknown' in b && /not valid JSON/.test(b.unknown));
    // A local directory as the model id, absolute or relative to baseDir.
    const dir = join(root, 'my-model');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg));
    const d = readLocalConfig(dir, { HF_HUB_CACHE: hub });
    assert.ok(d && 'config' in d && d.path === join(dir, 'config.json'));
    const rel = readLocalConfig('./my-model', { HF_HUB_CACHE: hub }, root);
    assert.ok(rel && 'config' in rel);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('lookupCheckpoint: a Hub id matches with or without its organisation; a filesystem path is never matched by its folder name', () => {
  assert.equal(lookupCheckpoint('llama-13b-hf')?.id, lookupCheckpoint('decapoda-research/llama-13b-hf')?.id);
  assert.ok(lookupCheckpoint('someone/llama-13b-hf'), 'namespace/name: the same name under another organisation');
  // What a local folder holds is not known from its name (the folder is read when it exists: hf-cache.ts).
  for (const p of ['/model/llama-13b-hf', './llama-13b-hf', '../weights/llama-13b-hf', '~/llama-13b-hf', 'C:/models/llama-13b-hf', 'models/hf/llama-13b-hf']) {
    assert.equal(lookupCheckpoint(p), undefined, p);
  }
});
