/**
 * Model constructions in functions the run never called.
 *
 * A file whose program builds its model inside a function that oomlens does
 * not see called (handed to a launcher it does not follow: `CLI(setup)` of a
 * library, `app.run` of a remote runner, a UI callback; a method of a class
 * nothing instantiates) would otherwise report nothing, and a user reads
 * "no model found" with no reason. Each such function of the analysed file is
 * called once, after the run, with its required arguments unknown: when that
 * builds a model (or loads one from a checkpoint it cannot name), the file
 * reports an unknown naming the function, the model and the arguments it
 * needs. Never a size: how, and whether, the program calls the function is not
 * known, so no number from it is confident (docs/accuracy.md, "Real repositories").
 */
import type { Unknown } from '../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { BudgetExceeded, Cancelled } from '../interp/interp';
import { type FuncV, type Value, unknown } from '../interp/values';

/** At most this many uncalled functions are tried, and this many reported. */
const MAX_TRIED = 24;
const MAX_REPORTED = 3;
/** Wall-clock time all the tries of one file may take, in ms. */
const PROBE_MS = 3_000;

/** A checkpoint load whose name the call could not know (frameworks/transformers: from_pretrained). */
const UNNAMED_LOAD = /\.from_pretrained: the checkpoint name is /;

export const NOT_RUN = 'not run';

export function unreachedModels(it: Interpreter): Unknown[] {
  // The tries share a time cap of their own: a file of many helpers stays as quick to analyse as it was.
  const deadline = it.deadline;
  it.deadline = Math.min(deadline, Date.now() + PROBE_MS);
  try {
    return tryFunctions(it);
  } finally {
    it.deadline = deadline;
  }
}

function tryFunctions(it: Interpreter): Unknown[] {
  const out: Unknown[] = [];
  let tried = 0;
  for (const { fn, owner, self } of candidates(it)) {
    if (out.length >= MAX_REPORTED || tried >= MAX_TRIED) break;
    tried++;
    const { call, needed } = unknownArgs(fn, owner);
    const selfName = fn.node.childForFieldName('parameters')?.namedChildren[0];
    if (self && selfName?.type === 'identifier') call.kw.set(selfName.text, self);
    const before = it.memory.watch();
    const notes = it.unknowns.length;
    try {
      it.callFunction(fn, call, fn.node);
    } catch (e) {
      if (e instanceof Cancelled) throw e;
      // A budget ends the tries (what the run had left is spent); any other failure is this try's only.
      if (e instanceof BudgetExceeded) break;
    }
    const rec = it.memory.firstReportedSince(before);
    const load = it.unknowns.slice(notes).find((u) => UNNAMED_LOAD.test(u.reason));
    if (!rec && !load) continue;
    const label = owner ? `${owner}.${fn.name}` : fn.name;
    const what = rec ? `builds \`${rec.name}\`` : `loads a model (${load!.reason})`;
    const needs = [
      ...(needed.length ? [`its arguments (${needed.join(', ')}) are not known`] : []),
      ...(rec?.unknowns.length ? [`its size is not known: ${rec.unknowns[0].reason}`] : []),
    ].map((x) => `; ${x}`).join('');
    const used = firstUse(it, fn, owner);
    const why = self ? `the \`${owner}\` object the program makes is handed to code oomlens does not follow, and nothing it follows calls the method`
      : used ? `nothing the program runs calls it as far as oomlens follows (it is used at line ${used})` : 'nothing in the program calls it';
    const span = rec && !rec.span.file ? rec.span : load?.span && !load.span.file ? load.span : it.span(fn.node.childForFieldName('name')!);
    // One line per construction: `setup` reaching `main`'s build names it once, by the outermost function.
    if (out.some((u) => u.span?.start === span.start && !u.span.file)) continue;
    out.push({
      what: NOT_RUN,
      reason: `\`${label}\` ${what} but ${why}${needs}: declare the construction in [[tool.oomlens.models]] or the run in [[tool.oomlens.runs]]`,
      span,
    });
  }
  return out;
}

/** The file's module-level functions and the methods of its plain classes that the run did not call. */
function candidates(it: Interpreter): { fn: FuncV; owner?: string; self?: Value }[] {
  const out: { fn: FuncV; owner?: string; self?: Value }[] = [];
  const notEntered = (v: Value | undefined): v is FuncV => v?.t === 'func' && v.node.tree === it.tree && !it.entered.has(v.node.startIndex);
  for (const n of it.tree.rootNode.namedChildren) {
    const d = n?.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    const name = d?.childForFieldName('name')?.text;
    if (!d || !name) continue;
    const v = it.globals.vars.get(name);
    if (d.type === 'function_definition' && notEntered(v) && v.node.startIndex === d.startIndex) out.push({ fn: v });
    // A model class is built by its own path (program/defaults.ts); a plain class's methods may build one.
    if (d.type === 'class_definition' && v?.t === 'class' && v.kind === 'plain' && v.node?.startIndex === d.startIndex) {
      // A method of an object the run made and handed to code it does not follow (`run_loop(agent=agent)`) runs on it.
      const self = v.node ? it.lastInstance.get(v.node.startIndex) : undefined;
      for (const m of v.ns.values()) if (notEntered(m) && !m.name.startsWith('__')) out.push({ fn: m, owner: v.name, self });
    }
  }
  return out;
}

/** Keyword arguments for the parameters without a default, each unknown; `self` of a method included. */
function unknownArgs(fn: FuncV, owner: string | undefined): { call: CallArgs; needed: string[] } {
  const kw = new Map<string, Value>();
  const needed: string[] = [];
  const params = fn.node.childForFieldName('parameters')?.namedChildren ?? [];
  params.forEach((p, i) => {
    if (!p) return;
    let name: string | undefined;
    if (p.type === 'identifier') name = p.text;
    else if (p.type === 'typed_parameter' && p.namedChildren[0]?.type === 'identifier') name = p.namedChildren[0].text;
    if (!name) return;
    const self = owner !== undefined && i === 0;
    kw.set(name, unknown(self ? `\`${name}\` of a \`${owner}\` that nothing in the program creates` : `argument \`${name}\` of \`${fn.name}\`, which nothing in the program calls`));
    if (!self) needed.push(name);
  });
  return { call: { args: [], kw }, needed };
}

/** The line of the first use of the function's name outside its own definition, if any. */
function firstUse(it: Interpreter, fn: FuncV, owner: string | undefined): number | undefined {
  const def = fn.node;
  let found: SyntaxNode | undefined;
  const walk = (n: SyntaxNode): void => {
    if (found || (n.startIndex >= def.startIndex && n.endIndex <= def.endIndex)) return;
    if (owner ? n.type === 'attribute' && n.childForFieldName('attribute')?.text === fn.name : n.type === 'identifier' && n.text === fn.name) { found = n; return; }
    // `fabric.setup(...)` names another object's attribute, not this function; a keyword's name is no use either.
    const skip = n.type === 'attribute' ? n.childForFieldName('attribute') : n.type === 'keyword_argument' ? n.childForFieldName('name') : null;
    for (const c of n.namedChildren) if (c && !(skip && c.id === skip.id)) walk(c);
  };
  walk(it.tree.rootNode);
  return found ? found.startPosition.row + 1 : undefined;
}
