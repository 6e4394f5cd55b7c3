// End-to-end LSP tests over stdio against the bundled server (dist/server.js;
// `npm run build` first): the five scenario programs with the expectations
// of the scenario README, code actions applied as a client would, hover,
// CodeLens, and a configuration change flipping the verdict.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { LspClient, SCENARIOS } from './harness';

const S1 = join(SCENARIOS, 's1_equinox_mistral/model.py');
const S3 = join(SCENARIOS, 's3_haiku_pair_init/model.py');
const S4 = join(SCENARIOS, 's4_equinox_mlp_prealloc/infer.py');
const S5 = join(SCENARIOS, 's5_hf_llama_edit/edit.py');
const S2 = join(SCENARIOS, 's2_flax_sharded_dense/train.py');

const codes = (ds: Diagnostic[]): string[] => ds.map((d) => String(d.code)).sort();

describe('oomlens language server over stdio', () => {
  let c: LspClient;
  before(async () => {
    c = new LspClient();
    c.settings = { target: { device: 'a100-40gb' } };
    await c.initialize();
  });
  after(async () => { await c.close(); });

  it('publishes (empty) diagnostics for a file without models', async () => {
    const d = c.open(join(SCENARIOS, 'empty.py'), 'x = 1\n');
    assert.deepEqual(await c.diagnostics(d), []);
  });

  it('S1: reports OOM101 with code, docs link and related sites; hover and lens give the init peak', async () => {
    c.settings = { target: { device: 'a100-40gb' } };
    const d = c.open(S1);
    const ds = await c.diagnostics(d);
    const oom101 = ds.find((x) => x.code === 'OOM101');
    assert.ok(oom101, `expected OOM101 in ${codes(ds).join(', ')} ${c.log}`);
    assert.equal(oom101.source, 'oomlens');
    assert.match(oom101.codeDescription?.href ?? '', /docs\/rules\/[a-z0-9-]+\.md$/);
    assert.ok(ds.some((x) => x.code === 'OOM001'), 'the init peak exceeds the A100 40GB budget');

    const lenses = await c.codeLens(d);
    assert.equal(lenses.length, 1);
    const title = lenses[0].command?.title ?? '';
    assert.match(title, /params · init peak [\d.]+ GB of [\d.]+ GB usable on A100 40GB ✗/);
    const peak = Number(/init peak ([\d.]+) GB/.exec(title)?.[1]);
    assert.ok(peak > 40, `README: init peak above 40 GB, got ${peak}`);

    const h = await c.hover(d, lenses[0].range.start);
    const md = (h?.contents as { value: string } | undefined)?.value ?? '';
    assert.match(md, /params/);
    assert.match(md, /\| &nbsp;init&nbsp;&nbsp; \|/);
    assert.match(md, /line \d+/);
  });

  it('S1: "Ignore OOM101 for this line" silences it', async () => {
    const d = c.open(S1.replace('model.py', 'model_ignore.py'), (await import('node:fs')).readFileSync(S1, 'utf8'));
    const ds = await c.diagnostics(d);
    const oom101 = ds.filter((x) => x.code === 'OOM101');
    assert.ok(oom101.length > 0);
    const actions = await c.codeActions(d, oom101);
    const titles = actions.map((a) => a.title);
    assert.ok(titles.indexOf('Ignore OOM101 for this line') > -1, titles.join(' | '));
    assert.ok(titles.findIndex((t) => t.startsWith('Show documentation')) === titles.length - 1, 'documentation comes last');
    c.applyEdit(d, actions.find((a) => a.title === 'Ignore OOM101 for this line')!.edit!);
    assert.match(d.text, /# oomlens: ignore\[OOM101\]/);
    const after = await c.diagnostics(d);
    assert.ok(!after.some((x) => x.code === 'OOM101'), `still ${codes(after).join(', ')}`);
  });

  it('S4: the preferred safe fix removes OOM901, and source.fixAll applies it too', async () => {
    c.settings = { target: { device: 't4' } };
    const d = c.open(S4);
    const ds = await c.diagnostics(d);
    const oom901 = ds.filter((x) => x.code === 'OOM901');
    assert.equal(oom901.length, 1, `got ${codes(ds).join(', ')}`);
    const actions = await c.codeActions(d, oom901);
    assert.ok(actions[0].isPreferred, 'the preferred fix comes first');
    c.applyEdit(d, actions[0].edit!);
    assert.ok(!(await c.diagnostics(d)).some((x) => x.code === 'OOM901'));

    const e = c.open(S4.replace('infer.py', 'infer_fixall.py'), (await import('node:fs')).readFileSync(S4, 'utf8'));
    await c.diagnostics(e);
    const all = await c.codeActions(e, [], ['source.fixAll.oomlens']);
    assert.equal(all.length, 1);
    c.applyEdit(e, all[0].edit!);
    assert.ok(!(await c.diagnostics(e)).some((x) => x.code === 'OOM901'));
  });

  it('unsafe fixes are offered but never preferred nor applied by fixAll (S5)', async () => {
    c.settings = { target: { device: '2xv100-32gb' } };
    const d = c.open(S5);
    const ds = await c.diagnostics(d);
    const ours = ds.filter((x) => x.code === 'OOM201');
    assert.ok(ours.length > 0, `got ${codes(ds).join(', ')}`);
    const actions = await c.codeActions(d, ours);
    assert.ok(actions.every((a) => !a.isPreferred || !/review/.test(a.title)));
    const all = await c.codeActions(d, [], ['source.fixAll.oomlens']);
    assert.equal(all.length, 0);
  });

  it('S3: switching the device from a100-80gb to h200 flips the verdict without reopening', async () => {
    c.settings = { target: { device: 'a100-80gb' } };
    const d = c.open(S3);
    const ds = await c.diagnostics(d);
    assert.ok(ds.some((x) => x.code === 'OOM001'), `got ${codes(ds).join(', ')}`);
    assert.match((await c.codeLens(d))[0].command!.title, /A100 80GB ✗/);
    const before = JSON.stringify(ds);
    c.setSettings({ target: { device: 'h200' } });
    // Diagnostics are republished for the same version after the change.
    const deadline = Date.now() + 15_000;
    let now = ds;
    while (Date.now() < deadline) {
      now = await c.diagnostics(d);
      if (JSON.stringify(now) !== before) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(!now.some((x) => x.code === 'OOM001'), `still ${codes(now).join(', ')}`);
    assert.match((await c.codeLens(d))[0].command!.title, /H200 ✓/);
  });

  it('S2: 8× H100 reports the threefry temporaries as not fitting', async () => {
    c.setSettings({ target: { device: '8xh100-80gb' } });
    const d = c.open(S2);
    const ds = await c.diagnostics(d);
    assert.ok(ds.some((x) => x.code === 'OOM001'), `got ${codes(ds).join(', ')}`);
    assert.match((await c.codeLens(d))[0].command!.title, /8× H100 80GB ✗/);
  });

  it('half-typed code: no crash, diagnostics for the current version only, server keeps answering', async () => {
    c.setSettings({ target: { device: 'a100-40gb' } });
    const d = c.open(S1.replace('model.py', 'model_typing.py'), (await import('node:fs')).readFileSync(S1, 'utf8'));
    await c.diagnostics(d);
    const full = d.text;
    // Type a broken prefix in several quick edits; only the last version's diagnostics must arrive.
    for (let i = 1; i <= 5; i++) c.change(d, full.slice(0, Math.floor((full.length * i) / 7)) + '\nmodel = (');
    const ds = await c.diagnostics(d);
    const lines = d.text.split('\n').length;
    assert.ok(ds.every((x) => x.range.end.line < lines), 'no squiggle beyond the end of the text');
    c.change(d, full);
    assert.ok((await c.diagnostics(d)).some((x) => x.code === 'OOM101'));
    assert.equal(c.proc.exitCode, null);
  });

  it('a bad device name becomes a warning, not a crash', async () => {
    c.setSettings({ target: { device: 'b200-9000' } });
    const d = c.open(join(SCENARIOS, 'bad_device.py'), 'x = 1\n');
    const ds = await c.diagnostics(d);
    assert.ok(ds.some((x) => /Unknown device/.test(typeof x.message === "string" ? x.message : x.message.value)), JSON.stringify(ds));
  });
});
