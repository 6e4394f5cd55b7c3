// The worker's results cross to the main thread with their per-tensor parts
// packed (lsp/packed.ts). Unpacked, a result must equal the analysis exactly,
// keys in the same order, and the packed parts must be read only when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { analyzeFile } from '../../server/src/program/project';
import { packResult, unpackResult } from '../../server/src/lsp/packed';
import { ROOT } from './harness';

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
  // Writable like any field.
  back.models[0].estimate.phases[0].breakdown = [];
  assert.deepStrictEqual(back.models[0].estimate.phases[0].breakdown, []);
});
