// One device truth over LSP: after each analysis the server tells the
// client the device in effect for the file and where it comes from
// (oomlens/status). pyproject.toml wins over a default or user-level
// setting (the client marks it `deviceSetIn: "user"`); a device set for the
// workspace (`deviceSetIn: "workspace"`) wins over pyproject.toml — even
// when it is the default value.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LspClient } from './harness';

interface Status { uri: string; device: string; deviceName: string; source: string; pyproject?: string }

describe('target device and its source', () => {
  let c: LspClient;
  const statuses: Status[] = [];
  before(async () => {
    c = new LspClient();
    c.conn.onNotification('oomlens/status', (p: Status) => { statuses.push(p); });
    c.settings = { target: { device: 'a100-80gb' } };
    await c.initialize();
  });
  after(async () => { await c.close(); });

  const until = async (pred: (s: Status) => boolean) => {
    for (let i = 0; i < 300; i++) {
      const s = statuses.find(pred);
      if (s) return s;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`no status matching; got ${JSON.stringify(statuses)}`);
  };

  it('pyproject.toml decides over a default setting; a workspace pick wins over pyproject.toml', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-dev-'));
    writeFileSync(join(dir, 'pyproject.toml'), '[tool.oomlens]\ndevice = "t4"\n');
    const file = join(dir, 'net.py');
    writeFileSync(file, 'import torch.nn as nn\nnet = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU())\n');
    const d = c.open(file);
    const first = await until((s) => s.uri === d.uri);
    assert.deepEqual({ device: first.device, name: first.deviceName, source: first.source }, { device: 't4', name: 'T4', source: 'pyproject' });
    assert.equal(first.pyproject, join(dir, 'pyproject.toml'));
    assert.match((await c.codeLens(d))[0].command?.title ?? '', /on T4/);

    // A user-level setting (VS Code's client says so) yields to the project file too.
    statuses.length = 0;
    c.setSettings({ target: { device: 'a100-40gb', deviceSetIn: 'user' } });
    const user = await until((s) => s.uri === d.uri);
    assert.deepEqual({ device: user.device, source: user.source }, { device: 't4', source: 'pyproject' });

    statuses.length = 0;
    c.setSettings({ target: { device: 'a100-80gb', deviceSetIn: 'workspace' } });
    const picked = await until((s) => s.uri === d.uri);
    assert.deepEqual({ device: picked.device, source: picked.source }, { device: 'a100-80gb', source: 'setting' });
    await c.diagnostics(d);
    assert.match((await c.codeLens(d))[0].command?.title ?? '', /on A100 80GB/);
  });
});
