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
import { fromData } from './configfiles';

interface ArgSpec { dest: string; flag: string; value: Value }
interface ParserState { args: ArgSpec[]; defaults: Map<string, Value> }

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

  // ------------------------------------------------------------- argparse
  const newParser = (): Value => {
    const v: Value = { t: 'extern', name: 'argparse.ArgumentParser', args: [] };
    parsers.set(v, { args: [], defaults: new Map() });
    return v;
  };
  reg('argparse.ArgumentParser', () => newParser());
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
      value = unknown(`command-line argument \`${long ?? flags[0]}\` is required and has no default: declare the run in [[tool.oomlens.models]]`, it.span(node));
    } else if (!flags[0].startsWith('-') && c.kw.get('nargs') === undefined) {
      value = unknown(`positional command-line argument \`${flags[0]}\` has no default: declare the run in [[tool.oomlens.models]]`, it.span(node));
    } else value = NONE;
    st.args.push({ dest, flag: long ?? flags[0], value });
    return NONE;
  });
  for (const m of ['add_argument_group', 'add_mutually_exclusive_group']) method(m, (_st, self) => self);
  method('set_defaults', (st, _self, c) => { for (const [k, v] of c.kw) st.defaults.set(k, v); return NONE; });
  const parse = (st: ParserState): InstV => {
    const ns = it.newInst(namespaceClass('Namespace'));
    for (const a of st.args) ns.attrs.set(a.dest, a.value);
    for (const [k, v] of st.defaults) ns.attrs.set(k, v);
    return ns;
  };
  method('parse_args', (st) => parse(st));
  method('parse_known_args', (st) => ({ t: 'tuple', items: [parse(st), { t: 'list', items: [] }] }));
  method('add_subparsers', (_st, _self, _c, node) => unknown('argparse sub-commands are not followed', it.span(node)));
  chainGetattr(it, (self, name) => (self.t === 'extern' && parsers.has(self) ? { t: 'extern', name: `argparse.ArgumentParser.${name}`, self } : undefined));

  // ---------------------------------------------------------- absl.flags
  const flagValues = new Map<string, Value>();
  const flagsObj: Value = { t: 'dict', keys: [], vals: [], attrs: true };
  it.externValues.set('absl.flags.FLAGS', () => flagsObj);
  for (const kind of ['integer', 'float', 'string', 'bool', 'boolean', 'enum', 'list', 'multi_string', 'multi_integer', 'enum_class']) {
    reg(`absl.flags.DEFINE_${kind}`, (_s, c, node) => {
      const name = kwOr(c, 'name', 0);
      const dflt = kwOr(c, 'default', 1) ?? NONE;
      if (name?.t !== 'str') return unknown('flag name not known', it.span(node));
      flagValues.set(name.v, dflt);
      if (flagsObj.t === 'dict') { flagsObj.keys.push(str(name.v)); flagsObj.vals.push(dflt); }
      return NONE;
    });
  }
  // ml_collections config_flags (ml_collections/config_flags/config_flags.py): DEFINE_config_file's default
  // names a Python file whose get_config() is the flag's value; DEFINE_config_dict's default is the value.
  const setFlag = (name: string, v: Value) => {
    flagValues.set(name, v);
    if (flagsObj.t === 'dict') { flagsObj.keys.push(str(name)); flagsObj.vals.push(v); }
  };
  reg('ml_collections.config_flags.DEFINE_config_file', (_s, c, node) => {
    const name = kwOr(c, 'name', 0);
    const dflt = kwOr(c, 'default', 1);
    if (name?.t !== 'str') return NONE;
    if (dflt?.t !== 'str') { setFlag(name.v, unknown(`--${name.v} names the config file and has no default: declare the run in [[tool.oomlens.models]]`, it.span(node))); return NONE; }
    const [file, arg] = dflt.v.split(':');
    const abs = it.loader?.locate(file);
    const mod = abs ? it.importFile(abs, node) : undefined;
    const getConfig = mod?.env?.vars.get('get_config');
    setFlag(name.v, getConfig ? it.call(getConfig, { args: arg ? [str(arg)] : [], kw: new Map() }, node) : unknown(`config file ${file} could not be read`, it.span(node)));
    return NONE;
  });
  reg('ml_collections.config_flags.DEFINE_config_dict', (_s, c) => {
    const name = kwOr(c, 'name', 0);
    if (name?.t === 'str') setFlag(name.v, kwOr(c, 'config', 1) ?? NONE);
    return NONE;
  });
  reg('absl.flags.mark_flags_as_required', () => NONE);
  reg('absl.flags.mark_flag_as_required', () => NONE);
  reg('absl.app.run', (_s, c, node) => callWithDefaults(it, c.args[0], node, [{ t: 'list', items: [str('main')] }]));

  // ------------------------------------------- fire, typer, jsonargparse, click
  for (const n of ['fire.Fire', 'typer.run', 'jsonargparse.CLI', 'jsonargparse.auto_cli']) {
    reg(n, (_s, c, node) => (c.args[0] ? callWithDefaults(it, c.args[0], node) : unknown(`${n}() without a target is not followed`, it.span(node))));
  }
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

  // ------------------------------------------------------ HfArgumentParser
  reg('transformers.HfArgumentParser', (_s, c) => {
    const types = c.args[0] ?? c.kw.get('dataclass_types');
    const items = types ? (types.t === 'tuple' || types.t === 'list' ? types.items : [types]) : [];
    return { t: 'extern', name: 'transformers.HfArgumentParser#', args: items };
  });
  const hfParse = (self: Value | undefined, node: SyntaxNode): Value => {
    const items = self?.t === 'extern' ? self.args ?? [] : [];
    return { t: 'tuple', items: items.map((cls) => it.call(cls, { args: [], kw: new Map() }, node)) };
  };
  for (const m of ['parse_args_into_dataclasses', 'parse_json_file', 'parse_yaml_file', 'parse_dict']) {
    reg(`transformers.HfArgumentParser#.${m}`, (self, _c, node) => hfParse(self, node));
  }
  chainGetattr(it, (self, name) => (self.t === 'extern' && self.name === 'transformers.HfArgumentParser#' ? { t: 'extern', name: `transformers.HfArgumentParser#.${name}`, self } : undefined));
}

