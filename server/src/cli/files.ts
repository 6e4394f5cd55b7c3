/**
 * Turns the command line's PATHs into the Python files to analyse and reads
 * them safely: directories are searched for *.py (skipping VCS, virtual
 * environment and cache folders), and files that are too large or binary
 * are skipped with a reason instead of being fed to the analyzer.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { MAX_BYTES } from '../analysis/analyze';
import { joinCells, parseIpynb, type CellSpan } from '../notebook/cells';

/** Folders never searched: version control, dependencies, virtual environments, caches. */
export const SKIP_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules', '.venv', 'venv', '__pycache__', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.tox', '.nox']);

export interface Collected {
  files: string[];
  /** Paths that do not exist or cannot be listed: usage errors (exit 2). */
  errors: string[];
}

export function collectFiles(paths: string[]): Collected {
  const files: string[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  const add = (p: string): void => {
    if (!seen.has(p)) { seen.add(p); files.push(p); }
  };
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      errors.push(`${dir}: cannot list directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      let st;
      try { st = statSync(p); } catch { continue; }
      if (st.isDirectory()) {
        if (!SKIP_DIRS.has(name)) walk(p);
      } else if (st.isFile() && (name.endsWith('.py') || name.endsWith('.ipynb'))) {
        add(p);
      }
    }
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      errors.push(code === 'ENOENT' ? `${p}: no such file or directory` : `${p}: cannot be read (${code ?? (e as Error).message})`);
      continue;
    }
    // A file named on the command line is analysed whatever its extension, as ruff does.
    if (st.isDirectory()) walk(p);
    else add(p);
  }
  return { files, errors };
}

export type ReadResult =
  | { kind: 'ok'; text: string; bom: boolean; cells?: CellSpan[] }
  | { kind: 'skipped'; reason: string }
  | { kind: 'error'; reason: string };

/** Reads a file for analysis; large and binary files are skipped, unreadable ones are errors. */
export function readSource(path: string): ReadResult {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    return { kind: 'error', reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  if (size > MAX_BYTES) {
    return { kind: 'skipped', reason: `file is ${(size / 1e6).toFixed(1)} MB; oomlens analyses files up to ${MAX_BYTES / 1e6} MB` };
  }
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    return { kind: 'error', reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  // A NUL byte never appears in Python source text; git uses the same test for "binary".
  if (buf.subarray(0, 8000).includes(0)) return { kind: 'skipped', reason: 'binary file (contains NUL bytes), not Python source' };
  let text = buf.toString('utf8');
  if (path.endsWith('.ipynb')) {
    // A notebook: its code cells in order, joined; positions map back to cells.
    const nb = parseIpynb(text.replace(/^\ufeff/, ''));
    if ('error' in nb) return { kind: 'skipped', reason: nb.error };
    const joined = joinCells(nb.cells);
    return { kind: 'ok', text: joined.text, bom: false, cells: joined.cells };
  }
  // A UTF-8 byte order mark is not Python; strip it for analysis and put it back when writing.
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  return { kind: 'ok', text, bom };
}

/** The path as printed: relative to the working directory when it lies below it. */
export function displayPath(p: string, cwd = process.cwd()): string {
  if (!isAbsolute(p)) return p;
  const rel = relative(cwd, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}
