/**
 * Entry points and command-line values, as a program run with no arguments
 * would see them. Nothing is executed: each library's own defaulting rules
 * are followed.
 *
 * - argparse (cpython Lib/argparse.py): `add_argument` records an action;
 *   `dest` is the first long option string with `-` turned into `_` (else the
 *   first short one, else the positional name); `parse_args()` sets every
 *   dest to its `default` (None when absent; `store_true` → False,
 *   `store_false` → True, `store_const`/`count` → None/0), converting a string
 *   default with `type` as `_get_values` does. A required option or a
 *   positional without a default has no value without a command line: it is
 *   an unknown naming the flag.
 * - absl.flags (absl/flags/_defines.py): `DEFINE_<kind>(name, default, help)`
 *   registers `FLAGS.<name>` = default; `app.run(main)` calls `main(argv)`.
 * - fire.Fire(fn), typer.run(fn), jsonargparse.CLI(fn), `@click.command` +
 *   `@click.option(..., default=)`: the function called with its defaults.
 * - transformers.HfArgumentParser(dataclasses).parse_args_into_dataclasses():
 *   each dataclass built from its field defaults (hf_argparser.py).
 */
import type { CallArgs, Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { parse as parseYaml } from 'yaml';
import { type ClassV, type InstV, type Value, NONE, describe, str, unknown } from '../interp/values';
import { fromData, resolveInterpolations } from './configfiles';
import type { ArgWord } from './launch';
import { byAnnotation, literal, splitOptions, stringToBool } from './argv';
import { LIBRARY_DATACLASS_DEFAULTS } from '../frameworks/transformers/trl';

interface ArgSpec {
  dest: string; flag: string; value: Value;
  flags: string[]; positional: boolean; action?: string; nargs?: Value; constV?: Value; typeV?: Value; node: SyntaxNode;
  /** configargparse `is_config_file=True`: the option names a config file whose lines are more options. */
  configFile?: boolean;
}
interface ParserState { args: ArgSpec[]; defaults: Map<string, Value>; defaultConfigFiles?: string[] }

/**
 * configargparse's DefaultConfigFileParser (configargparse.py @ 1.7): one `key = value`, `key: value` or `key value`
 * per line; `#` / `;` comments and `[section]` lines skipped; `[a, b]` a list. Each key becomes `--key` with its
 * words, inserted before the command line's (which wins, being later); a flag that takes no value (store_true)
 * is given for "true" and left out for "false".
 */
function configFileWords(text: string, st: ParserState): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';') || /^\[.*\]$/.test(line)) continue;
    const m = /^([^:=\s]+)\s*(?:[:=]\s*|\s+)?(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].replace(/^-+/, '');
    let value = m[2].replace(/\s+#.*$/, '').trim();
    const spec = st.args.find((a) => a.flags.some((f) => f.replace(/^-+/, '') === key) || a.dest === key.replace(/-/g, '_'));
    const flag = spec ? (spec.flags.find((f) => f.startsWith('--')) ?? spec.flag) : `--${key}`;
    if (spec && (spec.action === 'store_true' || spec.action === 'store_false')) {
      if (/^(true|yes|1|on)$/i.test(value)) out.push(flag);
      continue;
    }
    if (/^\[.*\]$/.test(value)) {
      out.push(flag, ...value.slice(1, -1).split(',').map((x) => x.trim().replace(/^["']|["']$/g, '')).filter(Boolean));
      continue;
    }
    value = value.replace(/^["'](.*)["']$/, '$1');
    out.push(flag, value);
  }
  return out;
}

const parsers = new WeakMap<object, ParserState>();

function namespaceClass(name: string): ClassV {
  return { t: 'class', name, bases: [], ns: new Map(), kind: 'plain', dataclass: false, fields: [] };
}

function kwOr(c: CallArgs, name: string, pos: number): Value | undefined {
  return c.kw.get(name) ?? c.args[pos];
}

/** argparse's `_get_values`: a string default is converted by `type`. */
function convert(it: Interpreter, v: Value, type: Value | undefined, node: SyntaxNode): Value {
  if (v.t !== 'str' || !type || type.t !== 'extern') return v;
  if (type.name === 'builtins.int') { const n = Number(v.v); return Number.isInteger(n) ? { t: 'int', v: n } : unknown(`int(${JSON.stringify(v.v)})`, it.span(node)); }
  if (type.name === 'builtins.float') { const n = Number(v.v); return Number.isFinite(n) ? { t: 'float', v: n } : unknown(`float(${JSON.stringify(v.v)})`, it.span(node)); }
  return v;
}

export function installEntryPoints(it: Interpreter): void {
  const reg = (name: string, fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) =>
    it.externs.set(name, (_i, self, c, node) => fn(self, c, node));

  // ------------------------------------------------------------- sys.argv
  // With a launch command: the script's path and its words. Without one, sys.argv is not known (the program
  // may be run with any arguments), unlike argparse defaults, which are the program's own declared values.
  it.externValues.set('sys.argv', (_i, node) => {
    const words = commandLine(it);
    if (!words) return unknown('sys.argv: the command line is not known (no launch command runs this file; see [[tool.oomlens.runs]])', it.span(node));
    return { t: 'list', items: [str(it.path ?? 'main.py'), ...words.map((w) => (w === null ? unknown('a command-line word whose value the launch command does not give', it.span(node)) : str(w)))] };
  });

  // ------------------------------------------------------------- argparse
  // ArgumentParser(parents=[p, ...]) starts with the parents' arguments and defaults
  // (argparse.py ArgumentParser.__init__: `self._add_container_actions(parent)`, `self._defaults.update(parent._defaults)`);
  // a parent that is not a known parser makes the new parser unknown.
  const newParser = (c?: CallArgs, node?: SyntaxNode): Value => {
    const st: ParserState = { args: [], defaults: new Map() };
    const parents = c?.kw.get('parents');
    if (parents) {
      const items = parents.t === 'list' || parents.t === 'tuple' ? parents.items : undefined;
      const states = items?.map((p) => parsers.get(p));
      if (!states || states.some((x) => !x)) return unknown('argparse parents= that are not known parsers', node ? it.span(node) : undefined);
      for (const ps of states as ParserState[]) {
        st.args.push(...ps.args);
        for (const [k, v] of ps.defaults) st.defaults.set(k, v);
      }
    }
    const v: Value = { t: 'extern', name: 'argparse.ArgumentParser', args: [] };
    parsers.set(v, st);
    return v;
  };
  reg('argparse.ArgumentParser', (_s, c, node) => newParser(c, node));
  // A program's subclass of a parser class (`class MyParser(argparse.ArgumentParser)`): its __init__, or the
  // subclass's `super().__init__(...)`, makes the parser the instance stands on (interp.ts libBase).
  const baseInit = (make: (c: CallArgs, node: SyntaxNode) => Value) => (self: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    if (self?.t === 'inst') it.libBase.set(self, make(c, node));
    return NONE;
  };
  reg('argparse.ArgumentParser.__init__', baseInit((c, node) => newParser(c, node)));
  // configargparse (a drop-in argparse subclass that also reads config files): ArgumentParser / ArgParser.
  const cfgParser = (c: CallArgs, node: SyntaxNode): Value => {
    const p = newParser(c, node);
    const d = c.kw.get('default_config_files');
    const st = parsers.get(p);
    if (st && (d?.t === 'list' || d?.t === 'tuple')) st.defaultConfigFiles = d.items.flatMap((x) => (x.t === 'str' ? [x.v] : []));
    return p;
  };
  for (const n of ['configargparse.ArgumentParser', 'configargparse.ArgParser', 'configargparse.ArgumentParser.ArgumentParser']) {
    reg(n, (_s, c, node) => cfgParser(c, node));
    reg(`${n}.__init__`, baseInit((c, node) => cfgParser(c, node)));
  }
  const method = (m: string, fn: (st: ParserState, self: Value, c: CallArgs, node: SyntaxNode) => Value) =>
    reg(`argparse.ArgumentParser.${m}`, (self, c, node) => {
      const st = self ? parsers.get(self) : undefined;
      return st && self ? fn(st, self, c, node) : unknown(`argparse ${m} on an unknown parser`, it.span(node));
    });
  method('add_argument', (st, _self, c, node) => {
    const flags = c.args.flatMap((a) => (a.t === 'str' ? [a.v] : []));
    if (!flags.length) return NONE;
    const long = flags.find((f) => f.startsWith('--'));
    const short = flags.find((f) => f.startsWith('-'));
    const destV = c.kw.get('dest');
    const dest = destV?.t === 'str' ? destV.v : (long ?? short ?? flags[0]).replace(/^-+/, '').replace(/-/g, '_');
    const action = c.kw.get('action');
    const act = action?.t === 'str' ? action.v : undefined;
    let value: Value;
    const dflt = c.kw.get('default');
    if (dflt) value = convert(it, dflt, c.kw.get('type'), node);
    else if (act === 'store_true') value = { t: 'bool', v: false };
    else if (act === 'store_false') value = { t: 'bool', v: true };
    else if (act === 'count') value = NONE;
    else if (c.kw.get('required')?.t === 'bool' && (c.kw.get('required') as { v: boolean }).v) {
      value = unknown(`command-line argument \`${long ?? flags[0]}\` is required and has no default: give the command line in [[tool.oomlens.runs]]`, it.span(node));
    } else if (!flags[0].startsWith('-') && c.kw.get('nargs') === undefined) {
      value = unknown(`positional command-line argument \`${flags[0]}\` has no default: give the command line in [[tool.oomlens.runs]]`, it.span(node));
    } else value = NONE;
    const isCfg = [c.kw.get('is_config_file'), c.kw.get('is_config_file_arg')].some((v) => v?.t === 'bool' && v.v);
    st.args.push({ dest, flag: long ?? flags[0], value, flags, positional: !flags[0].startsWith('-'), action: act, nargs: c.kw.get('nargs'), constV: c.kw.get('const'), typeV: c.kw.get('type'), node, ...(isCfg ? { configFile: true } : {}) });
    return NONE;
  });
  // configargparse: `p.add(...)` / `add_arg` are add_argument (configargparse.py ArgumentParser.add = add_argument).
  for (const alias of ['add', 'add_arg']) it.externs.set(`argparse.ArgumentParser.${alias}`, it.externs.get('argparse.ArgumentParser.add_argument')!);
  for (const m of ['add_argument_group', 'add_mutually_exclusive_group']) method(m, (_st, self) => self);
  method('set_defaults', (st, _self, c) => { for (const [k, v] of c.kw) st.defaults.set(k, v); return NONE; });
  // configargparse: the config file named by an `is_config_file` option (else the first readable of
  // default_config_files) gives options read before the command line's (configargparse.py parse_known_args).
  const withConfigFiles = (st: ParserState, words: ArgWord[], node: SyntaxNode): ArgWord[] => {
    const cfg = st.args.find((a) => a.configFile);
    let path: string | undefined;
    if (cfg) {
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        if (w === null) continue;
        const eq = cfg.flags.find((f) => w.startsWith(`${f}=`));
        if (eq) path = w.slice(eq.length + 1);
        else if (cfg.flags.includes(w) && typeof words[i + 1] === 'string') path = words[i + 1] as string;
      }
      if (path === undefined && cfg.value.t === 'str') path = cfg.value.v;
    }
    const candidates = path !== undefined ? [path] : st.defaultConfigFiles ?? [];
    for (const p of candidates) {
      const abs = it.loader?.locate(p);
      const text = abs ? it.loader?.readText(abs) : undefined;
      if (text !== undefined) return [...configFileWords(text, st), ...words];
      if (path !== undefined) it.note(`config file \`${p}\` (${cfg?.flag}) is not in the workspace: its options are not read`, node);
    }
    return words;
  };
  const parse = (st: ParserState, c: CallArgs, node: SyntaxNode, known = false): { ns: InstV; extras: Value } => {
    const ns = it.newInst(namespaceClass('Namespace'));
    // argparse's Namespace holds exactly the parser's destinations and set_defaults() keys (argparse.py parse_known_args).
    it.completeAttrs.add(ns);
    for (const a of st.args) ns.attrs.set(a.dest, a.value);
    for (const [k, v] of st.defaults) ns.attrs.set(k, v);
    // parse_args(args): a literal list is the command line; None (or nothing) is sys.argv[1:].
    const given = kwOr(c, 'args', 0);
    const words = given && given.t !== 'none' ? wordsOf(given) : commandLine(it);
    if (words === 'unknown') {
      for (const a of st.args) ns.attrs.set(a.dest, unknown(`parse_args() of a list oomlens cannot read: \`${a.flag}\` is not known`, it.span(node)));
      return { ns, extras: unknown('parse_known_args() of a list oomlens cannot read: the words it leaves are not known', it.span(node)) };
    }
    const hasCfg = st.args.some((a) => a.configFile && a.value.t === 'str') || !!st.defaultConfigFiles?.length;
    const all = words ? withConfigFiles(st, words, node) : hasCfg ? withConfigFiles(st, [], node) : words;
    const left = all ? argparseWords(it, st, all, ns, node, known) : [];
    // Values still missing are named where the program parses its command line (a file-level unknown).
    for (const a of st.args) { const v = ns.attrs.get(a.dest); if (v?.t === 'unknown' && /command-line argument `/.test(v.reason)) it.note(v.reason, node); }
    return { ns, extras: { t: 'list', items: left.map((w) => (w === null ? unknown('a command-line word oomlens cannot read', it.span(node)) : str(w))) } };
  };
  method('parse_args', (st, _self, c, node) => parse(st, c, node).ns);
  method('parse_known_args', (st, _self, c, node) => { const r = parse(st, c, node, true); return { t: 'tuple', items: [r.ns, r.extras] }; });
  method('add_subparsers', (_st, _self, _c, node) => unknown('argparse sub-commands are not followed', it.span(node)));
  // deepspeed.add_config_arguments(parser) (deepspeed/__init__.py `_add_core_arguments`): adds --deepspeed
  // (store_true), --deepspeed_config (str, None) and their deprecated --deepscale twins, and returns the parser.
  it.externs.set('deepspeed.add_config_arguments', (_i, _self, c, node) => {
    const parser = c.args[0] ?? c.kw.get('parser');
    const add = it.externs.get('argparse.ArgumentParser.add_argument');
    if (!parser || !add || !(parser.t === 'extern' && parsers.has(parser))) return parser ?? unknown('deepspeed.add_config_arguments without a parser', it.span(node));
    for (const [flag, store] of [['--deepspeed', true], ['--deepspeed_config', false], ['--deepscale', true], ['--deepscale_config', false]] as const) {
      const kw = new Map<string, Value>(store ? [['action', str('store_true')], ['default', { t: 'bool', v: false }]] : [['default', NONE], ['type', { t: 'extern', name: 'builtins.str' }]]);
      add(it, parser, { args: [str(flag)], kw }, node, { t: 'extern', name: 'argparse.ArgumentParser.add_argument' });
    }
    return parser;
  });
  chainGetattr(it, (self, name) => (self.t === 'extern' && parsers.has(self) ? { t: 'extern', name: `argparse.ArgumentParser.${name}`, self } : undefined));

  // ---------------------------------------------------------- absl.flags
  const flagValues = new Map<string, Value>();
  const flagKinds = new Map<string, string>();
  const flagsObj: Value = { t: 'dict', keys: [], vals: [], attrs: true };
  it.externValues.set('absl.flags.FLAGS', () => flagsObj);
  // DEFINE_* return a FlagHolder whose `.value` is the flag's current value (absl/flags/_flagvalues.py FlagHolder).
  const holder = (name: string): Value => ({ t: 'extern', name: 'absl.flags.FlagHolder', args: [str(name)] });
  chainGetattr(it, (self, name) => {
    if (self.t !== 'extern' || self.name !== 'absl.flags.FlagHolder' || self.args?.[0]?.t !== 'str') return undefined;
    const flag = self.args[0].v;
    if (name === 'name') return str(flag);
    if (name !== 'value' || flagsObj.t !== 'dict') return undefined;
    const at = flagsObj.keys.findIndex((k) => k.t === 'str' && k.v === flag);
    return at >= 0 ? flagsObj.vals[at] : unknown(`flag --${flag} is not defined`);
  });
  for (const kind of ['integer', 'float', 'string', 'bool', 'boolean', 'enum', 'list', 'multi_string', 'multi_integer', 'enum_class']) {
    reg(`absl.flags.DEFINE_${kind}`, (_s, c, node) => {
      const name = kwOr(c, 'name', 0);
      const dflt = kwOr(c, 'default', 1) ?? NONE;
      if (name?.t !== 'str') return unknown('flag name not known', it.span(node));
      flagValues.set(name.v, dflt);
      flagKinds.set(name.v, kind);
      if (flagsObj.t === 'dict') { flagsObj.keys.push(str(name.v)); flagsObj.vals.push(dflt); }
      return holder(name.v);
    });
  }
  // ml_collections config_flags (ml_collections/config_flags/config_flags.py): DEFINE_config_file's default
  // names a Python file whose get_config() is the flag's value; DEFINE_config_dict's default is the value.
  const setFlag = (name: string, v: Value) => {
    flagValues.set(name, v);
    if (flagsObj.t !== 'dict') return;
    const at = flagsObj.keys.findIndex((k) => k.t === 'str' && k.v === name);
    if (at >= 0) flagsObj.vals[at] = v; else { flagsObj.keys.push(str(name)); flagsObj.vals.push(v); }
  };
  const defineConfigFile = (c: CallArgs, node: SyntaxNode): Value => {
    const name = kwOr(c, 'name', 0);
    const dflt = kwOr(c, 'default', 1);
    if (name?.t !== 'str') return NONE;
    flagKinds.set(name.v, 'config_file');
    if (dflt?.t !== 'str') {
      // The command line may still give it (applyAbslWords, when app.run starts); named now, superseded then.
      setFlag(name.v, unknown(`--${name.v} names the config file and has no default: give the command line in [[tool.oomlens.runs]]`, it.span(node)));
      if (!commandLine(it)?.some((w) => w !== null && (w === `--${name.v}` || w.startsWith(`--${name.v}=`)))) it.note(`--${name.v} names the config file and has no default: give the command line in [[tool.oomlens.runs]]`, node);
      return holder(name.v);
    }
    setFlag(name.v, configFile(dflt.v, node));
    return holder(name.v);
  };
  // `from ml_collections import config_flags` and `from ml_collections.config_flags import config_flags` (the
  // package re-exports its module's functions: ml_collections/config_flags/__init__.py) name the same functions.
  for (const m of ['ml_collections.config_flags', 'ml_collections.config_flags.config_flags']) reg(`${m}.DEFINE_config_file`, (_s, c, node) => defineConfigFile(c, node));
  const configFile = (spec: string, node: SyntaxNode): Value => {
    const [file, arg] = spec.split(':');
    const abs = it.loader?.locate(file);
    const mod = abs ? it.importFile(abs, node) : undefined;
    const getConfig = mod?.env?.vars.get('get_config');
    return getConfig ? it.call(getConfig, { args: arg ? [str(arg)] : [], kw: new Map() }, node) : unknown(`config file ${file} could not be read`, it.span(node));
  };
  // The command line over the defaults, as absl parses it when app.run starts (absl/flags/_flagvalues.py).
  const applyAbslWords = (node: SyntaxNode) => {
    const words = commandLine(it);
    if (!words?.length) return;
    const byKind = (kind: string | undefined, w: string): Value => {
      if (kind === 'integer') return byAnnotation(w, 'int');
      if (kind === 'float') return byAnnotation(w, 'float');
      if (kind === 'bool' || kind === 'boolean') return byAnnotation(w, 'bool');
      if (kind === 'list') return { t: 'list', items: w.split(',').map((x) => str(x.trim())) };
      return str(w);
    };
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (w === null || !w.startsWith('-')) continue;
      const body = w.replace(/^--?/, '');
      const eq = body.indexOf('=');
      let name = eq >= 0 ? body.slice(0, eq) : body;
      let value: ArgWord | undefined = eq >= 0 ? body.slice(eq + 1) : undefined;
      const root = name.split('.')[0];
      const kind = flagKinds.get(root);
      if (!kind && name.startsWith('no') && ['bool', 'boolean'].includes(flagKinds.get(name.slice(2)) ?? '')) { setFlag(name.slice(2), { t: 'bool', v: false }); continue; }
      if (!kind) continue;
      if (value === undefined && (kind === 'bool' || kind === 'boolean') && !name.includes('.')) { setFlag(name, { t: 'bool', v: true }); continue; }
      if (value === undefined) value = words[++i] ?? null;
      if (value === null) { setFlag(root, it.note(`--${name} is given a value oomlens cannot read from the command`, node)); continue; }
      if (name.includes('.')) {
        // ml_collections override `--config.model.depth=24`: the field keeps its type (config_flags.py).
        let target = flagValues.get(root);
        const path = name.split('.').slice(1);
        for (const k of path.slice(0, -1)) target = target?.t === 'dict' ? target.vals[target.keys.findIndex((x) => x.t === 'str' && x.v === k)] : undefined;
        if (target?.t === 'dict') {
          const last = path[path.length - 1];
          const at = target.keys.findIndex((x) => x.t === 'str' && x.v === last);
          const old = at >= 0 ? target.vals[at] : undefined;
          const v = old && ['int', 'float', 'bool', 'str'].includes(old.t) ? byAnnotation(value, old.t) : literal(value);
          if (at >= 0) target.vals[at] = v; else { target.keys.push(str(last)); target.vals.push(v); }
        }
        continue;
      }
      name = root;
      setFlag(name, kind === 'config_file' ? configFile(value, node) : byKind(kind, value));
    }
  };
  for (const m of ['ml_collections.config_flags', 'ml_collections.config_flags.config_flags']) reg(`${m}.DEFINE_config_dict`, (_s, c) => {
    const name = kwOr(c, 'name', 0);
    if (name?.t === 'str') setFlag(name.v, kwOr(c, 'config', 1) ?? NONE);
    return name?.t === 'str' ? holder(name.v) : NONE;
  });
  // absl/flags/_validators.py mark_flag_as_required: a flag still None when app.run parses the command line is an
  // error. A required flag with no value here is a named unknown (the command line, applied at app.run, supersedes it).
  const required = (names: Value | undefined, node: SyntaxNode) => {
    const list = names?.t === 'str' ? [names] : names?.t === 'list' || names?.t === 'tuple' ? names.items : [];
    for (const n of list) {
      if (n.t !== 'str' || flagValues.get(n.v)?.t !== 'none') continue;
      const why = `--${n.v} is required and has no default: give the command line in [[tool.oomlens.runs]]`;
      setFlag(n.v, unknown(why, it.span(node)));
      if (!commandLine(it)?.some((w) => w !== null && (w === `--${n.v}` || w.startsWith(`--${n.v}=`)))) it.note(why, node);
    }
    return NONE;
  };
  reg('absl.flags.mark_flags_as_required', (_s, c, node) => required(kwOr(c, 'flag_names', 0), node));
  reg('absl.flags.mark_flag_as_required', (_s, c, node) => required(kwOr(c, 'flag_name', 0), node));
  reg('absl.app.run', (_s, c, node) => { applyAbslWords(node); return callWithDefaults(it, c.args[0], node, [{ t: 'list', items: [str('main')] }]); });

  // ------------------------------------------- fire, typer, jsonargparse, click
  // jsonargparse.CLI is defined in jsonargparse/_cli.py (older: jsonargparse/cli.py) and imported from either.
  for (const n of ['fire.Fire', 'typer.run', 'jsonargparse.CLI', 'jsonargparse.auto_cli', 'jsonargparse.cli.CLI', 'jsonargparse._cli.CLI', 'jsonargparse._cli.auto_cli']) {
    reg(n, (_s, c, node) => {
      if (c.args[0]) return callWithDefaults(it, c.args[0], node, [], commandLine(it), n === 'fire.Fire');
      // fire.Fire() with no component exposes the calling module's names (fire/core.py Fire: `component = context`,
      // the caller's globals and locals): the first word of the command names the function it runs, the rest are its
      // arguments (`python train.py train --env=fasterrcnn`, chenyuntc/simple-faster-rcnn-pytorch). No word: fire
      // prints the module's help and runs nothing.
      const words = commandLine(it);
      if (n === 'fire.Fire' && words) {
        const [first, ...rest] = words;
        if (first === undefined) return NONE;
        const target = first !== null && /^[A-Za-z_]\w*$/.test(first) ? it.lookup(first, node) : undefined;
        if (target && (target.t === 'func' || target.t === 'class')) return callWithDefaults(it, target, node, [], rest, true);
        return unknown(`fire.Fire() runs \`${first ?? '?'}\` from the command line, which is not a function of this file`, it.span(node));
      }
      return unknown(`${n}() without a target is not followed${n === 'fire.Fire' ? ' (no command line names the function it runs)' : ''}`, it.span(node));
    });
  }
  // tyro.cli(f, *, args=None, default=None, ...) (tyro/_cli.py): `default` when given (an instance of the
  // dataclass f), else f built from its defaults (a dataclass's field defaults, a function's parameter defaults).
  // On a dataclass, the command line's `--field value` / `--field=value` / `--nested.field=value` set fields
  // (tyro names nested dataclass fields with dots), each converted by the field's annotation; a positional
  // word, a name that is not a field, or a function target with arguments is not followed: unknown.
  reg('tyro.cli', (_s, c, node) => {
    const target = c.args[0] ?? c.kw.get('f');
    const given = c.kw.get('args');
    const words = given && given.t !== 'none' ? wordsOf(given) : commandLine(it);
    if (words === 'unknown') return unknown('tyro.cli with command-line arguments that are not known', it.span(node));
    const dflt = c.kw.get('default');
    // A function: tyro turns its parameters into the command line (tyro docs, "Functions"; "Positional Arguments":
    // positional-only parameters are positional words, the others `--name` flags, written with hyphens or
    // underscores); the function runs with them. A parameter with no default that the command does not give is
    // required by tyro: its value comes from a command line oomlens does not have.
    if (target?.t === 'func' && !(dflt && dflt.t !== 'none')) {
      return callWithDefaults(it, target, node, [], words ?? [], false, (name) => unknown(`command-line argument --${name.replace(/_/g, '-')} of tyro.cli(${target.name}) is required and not given (give the command line with --run or in [[tool.oomlens.runs]])`, it.span(node)));
    }
    let out: Value = dflt && dflt.t !== 'none' ? dflt : target ? callWithDefaults(it, target, node) : unknown('tyro.cli() without a target is not followed', it.span(node));
    if (!words?.length || out.t === 'unknown') return out;
    const { options, positional } = splitOptions(words, () => false);
    if (positional.length || out.t !== 'inst' || !out.cls.dataclass) return unknown(`tyro.cli with command-line arguments is not followed`, it.span(node));
    // A copy of each dataclass on the path is changed (the default instance may be shared).
    const copy = (v: InstV): InstV => { const n = it.newInst(v.cls); for (const [k, x] of v.attrs) n.attrs.set(k, x); return n; };
    out = copy(out);
    for (const o of options) {
      const path = o.name.replace(/-/g, '_').split('.');
      let obj = out as InstV;
      for (const [i, f] of path.entries()) {
        if (!obj.cls.fields.includes(f)) return unknown(`tyro.cli: --${o.name} is not a field of ${obj.cls.name}`, it.span(node));
        if (i === path.length - 1) {
          const cur = obj.attrs.get(f);
          obj.attrs.set(f, o.value === undefined ? { t: 'bool', v: true } : o.value === null ? unknown(`--${o.name} is given a value oomlens cannot read from the command`, it.span(node)) : byAnnotation(o.value, obj.cls.fieldTypes?.get(f), cur));
        } else {
          const inner = obj.attrs.get(f);
          if (inner?.t !== 'inst' || !inner.cls.dataclass) return unknown(`tyro.cli: --${o.name}: ${f} is not a known dataclass`, it.span(node));
          const n = copy(inner);
          obj.attrs.set(f, n);
          obj = n;
        }
      }
    }
    return out;
  });
  // tyro.extras.overridable_config_cli(configs, args=None) (tyro/extras/_base_configs.py): `configs` maps a name to
  // (description, config); the first command-line word names the config, the words after it override its fields as
  // tyro.cli(type(config), default=config) does.
  reg('tyro.extras.overridable_config_cli', (_s, c, node) => {
    const configs = c.args[0] ?? c.kw.get('configs');
    const given = c.kw.get('args');
    const words = given && given.t !== 'none' ? wordsOf(given) : commandLine(it);
    if (words === 'unknown' || !words) return unknown('tyro.extras.overridable_config_cli: the command line (which config it names) is not known (give it with --run)', it.span(node));
    if (configs?.t !== 'dict') return unknown(`tyro.extras.overridable_config_cli over ${configs ? describe(configs) : 'nothing'}: the configs are not a known dict`, it.span(node));
    const [name, ...rest] = words;
    const at = configs.keys.findIndex((k) => k.t === 'str' && k.v === name);
    if (name === null || rest.includes(null)) return unknown('tyro.extras.overridable_config_cli: a command-line word is not known', it.span(node));
    if (!name || name.startsWith('-') || at < 0) return unknown(`tyro.extras.overridable_config_cli: ${name ? `"${name}" is not one of the configs` : 'no config is named on the command line'}`, it.span(node));
    const entry = configs.vals[at];
    const chosen = entry.t === 'tuple' && entry.items.length === 2 ? entry.items[1] : entry;
    const cli = it.externs.get('tyro.cli')!;
    return cli(it, undefined, { args: [], kw: new Map<string, Value>([['default', chosen], ['args', { t: 'list', items: rest.map((w) => ({ t: 'str' as const, v: w ?? '' })) }]]) }, node, { t: 'extern', name: 'tyro.cli' });
  });
  // `@click.option("--bs", default=8)` binds the default as a keyword; `@click.command()` keeps the function.
  const apply = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  it.state.set('applyDecorators', apply);
  for (const n of ['click.command', 'click.group', 'click.option', 'click.argument', '__click_bind__', '__click_identity__']) apply.add(n);
  for (const n of ['click.command', 'click.group']) {
    reg(n, (_s, c) => (c.args[0]?.t === 'func' ? c.args[0] : { t: 'extern', name: '__click_identity__' }));
  }
  reg('__click_identity__', (_s, c) => c.args[0] ?? NONE);
  for (const n of ['click.option', 'click.argument']) {
    reg(n, (_s, c) => {
      const flags = c.args.flatMap((a) => (a.t === 'str' ? [a.v] : []));
      const names = flags.filter((f) => !f.startsWith('-') || f.startsWith('--'));
      const param = (names.find((f) => !f.startsWith('-')) ?? names[0] ?? flags[0] ?? '').replace(/^-+/, '').replace(/-/g, '_');
      const dflt = c.kw.get('default');
      return { t: 'extern', name: '__click_bind__', args: [str(param), dflt ?? NONE] };
    });
  }
  it.externs.set('__click_bind__', (_i, _self, c, _node, fnv) => {
    const fn = c.args[0];
    const [p, d] = fnv.args ?? [];
    if (fn?.t !== 'func' || p?.t !== 'str') return fn ?? NONE;
    const kw = new Map(fn.partialKw ?? []);
    if (d && d.t !== 'none') kw.set(p.v, d);
    return { ...fn, partialKw: kw };
  });

  // ----------------------------------------------------------------- hydra
  // `@hydra.main(config_path=, config_name=)` calls the function with the composed config
  // (hydra/main.py): the primary YAML `<config_path>/<config_name>.yaml` relative to the script, with
  // its `defaults:` list composed — `- group: option` loads `<config_path>/group/option.yaml` under the
  // key `group`, `_self_` places the primary file's own keys (later entries win).
  apply.add('hydra.main');
  apply.add('__hydra_bind__');
  reg('hydra.main', (_s, c) => ({ t: 'extern', name: '__hydra_bind__', args: [c.kw.get('config_path') ?? c.args[0] ?? NONE, c.kw.get('config_name') ?? c.args[1] ?? NONE] }));
  it.externs.set('__hydra_bind__', (_i, _self, c, node, fnv) => {
    const fn = c.args[0];
    if (fn?.t !== 'func') return fn ?? NONE;
    const [dirV, nameV] = fnv.args ?? [];
    return { ...fn, partialArgs: [hydraConfig(it, dirV, nameV, node)] };
  });

  // --------------------------------------------------- hydra.utils.instantiate
  // hydra/_internal/instantiate/_instantiate2.py: `_target_` names the callable (a dotted path: a workspace module's
  // attribute, or a library's); the other keys are its keyword arguments, themselves instantiated when they hold a
  // `_target_` (`_recursive_` defaults to True); `_partial_: true` returns functools.partial of it; `_args_` are
  // positional; keyword arguments given to instantiate override the config's.
  const instantiate = (cfg: Value, extra: Map<string, Value>, node: SyntaxNode, depth = 0): Value => {
    if (depth > 20) return unknown('hydra instantiate nested too deep', it.span(node));
    if (cfg.t === 'list') return { t: 'list', items: cfg.items.map((x) => instantiate(x, new Map(), node, depth + 1)) };
    if (cfg.t !== 'dict') return cfg;
    const get = (k: string) => { const i = cfg.keys.findIndex((x) => x.t === 'str' && x.v === k); return i >= 0 ? cfg.vals[i] : undefined; };
    const target = get('_target_');
    const recursive = get('_recursive_');
    const deep = !(recursive?.t === 'bool' && !recursive.v);
    if (!target) {
      // A plain mapping: its values are instantiated (recursive), the mapping kept.
      return deep ? { ...cfg, vals: cfg.vals.map((v) => instantiate(v, new Map(), node, depth + 1)) } : cfg;
    }
    if (target.t !== 'str') return unknown('hydra instantiate: _target_ is not a known string', it.span(node));
    const fn = resolveDotted(it, target.v, node);
    const kw = new Map<string, Value>();
    cfg.keys.forEach((k, i) => { if (k.t === 'str' && !k.v.startsWith('_')) kw.set(k.v, deep ? instantiate(cfg.vals[i], new Map(), node, depth + 1) : cfg.vals[i]); });
    for (const [k, v] of extra) if (!k.startsWith('_')) kw.set(k, v);
    const argsV = get('_args_');
    const args = argsV?.t === 'list' ? argsV.items.map((x) => (deep ? instantiate(x, new Map(), node, depth + 1) : x)) : [];
    const partial = get('_partial_');
    if (partial?.t === 'bool' && partial.v) {
      const p = it.externs.get('functools.partial');
      return p ? p(it, undefined, { args: [fn, ...args], kw }, node, { t: 'extern', name: 'functools.partial' }) : unknown('partial()', it.span(node));
    }
    return it.call(fn, { args, kw }, node);
  };
  for (const n of ['hydra.utils.instantiate', 'hydra.utils.call']) {
    reg(n, (_s, c, node) => {
      const cfg = c.args[0] ?? c.kw.get('config');
      if (!cfg) return unknown('hydra instantiate without a config', it.span(node));
      const extra = new Map(c.kw); extra.delete('config');
      return instantiate(cfg, extra, node);
    });
  }

  // ------------------------------------------------------ HfArgumentParser
  // trl's TrlParser is an HfArgumentParser whose parse_args_and_config also reads `--config file.yaml`.
  const hfParser = (c: CallArgs): Value => {
    const types = c.args[0] ?? c.kw.get('dataclass_types');
    const items = types ? (types.t === 'tuple' || types.t === 'list' ? types.items : [types]) : [];
    return { t: 'extern', name: 'transformers.HfArgumentParser#', args: items };
  };
  for (const n of ['transformers.HfArgumentParser', 'trl.TrlParser', 'trl.scripts.utils.TrlParser']) {
    reg(n, (_s, c) => hfParser(c));
    reg(`${n}.__init__`, baseInit((c) => hfParser(c)));
  }
  // Each value goes to the dataclass that has the field (transformers/hf_argparser.py); a field of a library
  // class (TrainingArguments) that oomlens models without its field list goes to the first such class.
  const hfBuild = (self: Value | undefined, node: SyntaxNode, values: Map<string, Value>): Value => {
    const items = self?.t === 'extern' ? self.args ?? [] : [];
    const kws = items.map(() => new Map<string, Value>());
    // Flags no dataclass of the program declares belong to a library dataclass: one passed as is, or the
    // program's subclass of one (class TrainingArguments(transformers.TrainingArguments)).
    let lib = items.findIndex((c) => c.t !== 'class');
    if (lib < 0) lib = items.findIndex((c) => c.t === 'class' && c.bases.some((b) => b.t === 'extern' || (b.t === 'class' && b.bases.some((bb) => bb.t === 'extern'))));
    // Library dataclasses passed as they are (trl's SFTConfig, ModelConfig, ScriptArguments) have field lists oomlens
    // does not hold: each is given every value no program dataclass declares, and reads only its own.
    const libs = items.flatMap((c, i) => (c.t !== 'class' ? [i] : []));
    for (const [name, v] of values) {
      const own = items.findIndex((c) => c.t === 'class' && c.fields.includes(name));
      const at = own >= 0 ? [own] : libs.length ? libs : lib >= 0 ? [lib] : [];
      if (!at.length) { it.note(`--${name} is a field of none of the parser's dataclasses (HfArgumentParser would stop); it is ignored`, node); continue; }
      for (const i of at) kws[i].set(name, v);
    }
    return {
      t: 'tuple',
      items: items.map((cls, i) => {
        // A library dataclass with no model of its own: a record of the values given (and the library's known defaults).
        if (cls.t === 'extern' && !it.externs.has(cls.name)) {
          const kw = new Map<string, Value>(Object.entries(LIBRARY_DATACLASS_DEFAULTS[cls.name] ?? {}));
          for (const [k, v] of kws[i]) kw.set(k, v);
          return { t: 'extern', name: `${cls.name}#dataclass`, kw };
        }
        return it.call(cls, { args: [], kw: kws[i] }, node);
      }),
    };
  };
  const hfWords = (self: Value | undefined, words: ArgWord[], node: SyntaxNode): Value => {
    const items = self?.t === 'extern' ? self.args ?? [] : [];
    const classes = items.filter((c): c is ClassV => c.t === 'class');
    const fieldType = (name: string) => classes.find((c) => c.fields.includes(name))?.fieldTypes?.get(name);
    const fieldDefault = (name: string) => classes.find((c) => c.fields.includes(name))?.ns.get(name);
    const isBool = (name: string) => /^(Optional\[)?bool\]?$/.test((fieldType(name) ?? '').replace(/\s/g, '')) || fieldDefault(name)?.t === 'bool';
    const norm = (n: string) => n.replace(/-/g, '_');
    // A library field (TrainingArguments') takes the next word unless that word is another option.
    const { options, positional } = splitOptions(words, (n) => isBool(norm(n)));
    if (positional.length) it.note(`HfArgumentParser: positional words on the command line are not fields; ignored`, node);
    const values = new Map<string, Value>();
    for (const o of options) {
      let name = norm(o.name);
      let v: Value;
      if (o.value === null) v = unknown(`--${o.name} is given a value oomlens cannot read from the command`, it.span(node));
      else if (o.value === undefined) {
        if (name.startsWith('no_') && isBool(name.slice(3))) { name = name.slice(3); v = { t: 'bool', v: false }; } else v = { t: 'bool', v: true };
      } else if (classes.some((c) => c.fields.includes(name))) v = byAnnotation(o.value, fieldType(name), fieldDefault(name));
      else { const b = /^(true|false)$/i.test(o.value) ? stringToBool(o.value) : undefined; v = b !== undefined ? { t: 'bool', v: b } : literal(o.value); }
      values.set(name, v);
    }
    return hfBuild(self, node, values);
  };
  const hfFromData = (self: Value | undefined, data: Value, node: SyntaxNode): Value => {
    if (data.t !== 'dict') return unknown('HfArgumentParser: the arguments file could not be read', it.span(node));
    const values = new Map<string, Value>();
    data.keys.forEach((k, i) => { if (k.t === 'str') values.set(k.v, data.vals[i]); });
    return hfBuild(self, node, values);
  };
  const readArgsFile = (pathV: Value | undefined, yaml: boolean, node: SyntaxNode): Value => {
    if (pathV?.t !== 'str') return unknown('HfArgumentParser: the arguments file is not named by a known path', it.span(node));
    const abs = it.loader?.locate(pathV.v) ?? pathV.v;
    const text = it.loader?.readText(abs);
    if (text === undefined) return unknown(`HfArgumentParser: ${pathV.v} is not a readable workspace file`, it.span(node));
    try { return fromData(yaml ? parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text), false); } catch (e) { return unknown(`${pathV.v}: ${(e as Error).message.split('\n')[0]}`, it.span(node)); }
  };
  reg('transformers.HfArgumentParser#.parse_args_into_dataclasses', (self, c, node) => {
    const given = kwOr(c, 'args', 0);
    const words = given && given.t !== 'none' ? wordsOf(given) : commandLine(it);
    if (words === 'unknown') return unknown('parse_args_into_dataclasses() of a list oomlens cannot read', it.span(node));
    return words?.length ? hfWords(self, words, node) : hfBuild(self, node, new Map());
  });
  // TrlParser.parse_args_and_config: `--config file.yaml` gives defaults, the other words win (trl/scripts/utils.py).
  reg('transformers.HfArgumentParser#.parse_args_and_config', (self, c, node) => {
    const given = kwOr(c, 'args', 0);
    const words = given && given.t !== 'none' ? wordsOf(given) : commandLine(it);
    if (words === 'unknown') return unknown('parse_args_and_config() of a list oomlens cannot read', it.span(node));
    const all = words ?? [];
    const at = all.findIndex((w) => w === '--config' || (w ?? '').startsWith('--config='));
    let rest = all;
    const fromFile: ArgWord[] = [];
    if (at >= 0) {
      const w = all[at]!;
      const path = w.includes('=') ? w.slice(w.indexOf('=') + 1) : all[at + 1] ?? null;
      rest = [...all.slice(0, at), ...all.slice(at + (w.includes('=') ? 1 : 2))];
      const data = path === null ? unknown('--config names a file the command does not give') : readArgsFile(str(path), true, node);
      if (data.t !== 'dict') return unknown(`TrlParser --config: ${data.t === 'unknown' ? data.reason : 'not a mapping'}`, it.span(node));
      data.keys.forEach((k, i) => { const v = data.vals[i]; if (k.t === 'str' && (v.t === 'str' || v.t === 'int' || v.t === 'float' || v.t === 'bool')) fromFile.push(`--${k.v}`, String(v.t === 'bool' ? (v.v ? 'true' : 'false') : v.v)); });
    }
    return hfWords(self, [...fromFile, ...rest], node);
  });
  reg('transformers.HfArgumentParser#.parse_json_file', (self, c, node) => hfFromData(self, readArgsFile(kwOr(c, 'json_file', 0), false, node), node));
  reg('transformers.HfArgumentParser#.parse_yaml_file', (self, c, node) => hfFromData(self, readArgsFile(kwOr(c, 'yaml_file', 0), true, node), node));
  reg('transformers.HfArgumentParser#.parse_dict', (self, c, node) => hfFromData(self, kwOr(c, 'args', 0) ?? NONE, node));
  chainGetattr(it, (self, name) => (self.t === 'extern' && self.name === 'transformers.HfArgumentParser#' ? { t: 'extern', name: `transformers.HfArgumentParser#.${name}`, self } : undefined));
  // Fields of a library dataclass record: the value given, else not known (the library's default).
  chainGetattr(it, (self, name) => (self.t === 'extern' && self.name.endsWith('#dataclass')
    ? self.kw?.get(name) ?? unknown(`${self.name.replace(/#dataclass$/, '')}.${name}: the library's default, not known to oomlens`)
    : undefined));
}

/** A dotted path as hydra's `_locate` resolves it: the longest importable module prefix, then attributes. */
function resolveDotted(it: Interpreter, dotted: string, node: SyntaxNode): Value {
  const parts = dotted.split('.');
  for (let k = parts.length - 1; k >= 1; k--) {
    const chain = it.importChain(parts.slice(0, k).join('.'), node);
    if (chain && chain.length === k) {
      let v: Value = chain[k - 1];
      for (const a of parts.slice(k)) v = it.getAttr(v, a, node);
      return v;
    }
  }
  // A library: the extern of that name (its catalogue model, if any, answers when called).
  return { t: 'extern', name: dotted };
}

function hydraConfig(it: Interpreter, dirV: Value | undefined, nameV: Value | undefined, node: SyntaxNode): Value {
  if (nameV?.t !== 'str') return unknown('@hydra.main without config_name: the config comes from the command line', it.span(node));
  // config_path relative to the script's folder; "" (or None) is the script's folder itself (hydra/main.py).
  const dir = dirV?.t === 'str' && dirV.v !== '' ? dirV.v.replace(/\/+$/, '') : '.';
  const load = (rel: string): Value => {
    const abs = it.loader?.locate(`${dir}/${rel}`);
    const text = abs ? it.loader?.readText(abs) : undefined;
    if (text === undefined) return unknown(`hydra config ${dir}/${rel} is not in the workspace`, it.span(node));
    try { return fromData(parseYaml(text, { maxAliasCount: 100 }), true); } catch (e) { return unknown(`${dir}/${rel}: ${(e as Error).message.split('\n')[0]}`, it.span(node)); }
  };
  const primary = load(nameV.v.endsWith('.yaml') ? nameV.v : `${nameV.v}.yaml`);
  if (primary.t !== 'dict') return primary;
  const out: Value = { t: 'dict', keys: [], vals: [], attrs: true };
  const put = (k: string, v: Value) => {
    const i = out.keys.findIndex((x) => x.t === 'str' && x.v === k);
    if (i >= 0) out.vals[i] = v; else { out.keys.push(str(k)); out.vals.push(v); }
  };
  const own = () => primary.keys.forEach((k, i) => { if (k.t === 'str' && k.v !== 'defaults') put(k.v, primary.vals[i]); });
  const di = primary.keys.findIndex((k) => k.t === 'str' && k.v === 'defaults');
  const defaults = di >= 0 ? primary.vals[di] : undefined;
  // Command-line overrides (hydra/core/override_parser): `group=option` picks another file of a config group
  // of the defaults list, `key.sub=value` (and `+key=value`, `++key=value`) sets a value after composition,
  // `~key` deletes it. Values are YAML scalars; a word the shell leaves unknown makes its key unknown.
  const words = commandLine(it) ?? [];
  const groupPick = new Map<string, string>();
  const sets: [string[], Value][] = [];
  const dels: string[][] = [];
  for (const w of words) {
    if (w === null) continue;
    if (w.startsWith('~')) { dels.push(w.slice(1).split('=')[0].split('.')); continue; }
    const m = /^\+{0,2}([\w./-]+)=(.*)$/s.exec(w);
    if (!m || w.startsWith('-')) continue;
    const key = m[1];
    let v: Value;
    try { v = fromData(parseYaml(m[2] === '' ? "''" : m[2]), true); } catch { v = str(m[2]); }
    sets.push([key.split('.'), v]);
    if (!key.includes('.') && !key.includes('/') && v.t !== 'dict' && v.t !== 'list') groupPick.set(key, m[2]);
  }
  let selfPlaced = false;
  const groupsSeen = new Set<string>();
  for (const d of defaults?.t === 'list' ? defaults.items : []) {
    if (d.t === 'str' && d.v === '_self_') { own(); selfPlaced = true; continue; }
    if (d.t === 'dict' && d.keys.length === 1 && d.keys[0].t === 'str' && (d.vals[0].t === 'str' || d.vals[0].t === 'none')) {
      const group = d.keys[0].v.replace(/^override /, '');
      groupsSeen.add(group);
      const option = groupPick.get(group) ?? (d.vals[0].t === 'str' ? d.vals[0].v : undefined);
      if (option !== undefined && option !== 'null') put(group, load(`${group}/${option}.yaml`));
    }
  }
  // Without `_self_` in the list, hydra 1.1+ composes the primary config after its defaults.
  if (!selfPlaced) own();
  for (const [path, v] of sets) {
    if (path.length === 1 && groupsSeen.has(path[0])) continue; // a group choice, applied above
    let cur: Value = out;
    for (const k of path.slice(0, -1)) {
      if (cur.t !== 'dict') break;
      const i = cur.keys.findIndex((x) => x.t === 'str' && x.v === k);
      if (i < 0) { const d: Value = { t: 'dict', keys: [], vals: [], attrs: true }; cur.keys.push(str(k)); cur.vals.push(d); cur = d; } else cur = cur.vals[i];
    }
    if (cur.t !== 'dict') continue;
    const last = path[path.length - 1];
    const i = cur.keys.findIndex((x) => x.t === 'str' && x.v === last);
    if (i >= 0) cur.vals[i] = v; else { cur.keys.push(str(last)); cur.vals.push(v); }
  }
  for (const path of dels) {
    let cur: Value = out;
    for (const k of path.slice(0, -1)) { if (cur.t !== 'dict') break; const i = cur.keys.findIndex((x) => x.t === 'str' && x.v === k); if (i < 0) break; cur = cur.vals[i]; }
    if (cur.t !== 'dict') continue;
    const i = cur.keys.findIndex((x) => x.t === 'str' && x.v === path[path.length - 1]);
    if (i >= 0) { cur.keys.splice(i, 1); cur.vals.splice(i, 1); }
  }
  // Interpolations (`${model.dim}`) read as OmegaConf reads them once the config is composed.
  resolveInterpolations(out);
  return out;
}

/**
 * Calls an entry function (or builds a class) the way a CLI wrapper does: with its defaults, and with the
 * command line's words when the program is analysed with a launch command (fire's rules, argv.ts).
 */
function callWithDefaults(it: Interpreter, target: Value | undefined, node: SyntaxNode, args: Value[] = [], words?: ArgWord[], fire = false, required?: (name: string) => Value): Value {
  if (!target) return NONE;
  if (target.t === 'func') {
    const params = (target.node.childForFieldName('parameters')?.namedChildren ?? []).filter((p): p is SyntaxNode => !!p);
    const named = params.map((p) => (p.type === 'identifier' ? p.text : (p.childForFieldName('name') ?? p.namedChildren[0])?.text ?? '')).filter((x) => x && x !== 'self');
    const positional = params.filter((p) => p?.type === 'identifier' || p?.type === 'typed_parameter').length;
    if (required) {
      // Parameters with no default (not *args / **kwargs) that neither a positional word nor a flag gives.
      const bare = params.filter((p) => p.type === 'identifier' || (p.type === 'typed_parameter' && !/^[*]/.test(p.text))).map((p) => (p.type === 'identifier' ? p.text : p.namedChildren.find((x) => x?.type === 'identifier')?.text ?? ''));
      const { options, positional: pw } = splitOptions(words ?? [], () => false);
      const given = new Set(options.map((o) => o.name.replace(/-/g, '_')));
      const fill = new Map<string, Value>();
      bare.forEach((n, i) => { if (n && n !== 'self' && i >= pw.length && !given.has(n)) fill.set(n, required(n)); });
      if (fill.size) {
        const r = callWithDefaults(it, { ...target, partialKw: new Map([...(target.partialKw ?? []), ...fill]) }, node, args, words, fire);
        return r;
      }
    }
    if (words?.length) {
      const kw = new Map<string, Value>();
      const defaults = new Map<string, Value>();
      const ann = new Map<string, string>();
      for (const p of params) {
        const nm = (p.childForFieldName('name') ?? p.namedChildren[0])?.text;
        const ty = p.childForFieldName('type')?.text;
        if (nm && ty) ann.set(nm, ty);
        const dv = p.childForFieldName('value');
        if (nm && dv && /^(True|False)$/.test(dv.text)) defaults.set(nm, { t: 'bool', v: dv.text === 'True' });
      }
      const norm = (n: string) => n.replace(/-/g, '_');
      const takesKwargs = params.some((p) => p.type === 'dictionary_splat_pattern');
      const isFlag = (n: string) => defaults.get(norm(n))?.t === 'bool' || ann.get(norm(n)) === 'bool';
      const { options, positional: pw } = splitOptions(words, isFlag);
      const pos: Value[] = [];
      // fire reads each word as a Python literal; tyro converts it by the parameter's annotation.
      pw.forEach((w, i) => { if (i < named.length) pos.push(w === null ? unknown(`argument ${named[i]} is not known from the command`, it.span(node)) : !fire && ann.has(named[i]) ? byAnnotation(w, ann.get(named[i])) : literal(w, fire)); });
      for (const o of options) {
        let name = norm(o.name);
        let v: Value;
        if (o.value === undefined) {
          // fire's `--noflag`; tyro's `--no-flag` (`no_flag` once normalised).
          const neg = name.startsWith('no_') && named.includes(name.slice(3)) ? name.slice(3) : name.startsWith('no') && named.includes(name.slice(2)) ? name.slice(2) : undefined;
          if (!named.includes(name) && neg) { name = neg; v = { t: 'bool', v: false }; }
          else v = { t: 'bool', v: true };
        } else v = o.value === null ? unknown(`--${o.name} is given a value oomlens cannot read from the command`, it.span(node)) : ann.has(name) ? byAnnotation(o.value, ann.get(name), undefined, fire) : literal(o.value, fire);
        // fire passes unknown names to a **kwargs parameter (fire/core.py _MakeParseFn), else it stops with an error.
        if (!named.includes(name) && !takesKwargs) { it.note(`the command line's --${o.name} is not a parameter of ${target.name}; it is ignored`, node); continue; }
        kw.set(name, v);
      }
      return it.call(target, { args: pos.length ? pos : args.slice(0, positional), kw }, node);
    }
    return it.call(target, { args: args.slice(0, positional), kw: new Map() }, node);
  }
  if (target.t === 'class') return it.call(target, { args: [], kw: new Map() }, node);
  // A library function or a partial of one (`app.run(functools.partial(platform.main, Experiment))`): called with
  // what the runner passes (absl: argv).
  if (target.t === 'extern') return it.call(target, { args, kw: new Map() }, node);
  return unknown(`entry point ${describe(target)} is not followed`, it.span(node));
}

/** Adds an attribute rule in front of the interpreter's `__getattr__` chain. */
export function chainGetattr(it: Interpreter, rule: (self: Value, name: string) => Value | undefined): void {
  const prev = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, fnv) => {
    const name = c.args[0];
    if (self && name?.t === 'str') {
      const r = rule(self, name.v);
      if (r) return r;
    }
    return prev ? prev(i, self, c, node, fnv) : unknown('__pass__');
  });
}

