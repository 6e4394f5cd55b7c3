// The language server on a multi-file project, as a user meets it: the lens
// on a class defined in model.py shows the model train.py builds ("as built
// in train.py:N"), and editing train.py in the editor (unsaved) updates the
// lens on model.py.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LspClient, ROOT } from './harness';

const PROJECT = join(ROOT, 'test/fixtures/projects/nanogpt_like');

async function lensTitles(c: LspClient, d: ReturnType<LspClient['open']>, want: RegExp | ((t: string) => boolean), timeoutMs = 20_000): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  let titles: string[] = [];
  while (Date.now() < end) {
    titles = (await c.codeLens(d)).map((l) => l.command?.title ?? '');
    if (titles.some((t) => (typeof want === 'function' ? want(t) : want.test(t)))) return titles;
    await new Promise((r) => setTimeout(r, 100));
  }
  return titles;
}

describe('workspace analysis over stdio', () => {
  let c: LspClient;
  before(async () => {
    c = new LspClient();
    await c.initialize();
  });
  after(async () => { await c.close(); });

  it('lens on the class in model.py comes from train.py, and follows unsaved edits of train.py', async () => {
    const model = c.open(join(PROJECT, 'model.py'));
    await c.diagnostics(model);
    const first = await lensTitles(c, model, /as built in train\.py:\d+/);
    assert.ok(first.some((t) => /10\.7 M params.*as built in train\.py:\d+/.test(t)), `lenses: ${JSON.stringify(first)} ${c.log}`);

    const train = c.open(join(PROJECT, 'train.py'));
    await c.diagnostics(train);
    const text = train.text.replace('"--n-layer", type=int, default=6', '"--n-layer", type=int, default=12');
    assert.notEqual(text, train.text);
    c.change(train, text);
    const second = await lensTitles(c, model, (t) => /as built in train\.py/.test(t) && !t.startsWith('10.7 M'));
    assert.ok(second.some((t) => /^21\.4 M params/.test(t)), `lenses after the edit: ${JSON.stringify(second)} ${c.log}`);
  });
});
