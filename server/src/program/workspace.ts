/**
 * The workspace a file belongs to, and the Python files in it: where the
 * project root is, which file an `import` names (as CPython's path-based
 * finder would find it), and the text and syntax tree of each file, read once
 * and cached by content. Reads only files inside the root, never executes or
 * fetches anything.
 *
 * Module search order, as CPython builds `sys.path` (docs: "The initialization
 * of the sys.path module search path"): the running script's folder first,
 * then the folders the program adds with a literal `sys.path.append/insert`,
 * then the project root and its `src/` folder (an editable install of a
 * src-layout package puts it on the path), then the folder above the
 * outermost package (`__init__.py` chain) holding the file, as `python -m`
 * run from there would see it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ParseTooSlow, parsePythonSync, type Tree } from '../interp/parser';

/** Files larger than this are not read as modules (a Python module is far smaller). */
export const MAX_MODULE_BYTES = 2_000_000;
/** How many parsed files the cache keeps (least recently used go first). */
const CACHE_FILES = 400;

export interface SourceFile { path: string; text: string; tree: Tree; hash: string }

/** Text of open editor buffers, which win over the disk (the language server sets this). */
export type Overlay = (path: string) => string | undefined;

const ROOT_MARKERS = ['pyproject.toml', 'setup.py', 'setup.cfg', '.git'];

/** The project root of `file`: the nearest folder up holding pyproject.toml/setup.py/setup.cfg/.git, else the file's folder. */
export function findRoot(file: string, stopAt?: string): string {
  let dir = dirname(resolve(file));
  const stop = stopAt ? resolve(stopAt) : undefined;
  for (;;) {
    if (ROOT_MARKERS.some((m) => existsSync(join(dir, m)))) return dir;
    const up = dirname(dir);
    if (up === dir || (stop && dir === stop)) break;
    dir = up;
  }
  return stop && isInside(dirname(resolve(file)), stop) ? stop : dirname(resolve(file));
}

