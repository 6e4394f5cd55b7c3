/**
 * Configuration the program reads from files of the workspace, and the path
 * arithmetic that names them. Only files inside the workspace are read, with
 * well-kept parsers (`yaml`, `smol-toml`, JSON.parse); nothing is executed.
 *
 * - `open(path)` → a file handle naming the path; `json.load(f)`,
 *   `yaml.safe_load(f)` / `yaml.load(f, Loader=…)` / `yaml.full_load(f)`,
 *   `toml.load(f)` / `tomllib.load(f)` parse it; `json.loads(s)` parses text.
 * - `OmegaConf.load(path)` / `OmegaConf.create(dict)`, `ml_collections.ConfigDict`,
 *   `easydict.EasyDict`, `types.SimpleNamespace`, `addict.Dict`, `munch.Munch`, yacs `CfgNode`:
 *   dicts whose keys are also attributes.
 * - `os.path.join/dirname/basename/abspath/realpath/expanduser` on strings;
 *   `os.path.exists/isfile/isdir` of a workspace path decide their branch.
 * - `sys.path.append(dir)` / `sys.path.insert(i, dir)` with a literal folder:
 *   later imports search it.
 */
import { existsSync, statSync } from 'node:fs';

/** Checkpoint files by extension (PyTorch .pt/.pth/.bin/.ckpt, safetensors, Keras .h5, Flax .msgpack). */
const WEIGHTS_FILE = /\.(pt|pth|bin|ckpt|safetensors|h5|msgpack)$/i;
import { basename, dirname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isAlias, isMap, isScalar, isSeq, parse as parseYaml, parseDocument } from 'yaml';
import type { CallArgs, Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { type Value, NONE, describe, str, unknown } from '../interp/values';
import { MAX_STR } from '../interp/limits';
import { pathLike } from './pathlib';
import { literal } from './argv';

/** The most lines of a workspace file followed one by one (readlines, `for line in f`): more is a data file. */
const MAX_FILE_LINES = 10_000;

/** Config values deeper or larger than this are cut to an unknown (a config is small). */
const MAX_ITEMS = 20_000;
const MAX_DEPTH = 40;

/** A parsed JSON/YAML/TOML value as an interpreter value; objects become attribute dicts when `attrs`. */
export function fromData(data: unknown, attrs: boolean, budget = { n: MAX_ITEMS }, depth = 0): Value {
  if (--budget.n < 0 || depth > MAX_DEPTH) return unknown('config file too large or deep to follow');
  if (data === null || data === undefined) return NONE;
  if (typeof data === 'boolean') return { t: 'bool', v: data };
  if (typeof data === 'number') return Number.isInteger(data) ? { t: 'int', v: data } : { t: 'float', v: data };
  if (typeof data === 'bigint') return Number.isSafeInteger(Number(data)) ? { t: 'int', v: Number(data) } : unknown('integer too large');
  if (typeof data === 'string') return str(data);
  if (Array.isArray(data)) return { t: 'list', items: data.map((d) => fromData(d, attrs, budget, depth + 1)) };
  if (data instanceof Date) return str(data.toISOString());
  if (typeof data === 'object') {
    const keys: Value[] = [];
    const vals: Value[] = [];
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) { keys.push(str(k)); vals.push(fromData(v, attrs, budget, depth + 1)); }
    return attrs ? { t: 'dict', keys, vals, attrs: true } : { t: 'dict', keys, vals };
  }
  return unknown(`config value of type ${typeof data}`);
}

/** A dict value (and its nested dicts) turned into an attribute dict. */
function asAttrs(v: Value): Value {
  if (v.t === 'dict') return { t: 'dict', keys: v.keys, vals: v.vals.map(asAttrs), attrs: true };
  if (v.t === 'list') return { t: 'list', items: v.items.map(asAttrs) };
  return v;
}

type Format = 'json' | 'yaml' | 'toml';

