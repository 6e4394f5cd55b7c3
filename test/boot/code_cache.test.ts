// The V8 code cache loader (server/src/boot/codeCache.ts): a cache is used only for the exact source it was
// made from, a cache V8 rejects or a damaged file falls back to compiling the source, and the module runs the
// same either way.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CODE_CACHE_DIR_ENV, cacheDirs, cacheFileBytes, cacheFileName, loadBundle } from '../../server/src/boot/codeCache';

/** The header's length in a cache file (magic, source hash, data hash). */
const HEADER_BYTES = cacheFileBytes(Buffer.alloc(32), Buffer.alloc(0)).length;

function bundle(value: number): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-cc-'));
  const file = join(dir, 'b.js');
  writeFileSync(file, source(value));
  return { dir, file };
}
let made = 0;
/**
 * Same length for every one-digit value: V8's own check compares only the length (it runs a same-length
 * source's cached code, a test showed). Each source is new (`made`): V8 keeps the scripts it compiled in
 * memory and would not read a cache for one it already has.
 */
const source = (value: number) => `// ${String(++made).padStart(6, '0')}
const { join } = require('node:path');
exports.value = () => ${value};
exports.lazy = function lazy(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; };
exports.where = join(__dirname, 'x') === require('node:path').join(__dirname, 'x') && __filename.endsWith('b.js');
exports.isModule = module.exports === exports;
`;

type B = { value(): number; lazy(n: number): number; where: boolean; isModule: boolean };

test('a saved cache is accepted for the same source and gives the same module', () => {
  const { dir, file } = bundle(1);
  const caches = mkdtempSync(join(tmpdir(), 'oomlens-cc-dir-'));
  const first = loadBundle(file, [caches]);
  assert.equal(first.cache, 'none');
  const a = first.exports as B;
  assert.equal(a.value(), 1);
  assert.equal(a.lazy(100), 295);
  assert.equal(a.where, true);
  assert.equal(a.isModule, true);
  const saved = first.save(caches);
  assert.equal(saved, join(caches, cacheFileName(file)));
  const second = loadBundle(file, [join(dir, 'absent'), caches]);
  assert.equal(second.cache, 'accepted');
  assert.equal(second.cacheFile, saved);
  const b = second.exports as B;
  assert.deepEqual([b.value(), b.lazy(100), b.where, b.isModule], [1, 295, true, true]);
  // A cache that was used is not written again.
  assert.equal(second.save(caches), undefined);
});

test('a cache made from another source of the same length is not used', () => {
  const { file } = bundle(1);
  const caches = mkdtempSync(join(tmpdir(), 'oomlens-cc-dir-'));
  const first = loadBundle(file, [caches]);
  (first.exports as B).lazy(10);
  first.save(caches);
  writeFileSync(file, source(2).replace(/^\/\/ \d+/, readFileSync(file, 'utf8').slice(0, 9)));
  const stale = loadBundle(file, [caches]);
  assert.equal(stale.cache, 'none');
  assert.equal((stale.exports as B).value(), 2);
});

test('a damaged cache file, or one V8 rejects, falls back to the source', () => {
  const { file } = bundle(3);
  const caches = mkdtempSync(join(tmpdir(), 'oomlens-cc-dir-'));
  const saved = loadBundle(file, [caches]).save(caches)!;
  const good = readFileSync(saved);
  // V8 itself accepts damaged data; the data's hash in the header does not.
  const damaged = Buffer.from(good);
  for (let i = damaged.length - 64; i < damaged.length; i++) damaged[i] ^= 0xff;
  for (const junk of [damaged, Buffer.alloc(0), Buffer.from('not a cache'), good.subarray(0, 30), good.subarray(0, good.length - 1)]) {
    writeFileSync(saved, junk);
    const l = loadBundle(file, [caches]);
    assert.equal(l.cache, 'none');
    assert.deepEqual([(l.exports as B).value(), (l.exports as B).lazy(100)], [3, 295]);
  }
  // Whole, for this source's hash, but V8's data made from another source (another length): V8 rejects it.
  const other = join(mkdtempSync(join(tmpdir(), 'oomlens-cc-')), 'b.js');
  writeFileSync(other, source(3) + '// longer\n');
  // (and `file` itself must be new to this process's V8 for the cache to be read)
  writeFileSync(file, source(3));
  const donor = mkdtempSync(join(tmpdir(), 'oomlens-cc-dir-'));
  const donorBytes = readFileSync(loadBundle(other, [donor]).save(donor)!);
  const h = createHash('sha256').update(readFileSync(file, 'utf8')).digest();
  writeFileSync(saved, cacheFileBytes(h, donorBytes.subarray(HEADER_BYTES)));
  const rejected = loadBundle(file, [caches]);
  assert.equal(rejected.cache, 'rejected');
  assert.deepEqual([(rejected.exports as B).value(), (rejected.exports as B).lazy(100)], [3, 295]);
  // A rejected cache is replaced by a good one (read by a fresh process: this one has the script in memory).
  assert.ok(rejected.save(caches));
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
    const { loadBundle } = require(${JSON.stringify(join(__dirname, '../../server/src/boot/codeCache'))});
    const l = loadBundle(${JSON.stringify(file)}, [${JSON.stringify(caches)}]);
    console.log(l.cache, l.exports.value(), l.exports.lazy(100));`], { encoding: 'utf8' });
  assert.equal(child.stdout.trim(), 'accepted 3 295', child.stderr);
});

test('saving removes the bundle\'s caches for other V8 versions, and nothing else', () => {
  const { file } = bundle(4);
  const caches = mkdtempSync(join(tmpdir(), 'oomlens-cc-dir-'));
  const keep = ['b.json', 'other.js.1.2.3.x64.cache', 'b.js.map'];
  for (const f of ['b.js.10.2.154.26-node.26.x64.cache', 'b.js.12.4.254.21-electron.0.arm64.cache', ...keep]) writeFileSync(join(caches, f), 'x');
  assert.ok(loadBundle(file, [caches]).save(caches));
  assert.deepEqual(readdirSync(caches).sort(), [cacheFileName(file), ...keep].sort());
});

test('the run-time directory is searched before the bundle\'s own', () => {
  assert.deepEqual(cacheDirs('/x/dist/b.js', { [CODE_CACHE_DIR_ENV]: '/y/cache' }), ['/y/cache', '/x/dist']);
  assert.deepEqual(cacheDirs('/x/dist/b.js', {}), ['/x/dist']);
});
