/**
 * `pathlib` paths, as programs name their config files and checkpoints with them: `Path(__file__).parent /
 * "configs"`, `Path(args.config).read_text()`, `open(path)`, `path.stem`, `folder.glob("*.json")`.
 *
 * A path is the value `__path__` holding its text (pathText in interp.ts); what reads a file takes it as it
 * takes a string (configfiles.ts). Only the workspace is looked at: `exists()` / `is_file()` answer for workspace
 * paths as `os.path.exists` does, and `glob` lists workspace folders only. Semantics from the Python docs,
 * "pathlib — Object-oriented filesystem paths" (PurePath.parent / name / stem / suffix, the `/` operator,
 * Path.glob, read_text, open).
 */
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { CallArgs, Interpreter } from '../interp/interp';
import { pathText } from '../interp/interp';
import { MAX_ITEMS } from '../interp/limits';
import type { SyntaxNode } from '../interp/parser';
import { type Value, NONE, describe, str, unknown } from '../interp/values';
import { chainGetattr } from './entrypoints';

const CLASSES = ['Path', 'PurePath', 'PosixPath', 'PurePosixPath', 'WindowsPath', 'PureWindowsPath'];

export function pathValue(p: string): Value {
  return { t: 'extern', name: '__path__', args: [str(p)] };
}

/** The text of a str or a path, else undefined. */
export function pathLike(v: Value | undefined): string | undefined {
  if (!v) return undefined;
  return v.t === 'str' ? v.v : pathText(v);
}

/** PurePath's joining: an absolute part starts over; '' and '.' parts add nothing; the result has no trailing '/'. */
function joinParts(parts: string[]): string {
  let out = '';
  for (const p of parts) {
    if (isAbsolute(p)) out = p;
    else if (p && p !== '.') out = out ? `${out.replace(/\/+$/, '')}/${p}` : p;
  }
  const norm = out.replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/(^|\/)\.\//g, '$1');
  return norm || '.';
}