export function installConfigFiles(it: Interpreter): void {
  const reg = (name: string, fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) =>
    it.externs.set(name, (_i, self, c, node) => fn(self, c, node));
  const where = (node: SyntaxNode) => it.span(node);

  /** The absolute workspace path a value names, or an unknown saying why not. */
  const pathOf = (v: Value | undefined, node: SyntaxNode): string | Value => {
    if (!v) return unknown('no path given', where(node));
    const p = pathLike(v) ?? (v.t === 'extern' && v.name === '__file_handle__' && v.args?.[0]?.t === 'str' ? v.args[0].v : undefined);
    if (p === undefined) return v.t === 'unknown' ? v : unknown(`path ${describe(v)} is not known`, where(node));
    const abs = it.loader?.locate(p);
    return abs ?? unknown(`config file \`${p}\` is not in the workspace`, where(node));
  };
  const read = (v: Value | undefined, fmt: Format, attrs: boolean, node: SyntaxNode): Value => {
    const p = pathOf(v, node);
    if (typeof p !== 'string') return p;
    const text = it.loader?.readText(p);
    if (text === undefined) return unknown(`could not read ${it.loader?.rel(p) ?? p}`, where(node));
    return parseText(text, fmt, attrs, it.loader?.rel(p) ?? p, node);
  };
  const parseText = (text: string, fmt: Format, attrs: boolean, label: string, node: SyntaxNode): Value => {
    try {
      const data = fmt === 'json' ? JSON.parse(text) : fmt === 'yaml' ? parseYaml(text, { maxAliasCount: 100 }) : parseToml(text);
      return fromData(data, attrs);
    } catch (e) {
      return unknown(`${label} is not valid ${fmt.toUpperCase()}: ${(e as Error).message.split('\n')[0]}`, where(node));
    }
  };

  reg('builtins.open', (_s, c, node) => {
    const p = c.args[0] ?? c.kw.get('file');
    const mode = c.args[1] ?? c.kw.get('mode');
    if (mode?.t === 'str' && /[wax+]/.test(mode.v)) return { t: 'extern', name: '__file_handle__', args: [] };
    const abs = pathOf(p, node);
    return typeof abs === 'string' ? { t: 'extern', name: '__file_handle__', args: [str(abs)] } : { t: 'extern', name: '__file_handle__', args: [abs] };
  });
  // open(path).read() of a workspace file: its text (a model definition file such as Darknet's .cfg, a
  // vocabulary). A Python file's text is remembered so that exec() of it runs that file (interp/python.ts
  // builtins.exec). Files over the string cap are not read.
  const textOf = (self: Value | undefined, node: SyntaxNode): string | Value => {
    const p = self?.t === 'extern' && self.args?.[0]?.t === 'str' ? self.args[0].v : undefined;
    if (p === undefined) {
      const why = self?.t === 'extern' ? self.args?.[0] : undefined;
      return why?.t === 'unknown' ? unknown(`reading a file's text is not followed: ${why.reason}`, where(node)) : unknown('reading a file\'s text is not followed', where(node));
    }
    const text = it.loader?.readText(p);
    if (text === undefined) return unknown(`could not read ${it.loader?.rel(p) ?? p}`, where(node));
    if (text.length > MAX_STR) return unknown(`${it.loader?.rel(p) ?? p} is over the analysis size cap (${MAX_STR} characters): its text is not read`, where(node));
    if (/\.py$/.test(p)) {
      let m = it.state.get('pySourceRead') as Map<string, string> | undefined;
      if (!m) { m = new Map(); it.state.set('pySourceRead', m); }
      m.set(text, p);
    }
    return text;
  };
  // Python's text mode reads '\r\n' as '\n' (universal newlines, io.TextIOWrapper).
  const universal = (t: string) => t.replace(/\r\n?/g, '\n');
  reg('__file_handle__.read', (self, _c, node) => {
    const t = textOf(self, node);
    return typeof t === 'string' ? str(universal(t)) : t;
  });
  // readlines() and iteration: the lines with their line ends (io.IOBase.readlines).
  const lines = (self: Value | undefined, node: SyntaxNode): Value => {
    const t = textOf(self, node);
    if (typeof t !== 'string') return t;
    const parts = universal(t).split(/(?<=\n)/).filter((x) => x !== '');
    // A file of more lines than a config holds is data (a vocabulary, a corpus): its lines cannot change a size the
    // program builds from its configuration, and following a loop over each of them would spend the step budget.
    if (parts.length > MAX_FILE_LINES) return unknown(`the file has ${parts.length} lines, over the ${MAX_FILE_LINES} lines a config file is read to: a data file, not followed line by line`, where(node));
    return { t: 'list', items: parts.map(str) };
  };
  reg('__file_handle__.readlines', (self, _c, node) => lines(self, node));
  const prevIter = it.externs.get('__iter__');
  it.externs.set('__iter__', (i, self, c, node, fnv) => {
    if (self?.t === 'extern' && self.name === '__file_handle__') return lines(self, node);
    return prevIter ? prevIter(i, self, c, node, fnv) : unknown('__pass__');
  });
  const handleArg = (c: CallArgs) => c.args[0] ?? c.kw.get('fp') ?? c.kw.get('stream') ?? c.kw.get('f');
  reg('json.load', (_s, c, node) => read(handleArg(c), 'json', false, node));
  reg('json.loads', (_s, c, node) => {
    const t = c.args[0];
    return t?.t === 'str' ? parseText(t.v, 'json', false, 'string', node) : unknown('json.loads of text that is not known', where(node));
  });
  for (const n of ['yaml.safe_load', 'yaml.load', 'yaml.full_load', 'yaml.unsafe_load']) {
    reg(n, (_s, c, node) => {
      const a = handleArg(c);
      if (a?.t === 'str') return parseText(a.v, 'yaml', false, 'string', node);
      return read(a, 'yaml', false, node);
    });
  }
  // tyro.from_yaml(cls, stream) (tyro/extras/_serialization.py): YAML whose mappings tagged `!dataclass:Name`
  // build that dataclass from their keys (fields left out keep their defaults); the root is `cls`. The tag's
  // class is looked up by name where from_yaml is called (tyro registers the dataclasses reachable from `cls`
  // by __name__). Other tags (`!enum:`, `!tuple`) are not followed: unknown.
  reg('tyro.from_yaml', (_s, c, node) => {
    const cls = c.args[0] ?? c.kw.get('cls');
    const stream = c.args[1] ?? c.kw.get('stream');
    let text: string | undefined;
    let label = 'string';
    if (stream?.t === 'str') text = stream.v;
    else {
      const p = pathOf(stream, node);
      if (typeof p !== 'string') return p;
      text = it.loader?.readText(p);
      label = it.loader?.rel(p) ?? p;
      if (text === undefined) return unknown(`could not read ${label}`, where(node));
    }
    const doc = parseDocument(text);
    if (doc.errors.length) return unknown(`${label} is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`, where(node));
    const budget = { n: MAX_ITEMS };
    const build = (n: unknown, depth: number): Value => {
      if (--budget.n < 0 || depth > MAX_DEPTH) return unknown('config file too large or deep to follow', where(node));
      if (isAlias(n)) return unknown(`${label}: YAML aliases in a tyro config are not followed`, where(node));
      const tag = (n as { tag?: string } | null)?.tag;
      if (isMap(n)) {
        const keys: Value[] = [];
        const vals: Value[] = [];
        for (const item of n.items) {
          const k = isScalar(item.key) ? item.key.value : undefined;
          if (typeof k !== 'string') return unknown(`${label}: a key that is not a string`, where(node));
          keys.push(str(k)); vals.push(build(item.value, depth + 1));
        }
        if (!tag) return { t: 'dict', keys, vals };
        const m = /^!dataclass:(\w+)$/.exec(tag);
        if (!m) return unknown(`${label}: YAML tag ${tag} is not followed`, where(node));
        const k = m[1] === (cls?.t === 'class' ? cls.name : '') ? cls! : it.lookup(m[1], node);
        if (k.t !== 'class') return unknown(`${label}: the dataclass ${m[1]} of tag ${tag} is not known where tyro.from_yaml is called`, where(node));
        return it.call(k, { args: [], kw: new Map(keys.map((x, i) => [(x as { v: string }).v, vals[i]])) }, node);
      }
      if (tag && !tag.startsWith('tag:yaml.org,2002:')) return unknown(`${label}: YAML tag ${tag} is not followed`, where(node));
      if (isSeq(n)) return { t: 'list', items: n.items.map((x) => build(x, depth + 1)) };
      if (isScalar(n)) return fromData(n.value, false);
      return n === null || n === undefined ? NONE : unknown(`${label}: a YAML node oomlens does not read`, where(node));
    };
    return build(doc.contents, 0);
  });
  for (const n of ['toml.load', 'tomllib.load', 'tomli.load']) reg(n, (_s, c, node) => read(handleArg(c), 'toml', false, node));
  reg('omegaconf.OmegaConf.load', (_s, c, node) => { const d = read(c.args[0] ?? c.kw.get('file_'), 'yaml', true, node); resolveInterpolations(d, true); return d; });
  reg('omegaconf.OmegaConf.create', (_s, c) => { const d = asAttrs(c.args[0] ?? { t: 'dict', keys: [], vals: [] }); resolveInterpolations(d, true); return d; });
  reg('omegaconf.OmegaConf.merge', (_s, c) => { const m = mergeAll(c.args); resolveInterpolations(m, true); return m; });
  // OmegaConf.update(cfg, "a.b", value) sets that key in place, creating the path (omegaconf.py update, merge=True for
  // a dict value); the other OmegaConf functions a program calls on its config read it (missing_keys, to_container,
  // save, select: omegaconf is a library whose unmodelled calls leave their arguments as they were, interp.ts).
  reg('omegaconf.OmegaConf.update', (_s, c, node) => {
    const [cfg, key, value] = [c.args[0], c.args[1] ?? c.kw.get('key'), c.args[2] ?? c.kw.get('value')];
    if (cfg?.t !== 'dict' || key?.t !== 'str' || !value) return unknown('OmegaConf.update of a key that is not known', where(node));
    let v: Value = value;
    for (const k of key.v.split('.').reverse()) v = { t: 'dict', keys: [str(k)], vals: [v], attrs: true };
    const m = merge(cfg, v);
    if (m.t === 'dict') { cfg.keys = m.keys; cfg.vals = m.vals; }
    return NONE;
  });
  reg('omegaconf.OmegaConf.missing_keys', (_s, _c, node) => unknown('OmegaConf.missing_keys: the keys left `???` (none are followed as missing)', where(node)));
  // OmegaConf.resolve(cfg): the interpolations resolved in place (omegaconf.py resolve).
  reg('omegaconf.OmegaConf.resolve', (_s, c) => { if (c.args[0]) resolveInterpolations(c.args[0]); return NONE; });
  // OmegaConf.from_dotlist(["model.params.width=8", "lr=0.1"]) (omegaconf.py from_dotlist → DictConfig.merge_with_dotlist):
  // each "a.b.c=value" sets that key, the value read as YAML reads a scalar ("8" an int, "true" a bool).
  reg('omegaconf.OmegaConf.from_dotlist', (_s, c, node) => {
    const list = c.args[0] ?? c.kw.get('dotlist');
    const items = list?.t === 'list' || list?.t === 'tuple' ? list.items : undefined;
    if (!items) return unknown(`OmegaConf.from_dotlist of ${list ? describe(list) : 'nothing'}: the overrides are not known`, where(node));
    let out: Value = { t: 'dict', keys: [], vals: [], attrs: true };
    for (const x of items) {
      if (x.t !== 'str') return unknown(`OmegaConf.from_dotlist: an override that is not known (${describe(x)})`, where(node));
      const eq = x.v.indexOf('=');
      if (eq < 0) return unknown(`OmegaConf.from_dotlist: "${x.v}" is not key=value (omegaconf raises ValueError)`, where(node));
      let v: Value = fromData(parseYaml(x.v.slice(eq + 1) || 'null'), true);
      for (const k of x.v.slice(0, eq).split('.').reverse()) v = { t: 'dict', keys: [str(k)], vals: [v], attrs: true };
      out = merge(out, v);
    }
    return out;
  });
  reg('omegaconf.OmegaConf.to_container', (_s, c) => c.args[0] ?? NONE);
  reg('omegaconf.OmegaConf.to_object', (_s, c) => c.args[0] ?? NONE);
  // The YAML text of a config: reads it, changes nothing (printing the config is the usual first line of a main).
  reg('omegaconf.OmegaConf.to_yaml', (_s, _c, node) => unknown('the YAML text of a config', where(node)));
  // Flags on the config object (struct mode, read-only): no value changes.
  for (const f of ['set_struct', 'set_readonly']) reg(`omegaconf.OmegaConf.${f}`, () => NONE);
  for (const n of ['ml_collections.ConfigDict', 'ml_collections.config_dict.ConfigDict', 'ml_collections.FrozenConfigDict',
    'easydict.EasyDict', 'addict.Dict', 'yacs.config.CfgNode', 'types.SimpleNamespace', 'argparse.Namespace',
    // munch.Munch: a dict whose keys are also attributes (clovaai/stargan-v2 keeps its networks in one).
    'munch.Munch', 'munch.DefaultMunch', 'box.Box', 'attrdict.AttrDict',
    // TensorFlow 1's HParams(**kwargs) (tensorflow/contrib/training/python/training/hparam.py): a keyword bag whose
    // names are attributes (NVIDIA/tacotron2's hparams.py); `hparams.parse("a=1,b=2")` is read like update_from_string.
    'tensorflow.contrib.training.HParams', 'tensorflow.compat.v1.contrib.training.HParams', 'tensorflow.contrib.training.python.training.hparam.HParams']) {
    reg(n, (_s, c) => {
      const base = c.args[0];
      const out: Value = base?.t === 'dict' ? asAttrs(base) : { t: 'dict', keys: [], vals: [], attrs: true };
      if (out.t === 'dict') for (const [k, v] of c.kw) { out.keys.push(str(k)); out.vals.push(v); }
      return out;
    });
  }
  // yacs CfgNode (yacs/config.py): clone() a deep copy; merge_from_file(path) merges a YAML file into it, key by key;
  // merge_from_list(["A.B", "value", ...]) sets each dotted key to the value read as a Python literal
  // (_decode_cfg_value: literal_eval, a string otherwise); freeze / defrost change no value. Registered on attribute
  // dicts, where a key of the same name still wins.
  const deepCopy = (v: Value): Value => (v.t === 'dict' ? { ...v, keys: [...v.keys], vals: v.vals.map(deepCopy) } : v.t === 'list' ? { t: 'list', items: v.items.map(deepCopy) } : v);
  const inPlace = (self: Value, merged: Value) => { if (self.t === 'dict' && merged.t === 'dict') { self.keys = merged.keys; self.vals = merged.vals; } };
  reg('builtins.dict.clone', (self) => (self?.t === 'dict' && self.attrs ? deepCopy(self) : unknown('clone() of a value that is not a config')));
  reg('builtins.dict.merge_from_file', (self, c, node) => {
    if (self?.t !== 'dict') return unknown('merge_from_file on a value that is not a config', where(node));
    const other = read(c.args[0] ?? c.kw.get('cfg_filename'), 'yaml', true, node);
    if (other.t !== 'dict') { self.vals = self.vals.map(() => unknown(`merge_from_file: ${other.t === 'unknown' ? other.reason : 'not a mapping'}`, where(node))); return NONE; }
    inPlace(self, merge(self, other));
    return NONE;
  });
  reg('builtins.dict.merge_from_list', (self, c, node) => {
    const list = c.args[0] ?? c.kw.get('cfg_list');
    if (self?.t !== 'dict') return unknown('merge_from_list on a value that is not a config', where(node));
    const items = list?.t === 'list' || list?.t === 'tuple' ? list.items : undefined;
    if (!items || items.length % 2 || items.some((x, i) => i % 2 === 0 && x.t !== 'str')) { self.vals = self.vals.map(() => unknown('merge_from_list of a list that is not known', where(node))); return NONE; }
    for (let i = 0; i < items.length; i += 2) {
      const value = items[i + 1].t === 'str' ? literal((items[i + 1] as { v: string }).v) : items[i + 1];
      let v: Value = value;
      for (const k of (items[i] as { v: string }).v.split('.').reverse()) v = { t: 'dict', keys: [str(k)], vals: [v], attrs: true };
      inPlace(self, merge(self, v));
    }
    return NONE;
  });
  for (const f of ['freeze', 'defrost']) reg(`builtins.dict.${f}`, () => NONE);
  reg('ml_collections.config_dict.placeholder', (_s, c, node) => unknown(`config placeholder of ${describe(c.args[0] ?? NONE)}: set by the command line`, where(node)));
  reg('ml_collections.config_dict.FieldReference', (_s, c) => c.args[0] ?? NONE);

  // os.path on strings; existence is answered for workspace paths only.
  const strs = (c: CallArgs): string[] | undefined => {
    const out: string[] = [];
    for (const a of c.args) { const t = pathLike(a); if (t === undefined) return undefined; out.push(t); }
    return out;
  };
  const pathFn = (n: string, f: (xs: string[]) => Value) => reg(`os.path.${n}`, (_s, c, node) => {
    const xs = strs(c);
    return xs && xs.length ? f(xs) : unknown(`os.path.${n} of a path that is not known`, where(node));
  });
  pathFn('join', (xs) => str(join(...xs)));
  pathFn('dirname', (xs) => str(dirname(xs[0])));
  pathFn('basename', (xs) => str(basename(xs[0])));
  pathFn('abspath', (xs) => str(resolve(it.path ? dirname(it.path) : '.', xs[0])));
  pathFn('realpath', (xs) => str(resolve(it.path ? dirname(it.path) : '.', xs[0])));
  pathFn('normpath', (xs) => str(join(xs[0])));
  pathFn('expanduser', (xs) => str(xs[0]));
  for (const n of ['exists', 'isfile', 'isdir']) {
    reg(`os.path.${n}`, (_s, c, node) => {
      const given = pathLike(c.args[0]);
      if (given === undefined) return unknown(`os.path.${n} of a path that is not known`, where(node));
      const a = { t: 'str' as const, v: given };
      const abs = it.loader?.locate(a.v);
      if (!abs) {
        // Absent from the workspace: False, as on a fresh checkout — unless a script beside it writes a file of
        // that name (a data-preparation step run first, e.g. `prepare.py` writing `meta.pkl`): then unknown.
        const missing = it.loader?.missing(a.v);
        // A weights file (a checkpoint by its extension) is downloaded or trained, never kept in a checkout: its
        // absence here says nothing about the machine that runs the program (a `raise FileNotFoundError` guard
        // before torch.load would otherwise end the program on a file every user has).
        if (WEIGHTS_FILE.test(a.v)) return unknown(`whether the weights file \`${a.v}\` exists where the program runs is not known (weights are not kept in the workspace)`, where(node));
        if (missing && !missing.madeByScript) return { t: 'bool', v: false };
        return unknown(`whether \`${a.v}\` exists on the machine that runs it is not known${missing?.madeByScript ? ` (${missing.madeByScript} writes it)` : ''}`, where(node));
      }
      if (n === 'exists') return { t: 'bool', v: existsSync(abs) };
      try { const st = statSync(abs); return { t: 'bool', v: n === 'isfile' ? st.isFile() : st.isDirectory() }; } catch { return { t: 'bool', v: false }; }
    });
  }
  const sysPathAdd = (d: Value | undefined) => {
    if (d?.t !== 'str') return;
    const abs = resolve(it.path ? dirname(it.path) : '.', d.v);
    if (!it.sysPath.includes(abs)) it.sysPath.push(abs);
  };
  reg('sys.path.append', (_s, c) => { sysPathAdd(c.args[0]); return NONE; });
  reg('sys.path.insert', (_s, c) => { sysPathAdd(c.args[1]); return NONE; });
}

