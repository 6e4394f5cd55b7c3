// Repository invariant: package.json `contributes` equals what
// scripts/gen-settings.mjs generates from the server's schema; and the
// settings / pyproject readers degrade instead of throwing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseProjectConfig } from '../../server/src/config/pyproject';
import { README_TABLE_END, README_TABLE_START, SETTINGS_SCHEMA, contributes, flatten, fromFlat, settingsTable } from '../../server/src/config/settings';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { contributes: Record<string, unknown> };

describe('settings schema', () => {
  it('package.json contributes.configuration and commands are generated from the schema (npm run gen-settings)', () => {
    const gen = contributes();
    assert.deepEqual(pkg.contributes.configuration, JSON.parse(JSON.stringify(gen.configuration)));
    assert.deepEqual(pkg.contributes.commands, gen.commands);
  });

  it('the README settings table is generated from the schema (npm run gen-settings)', () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const a = readme.indexOf(README_TABLE_START);
    const b = readme.indexOf(README_TABLE_END);
    assert.ok(a >= 0 && b > a, 'README.md has the settings table markers');
    assert.equal(readme.slice(a + README_TABLE_START.length, b).trim(), settingsTable());
    for (const k of Object.keys(SETTINGS_SCHEMA)) assert.ok(settingsTable().includes(`\`${k}\``), k);
  });

  it('every setting is documented, namespaced, and toggles end in .enable', () => {
    for (const [k, v] of Object.entries(SETTINGS_SCHEMA)) {
      assert.match(k, /^oomlens\./);
      assert.ok(v.markdownDescription.length > 10, k);
      if (v.type === 'boolean') assert.match(k, /\.enable$/);
    }
  });

  it('reads nested editor settings and falls back to defaults on bad values', () => {
    const s = fromFlat(flatten({ target: { device: 'h200' }, units: 'MB', diagnostics: { disabled: ['oom901', 3], severity: { OOM101: 'warning', OOM001: 'loud' } } }));
    assert.equal(s.target.device, 'h200');
    assert.equal(s.units, 'GB');
    assert.deepEqual(s.diagnostics.disabled, ['OOM901']);
    assert.deepEqual(s.diagnostics.severity, { OOM101: 'warning' });
  });
});

describe('[tool.oomlens] in pyproject.toml', () => {
  it('reads device, disabled, severity, units', () => {
    const c = parseProjectConfig('[tool.oomlens]\ndevice = "h200"\ndisabled = ["oom901"]\nunits = "GiB"\nseverity = { OOM101 = "hint" }\n');
    assert.deepEqual({ ...c, path: undefined }, { path: undefined, problems: [], device: 'h200', disabled: ['OOM901'], units: 'GiB', severity: { OOM101: 'hint' } });
  });
  it('bad TOML or values give messages, never exceptions', () => {
    assert.match(parseProjectConfig('[tool.oomlens\ndevice=').problems[0], /invalid TOML/);
    const c = parseProjectConfig('[tool.oomlens]\ndevice = 3\nunits = "MB"\n');
    assert.equal(c.device, undefined);
    assert.equal(c.problems.length, 2);
  });
});
