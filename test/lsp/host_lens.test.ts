// A model the program keeps on the host only (analysis/api.ts HostModel) gets a lens with its size and where it
// lives, and no device verdict.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LspClient } from './harness';

describe('host-only models in the editor', () => {
  let c: LspClient;
  before(async () => {
    c = new LspClient();
    c.settings = { target: { device: 'a100-80gb' } };
    await c.initialize();
  });
  after(async () => { await c.close(); });

  it('a device_map="cpu" load shows its host size, no verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-host-'));
    const file = join(dir, 'host.py');
    writeFileSync(file, 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cpu")\n');
    const d = c.open(file);
    await c.diagnostics(d);
    const lenses = await c.codeLens(d);
    assert.equal(lenses.length, 1, JSON.stringify(lenses));
    assert.equal(lenses[0].command?.title, '497.8 MB on the host, not on the accelerator');
    assert.equal(lenses[0].range.start.line, 1);
  });
});