/** fnmatch-style pattern of one path component (`*`, `?`, `[...]`) as a regular expression. */
function componentPattern(p: string): RegExp {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const ch = p[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') { const j = p.indexOf(']', i + 1); if (j > i) { re += `[${p.slice(i + 1, j).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`; i = j; } else re += '\\['; }
    else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function installPathlib(it: Interpreter): void {
  const reg = (name: string, fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) =>
    it.externs.set(name, (_i, self, c, node) => fn(self, c, node));
  const where = (node: SyntaxNode) => it.span(node);
  const base = () => (it.path ? dirname(it.path) : '.');

  for (const cls of CLASSES) {
    reg(`pathlib.${cls}`, (_s, c, node) => {
      const parts: string[] = [];
      for (const a of c.args) {
        const t = pathLike(a);
        if (t === undefined) return unknown(`${cls}(${describe(a)}): the path is not known`, where(node));
        parts.push(t);
      }
      return pathValue(joinParts(parts));
    });
    // Path.cwd() / Path.home(): the machine's, not the workspace's.
    reg(`pathlib.${cls}.cwd`, (_s, _c, node) => unknown('Path.cwd(): the working directory of the run is not known', where(node)));
    reg(`pathlib.${cls}.home`, (_s, _c, node) => unknown('Path.home(): the home folder of the machine that runs it is not known', where(node)));
  }

  // path / "part" and "part" / path (PurePath.__truediv__ / __rtruediv__).
  const prevBinop = it.externs.get('__binop__');
  it.externs.set('__binop__', (i, self, c, node, fnv) => {
    const [op, l, r] = c.args;
    if (op?.t === 'str' && op.v === '/' && (pathText(l) !== undefined || pathText(r) !== undefined)) {
      const a = pathLike(l), b = pathLike(r);
      if (a === undefined || b === undefined) return unknown(`\`${node.text.slice(0, 60)}\`: a part of the path is not known`, where(node));
      return pathValue(joinParts([a, b]));
    }
    return prevBinop ? prevBinop(i, self, c, node, fnv) : unknown('__pass__');
  });

  // Properties (PurePath.parent / name / stem / suffix / suffixes / parts).
  chainGetattr(it, (self, name) => {
    const p = pathText(self);
    if (p === undefined) return undefined;
    const name0 = basename(p);
    const ext = extname(name0);
    switch (name) {
      case 'parent': return pathValue(p === '.' || p === '/' ? p : dirname(p));
      case 'name': return str(name0 === '.' ? '' : name0);
      case 'stem': return str(ext ? name0.slice(0, -ext.length) : name0);
      case 'suffix': return str(ext);
      case 'suffixes': return { t: 'list', items: (name0.match(/\.[^.]+/g) ?? []).slice(name0.startsWith('.') ? 1 : 0).map(str) };
      case 'parts': return { t: 'tuple', items: (isAbsolute(p) ? ['/', ...p.split('/').filter(Boolean)] : p.split('/').filter((x) => x && x !== '.')).map(str) };
      default: return undefined;
    }
  });

  const selfPath = (self: Value | undefined, node: SyntaxNode): string | Value => {
    const p = pathText(self ?? NONE);
    return p ?? unknown('a path that is not known', where(node));
  };
  const method = (m: string, fn: (p: string, c: CallArgs, node: SyntaxNode) => Value) =>
    reg(`__path__.${m}`, (self, c, node) => { const p = selfPath(self, node); return typeof p === 'string' ? fn(p, c, node) : p; });

  method('joinpath', (p, c, node) => {
    const parts = c.args.map(pathLike);
    return parts.every((x) => x !== undefined) ? pathValue(joinParts([p, ...(parts as string[])])) : unknown('joinpath of a part that is not known', where(node));
  });
  method('with_suffix', (p, c, node) => {
    const s = pathLike(c.args[0]);
    if (s === undefined) return unknown('with_suffix of a suffix that is not known', where(node));
    const ext = extname(basename(p));
    return pathValue((ext ? p.slice(0, -ext.length) : p) + s);
  });
  method('with_name', (p, c, node) => {
    const s = pathLike(c.args[0]);
    return s === undefined ? unknown('with_name of a name that is not known', where(node)) : pathValue(joinParts([dirname(p), s]));
  });
  method('with_stem', (p, c, node) => {
    const s = pathLike(c.args[0]);
    return s === undefined ? unknown('with_stem of a stem that is not known', where(node)) : pathValue(joinParts([dirname(p), s + extname(basename(p))]));
  });
  // resolve() / absolute(): against the script's folder, the working directory of the runs people make.
  for (const m of ['resolve', 'absolute']) method(m, (p) => pathValue(resolve(base(), p)));
  method('expanduser', (p, _c, node) => (p.startsWith('~') ? unknown('expanduser(): the home folder of the machine that runs it is not known', where(node)) : pathValue(p)));
  for (const m of ['as_posix', '__str__', '__fspath__']) method(m, (p) => str(p));
  method('is_absolute', (p) => ({ t: 'bool', v: isAbsolute(p) }));
  method('relative_to', (p, c, node) => {
    const other = pathLike(c.args[0]);
    if (other === undefined) return unknown('relative_to of a path that is not known', where(node));
    const r = relative(resolve(base(), other), resolve(base(), p));
    return r.startsWith('..') ? unknown(`${p} is not relative to ${other}: Python raises ValueError`, where(node)) : pathValue(r || '.');
  });
  // Reading and testing go through what configfiles.ts does for strings (open, os.path.exists / isfile / isdir).
  const callAs = (name: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode) => it.callExtern({ t: 'extern', name }, { args, kw }, node);
  method('open', (p, c, node) => callAs('builtins.open', [str(p), ...c.args], c.kw, node));
  method('read_text', (p, _c, node) => it.callExtern({ t: 'extern', name: '__file_handle__.read', self: callAs('builtins.open', [str(p)], new Map(), node) }, { args: [], kw: new Map() }, node));
  method('read_bytes', (p, _c, node) => unknown(`${p}.read_bytes(): binary contents are not read`, where(node)));
  method('exists', (p, _c, node) => callAs('os.path.exists', [str(p)], new Map(), node));
  method('is_file', (p, _c, node) => callAs('os.path.isfile', [str(p)], new Map(), node));
  method('is_dir', (p, _c, node) => callAs('os.path.isdir', [str(p)], new Map(), node));
  // Writing leaves nothing the analysis reads.
  for (const m of ['mkdir', 'touch', 'write_text', 'write_bytes', 'unlink', 'rmdir']) method(m, () => NONE);

  // glob / rglob / iterdir of a workspace folder: its entries, sorted (the order os.scandir gives is the file
  // system's; sorted here so that the analysis is the same on every machine).
  const listing = (p: string, pattern: string | undefined, recursive: boolean, node: SyntaxNode): Value => {
    const dir = it.loader?.locate(p) ?? (isAbsolute(p) ? p : resolve(base(), p));
    const list = it.loader?.list?.(dir);
    if (!list) return unknown(`the contents of \`${p}\` are not known (not a folder of the workspace)`, where(node));
    const comps = pattern === undefined ? [] : pattern.split('/').filter(Boolean);
    if (comps.some((x) => x === '**')) return unknown(`glob pattern \`${pattern}\` with \`**\` is not followed`, where(node));
    const out: Value[] = [];
    const walk = (d: string, rel: string, depth: number): boolean => {
      const names = it.loader?.list?.(d) ?? [];
      for (const n of names) {
        if (out.length > MAX_ITEMS) return false;
        const relN = rel ? `${rel}/${n}` : n;
        const full = join(d, n);
        const want = comps.length === 0 || (comps.length === relN.split('/').length && relN.split('/').every((x, i) => componentPattern(comps[i]).test(x)));
        // rglob(pattern) matches the pattern's last part at any depth (Path.rglob: glob with "**/" prepended).
        const rwant = recursive && comps.length === 1 && componentPattern(comps[0]).test(n);
        if (want || rwant) out.push(pathValue(joinParts([p, relN])));
        const isDir = it.loader?.list?.(full) !== undefined;
        if (isDir && (recursive || depth + 1 < comps.length) && depth < 20 && !walk(full, relN, depth + 1)) return false;
      }
      return true;
    };
    if (!walk(dir, '', 0)) return unknown(`\`${p}\` holds more entries than the analysis size cap (${MAX_ITEMS})`, where(node));
    return { t: 'list', items: out };
  };
  method('glob', (p, c, node) => {
    const pat = pathLike(c.args[0] ?? c.kw.get('pattern'));
    return pat === undefined ? unknown('glob of a pattern that is not known', where(node)) : listing(p, pat, false, node);
  });
  method('rglob', (p, c, node) => {
    const pat = pathLike(c.args[0] ?? c.kw.get('pattern'));
    return pat === undefined ? unknown('rglob of a pattern that is not known', where(node)) : listing(p, pat, true, node);
  });
  method('iterdir', (p, _c, node) => listing(p, undefined, false, node));

  // os.fspath(path) / os.path.* / open() accept a path wherever they accept a string: `os.fspath` here, the
  // others in configfiles.ts through pathLike.
  reg('os.fspath', (_s, c, node) => {
    const t = pathLike(c.args[0]);
    return t === undefined ? unknown('os.fspath of a path that is not known', where(node)) : str(t);
  });
}
