/**
 * Model classes a file defines but does not build: built from what the code
 * itself says they default to, or explained.
 *
 * After the file has run, each top-level model class (torch / equinox module)
 * that no construction reached, that is not a part of another model of the
 * file (built inside another class's body) and not a base class of one, is
 * built:
 * - from its constructor's defaults, with a parameter that has no default
 *   filled by a config class of the module when one can be built from its
 *   own defaults (a dataclass, NamedTuple, or plain class whose every field
 *   has a default) and the parameter is annotated with it, or is the only
 *   config-like class in scope (`def __init__(self, config)` beside
 *   `@dataclass class GPTConfig`);
 * - or through a module-level builder function whose parameters all have
 *   defaults and that returns the class (`def resnet18(**kwargs): return ResNet(...)`).
 * Otherwise the class is reported as not built, with what is missing.
 * Flax and Haiku modules create parameters only when initialised with an
 * input, which the class alone does not give: they are explained, not built.
 */
import { BudgetExceeded, Cancelled, type CallArgs, type Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import type { SyntaxNode } from '../interp/parser';
import { nodesWithin, syntaxIndex } from '../interp/syntaxIndex';
import type { ClassV, FuncV, Value } from '../interp/values';

export interface Unbuilt { name: string; node: SyntaxNode; reason: string }
export interface DefaultBuild { record: ModelRecord; how: string }

const CONFIG_PARAM = /^(config|cfg|conf|args|model_args|params|hparams|hp|opt|options|model_config|settings)$/i;
const CONFIG_CLASS = /(config|args|params|hparams|settings|options|cfg)$/i;

export function buildFromDefaults(it: Interpreter): { built: DefaultBuild[]; unbuilt: Unbuilt[] } {
  const built: DefaultBuild[] = [];
  const unbuilt: Unbuilt[] = [];
  const root = it.tree.rootNode;
  const classNodes = root.namedChildren.flatMap((n) => {
    const d = n?.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    return d?.type === 'class_definition' ? [d] : [];
  });
  const funcNodes = root.namedChildren.flatMap((n) => {
    const d = n?.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    return d?.type === 'function_definition' ? [d] : [];
  });
  // The file's calls and annotations, searched once (not once per class and builder).
  const index = () => syntaxIndex(it.tree);
  const builtClasses = new Set(it.memory.reported().flatMap((r) => (r.definitionSpan && !r.definitionSpan.file ? [r.definitionSpan.start] : [])));
  // Classes built on the meta device (init_empty_weights, torch.device("meta")): built, holding no memory.
  for (const s of (it.state.get('metaBuiltClasses') as Set<number> | undefined) ?? []) builtClasses.add(s);
  const model = (v: Value | undefined): v is ClassV => v?.t === 'class' && v.node?.tree === it.tree && v.kind !== 'plain';
  const classes = classNodes.map((n) => it.globals.vars.get(n.childForFieldName('name')!.text)).filter(model);
  // Parts of other models (called inside another class's body) and bases of other classes are not models of their own.
  const usedInside = new Set<string>();
  for (const n of classNodes) {
    const name = n.childForFieldName('name')!.text;
    for (const c of nodesWithin(index().call, n)) {
      const f = c?.childForFieldName('function');
      const id = f?.type === 'identifier' ? f.text : f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
      if (id && id !== name) usedInside.add(id);
    }
    for (const b of n.childForFieldName('superclasses')?.namedChildren ?? []) if (b?.type === 'identifier') usedInside.add(b.text);
    // Annotated fields naming another class (`encoder: Encoder` in a dataclass-style module) make it a part.
    const body = n.childForFieldName('body');
    for (const t of body ? nodesWithin(index().type, body) : []) {
      for (const id of t ? [t, ...t.descendantsOfType('identifier')] : []) if (id?.type === 'identifier' && id.text !== name) usedInside.add(id.text);
    }
  }
  // Builder functions: module-level defs that construct a model class and take only defaulted parameters.
  const builderOf = new Map<string, FuncV[]>();
  for (const f of funcNodes) {
    const fv = it.globals.vars.get(f.childForFieldName('name')!.text);
    if (fv?.t !== 'func' || !allDefaulted(fv)) continue;
    for (const c of nodesWithin(index().call, f)) {
      const fn = c?.childForFieldName('function');
      if (fn?.type !== 'identifier') continue;
      const target = classes.find((k) => k.name === fn.text);
      if (target) { builderOf.set(target.name, [...(builderOf.get(target.name) ?? []), fv]); break; }
    }
  }

  for (const cls of classes) {
    if (builtClasses.has(cls.node!.startIndex) || usedInside.has(cls.name)) continue;
    // Reported on the class statement: its span is the one other programs' records carry as definitionSpan.
    const nameNode = cls.node!;
    if (cls.kind === 'flax' || cls.kind === 'haiku') {
      unbuilt.push({ name: cls.name, node: nameNode, reason: `\`${cls.name}\` creates its parameters when initialised with an input; no \`init\` call with an input shape was found: declare one in [[tool.oomlens.models]]` });
      continue;
    }
    const builders = builderOf.get(cls.name) ?? [];
    if (builders.length) {
      for (const b of builders) {
        const { rec } = attempt(it, () => it.call(b, { args: [], kw: new Map() }, nameNode));
        if (rec) { rec.name = b.name; built.push({ record: rec, how: `built by \`${b.name}()\` with its defaults` }); }
      }
      continue;
    }
    const plan = constructorArgs(it, cls, nameNode);
    if ('missing' in plan) {
      unbuilt.push({ name: cls.name, node: nameNode, reason: `\`${cls.name}\` needs its constructor arguments (${plan.missing.join(', ')}) and no program in the workspace builds it: declare one in [[tool.oomlens.models]]` });
      continue;
    }
    const { rec, budget } = attempt(it, () => it.call(cls, plan.call, nameNode));
    if (rec) built.push({ record: rec, how: plan.how });
    else unbuilt.push({ name: cls.name, node: nameNode, reason: `\`${cls.name}\` could not be built from its defaults${budget ? `: ${budget}` : ''}` });
  }
  return { built, unbuilt };
}

function attempt(it: Interpreter, run: () => Value): { rec: ModelRecord | undefined; budget?: string } {
  // The first model record the build added (a snapshot, not a set of every record: one build per class).
  const before = it.memory.watch();
  let budget: string | undefined;
  try {
    run();
  } catch (e) {
    // A newer edit cancels the whole run; a budget cut is named; any other failure leaves the class unbuilt.
    if (e instanceof Cancelled) throw e;
    if (e instanceof BudgetExceeded) budget = e.message;
  }
  return { rec: it.memory.firstReportedSince(before), budget };
}

/** Whether every parameter (after `self` for a method) has a default; `*args`/`**kwargs` need none. */
function allDefaulted(fn: FuncV, method = false): boolean {
  const ps = fn.node.childForFieldName('parameters')?.namedChildren ?? [];
  return ps.every((p, i) => !p || (method && i === 0) || (p.type !== 'identifier' && p.type !== 'typed_parameter'));
}

/** Arguments that build `cls` from defaults, or the parameters that have none. */
function constructorArgs(it: Interpreter, cls: ClassV, at: SyntaxNode): { call: CallArgs; how: string } | { missing: string[] } {
  const init = it.classAttr(cls, '__init__');
  const call: CallArgs = { args: [], kw: new Map() };
  if (init?.t !== 'func') {
    // Dataclass-style modules (equinox fields): every field needs a default.
    const missing = cls.dataclass ? cls.fields.filter((f) => it.classAttr(cls, f) === undefined) : [];
    return missing.length ? { missing } : { call, how: `built with \`${cls.name}()\`'s defaults` };
  }
  const missing: string[] = [];
  const used: string[] = [];
  const params = init.node.childForFieldName('parameters')?.namedChildren ?? [];
  params.forEach((p, i) => {
    if (!p || i === 0) return; // self
    if (p.type !== 'identifier' && p.type !== 'typed_parameter') return;
    const name = p.type === 'identifier' ? p.text : p.namedChildren.find((c) => c?.type === 'identifier')?.text ?? p.text;
    if (p.type === 'typed_parameter' && p.namedChildren.some((c) => c?.type === 'list_splat_pattern' || c?.type === 'dictionary_splat_pattern')) return;
    const ann = p.type === 'typed_parameter' ? p.childForFieldName('type')?.text : undefined;
    const cfg = configFor(it, name, ann, at);
    if (cfg) { call.kw.set(name, cfg.value); used.push(`${cfg.name}()`); } else missing.push(name);
  });
  if (missing.length) return { missing };
  return { call, how: used.length ? `built from ${used.join(', ')} defaults` : `built with \`${cls.name}()\`'s defaults` };
}

/** A config object for a constructor parameter: its annotated class, or the one config class in scope, built from its own defaults. */
function configFor(it: Interpreter, param: string, ann: string | undefined, at: SyntaxNode): { name: string; value: Value } | undefined {
  const scope = it.globals.vars;
  const candidates: ClassV[] = [];
  const annName = ann?.replace(/^["']|["']$/g, '').split('.').pop();
  const annotated = annName ? scope.get(annName) : undefined;
  if (annotated?.t === 'class') candidates.push(annotated);
  else if (!ann && CONFIG_PARAM.test(param)) {
    const configs = [...scope.values()].filter((v): v is ClassV => v.t === 'class' && v.kind === 'plain' && CONFIG_CLASS.test(v.name) && fullyDefaulted(it, v));
    if (configs.length === 1) candidates.push(configs[0]);
  }
  for (const c of candidates) {
    if (!fullyDefaulted(it, c)) continue;
    const v = it.call(c, { args: [], kw: new Map() }, at);
    if (v.t !== 'unknown') return { name: c.name, value: v };
  }
  return undefined;
}

function fullyDefaulted(it: Interpreter, cls: ClassV): boolean {
  if (cls.dataclass) return cls.fields.every((f) => it.classAttr(cls, f) !== undefined);
  const init = it.classAttr(cls, '__init__');
  return init?.t === 'func' && allDefaulted(init, true);
}
