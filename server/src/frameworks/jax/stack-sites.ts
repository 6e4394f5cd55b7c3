/**
 * Syntax facts about a vmapped layer stack and the cast that copies it, read
 * from the interpreter while it runs, so that OOM101's fix can rewrite the
 * nodes themselves however the code is spelled: the vmapped call
 * (`V(F, ...)(A)` or a call of a vmap-decorated def), the mapped function,
 * the outermost call that casts the stack (`jtu.tree_map(...)`, `to_half(x)`,
 * `x.astype(...)`), the argument of that call that holds the stack, and the
 * statement around it. Offsets only; the rule builds the edits.
 */
import type { Span } from '../../../../shared/src/facts';
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { visitTensors } from '../../interp/memory';
import type { Env, TensorV, Value } from '../../interp/values';

const frameIds = new WeakMap<Env, number>();
let nextFrame = 1;
export function frameId(env: Env): number {
  let id = frameIds.get(env);
  if (id === undefined) { id = nextFrame++; frameIds.set(env, id); }
  return id;
}

/** How the program spells a library callable (`equinox.filter_jit` → `eqx.filter_jit`), or undefined if it does not import it. */
export function spelling(it: Interpreter, qual: string): string | undefined {
  const mod = qual.slice(0, qual.lastIndexOf('.'));
  const attr = qual.slice(qual.lastIndexOf('.') + 1);
  let viaModule: string | undefined;
  for (const [name, v] of it.globals.vars) {
    if (v.t !== 'extern' || v.self) continue;
    if (v.name === qual) return name;
    if (v.name === mod) viaModule ??= `${name}.${attr}`;
  }
  return viaModule;
}

/** Identifiers used in a node (names, not attribute names). */
export function identifiers(node: SyntaxNode, skip?: Span): string[] {
  const out = new Set<string>();
  const walk = (n: SyntaxNode): void => {
    if (skip && n.startIndex >= skip.start && n.endIndex <= skip.end) return;
    if (n.type === 'identifier') {
      const p = n.parent;
      if (!(p?.type === 'attribute' && p.childForFieldName('attribute')?.id === n.id) && !(p?.type === 'keyword_argument' && p.childForFieldName('name')?.id === n.id)) out.add(n.text);
    }
    for (const c of n.namedChildren) if (c) walk(c);
  };
  walk(node);
  return [...out];
}

/** The spelling of `qual` in this file, or its full name and the import that makes it valid. */
export function spellOrImport(it: Interpreter, qual: string): { jit: string; jitImport?: { at: number; text: string } } {
  const spelled = spelling(it, qual);
  if (spelled) return { jit: spelled };
  const firstImport = it.tree.rootNode.namedChildren.find((c) => c?.type === 'import_statement' || c?.type === 'import_from_statement');
  return { jit: qual, jitImport: { at: firstImport?.startIndex ?? 0, text: `import ${qual.split('.')[0]}\n` } };
}

export interface VmapSite {
  /** The vmapped call `X(A)`, its callee X and its argument list A. */
  call: Span; callee: Span; args: Span;
  /** When X is `V(F, ...)`: the mapped function F. */
  fn?: Span;
  /** F as a lambda with plain parameters: its parameter names and body. */
  lambda?: { params: string[]; body: Span; bodyIsPrimary: boolean };
  /** A's arguments: null for positional, the name for keyword; undefined if A has splats. */
  argKinds?: (string | null)[];
  /** Names used in X (the fresh lambda parameter must avoid them). */
  idents: string[];
  /** The jit to wrap in, as this file spells it, and an import to add when it does not. */
  jit: string; jitImport?: { at: number; text: string };
  frame: number; frameLocals: string[];
}

const PRIMARY = new Set(['call', 'attribute', 'identifier', 'subscript', 'parenthesized_expression']);