/** The nearest folder at or above the file's that holds a project marker (.git, pyproject.toml, …), if any. */
export function markedRoot(file: string): string | undefined {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (ROOT_MARKERS.some((m) => existsSync(join(dir, m)))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export function isInside(path: string, root: string): boolean {
  const r = relative(root, path);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/**
 * How long a disk text read (and checked by size and mtime) is trusted without another `stat`, unless a
 * watched-file event came meanwhile (`forgetListings`). 0 (the CLI, the tests): every read checks the disk.
 * The language server sets it: on every keystroke the analysis asks which files import the edited one,
 * reading every Python file of the workspace, and a `stat` per file per keystroke was 15% of the keystroke
 * analysis in a 214-file workspace.
 */
let revalidateMs = 0;
export function setRevalidateMs(ms: number): void {
  revalidateMs = ms;
}

/** An answer about the disk and when it was made (`Workspace.recent`). */
interface Recent<T> { value: T; at: number; generation: number }

export class Workspace {
  private readonly cache = new Map<string, SourceFile>();
  /** Texts (path → content hash) whose parse ran past its deadline: not parsed again while unchanged. */
  private readonly tooSlow = new Map<string, string>();
  /** Bumped when files were created or deleted: listings made before are stale (launch.ts checks it). */
  generation = 0;
  /** Disk texts by path, kept while the file's size and mtime are unchanged. */
  private readonly texts = new Map<string, { mtimeMs: number; size: number; text: string | undefined; checkedAt: number; generation: number }>();
  private files?: { at: number; list: string[] };
  /** Import search paths (`searchPath`) with when they were made. */
  private readonly paths = new Map<string, Recent<string[]>>();
  /** Module lookups (`findModule`) with when they were made. */
  private readonly found = new Map<string, Recent<{ path?: string; dir?: string } | undefined>>();
  overlay?: Overlay;

  constructor(readonly root: string) {}

  /** The text of a workspace file (open buffer first), or undefined outside the root / unreadable / too large / binary. */
  readText(path: string): string | undefined {
    // A path read before is a key of `texts` as it is: resolved and inside the root already.
    let hit = this.texts.get(path);
    const p = hit ? path : resolve(path);
    if (!hit && !isInside(p, this.root)) return undefined;
    const open = (this.overlay ?? globalOverlay)?.(p);
    if (open !== undefined) return open;
    hit ??= this.texts.get(p);
    const now = Date.now();
    // Checked against the disk moments ago, and no watched-file event since: the text as it was.
    if (hit && hit.generation === this.generation && now - hit.checkedAt < revalidateMs) return hit.text;
    try {
      const st = statSync(p);
      if (!st.isFile() || st.size > MAX_MODULE_BYTES) return undefined;
      if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
        hit.checkedAt = now;
        hit.generation = this.generation;
        return hit.text;
      }
      const raw = readFileSync(p, 'utf8');
      const text = raw.includes('\u0000') ? undefined : raw;
      if (this.texts.size > 4 * CACHE_FILES) this.texts.delete(this.texts.keys().next().value as string);
      this.texts.set(p, { mtimeMs: st.mtimeMs, size: st.size, text, checkedAt: now, generation: this.generation });
      return text;
    } catch {
      return undefined;
    }
  }

  /** Parsed file, cached by path and content hash. */
  load(path: string): SourceFile | undefined {
    const p = resolve(path);
    const text = this.readText(p);
    if (text === undefined) return undefined;
    const hash = hashText(text);
    const hit = this.cache.get(p);
    if (hit && hit.hash === hash) {
      this.cache.delete(p);
      this.cache.set(p, hit);
      return hit;
    }
    if (hit) { this.cache.delete(p); hit.tree.delete(); }
    // The same text ran past the parse deadline before: not again.
    if (this.tooSlow.get(p) === hash) return undefined;
    let tree: Tree;
    try {
      tree = parsePythonSync(text);
    } catch (e) {
      // A text whose parse runs past its deadline is read as a file that cannot be analysed.
      if (e instanceof ParseTooSlow) { this.tooSlow.set(p, hash); return undefined; }
      throw e;
    }
    const sf: SourceFile = { path: p, text, tree, hash };
    this.cache.set(p, sf);
    while (this.cache.size > CACHE_FILES) {
      const [k, v] = this.cache.entries().next().value as [string, SourceFile];
      this.cache.delete(k);
      v.tree.delete();
    }
    return sf;
  }

  /** Cached file without reading the disk (for code that must stay synchronous). */
  cached(path: string): SourceFile | undefined {
    return this.cache.get(resolve(path));
  }

  /** Folders searched for absolute imports from a program whose main file is `mainFile`. */
  searchPath(mainFile: string | undefined, extra: string[] = []): string[] {
    // Asked at every import.
    return this.recent(this.paths, 1_000, `${mainFile ?? ''}\u0000${extra.join('\u0000')}`, () => this.makeSearchPath(mainFile, extra));
  }

  private makeSearchPath(mainFile: string | undefined, extra: string[]): string[] {
    const dirs: string[] = [];
    const add = (d: string) => { const r = resolve(d); if (isInside(r, this.root) && !dirs.includes(r)) dirs.push(r); };
    if (mainFile) add(dirname(resolve(mainFile)));
    for (const e of extra) add(e);
    add(this.root);
    add(join(this.root, 'src'));
    if (mainFile) {
      let d = dirname(resolve(mainFile));
      while (existsSync(join(d, '__init__.py')) && isInside(dirname(d), this.root) && dirname(d) !== d) d = dirname(d);
      add(d);
    }
    return dirs;
  }

  /**
   * The file a dotted module name names from one search folder: `a/b.py` or
   * `a/b/__init__.py` (a namespace package without __init__ resolves to its folder).
   */
  findModule(dotted: string, dirs: string[]): { path?: string; dir?: string } | undefined {
    return this.recent(this.found, 10_000, `${dotted}\u0000${dirs.join('\u0000')}`, () => this.probeModule(dotted, dirs));
  }

  /**
   * `make()`, or its answer for `key` made within the last `revalidateMs` with no watched-file event since
   * (the language server; the CLI asks the disk every time). At most `max` answers are kept.
   */
  private recent<T>(memo: Map<string, Recent<T>>, max: number, key: string, make: () => T): T {
    const hit = memo.get(key);
    const now = Date.now();
    if (hit && hit.generation === this.generation && now - hit.at < revalidateMs) return hit.value;
    const value = make();
    if (revalidateMs > 0) {
      if (memo.size >= max) memo.clear();
      memo.set(key, { value, at: now, generation: this.generation });
    }
    return value;
  }

  private probeModule(dotted: string, dirs: string[]): { path?: string; dir?: string } | undefined {
    const parts = dotted.split('.');
    for (const d of dirs) {
      const base = join(d, ...parts);
      if (isFile(base + '.py')) return { path: base + '.py' };
      if (isFile(join(base, '__init__.py'))) return { path: join(base, '__init__.py'), dir: base };
      if (isDir(base) && parts.length >= 1 && hasPython(base)) return { dir: base };
    }
    return undefined;
  }

  /** The package folder `level` dots up from `fromFile` (`from . import x` is level 1: the file's own folder). */
  relativeBase(fromFile: string, level: number): string | undefined {
    let d = dirname(resolve(fromFile));
    for (let i = 1; i < level; i++) d = dirname(d);
    return isInside(d, this.root) ? d : undefined;
  }

  /** Python files under the root (skipping virtual environments, build output, hidden and vendored folders), at most `limit`. */
  pythonFiles(limit = 2000): string[] {
    // The listing is reused for a few seconds: it is asked for on every analysis that looks for programs.
    if (this.files && Date.now() - this.files.at < 5_000) return this.files.list;
    const list = this.listFiles((n) => n.endsWith('.py'), limit);
    this.files = { at: Date.now(), list };
    return list;
  }

  /** Files under the root whose name passes `want`, skipping the same folders as `pythonFiles`, at most `limit`. */
  listFiles(want: (name: string) => boolean, limit: number): string[] {
    const out: string[] = [];
    const walk = (d: string, depth: number) => {
      if (out.length >= limit || depth > 12) return;
      let names: string[];
      try { names = readdirSync(d); } catch { return; }
      for (const n of names.sort()) {
        if (out.length >= limit) return;
        if (n.startsWith('.') || SKIP_DIRS.has(n)) continue;
        const p = join(d, n);
        if (want(n)) { if (isFile(p)) out.push(p); }
        else if (isDir(p) && !existsSync(join(p, 'pyvenv.cfg'))) walk(p, depth + 1);
      }
    };
    walk(this.root, 0);
    return out;
  }

  /** Drops the file listings (a file was created or deleted). */
  forgetListing(): void {
    this.files = undefined;
    this.generation++;
  }

  /** `path` relative to the root, with forward slashes (for messages). */
  rel(path: string): string {
    return relative(this.root, path).split(sep).join('/') || path;
  }
}

const SKIP_DIRS = new Set(['node_modules', '__pycache__', 'venv', 'env', 'build', 'dist', 'site-packages', 'wandb', 'outputs', 'logs']);

// `throwIfNoEntry: false`: most probes are for files that do not exist (every import of a library is looked
// for in the workspace first), and a thrown error per probe was most of the cost of resolving imports.
function isFile(p: string): boolean {
  try { return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false; } catch { return false; }
}
function isDir(p: string): boolean {
  try { return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false; } catch { return false; }
}
/**
 * Whether a folder holds Python, in it or in a folder below it (a PEP 420 namespace package has no __init__.py and
 * may hold only subpackages: `from models.definitions.vgg_nets import Vgg19` with no models/__init__.py).
 */
function hasPython(d: string, depth = 3): boolean {
  try {
    const entries = readdirSync(d, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name.endsWith('.py'))) return true;
    return depth > 0 && entries.slice(0, 200).some((e) => e.isDirectory() && !e.name.startsWith('.') && hasPython(join(d, e.name), depth - 1));
  } catch { return false; }
}

export function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

let globalOverlay: Overlay | undefined;
/** Open editor buffers for every workspace of this process (the language server's worker sets it). */
export function setOverlay(o: Overlay | undefined): void {
  globalOverlay = o;
}

/** Files were created or deleted somewhere: every workspace lists its files again. */
export function forgetListings(): void {
  for (const w of workspaces.values()) w.forgetListing();
}

/** One workspace per root per process, so parsed modules are shared between analyses. */
const workspaces = new Map<string, Workspace>();
export function workspaceFor(root: string): Workspace {
  const r = resolve(root);
  let w = workspaces.get(r);
  if (!w) { w = new Workspace(r); workspaces.set(r, w); }
  return w;
}
