// The timeline webview's page (client/src/timelineHtml.ts): the server's
// charts as inert JSON, the bundled script as the only code (nonce), no
// eval, nothing remote; and the device picker's pyproject.toml edit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonForScript, timelineHtml } from '../../client/src/timelineHtml';
import { estimate } from '../../shared/src/estimate';
import { parseDeviceSpec } from '../../shared/src/devices';
import { locatorFor, timelineView } from '../../server/src/timeline/view';
import type { ModelFacts } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';

const facts: ModelFacts = {
  name: 'Net </script><script>alert(1)</script>', framework: 'jax', span: { start: 0, end: 1 }, params: [], buffers: [], paramCount: null, unknowns: [], runtime: { runtime: 'jax', versions: {} },
  phases: [{ phase: 'init', notes: [], unknowns: [], events: [{ op: 'alloc', tensor: { id: 1, label: 'w <!--', shape: [2 ** 28], dtype: 'float32', role: 'param', placement: { kind: 'device', index: 0 } } }] }],
};
const view = timelineView(facts, estimate(facts, parseDeviceSpec('t4') as DeviceSpec), locatorFor('x = 1\n', 'file:///m.py', '/m.py', (f) => `file://${f}`), { units: 'GB', width: 'container', titles: false });
const content = { view, title: 'Memory timeline: Net <&> on T4', scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/timelineView.js', cspSource: 'https://file+.vscode-resource.vscode-cdn.net' };

test('the page runs only the bundled script (nonce), no eval, nothing remote, under a fresh nonce', () => {
  const html = timelineHtml(content, 'n0nce');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.equal(csp, "default-src 'none'; script-src 'nonce-n0nce'; style-src 'nonce-n0nce'; img-src https://file+.vscode-resource.vscode-cdn.net data:;");
  assert.ok(!/unsafe-eval|unsafe-inline/.test(html));
  // Two scripts: the data (JSON, not run) and the bundle, which alone carries the nonce.
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' type="application/json" id="oomlens-data"', ` nonce="n0nce" src="${content.scriptUri}"`]);
  assert.ok(html.includes('<style nonce="n0nce">'));
  assert.ok(html.includes('<title>Memory timeline: Net &#60;&#38;&#62; on T4</title>'));
  // Two pages get two nonces.
  assert.notEqual(/nonce-([^']+)'/.exec(timelineHtml(content))?.[1], /nonce-([^']+)'/.exec(timelineHtml(content))?.[1]);
});

test('the charts ride in the page as JSON that cannot close its script element', () => {
  const html = timelineHtml(content, 'n');
  const data = /<script type="application\/json" id="oomlens-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(data);
  assert.ok(!/<\/script|<!--/i.test(data));
  assert.deepEqual(JSON.parse(data), JSON.parse(JSON.stringify(view)));
  assert.equal(jsonForScript('a\u2028b</script>'), '"a\\u2028b\\u003c/script\\u003e"');
});

test('the chart follows the panel width (Vega-Lite width "container"); text is never below 11 px', () => {
  const html = timelineHtml(content, 'n');
  assert.match(html, /\.card \{[^}]*width: 100%/);
  const spec = JSON.stringify(view.phases[0].spec);
  assert.match(spec, /"width":"container"/);
  for (const m of spec.matchAll(/"(?:labelFontSize|titleFontSize|fontSize|subtitleFontSize)":(\d+)/g)) assert.ok(Number(m[1]) >= 11, m[0]);
});

test('the device picker rewrites [tool.oomlens] device in pyproject.toml, and only there', async () => {
  const { withPyprojectDevice } = await import('../../client/src/pyproject');
  const src = '[project]\nname = "x"\ndevice = "keep"\n\n[tool.oomlens]\ndevice = "t4"  # target\ndisabled = ["OOM902"]\n';
  assert.equal(withPyprojectDevice(src, 'a100-80gb'), src.replace('device = "t4"', 'device = "a100-80gb"'));
  assert.equal(withPyprojectDevice('[tool.oomlens]\nunits = "GiB"\n', 'h200'), '[tool.oomlens]\ndevice = "h200"\nunits = "GiB"\n');
  assert.equal(withPyprojectDevice('[project]\nname = "x"\n', 'h200'), '[project]\nname = "x"\n\n[tool.oomlens]\ndevice = "h200"\n');
});
