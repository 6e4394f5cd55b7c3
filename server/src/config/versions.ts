/**
 * Pinned library versions near a file. Rules whose verdict depends on a
 * library version (jax_threefry_partitionable's default, transformers' load
 * dtype) read them from here. Sources, nearest directory first, walking up
 * from the file's directory until a directory holding `.git` or the
 * filesystem root:
 *   - `requirements*.txt`: only exact `name==X.Y.Z` pins give a version
 *     (extras such as `jax[cuda12]==0.4.30` allowed); ranges (`>=4.36,<5`),
 *     `~=`, bare names and URLs are recorded as unknown, because a range does
 *     not say which version will be installed.
 *   - `pyproject.toml`: PEP 621 `[project] dependencies` (PEP 508 strings,
 *     same pin rule) and Poetry's `[tool.poetry.dependencies]` /
 *     `[tool.poetry.group.*.dependencies]` (a bare `"0.4.30"` or `"==0.4.30"`
 *     is exact; `^`, `~`, `*` and ranges are not). Parsed with smol-toml.
 * The nearest pin of a name wins. Nothing here throws on bad input: an
 * unreadable or invalid file is listed in `problems` and otherwise ignored.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'smol-toml';

export interface VersionSource {
  /** Normalised distribution name (PEP 503: lower case, runs of -_. become -). */
  name: string;
  /** The file the pin came from. */
  file: string;
}

export interface PinnedVersions {
  /** name → exact version, e.g. { jax: '0.4.30' }. */
  versions: Record<string, string>;
  sources: VersionSource[];
  /** Names that are required but not pinned exactly, with the specifier seen (e.g. '>=4.36,<5'). */
  unknown: { name: string; spec: string; file: string }[];
  /** Files that could not be read or parsed. */
  problems: string[];
}

/** PEP 503 normalisation, so `Flax`, `flax` and `flax_` style spellings meet. */
export function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/[-_.]+/g, '-');
}

/** Reads a PEP 508 requirement string; returns the name and, when it is an exact pin, the version. */
export function parseRequirement(line: string): { name: string; version?: string; spec: string } | undefined {
  const s = line.replace(/\s+#.*$/, '').replace(/^#.*$/, '').trim();
  if (!s || s.startsWith('-') || /^[a-z+]+:\/\//i.test(s)) return undefined;
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$/.exec(s);
  if (!m) return undefined;
  const name = normaliseName(m[1]);
  // Environment markers (`; python_version < "3.10"`) do not change the pin itself.
  const spec = m[3].split(';')[0].trim();
  if (spec.startsWith('@')) return { name, spec };
  const pin = /^\(?\s*===?\s*([0-9][A-Za-z0-9.+!-]*)\s*\)?$/.exec(spec);
  // `==1.2.*` is a prefix match, not a pin.
  if (pin && !pin[1].includes('*')) return { name, version: pin[1], spec };
  return { name, spec };
}

/** A Poetry constraint: '0.4.30' and '==0.4.30' are exact; '^', '~', '*', ranges are not. */
function poetryPin(v: unknown): { version?: string; spec: string } {
  const raw = typeof v === 'string' ? v : (typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>).version === 'string') ? String((v as Record<string, unknown>).version) : '';
  const m = /^\s*(?:==?\s*)?([0-9][A-Za-z0-9.+!-]*)\s*$/.exec(raw);
  if (m && !m[1].includes('*')) return { version: m[1], spec: raw };
  return { spec: raw || '(not a version)' };
}

interface Entry { name: string; version?: string; spec: string }

function fromRequirements(text: string): Entry[] {
  const out: Entry[] = [];
  // Backslash continuations join physical lines into one requirement.
  for (const line of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const r = parseRequirement(line);
    if (r) out.push(r);
  }
  return out;
}

function fromPyproject(text: string): Entry[] {
  const doc = parse(text) as Record<string, unknown>;
  const out: Entry[] = [];
  const project = doc.project as Record<string, unknown> | undefined;
  const lists: unknown[] = [];
  if (project && Array.isArray(project.dependencies)) lists.push(project.dependencies);
  const optional = project?.['optional-dependencies'];
  if (optional && typeof optional === 'object') lists.push(...Object.values(optional as Record<string, unknown>));
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const d of list) {
      if (typeof d !== 'string') continue;
      const r = parseRequirement(d);
      if (r) out.push(r);
    }
  }
  const poetry = (doc.tool as Record<string, unknown> | undefined)?.poetry as Record<string, unknown> | undefined;
  if (poetry) {
    const tables: unknown[] = [poetry.dependencies, poetry['dev-dependencies']];
    const groups = poetry.group as Record<string, unknown> | undefined;
    if (groups && typeof groups === 'object') {
      for (const g of Object.values(groups)) tables.push((g as Record<string, unknown> | undefined)?.dependencies);
    }
    for (const t of tables) {
      if (!t || typeof t !== 'object') continue;
      for (const [k, v] of Object.entries(t as Record<string, unknown>)) {
        if (normaliseName(k) === 'python') continue;
        out.push({ name: normaliseName(k), ...poetryPin(v) });
      }
    }
  }
  return out;
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/**
 * The last answer per start folder, kept while every folder it listed and every file it read is unchanged
 * (modification times): an editor asks at every keystroke, and listing the folders up to the root (a checkout
 * under /tmp lists all of /tmp) cost ~3 ms of a ~60 ms analysis (docs/performance.md).
 */