function hydraConfig(it: Interpreter, dirV: Value | undefined, nameV: Value | undefined, node: SyntaxNode): Value {
  if (nameV?.t !== 'str') return unknown('@hydra.main without config_name: the config comes from the command line', it.span(node));
  const dir = dirV?.t === 'str' ? dirV.v : '.';
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
  let selfPlaced = false;
  for (const d of defaults?.t === 'list' ? defaults.items : []) {
    if (d.t === 'str' && d.v === '_self_') { own(); selfPlaced = true; continue; }
    if (d.t === 'dict' && d.keys.length === 1 && d.keys[0].t === 'str' && d.vals[0].t === 'str') {
      const group = d.keys[0].v.replace(/^override /, '');
      put(group, load(`${group}/${d.vals[0].v}.yaml`));
    }
  }
  // Without `_self_` in the list, hydra 1.1+ composes the primary config after its defaults.
  if (!selfPlaced) own();
  return out;
}

/** Calls an entry function (or builds a class) the way a CLI wrapper does with no command-line arguments. */
function callWithDefaults(it: Interpreter, target: Value | undefined, node: SyntaxNode, args: Value[] = []): Value {
  if (!target) return NONE;
  if (target.t === 'func') {
    const params = target.node.childForFieldName('parameters')?.namedChildren ?? [];
    const positional = params.filter((p) => p?.type === 'identifier' || p?.type === 'typed_parameter').length;
    return it.call(target, { args: args.slice(0, positional), kw: new Map() }, node);
  }
  if (target.t === 'class') return it.call(target, { args: [], kw: new Map() }, node);
  return unknown(`entry point ${describe(target)} is not followed`, it.span(node));
}

/** Adds an attribute rule in front of the interpreter's `__getattr__` chain. */
function chainGetattr(it: Interpreter, rule: (self: Value, name: string) => Value | undefined): void {
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