/** The command line the program is analysed with (sys.argv[1:]), or undefined for a run with no arguments. */
export function commandLine(it: Interpreter): ArgWord[] | undefined {
  return it.state.get('argv') as ArgWord[] | undefined;
}

/** A literal list of strings as command-line words; 'unknown' when it is not one. */
function wordsOf(v: Value): ArgWord[] | 'unknown' {
  if (v.t !== 'list' && v.t !== 'tuple') return 'unknown';
  return v.items.map((x) => (x.t === 'str' ? x.v : x.t === 'int' || x.t === 'float' ? String(x.v) : null));
}

/** An argparse value word converted by `type` (a builtin, or a user function called on the word). */
function convertWord(it: Interpreter, w: ArgWord, a: ArgSpec, node: SyntaxNode): Value {
  // Noted, not only returned: a value that is not known may decide what is built (`--arch=$model` choosing the
  // builder), and a program that then builds nothing must still say why.
  if (w === null) return it.note(`\`${a.flag}\` is given a value oomlens cannot read from the command`, node);
  const t = a.typeV;
  if (!t) return str(w);
  if (t.t === 'extern') {
    if (t.name === 'builtins.int') return /^[+-]?\d+$/.test(w.trim()) ? { t: 'int', v: Number(w) } : unknown(`int(${JSON.stringify(w)}) fails: argparse would stop`, it.span(node));
    if (t.name === 'builtins.float') return Number.isFinite(Number(w)) && w.trim() ? { t: 'float', v: Number(w) } : unknown(`float(${JSON.stringify(w)}) fails: argparse would stop`, it.span(node));
    if (t.name === 'builtins.str') return str(w);
    if (t.name === 'builtins.bool') return { t: 'bool', v: w.length > 0 };
  }
  return it.call(t, { args: [str(w)], kw: new Map() }, node);
}

