// Disk texts in the language server: trusted for a moment after a check, re-read at once after a
// watched-file event; the CLI (revalidate 0) checks the disk on every read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetListings, setRevalidateMs, workspaceFor } from '../../server/src/program/workspace';

function project(): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-ws-'));
  writeFileSync(join(root, 'pyproject.toml'), '');
  const file = join(root, 'm.py');
  writeFileSync(file, 'a = 1\n');
  return { root, file };
}

function rewrite(file: string, text: string): void {
  writeFileSync(file, text);
  // A later mtime even on file systems with coarse timestamps.
  const t = new Date(Date.now() + 5000);
  utimesSync(file, t, t);
}

test('every read checks the disk when revalidation is off (the CLI)', () => {
  setRevalidateMs(0);
  const { root, file } = project();
  const ws = workspaceFor(root);
  assert.equal(ws.readText(file), 'a = 1\n');
  rewrite(file, 'a = 22\n');
  assert.equal(ws.readText(file), 'a = 22\n');
});

test('a text checked moments ago is trusted until a watched-file event', () => {
  setRevalidateMs(60_000);
  try {
    const { root, file } = project();
    const ws = workspaceFor(root);
    assert.equal(ws.readText(file), 'a = 1\n');
    rewrite(file, 'a = 22\n');
    assert.equal(ws.readText(file), 'a = 1\n', 'within the window the disk is not asked again');
    forgetListings();
    assert.equal(ws.readText(file), 'a = 22\n', 'a watched-file event makes the next read check the disk');
  } finally {
    setRevalidateMs(0);
  }
});

test('a module lookup made moments ago is kept until a watched-file event; without revalidation it is not', () => {
  for (const ms of [60_000, 0]) {
    setRevalidateMs(ms);
    try {
      const { root } = project();
      const ws = workspaceFor(root);
      assert.equal(ws.findModule('newmod', [root]), undefined);
      writeFileSync(join(root, 'newmod.py'), 'x = 1\n');
      if (ms) {
        assert.equal(ws.findModule('newmod', [root]), undefined, 'within the window the disk is not probed again');
        forgetListings();
      }
      assert.equal(ws.findModule('newmod', [root])?.path, join(root, 'newmod.py'));
    } finally {
      setRevalidateMs(0);
    }
  }
});