const cache = new Map<string, { stamps: [string, number][]; result: PinnedVersions }>();
const CACHE_MAX = 64;

function mtime(p: string): number {
  try { return statSync(p).mtimeMs; } catch { return -1; }
}

export function readPinnedVersions(filePath: string): PinnedVersions {
  const start = isDir(filePath) ? resolve(filePath) : dirname(resolve(filePath));
  const hit = cache.get(start);
  if (hit && hit.stamps.every(([p, t]) => mtime(p) === t)) return structuredClone(hit.result);
  const stamps: [string, number][] = [];
  const result = readPinnedVersionsUncached(start, stamps);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(start, { stamps, result: structuredClone(result) });
  return result;
}

function readPinnedVersionsUncached(start: string, stamps: [string, number][]): PinnedVersions {
  const result: PinnedVersions = { versions: {}, sources: [], unknown: [], problems: [] };
  const seen = new Set<string>();
  let dir = start;
  // 64 levels is deeper than any real tree; it only guards against odd mounts.
  for (let depth = 0; depth < 64; depth++) {
    let names: string[] = [];
    stamps.push([dir, mtime(dir)]);
    try { names = readdirSync(dir); } catch { names = []; }
    const files = names.filter((n) => /^requirements.*\.txt$/i.test(n)).sort();
    if (names.includes('pyproject.toml')) files.push('pyproject.toml');
    for (const f of files) {
      const file = join(dir, f);
      stamps.push([file, mtime(file)]);
      let entries: Entry[];
      try {
        const text = readFileSync(file, 'utf8');
        entries = f === 'pyproject.toml' ? fromPyproject(text) : fromRequirements(text);
      } catch (e) {
        result.problems.push(`${file}: ${(e as Error).message.split('\n')[0]}`);
        continue;
      }
      for (const e of entries) {
        // The nearest file that mentions a name decides it, pinned or not.
        if (seen.has(e.name)) continue;
        seen.add(e.name);
        if (e.version !== undefined) {
          result.versions[e.name] = e.version;
          result.sources.push({ name: e.name, file });
        } else {
          result.unknown.push({ name: e.name, spec: e.spec, file });
        }
      }
    }
    stamps.push([join(dir, '.git'), mtime(join(dir, '.git'))]);
    if (existsSync(join(dir, '.git'))) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return result;
}
