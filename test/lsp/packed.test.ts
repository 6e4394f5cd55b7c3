// The worker's results cross to the main thread with their per-tensor parts
// packed (lsp/packed.ts). Unpacked, a result must equal the analysis exactly,
// keys in the same order, and the packed parts must be read only when asked.
// The advice a hover shows for a model that does not fit is made by the worker
// (worker.ts) and must be the advice the main thread would make.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { analyzeFile } from '../../server/src/program/project';
import { packResult, unpackResult } from '../../server/src/lsp/packed';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DEFAULT_SETTINGS } from '../../server/src/config/settings';
import { hoverMarkdown } from '../../server/src/lsp/format';
import { LspClient, ROOT, SCENARIOS } from './harness';

const examples = readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.py')).map((f) => join(ROOT, 'examples', f));

test('a packed result, sent and unpacked, equals the analysis (values and key order)', async () => {
  let models = 0;
  for (const path of examples) {
    const r = await analyzeFile(readFileSync(path, 'utf8'), { path, device: 't4' });
    const before = structuredClone(r);
    const { slim, packed, transfer } = packResult(r);
    assert.deepStrictEqual(r, before, `${path}: packing changed the result`);
    // As postMessage does: a structured clone, with the packed bytes moved.
    const msg = structuredClone({ slim, packed }, { transfer });
    assert.equal(packed.buffer.byteLength, 0, 'the packed bytes are transferred, not copied');
    const back = unpackResult(msg.slim, msg.packed);
    assert.equal(JSON.stringify(back), JSON.stringify(r), path);
    assert.deepStrictEqual(back, r, path);
    models += r.models.length;
  }
  assert.ok(models >= 5, `the examples give models (${models})`);
});

test('the per-tensor parts stay packed until read, then are plain properties', async () => {
  const path = join(ROOT, 'examples/gpt2_train/train.py');
  const r = await analyzeFile(readFileSync(path, 'utf8'), { path, device: 't4' });
  assert.ok(r.models.length > 0 && r.models[0].facts.params.length > 0);
  const { slim, packed, transfer } = packResult(r);
  assert.ok(serialize(slim).length < serialize(r).length / 2, 'the cloned part is the smaller part');
  const msg = structuredClone({ slim, packed }, { transfer });
  const back = unpackResult(msg.slim, msg.packed);
  const facts = back.models[0].facts;
  assert.equal(facts.name, r.models[0].facts.name);
  assert.equal(typeof Object.getOwnPropertyDescriptor(facts, 'params')?.get, 'function', 'not unpacked by reading other fields');
  assert.deepStrictEqual(facts.params, r.models[0].facts.params);
  assert.ok('value' in Object.getOwnPropertyDescriptor(facts, 'params')!, 'a plain property once read');
  assert.equal(facts.params, facts.params);
  // What a hover reads (breakdowns, budget) unpacks without the events and timelines.
  const again = packResult(r);
  const other = unpackResult(structuredClone(again.slim), again.packed);
  assert.deepStrictEqual(other.models[0].estimate.phases.map((p) => p.breakdown), r.models[0].estimate.phases.map((p) => p.breakdown));
  assert.deepStrictEqual(other.models[0].estimate.budget, r.models[0].estimate.budget);
  assert.equal(typeof Object.getOwnPropertyDescriptor(other.models[0].facts.phases[0], 'events')?.get, 'function', 'events still packed');
  assert.equal(typeof Object.getOwnPropertyDescriptor(other.models[0].estimate.phases[0], 'timeline')?.get, 'function', 'timelines still packed');
  assert.deepStrictEqual(other.models[0].facts.phases[0].events, r.models[0].facts.phases[0].events);
  // Writable like any field.
  back.models[0].estimate.phases[0].breakdown = [];
  assert.deepStrictEqual(back.models[0].estimate.phases[0].breakdown, []);
});

test('over LSP, the hover of a model that does not fit (advice made by the worker) is the one made in-process', async () => {
  const path = join(SCENARIOS, 's1_equinox_mistral/model.py');
  const text = readFileSync(path, 'utf8');
  const c = new LspClient();
  c.settings = { target: { device: 'a100-40gb' } };
  try {
    await c.initialize();
    const d = c.open(path, text);
    await c.diagnostics(d);
    const [lens] = await c.codeLens(d);
    const md = ((await c.hover(d, lens.range.start))?.contents as { value: string }).value;
    assert.match(md, /^Fits on \(init\): /m, 'a phase that does not fit, with its advice');
    const r = await analyzeFile(text, { path, device: 'a100-40gb' });
    const doc = TextDocument.create(pathToFileURL(path).href, 'python', 1, text);
    const m = r.models.find((x) => x.estimate.phases.some((p) => p.fits === false));
    assert.ok(m);
    assert.equal(md, hoverMarkdown(m, doc, DEFAULT_SETTINGS.units));
  } finally {
    await c.close();
  }
});
