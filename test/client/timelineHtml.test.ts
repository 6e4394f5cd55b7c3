// The timeline webview's page (client/src/timelineHtml.ts): the server's SVG
// inlined under a CSP that allows no script and no resource besides the
// page's own nonce'd style sheet; anything but a plain SVG is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timelineHtml } from '../../client/src/timelineHtml';
import { estimate } from '../../shared/src/estimate';
import { parseDeviceSpec } from '../../shared/src/devices';
import { timelineSvg } from '../../shared/src/timelineSeries';
import type { ModelFacts } from '../../shared/src/facts';
import type { DeviceSpec } from '../../shared/src/types';

const facts: ModelFacts = {
  name: 'Net <&>', framework: 'jax', span: { start: 0, end: 1 }, params: [], buffers: [], paramCount: null, unknowns: [], runtime: { runtime: 'jax', versions: {} },
  phases: [{ phase: 'init', notes: [], unknowns: [], events: [{ op: 'alloc', tensor: { id: 1, label: 'w', shape: [2 ** 28], dtype: 'float32', role: 'param', placement: { kind: 'device', index: 0 } } }] }],
};

test('the page inlines the SVG under a strict CSP with a fresh nonce', () => {
  const svg = timelineSvg(facts, estimate(facts, parseDeviceSpec('t4') as DeviceSpec), { units: 'GB' });
  const html = timelineHtml({ svg, title: 'Memory timeline: Net <&> on T4' }, 'n0nce');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.equal(csp, "default-src 'none'; style-src 'nonce-n0nce'; img-src data:;");
  assert.ok(html.includes(svg), 'the SVG is inlined as is');
  assert.ok(html.includes('<style nonce="n0nce">'));
  assert.ok(!/<script/i.test(html));
  assert.ok(!/(src|href)="(https?:)?\/\//i.test(html), 'nothing remote');
  assert.ok(html.includes('<title>Memory timeline: Net &#60;&#38;&#62; on T4</title>'));
  // Two pages get two nonces.
  assert.notEqual(/nonce-([^']+)'/.exec(timelineHtml({ svg, title: 't' }))?.[1], /nonce-([^']+)'/.exec(timelineHtml({ svg, title: 't' }))?.[1]);
});

test('anything but a plain SVG is refused', () => {
  for (const bad of ['<p>hi</p>', '<svg><script>alert(1)</script></svg>', '<svg onload="x()"></svg>', '<svg><foreignObject/></svg>', '<svg><a href="javascript:x"/></svg>']) {
    const html = timelineHtml({ svg: bad, title: 't' }, 'n');
    assert.ok(!html.includes(bad), bad);
    assert.ok(html.includes('the server sent no picture that can be shown'));
  }
});

test('the device picker rewrites [tool.oomlens] device in pyproject.toml, and only there', async () => {
  const { withPyprojectDevice } = await import('../../client/src/pyproject');
  const src = '[project]\nname = "x"\ndevice = "keep"\n\n[tool.oomlens]\ndevice = "t4"  # target\ndisabled = ["OOM902"]\n';
  assert.equal(withPyprojectDevice(src, 'a100-80gb'), src.replace('device = "t4"', 'device = "a100-80gb"'));
  assert.equal(withPyprojectDevice('[tool.oomlens]\nunits = "GiB"\n', 'h200'), '[tool.oomlens]\ndevice = "h200"\nunits = "GiB"\n');
  assert.equal(withPyprojectDevice('[project]\nname = "x"\n', 'h200'), '[project]\nname = "x"\n\n[tool.oomlens]\ndevice = "h200"\n');
});

test('the timeline keeps its drawn size in a narrow panel (scrolls sideways) instead of shrinking its text', () => {
  const html = timelineHtml({ svg: '<svg xmlns="http://www.w3.org/2000/svg" width="880" height="300"><text font-size="11">x</text></svg>', title: 't' }, 'n0nce');
  assert.match(html, /\.card svg \{[^}]*max-width: none/);
  assert.match(html, /\.card \{[^}]*overflow-x: auto/);
  assert.doesNotMatch(html, /svg \{[^}]*max-width: 100%/);
});