export function vmapSite(it: Interpreter, node: SyntaxNode, vmapName: string, equinoxResult: boolean): VmapSite | undefined {
  const callee = node.childForFieldName('function');
  const args = node.childForFieldName('arguments');
  if (!callee || !args) return undefined;
  let fn: SyntaxNode | undefined;
  if (callee.type === 'call') {
    const a = callee.childForFieldName('arguments');
    const first = a?.namedChildren[0];
    if (first && first.type !== 'keyword_argument') fn = first;
  }
  let lambda: VmapSite['lambda'];
  if (fn?.type === 'lambda') {
    const ps = fn.childForFieldName('parameters')?.namedChildren ?? [];
    const body = fn.childForFieldName('body');
    if (body && ps.every((p) => p?.type === 'identifier')) {
      lambda = { params: ps.map((p) => p!.text), body: it.span(body), bodyIsPrimary: PRIMARY.has(body.type) };
    }
  }
  let argKinds: (string | null)[] | undefined = [];
  for (const a of args.namedChildren) {
    if (!a) continue;
    if (a.type === 'keyword_argument') argKinds.push(a.childForFieldName('name')!.text);
    else if (a.type === 'list_splat' || a.type === 'dictionary_splat') { argKinds = undefined; break; }
    else argKinds.push(null);
  }
  const eqx = equinoxResult || vmapName.startsWith('equinox.');
  const qual = eqx ? 'equinox.filter_jit' : 'jax.jit';
  const frame = it.currentFrame();
  return {
    call: it.span(node), callee: it.span(callee), args: it.span(args), fn: fn ? it.span(fn) : undefined, lambda, argKinds,
    idents: identifiers(callee),
    ...spellOrImport(it, qual),
    frame: frameId(frame), frameLocals: frame === it.globals ? [] : [...frame.vars.keys()],
  };
}

export interface CastSite {
  /** The outermost call whose inputs hold the stack (`to_half(self.blocks)`), and that input (`self.blocks`). */
  call: Span; ref: Span;
  /** The statement holding the call; for an assignment, its target and value. */
  stmt: Span; left?: Span; right?: Span;
  /** Names used in the call outside the reference. */
  idents: string[];
  frame: number; global: boolean;
}

function holds(v: Value | undefined, id: number): boolean {
  // A function argument (the leaf function of a tree map) is not the data: its closure may reach the stack
  // through the module's globals, but the stack is the argument that is mapped over.
  if (!v || v.t === 'func') return false;
  let found = false;
  visitTensors(v, (t) => { if (t.id === id) found = true; });
  return found;
}

/** The call site that casts `source` (a leaf of a vmapped stack), read from the interpreter's call stack. */
export function castSite(it: Interpreter, source: TensorV): CastSite | undefined {
  for (const site of it.callSites) {
    const argNodes = (site.node.childForFieldName('arguments')?.namedChildren ?? []).filter((n): n is SyntaxNode => !!n);
    let ref: SyntaxNode | undefined;
    const positional = argNodes.filter((n) => n.type !== 'keyword_argument');
    if (positional.some((n) => n.type === 'list_splat' || n.type === 'dictionary_splat')) continue;
    site.call.args.forEach((a, i) => { if (!ref && holds(a, source.id)) ref = positional[i]; });
    if (!ref) {
      for (const n of argNodes) {
        if (n.type !== 'keyword_argument') continue;
        if (holds(site.call.kw.get(n.childForFieldName('name')!.text), source.id)) { ref = n.childForFieldName('value') ?? undefined; break; }
      }
    }
    if (!ref && site.fn.t === 'extern' && site.fn.self && holds(site.fn.self, source.id)) {
      const f = site.node.childForFieldName('function');
      if (f?.type === 'attribute') ref = f.childForFieldName('object') ?? undefined;
    }
    if (!ref) continue;
    let stmt: SyntaxNode = site.node;
    while (stmt.parent && stmt.parent.type !== 'block' && stmt.parent.type !== 'module') stmt = stmt.parent;
    const assign = stmt.type === 'expression_statement' && stmt.namedChildren[0]?.type === 'assignment' ? stmt.namedChildren[0] : undefined;
    return {
      call: it.span(site.node), ref: it.span(ref), stmt: it.span(stmt),
      left: assign?.childForFieldName('left') ? it.span(assign.childForFieldName('left')!) : undefined,
      right: assign?.childForFieldName('right') ? it.span(assign.childForFieldName('right')!) : undefined,
      idents: identifiers(site.node, it.span(ref)),
      frame: frameId(site.frame), global: site.frame === it.globals,
    };
  }
  return undefined;
}
