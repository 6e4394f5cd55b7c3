// Internal errors reach the user and the log (dist/server.js over stdio, with
// a fault injected through OOMLENS_TEST_FAULT): when the analysis dies in
// the worker, the "oomlens" output channel (window/logMessage) gets the
// stack, the file gets a warning diagnostic that says so and points to the
// log, and the user is told once with a message; when a rule fails and the
// analysis survives, the stack is logged too and the other rules still run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LspClient, SCENARIOS } from './harness';

const S1 = join(SCENARIOS, 's1_equinox_mistral/model.py');

describe('internal errors: logged with their stack and told to the user', () => {
  it('the analysis dies in the worker: stack in the log, a diagnostic and one message', async () => {
    const c = new LspClient({ OOMLENS_TEST_FAULT: 'worker' });
    try {
      await c.initialize();
      const d = c.open(S1);
      const diags = await c.diagnostics(d);
      const w = diags.find((x) => x.code === 'internal-error');
      assert.ok(w, JSON.stringify(diags));
      assert.equal(w.severity, 2);
      assert.match(String(w.message), /^oomlens hit an internal error \(a bug in oomlens, not in your code\).*injected worker fault.*"oomlens: Show logs"/);
      // The log has the error with its stack (frames of the worker bundle).
      assert.match(c.log, /internal error: analysis of file:.*model\.py: Error: injected worker fault \(OOMLENS_TEST_FAULT=worker\)\n\s+at .*workerMain\.js/);
      // One message for the user, however often the file is analysed again.
      for (let i = 0; i < 100 && c.messages.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(c.messages.length, 1);
      assert.equal(c.messages[0].type, 2);
      assert.match(c.messages[0].message, /oomlens could not analyse model\.py: internal error/);
      c.change(d, d.text + '\n# edit\n');
      await c.diagnostics(d);
      assert.equal(c.messages.length, 1);
    } finally {
      await c.close();
    }
  });

  it('a rule fails and the analysis survives: its stack is logged, the warning says so, the lens is still there', async () => {
    const c = new LspClient({ OOMLENS_TEST_FAULT: 'rule' });
    try {
      c.settings = { target: { device: 'a100-40gb' } };
      await c.initialize();
      const d = c.open(S1);
      const diags = await c.diagnostics(d);
      const w = diags.find((x) => x.code === 'internal-error');
      assert.ok(w, JSON.stringify(diags));
      assert.match(String(w.message), /rule failed: injected rule fault/);
      assert.match(c.log, /internal error: on file:.*model\.py: rule OOM\d+: Error: injected rule fault \(OOMLENS_TEST_FAULT=rule\)\n\s+at /);
      assert.ok((await c.codeLens(d)).length > 0, 'the model is still analysed');
      assert.equal(c.messages.length, 0, 'no message box for an error the analysis survived');
    } finally {
      await c.close();
    }
  });

  it('without a fault: no internal-error diagnostic, nothing logged at error level', async () => {
    const c = new LspClient();
    try {
      await c.initialize();
      const d = c.open(S1);
      const diags = await c.diagnostics(d);
      assert.ok(!diags.some((x) => x.code === 'internal-error'));
      assert.doesNotMatch(c.log, /internal error/);
    } finally {
      await c.close();
    }
  });
});
