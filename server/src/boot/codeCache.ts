/**
 * Loads a CommonJS bundle (dist/serverMain.js, dist/workerMain.js) through V8's
 * code cache, as Node 22's `module.enableCompileCache()` does (Node 20 has
 * none): the bundle is compiled with `vm.Script` and the cached data of an
 * earlier run, so the functions that run compiled then (their bytecode) need
 * not be parsed and compiled again. A cache made after a first analysis
 * (`save`) holds the functions it compiled lazily too, which is most of the
 * cost of a server's first analysis that is not the JIT itself
 * (docs/performance.md).
 *
 * A cache file is used only for the exact bundle it was made from, and only
 * whole: its header holds the SHA-256 of the bundle's source and of the cached
 * data, both checked before V8 sees it (V8 compares only the source's length,
 * and a release build of V8 does not checksum the data: a damaged cache was
 * accepted in a test). V8 then checks its version and flags and rejects a cache
 * that does not match (`cachedDataRejected`); the bundle is then compiled from
 * its source, as without a cache. A cache can make loading faster, never
 * different: the same source runs either way.
 *
 * Where: beside the bundle (made by `npm run build` with the Node that built
 * it, scripts/code-cache.mjs) and in the directory `OOMLENS_CODE_CACHE_DIR`
 * names (the extension gives its global storage: VS Code runs the server on
 * its own Node, whose V8 rejects a cache made by another). Never in a
 * workspace.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

const MAGIC = Buffer.from('oomlens code cache 1\n');
const HEADER = MAGIC.length + 64;

/** The environment variable naming a writable directory for caches made at run time. */
export const CODE_CACHE_DIR_ENV = 'OOMLENS_CODE_CACHE_DIR';

export type CacheState = 'accepted' | 'rejected' | 'none';

export interface LoadedBundle {
  exports: unknown;
  /** What became of the cache: used, rejected by V8 (other version or flags), or none matching the bundle. */
  cache: CacheState;
  /** Where the cache used came from. */
  cacheFile?: string;
  /** The SHA-256 of the bundle's source (the key of its caches). */
  sourceHash: Buffer;
  /**
   * Writes the code compiled so far (the script's and each function's compiled since) to `dir`, unless a cache
   * was accepted, and removes the bundle's caches for other V8 versions there (an editor's update leaves them).
   * Returns the file written. Never throws: a cache is an optimisation.
   */
  save(dir: string): string | undefined;
}

/** A cache's file name: per bundle and per V8 version and architecture (V8 rejects the others anyway). */
export function cacheFileName(bundle: string): string {
  return `${basename(bundle)}.${process.versions.v8}.${process.arch}.cache`;
}

/** The directories searched for a cache of `bundle`, in order: the run-time one, then beside the bundle. */
export function cacheDirs(bundle: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env[CODE_CACHE_DIR_ENV]) dirs.push(env[CODE_CACHE_DIR_ENV]!);
  dirs.push(dirname(bundle));
  return dirs;
}

const sha256 = (data: string | Buffer): Buffer => createHash('sha256').update(data).digest();

/** The V8 cached data in `file` if it was made from the source hashing to `hash` and is whole. */
function readCache(file: string, hash: Buffer): Buffer | undefined {
  let b: Buffer;
  try { b = readFileSync(file); } catch { return undefined; }
  if (b.length <= HEADER || !b.subarray(0, MAGIC.length).equals(MAGIC) || !b.subarray(MAGIC.length, MAGIC.length + 32).equals(hash)) return undefined;
  const data = b.subarray(HEADER);
  return sha256(data).equals(b.subarray(MAGIC.length + 32, HEADER)) ? data : undefined;
}

/** A cache file's bytes: the header (magic, the source's hash, the data's hash), then V8's data. */
export function cacheFileBytes(sourceHash: Buffer, data: Buffer): Buffer {
  return Buffer.concat([MAGIC, sourceHash, sha256(data), data]);
}

/** Loads and runs `bundle` as a CommonJS module, with its code cache when one matches. */
export function loadBundle(bundle: string, dirs = cacheDirs(bundle)): LoadedBundle {
  const source = readFileSync(bundle, 'utf8');
  const hash = sha256(source);
  const name = cacheFileName(bundle);
  let cachedData: Buffer | undefined;
  let cacheFile: string | undefined;
  for (const d of dirs) {
    cachedData = readCache(join(d, name), hash);
    if (cachedData) { cacheFile = join(d, name); break; }
  }
  // No dynamic import() in it: esbuild.mjs makes them require()s (a vm.Script would need a loader callback).
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  const cache: CacheState = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted';
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(bundle));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  mod.loaded = true;
  return {
    exports: mod.exports,
    cache,
    cacheFile: cache === 'accepted' ? cacheFile : undefined,
    sourceHash: hash,
    save(dir: string): string | undefined {
      if (cache === 'accepted') return undefined;
      try {
        const data = script.createCachedData();
        mkdirSync(dir, { recursive: true });
        const file = join(dir, name);
        // Written whole under a temporary name, then renamed: a reader never sees half a file.
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        writeFileSync(tmp, cacheFileBytes(hash, data));
        renameSync(tmp, file);
        for (const f of readdirSync(dir)) {
          if (f !== name && f.startsWith(`${basename(bundle)}.`) && f.endsWith('.cache')) rmSync(join(dir, f), { force: true });
        }
        return file;
      } catch {
        return undefined;
      }
    },
  };
}