/** argparse's `_parse_known_args` over the recorded actions (see the header of argv.ts). */
function argparseWords(it: Interpreter, st: ParserState, words: ArgWord[], ns: InstV, node: SyntaxNode, known = false): ArgWord[] {
  // parse_known_args: the words no action takes, in the command's order (argparse.py _parse_known_args `extras`:
  // an unknown option is appended when it is met, the words after it that no positional takes right after it).
  const extras: { at: number; w: ArgWord }[] = [];
  const optionals = st.args.filter((a) => !a.positional);
  const positionals = st.args.filter((a) => a.positional);
  const find = (name: string): ArgSpec | undefined => {
    const exact = optionals.find((a) => a.flags.includes(name));
    if (exact) return exact;
    if (!name.startsWith('--')) return undefined;
    const pre = optionals.filter((a) => a.flags.some((f) => f.startsWith('--') && f.startsWith(name)));
    return pre.length === 1 ? pre[0] : undefined;
  };
  const nargsOf = (a: ArgSpec): '?' | '*' | '+' | number => {
    const n = a.nargs;
    if (n?.t === 'str' && (n.v === '?' || n.v === '*' || n.v === '+')) return n.v;
    if (n?.t === 'int') return n.v;
    return 1;
  };
  const isOption = (w: ArgWord) => w !== null && w.startsWith('-') && w.length > 1 && !/^-\d/.test(w);
  const take = (a: ArgSpec, vals: ArgWord[]): void => {
    const conv = vals.map((w) => convertWord(it, w, a, a.node));
    const n = nargsOf(a);
    let v: Value = n === 1 || (n === '?' && conv.length === 1) ? conv[0] : n === '?' ? a.constV ?? NONE : { t: 'list', items: conv };
    if (a.action === 'append') {
      const prev = ns.attrs.get(a.dest);
      v = { t: 'list', items: [...(prev?.t === 'list' ? prev.items : []), v] };
    }
    ns.attrs.set(a.dest, v);
  };
  let pos = 0;
  const positionalWords: ArgWord[] = [];
  const positionalAt: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--') { for (let j = i + 1; j < words.length; j++) { positionalWords.push(words[j]); positionalAt.push(j); } break; }
    if (!isOption(w)) { positionalWords.push(w); positionalAt.push(i); continue; }
    let name = w!;
    let attached: string | undefined;
    const eq = name.indexOf('=');
    if (name.startsWith('--') && eq > 0) { attached = name.slice(eq + 1); name = name.slice(0, eq); }
    let a = find(name);
    if (!a && !name.startsWith('--') && name.length > 2) { a = find(name.slice(0, 2)); if (a) attached = name.slice(2); }
    if (!a) {
      if (known) { extras.push({ at: i, w }); continue; }
      it.note(`the command line's \`${name}\` is not an option of this parser (argparse would stop with an error); it is ignored`, node);
      continue;
    }
    switch (a.action) {
      case 'store_true': ns.attrs.set(a.dest, { t: 'bool', v: true }); continue;
      case 'store_false': ns.attrs.set(a.dest, { t: 'bool', v: false }); continue;
      case 'store_const': ns.attrs.set(a.dest, a.constV ?? NONE); continue;
      case 'count': { const p = ns.attrs.get(a.dest); ns.attrs.set(a.dest, { t: 'int', v: (p?.t === 'int' ? p.v : 0) + 1 }); continue; }
      case 'help': case 'version': continue;
    }
    if (a.action && !['store', 'append', 'extend'].includes(a.action)) {
      ns.attrs.set(a.dest, unknown(`\`${a.flag}\` uses a custom argparse action`, it.span(a.node)));
      continue;
    }
    if (attached !== undefined) { take(a, [attached]); continue; }
    const n = nargsOf(a);
    const vals: ArgWord[] = [];
    const max = typeof n === 'number' ? n : n === '?' ? 1 : Infinity;
    while (vals.length < max && i + 1 < words.length && !isOption(words[i + 1])) vals.push(words[++i]);
    if (typeof n === 'number' && vals.length < n) { ns.attrs.set(a.dest, unknown(`\`${a.flag}\` needs ${n} value(s) on the command line`, it.span(a.node))); continue; }
    take(a, vals);
  }
  for (const a of positionals) {
    const n = nargsOf(a);
    if (n === '*' || n === '+') { take(a, positionalWords.slice(pos)); pos = positionalWords.length; continue; }
    const k = typeof n === 'number' ? n : 1;
    if (pos + k > positionalWords.length) { if (n !== '?') break; continue; }
    take(a, positionalWords.slice(pos, pos + k));
    pos += k;
  }
  for (let k = pos; k < positionalWords.length; k++) extras.push({ at: positionalAt[k], w: positionalWords[k] });
  return extras.sort((x, y) => x.at - y.at).map((e) => e.w);
}
