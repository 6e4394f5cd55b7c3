// Pinned versions read from requirements*.txt and pyproject.toml near a file:
// exact pins only, nearest file wins, ranges recorded as unknown, the walk
// stops at a .git directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRequirement, readPinnedVersions } from '../../server/src/config/versions';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'oomlens-versions-'));
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, text);
  }
  return root;
}

test('requirement lines: exact pins with extras, ranges are not pins', () => {
  assert.deepEqual(parseRequirement('jax[cuda12]==0.4.30'), { name: 'jax', version: '0.4.30', spec: '==0.4.30' });
  assert.equal(parseRequirement('flax == 0.8.5  # pinned')?.version, '0.8.5');
  assert.equal(parseRequirement('torch==2.1.2; python_version >= "3.9"')?.version, '2.1.2');
  assert.equal(parseRequirement('transformers>=4.36,<5')?.version, undefined);
  assert.equal(parseRequirement('transformers>=4.36,<5')?.spec, '>=4.36,<5');
  assert.equal(parseRequirement('numpy==1.26.*')?.version, undefined);
  assert.equal(parseRequirement('equinox~=0.11')?.version, undefined);
  assert.equal(parseRequirement('# a comment'), undefined);
  assert.equal(parseRequirement('-r base.txt'), undefined);
  assert.equal(parseRequirement('Flax_Extra==1.0')?.name, 'flax-extra');
});

test('requirements.txt beside the file: pins and unknown ranges', () => {
  const root = tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    'proj/requirements.txt': 'jax[cuda12]==0.4.30\nflax==0.8.5\ntorch==2.1.2\ntransformers>=4.36,<5\n',
    'proj/model.py': 'import jax\n',
  });
  const r = readPinnedVersions(join(root, 'proj', 'model.py'));
  assert.deepEqual(r.versions, { jax: '0.4.30', flax: '0.8.5', torch: '2.1.2' });
  assert.deepEqual(r.unknown.map((u) => [u.name, u.spec]), [['transformers', '>=4.36,<5']]);
  assert.equal(r.sources.find((s) => s.name === 'jax')?.file, join(root, 'proj', 'requirements.txt'));
});

test('nearest file wins; parents are read up to the .git directory and not beyond', () => {
  const root = tree({
    'requirements.txt': 'jax==0.3.0\ntorch==1.0.0\n',
    'repo/.git/HEAD': 'x',
    'repo/requirements-dev.txt': 'jax==0.4.20\nflax==0.7.0\n',
    'repo/src/pkg/requirements.txt': 'jax==0.4.30\n',
    'repo/src/pkg/train.py': '',
  });
  const r = readPinnedVersions(join(root, 'repo', 'src', 'pkg', 'train.py'));
  assert.equal(r.versions.jax, '0.4.30');
  assert.equal(r.versions.flax, '0.7.0');
  // Above the repository's .git: not read.
  assert.equal(r.versions.torch, undefined);
});

test('pyproject.toml: PEP 621 dependencies and Poetry tables', () => {
  const root = tree({
    '.git/HEAD': 'x',
    'a/pyproject.toml': '[project]\nname = "a"\ndependencies = ["jax[tpu]==0.4.30", "transformers>=4.36"]\n[project.optional-dependencies]\ntorch = ["torch==2.1.2"]\n',
    'a/m.py': '',
    'b/pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.10"\nflax = "0.8.5"\njax = "^0.4.30"\ntransformers = { version = "==4.36.2", extras = ["torch"] }\n[tool.poetry.group.dev.dependencies]\ntorch = "2.2.0"\n',
    'b/m.py': '',
  });
  const a = readPinnedVersions(join(root, 'a', 'm.py'));
  assert.deepEqual(a.versions, { jax: '0.4.30', torch: '2.1.2' });
  assert.deepEqual(a.unknown.map((u) => u.name), ['transformers']);
  const b = readPinnedVersions(join(root, 'b', 'm.py'));
  assert.deepEqual(b.versions, { flax: '0.8.5', transformers: '4.36.2', torch: '2.2.0' });
  assert.deepEqual(b.unknown.map((u) => [u.name, u.spec]), [['jax', '^0.4.30']]);
});

test('invalid pyproject.toml is a problem, not an exception; requirements beside it still count', () => {
  const root = tree({
    '.git/HEAD': 'x',
    'pyproject.toml': '[project\ndependencies = [',
    'requirements.txt': 'jax==0.4.30\n',
    'm.py': '',
  });
  const r = readPinnedVersions(join(root, 'm.py'));
  assert.equal(r.versions.jax, '0.4.30');
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0], /pyproject\.toml/);
});

// readPinnedVersions keeps its last answer per folder while the folders and files it read are unchanged (an editor
// asks at every keystroke); an edited pin, a new requirements file or a removed one is read again.
test('the cached answer follows edits, new files and removed ones', async () => {
  const { utimesSync, rmSync } = await import('node:fs');
  const root = tree({ '.git/HEAD': '', 'requirements.txt': 'torch==2.1.0\n', 'src/train.py': '' });
  const file = join(root, 'src', 'train.py');
  assert.equal(readPinnedVersions(file).versions.torch, '2.1.0');
  const later = (p: string, s: number) => utimesSync(p, new Date(Date.now() + s * 1000), new Date(Date.now() + s * 1000));
  writeFileSync(join(root, 'requirements.txt'), 'torch==2.2.0\n');
  later(join(root, 'requirements.txt'), 5);
  assert.equal(readPinnedVersions(file).versions.torch, '2.2.0');
  writeFileSync(join(root, 'src', 'requirements.txt'), 'torch==2.3.0\n');
  later(join(root, 'src'), 10);
  assert.equal(readPinnedVersions(file).versions.torch, '2.3.0');
  rmSync(join(root, 'src', 'requirements.txt'));
  later(join(root, 'src'), 15);
  assert.equal(readPinnedVersions(file).versions.torch, '2.2.0');
  // A caller changing the answer it got does not change the next one.
  readPinnedVersions(file).versions.torch = 'x';
  assert.equal(readPinnedVersions(file).versions.torch, '2.2.0');
});
