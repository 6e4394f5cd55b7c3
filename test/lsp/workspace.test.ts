// The language server on a multi-file project, as a user meets it: the lens
// on a class defined in model.py shows the model train.py builds ("as built
// in train.py:N"), and editing train.py in the editor (unsaved) updates the
// lens on model.py.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
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

describe('declaring a model nobody builds', () => {
  let c: LspClient;
  before(async () => {
    c = new LspClient();
    await c.initialize();
  });
  after(async () => { await c.close(); });

  it('the class gets a "no number" lens and a code action that appends a declaration; filled in, it gives the number', async () => {
    const { mkdtempSync, copyFileSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-declare-'));
    writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "x"\n');
    copyFileSync(join(ROOT, 'test/fixtures/projects/yaml_namedtuple/net.py'), join(dir, 'net.py'));
    const d = c.open(join(dir, 'net.py'));
    await c.diagnostics(d);
    const lenses = await lensTitles(c, d, /no number/);
    assert.ok(lenses.some((t) => /^no number: `ConvNet` needs its constructor arguments \(cfg\)/.test(t)), JSON.stringify(lenses));
    const classLine = d.text.split('\n').findIndex((l) => l.startsWith('class ConvNet'));
    const actions = await c.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri: d.uri }, range: { start: { line: classLine, character: 7 }, end: { line: classLine, character: 7 } }, context: { diagnostics: [] },
    }) as { title: string; edit?: { changes?: Record<string, { newText: string }[]> } }[];
    const declare = actions.find((a) => /^Declare how `ConvNet` is built/.test(a.title));
    assert.ok(declare?.edit?.changes, JSON.stringify(actions.map((a) => a.title)));
    const [[uri, edits]] = Object.entries(declare.edit.changes);
    assert.match(uri, /pyproject\.toml$/);
    assert.match(edits[0].newText, /\[\[tool\.oomlens\.models\]\]\nname = "ConvNet"\nfile = "net\.py"\nconstruct = '''\nmodel = ConvNet\(cfg=\.\.\.\)/);
    // The user fills the template in.
    const filled = edits[0].newText.replace('cfg=...', 'NetConfig(channels=[64, 128], num_classes=10)');
    writeFileSync(join(dir, 'pyproject.toml'), readFileSync(join(dir, 'pyproject.toml'), 'utf8') + filled);
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(join(dir, 'pyproject.toml')).href, type: 2 }] });
    const after = await lensTitles(c, d, /params/);
    assert.ok(after.some((t) => /params .*declared in pyproject\.toml:\d+/.test(t)), JSON.stringify(after));
  });
});
