// Malformed request parameters get InvalidParams error responses (not
// internal TypeErrors), and malformed notifications are ignored: the server
// keeps answering well-formed requests afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { LspClient } from './harness';

const INVALID_PARAMS = -32602;

test('malformed params: InvalidParams for requests, notifications ignored, server stays up', async () => {
  const c = new LspClient();
  try {
    await c.initialize();
    const bad: Array<[string, unknown]> = [
      ['textDocument/hover', {}],
      ['textDocument/hover', { textDocument: { uri: 5 }, position: { line: 0, character: 0 } }],
      ['textDocument/hover', { textDocument: { uri: 'file:///x.py' }, position: { line: -1, character: 'a' } }],
      ['textDocument/hover', null],
      ['textDocument/codeLens', { textDocument: null }],
      ['textDocument/codeAction', { textDocument: { uri: 'file:///x.py' } }],
      ['textDocument/codeAction', { textDocument: { uri: 'file:///x.py' }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: 'no', only: 3 } }],
      ['workspace/executeCommand', { command: 42 }],
      ['oomlens/showTimeline', { uri: 1 }],
    ];
    for (const [method, params] of bad) {
      await assert.rejects(c.conn.sendRequest(method, params), (e: { code?: number; message?: string }) => {
        assert.equal(e.code, INVALID_PARAMS, `${method} ${JSON.stringify(params)}: ${e.message}`);
        return true;
      });
    }
    for (const [method, params] of [
      ['textDocument/didOpen', { textDocument: { uri: 1 } }],
      ['textDocument/didChange', { textDocument: { uri: 'file:///nope.py', version: 'x' }, contentChanges: 7 }],
      ['textDocument/didClose', {}],
      ['workspace/didChangeConfiguration', { settings: { oomlens: { target: { device: ['x'] }, units: 5, diagnostics: null } } }],
      ['workspace/didChangeConfiguration', null],
    ] as Array<[string, unknown]>) void c.conn.sendNotification(method, params);
    // A diagnostic echoed back with broken data is skipped, not dereferenced.
    const d = c.open(join(mkdtempSync(join(tmpdir(), 'oomlens-invalid-')), 'm.py'), 'import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(8, 8))\n');
    await c.diagnostics(d);
    const broken = [{ source: 'oomlens', code: 'OOM001', message: 'x', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, data: { fixes: [{ title: 't', edits: [{ start: 'a' }] }], name: 'n' } }];
    const actions = await c.conn.sendRequest('textDocument/codeAction', { textDocument: { uri: d.uri }, range: broken[0].range, context: { diagnostics: broken } });
    assert.deepEqual(actions, []);
    const lenses = await c.codeLens(d);
    assert.ok(Array.isArray(lenses) && lenses.length === 1, JSON.stringify(lenses));
    assert.doesNotMatch(c.stderr + c.log, /TypeError|Cannot read properties/);
  } finally {
    await c.close();
  }
});
