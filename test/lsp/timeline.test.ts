// The memory timeline and fits-where over LSP (dist/server.js over stdio):
// the lens runs "Show memory timeline", the custom request returns one
// Vega-Lite chart per phase with its contributors (those the hover lists),
// their source lines and the budget line; the server command for other
// editors draws it to an SVG file and asks to open it; and the hover carries
// one "Fits on … · cheapest change …" line per phase that does not fit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { LspClient, SCENARIOS } from './harness';

const S1 = join(SCENARIOS, 's1_equinox_mistral/model.py');
const S5 = join(SCENARIOS, 's5_hf_llama_edit/edit.py');

interface Row { band: string; contributor: string; uri?: string; line?: number }
interface PhaseView { phase: string; heading: string; notes: string[]; spec: { layer: { data?: { values: Row[] }; layer?: { mark: { type: string }; data?: unknown }[] }[]; title?: unknown } }
interface TimelineResult { view: { title: string; phases: PhaseView[]; initial: number } | null; title: string | null }

describe('memory timeline and fits-where over LSP', () => {
  let c: LspClient;
  before(async () => {
    c = new LspClient();
    c.settings = { target: { device: 'a100-40gb' } };
    await c.initialize();
  });
  after(async () => { await c.close(); });

  it('oomlens/listDevices: each card with what CUDA reports as usable beside its nominal size, or "usable not known"', async () => {
    const r = await c.conn.sendRequest<{ devices: { id: string; name: string; capacity: string }[] }>('oomlens/listDevices');
    const by = Object.fromEntries(r.devices.map((d) => [d.id, d.capacity]));
    // A100 40GB: CUDA's 42,298,834,944 B = 42.3 GB of nvidia-smi's 40,960 MiB = 42.9 GB (devices.ts).
    assert.equal(by['a100-40gb'], '42.3 GB usable of 42.9 GB');
    // L4: no public figure for CUDA's total; the nominal 23,034 MiB = 24.2 GB.
    assert.equal(by['l4'], '24.2 GB (usable not known)');
  });

  it('S1: the lens opens the timeline; the SVG has the phase, its contributors and the budget line', async () => {
    c.settings = { target: { device: 'a100-40gb' } };
    const d = c.open(S1);
    await c.diagnostics(d);
    const [lens] = await c.codeLens(d);
    assert.equal(lens.command?.command, 'oomlens.showTimeline');
    assert.equal(lens.command?.tooltip, 'Show memory timeline');
    const [uri, position] = lens.command!.arguments as [string, { line: number; character: number }];
    assert.equal(uri, d.uri);

    const r = await c.conn.sendRequest<TimelineResult>('oomlens/showTimeline', { uri, position });
    assert.ok(r.view, 'charts for the model at the lens');
    assert.match(r.title ?? '', /^Memory timeline: Transformer on A100 40GB$/);
    const init = r.view.phases.find((p) => p.phase === 'init');
    assert.ok(init, 'the init phase');
    assert.equal(r.view.initial, r.view.phases.indexOf(init), 'the phase that does not fit is shown first');
    assert.equal(init.spec.title, undefined, 'the webview shows the heading as page text');
    // Budget line, with the figure the lens shows.
    const budget = /of ([\d.]+ GB) usable/.exec(lens.command!.title)?.[1];
    assert.ok(budget, lens.command!.title);
    assert.ok(init.heading.includes(`of ${budget} usable`), init.heading);
    const json = JSON.stringify(init.spec);
    assert.ok(json.includes(`"budget ${budget}"`), `budget ${budget} labelled`);
    assert.ok(init.spec.layer.flatMap((l) => l.layer ?? []).some((l) => l.mark.type === 'rule'), 'budget line');
    // Every contributor the hover lists at the peak is a band, and a click on it opens its line in this file.
    const rows = init.spec.layer[0].data!.values;
    const h = await c.hover(d, lens.range.start);
    const md = (h?.contents as { value: string }).value;
    const labels = [...md.matchAll(/^- [\d.]+ [kMGT]?B (.+?)(?: \(\d+ tensors\))?(?: · \[line \d+\]\(.+\))?$/gm)].map((m) => m[1]);
    assert.ok(labels.length >= 2, md);
    for (const l of labels) {
      const row = rows.find((x) => x.band === l);
      assert.ok(row, `band for ${l}`);
      assert.equal(row.uri, d.uri);
      assert.ok(Number.isInteger(row.line) && row.line! >= 0, `a line for ${l}`);
    }
    assert.ok(!/<script|https?:\/\/(?!vega\.github\.io\/schema)/.test(json), 'nothing to run or fetch');
  });

  it('S1: the hover says where the init phase fits and the cheapest change, in one line', async () => {
    const d = c.open(S1.replace('model.py', 'model_hover.py'), readFileSync(S1, 'utf8'));
    await c.diagnostics(d);
    const [lens] = await c.codeLens(d);
    const md = ((await c.hover(d, lens.range.start))?.contents as { value: string }).value;
    const line = md.split('\n').find((l) => l.startsWith('Fits on (init): '));
    assert.ok(line, md);
    assert.match(line, /^Fits on \(init\): \d+× A100 40GB, .* · cheapest change: .+ → [\d.]+ GB ✓$/);
    // The table comes first (after the title line), cells padded so the columns stay apart.
    assert.match(md, /^\*\*.+\n\n\| &nbsp;phase&nbsp;&nbsp; \| &nbsp;peak \/ device&nbsp;&nbsp; \| &nbsp;budget&nbsp;&nbsp; \| &nbsp;verdict&nbsp;&nbsp; \|\n/);
    assert.match(md, /\| &nbsp;init&nbsp;&nbsp; \| &nbsp;[\d.]+ GB&nbsp;&nbsp; \| &nbsp;[\d.]+ GB&nbsp;&nbsp; \| &nbsp;✗ does not fit&nbsp;&nbsp; \|/);
    // Contributors link to their lines; the diagnostic's message is not repeated.
    assert.match(md, /· \[line \d+\]\(file:.+#L\d+\)/);
    assert.doesNotMatch(md, /does not fit\. Largest:/);
  });

  it('S5 on two devices: phases that fit get no advice line; the timeline still draws each phase', async () => {
    c.setSettings({ target: { device: '2xv100-32gb' } });
    const d = c.open(S5);
    await c.diagnostics(d);
    const [lens] = await c.codeLens(d);
    const md = ((await c.hover(d, lens.range.start))?.contents as { value: string }).value;
    assert.ok(!md.includes('Fits on ('), md);
    const r = await c.conn.sendRequest<TimelineResult>('oomlens/showTimeline', { uri: d.uri, position: { line: 0, character: 0 } });
    const load = r.view?.phases.find((p) => p.phase === 'load');
    assert.ok(load, 'falls back to the file\'s first model');
    // device_map="auto" splits float32 Llama-2-7B 16 / 16 layers (transformers computes the same for two 32 GB cards):
    // GPU 1 also holds the final norm, so it is the busier one by 16 KiB.
    assert.match(load.heading, /^load: peak .*\(busiest device: 1\)/);
  });

  it('other editors: oomlens.server.showTimeline writes the SVG and asks the client to open it', async () => {
    c.setSettings({ target: { device: 'a100-40gb' } });
    const d = c.open(S1.replace('model.py', 'model_cmd.py'), readFileSync(S1, 'utf8'));
    await c.diagnostics(d);
    const [lens] = await c.codeLens(d);
    const shown: { uri: string; external?: boolean }[] = [];
    c.conn.onRequest('window/showDocument', (p: { uri: string; external?: boolean }) => { shown.push(p); return { success: true }; });
    const r = await c.conn.sendRequest<{ path: string } | null>('workspace/executeCommand', { command: 'oomlens.server.showTimeline', arguments: [d.uri, lens.range.start] });
    assert.ok(r?.path, 'the path of the written SVG');
    assert.equal(shown.length, 1);
    assert.equal(shown[0].uri, pathToFileURL(r.path).href);
    assert.equal(shown[0].external, true);
    const svg = readFileSync(r.path, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(svg.includes('budget 31.7 GB'), 'A100 40GB under JAX: 75% of CUDA\'s 42,298,834,944 B');
    assert.ok(svg.includes('init: peak'), 'the phase heading is drawn in the file');
    // No model: nothing written, nothing shown.
    const e = c.open(join(SCENARIOS, 'no_model_cmd.py'), 'y = 2\n');
    await c.diagnostics(e);
    assert.equal(await c.conn.sendRequest('workspace/executeCommand', { command: 'oomlens.server.showTimeline', arguments: [e.uri, { line: 0, character: 0 }] }), null);
    assert.equal(shown.length, 1);
  });

  it('a file without a model answers nulls', async () => {
    const d = c.open(join(SCENARIOS, 'no_model.py'), 'x = 1\n');
    await c.diagnostics(d);
    const r = await c.conn.sendRequest<TimelineResult>('oomlens/showTimeline', { uri: d.uri, position: { line: 0, character: 0 } });
    assert.deepEqual(r, { view: null, title: null });
  });
});