/**
 * OmegaConf's interpolations in a config, resolved in place as OmegaConf resolves them when they are read
 * (omegaconf docs, "Variable interpolation"): a value that is exactly `${a.b}` becomes the value at `a.b` (any type),
 * `${.x}` / `${..x}` are relative to the node holding the value, and `${a.b}` inside a longer string is replaced by
 * the text of a number or string; a key that is missing or a resolver (`${oc.env:HOME}`, `${now:…}`) leaves that
 * value unknown. Chains resolve in turn; a cycle is unknown. `lenient` (a config that may still be merged with
 * others: OmegaConf.load / create / merge) leaves a value whose key is missing as written, for a later merge to give.
 */
export function resolveInterpolations(root: Value, lenient = false): void {
  if (root.t !== 'dict') return;
  const ref = /\$\{([^{}]*)\}/g;
  const lookup = (path: string, parents: Value[], seen: Set<string>): Value => {
    if (/^[\w.-]*:/.test(path)) return unknown(`OmegaConf resolver \`\${${path}}\` is not followed`);
    const dots = /^\.*/.exec(path)![0].length;
    let cur: Value = dots ? parents[Math.max(0, parents.length - dots)] ?? root : root;
    const keys = path.slice(dots).split('.').filter(Boolean);
    for (const k of keys) {
      if (cur.t === 'dict') {
        const i = cur.keys.findIndex((x) => x.t === 'str' && x.v === k);
        if (i < 0) return unknown(`interpolation \`\${${path}}\`: the key is not in the config`);
        cur = cur.vals[i];
      } else if (cur.t === 'list' && /^\d+$/.test(k)) cur = cur.items[Number(k)] ?? unknown(`interpolation \`\${${path}}\`: no such item`);
      else return unknown(`interpolation \`\${${path}}\` is not followed`);
    }
    if (cur.t === 'str' && cur.v.includes('${')) {
      const id = `${path}`;
      if (seen.has(id) || seen.size > 20) return unknown(`interpolation \`\${${path}}\` refers back to itself`);
      return valueOf(cur.v, parents, new Set([...seen, id]));
    }
    return cur;
  };
  const valueOf = (text: string, parents: Value[], seen: Set<string>): Value => {
    const whole = /^\$\{([^{}]*)\}$/.exec(text);
    if (whole) return lookup(whole[1], parents, seen);
    let failed: Value | undefined;
    const out = text.replace(ref, (_m, path: string) => {
      const v = lookup(path, parents, seen);
      if (v.t === 'str' || v.t === 'int' || v.t === 'float') return String(v.v);
      if (v.t === 'bool') return v.v ? 'True' : 'False';
      failed ??= v.t === 'unknown' ? v : unknown(`interpolation \`\${${path}}\` inside a string is not a number or a string`);
      return '';
    });
    return failed ?? str(out);
  };
  const walk = (v: Value, parents: Value[]): void => {
    if (parents.length > MAX_DEPTH) return;
    const items = v.t === 'dict' ? v.vals : v.t === 'list' ? v.items : undefined;
    if (!items) return;
    for (let i = 0; i < items.length; i++) {
      const x = items[i];
      if (x.t !== 'str' || !x.v.includes('${')) { walk(x, [...parents, v]); continue; }
      const r = valueOf(x.v, [...parents, v], new Set());
      if (!(lenient && r.t === 'unknown' && /the key is not in the config|no such item/.test(r.reason))) items[i] = r;
    }
  };
  walk(root, []);
}

function mergeAll(args: Value[]): Value {
  let out: Value = { t: 'dict', keys: [], vals: [], attrs: true };
  for (const a of args) out = merge(out, a);
  return out;
}

/** OmegaConf.merge: later values win, nested dicts merge key by key. */
function merge(a: Value, b: Value): Value {
  if (a.t !== 'dict' || b.t !== 'dict') return b;
  const keys = [...a.keys];
  const vals = [...a.vals];
  b.keys.forEach((k, i) => {
    const j = keys.findIndex((x) => x.t === 'str' && k.t === 'str' && x.v === k.v);
    if (j >= 0) vals[j] = merge(vals[j], b.vals[i]);
    else { keys.push(k); vals.push(b.vals[i]); }
  });
  return { t: 'dict', keys, vals, attrs: true };
}
