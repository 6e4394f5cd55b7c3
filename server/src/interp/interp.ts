/**
 * The static interpreter: runs a Python module's model-building code over
 * abstract values (shapes, dtypes, configs) without executing anything, and
 * records every accelerator allocation it implies. Python semantics are
 * followed where they decide memory (which names keep a buffer alive,
 * evaluation order, defaults, loops); library calls are answered by the
 * catalogues and the framework models in `frameworks.ts`. Anything it cannot
 * follow becomes an `unknown` value carrying its reason and location.
 */
import type { DType, Span, Unknown } from '../../../shared/src/facts';
import { PY_FLOATS, type Args, type CatValue, type Dim, type LayerEntry, type OpEntry } from './catalog-types';
import type { SyntaxNode, Tree } from './parser';
import { MAX_COUNT, MAX_DICT, MAX_ITEMS, MAX_NESTING, MAX_STR, countCapReason } from './limits';
import { Memory, type ModelRecord } from './memory';
import { percentFormat } from './strings';
import {
  type ClassV, type Env, type FuncV, type InstV, type ModuleV, type TensorV, type UnknownV, type Value,
  NONE, VersionedMap, describe, int, isUnknown, num, str, truthy, unknown,
} from './values';

export class ReturnSignal { constructor(readonly value: Value) {} }
/**
 * A Python exception the analysis knows is raised (ast.literal_eval of a word, int("3.5"), an explicit `raise`),
 * thrown only while a try statement of the same frame is running, which runs its matching handler. Outside one,
 * the old behaviour holds: the value is unknown (interp.raise) and the analysis continues.
 */
export class RaiseSignal { constructor(readonly type: string, readonly reason: string) {} }
/** Builtin exception classes above each one a program commonly catches (Python docs, "Exception hierarchy"). */
const EXCEPTION_BASES: Record<string, string[]> = {
  ValueError: ['Exception'], SyntaxError: ['Exception'], TypeError: ['Exception'], AttributeError: ['Exception'],
  KeyError: ['LookupError', 'Exception'], IndexError: ['LookupError', 'Exception'],
  ZeroDivisionError: ['ArithmeticError', 'Exception'], OverflowError: ['ArithmeticError', 'Exception'],
  ImportError: ['Exception'], ModuleNotFoundError: ['ImportError', 'Exception'],
  FileNotFoundError: ['OSError', 'IOError', 'EnvironmentError', 'Exception'], OSError: ['IOError', 'EnvironmentError', 'Exception'],
  RuntimeError: ['Exception'], NotImplementedError: ['RuntimeError', 'Exception'], AssertionError: ['Exception'],
  StopIteration: ['Exception'], UnicodeDecodeError: ['UnicodeError', 'ValueError', 'Exception'],
  KeyboardInterrupt: [], SystemExit: [],
};
const BUILTIN_EXCEPTIONS = new Set([...Object.keys(EXCEPTION_BASES), ...Object.values(EXCEPTION_BASES).flat(), 'BaseException']);
/** Whether `except <name>` catches `raised`: true, false, or undefined when it cannot be told (a program's own class). */
function exceptionMatches(name: string, raised: string): boolean | undefined {
  if (name === raised || name === 'BaseException') return true;
  const bases = EXCEPTION_BASES[raised];
  if (bases) return bases.includes(name) ? true : BUILTIN_EXCEPTIONS.has(name) ? false : undefined;
  return BUILTIN_EXCEPTIONS.has(name) && name !== 'Exception' ? false : undefined;
}
class BreakSignal {}
class ContinueSignal {}
/** Stops a generator function's body at its first yield (Interpreter.runGenerator). */
class GeneratorPaused { constructor(readonly value: Value) {} }

/** Whether a def's body yields (a generator function); yields of nested defs, lambdas and classes do not count. */
const generatorFns = new WeakMap<object, boolean>();
function isGeneratorFn(def: SyntaxNode): boolean {
  const key = def as unknown as object;
  const hit = generatorFns.get(key);
  if (hit !== undefined) return hit;
  let found = false;
  const walk = (n: SyntaxNode | null) => {
    if (!n || found) return;
    if (n.type === 'yield') { found = true; return; }
    if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') return;
    for (const c of n.namedChildren) walk(c);
  };
  if (def.type === 'function_definition') walk(def.childForFieldName('body'));
  generatorFns.set(key, found);
  return found;
}
export class BudgetExceeded extends Error {}
/** Thrown when a run is superseded (a newer edit arrived); the caller drops the result. */
export class Cancelled extends Error {}

export interface Catalogues {
  layers: Map<string, LayerEntry>;
  ops: Map<string, OpEntry>;
  inits: Map<string, { random: boolean; factory: boolean; citation: string }>;
}

/** What a call site looks like once evaluated. */
export interface CallArgs { args: Value[]; kw: Map<string, Value> }

export type ExternHandler = (it: Interpreter, self: Value | undefined, call: CallArgs, node: SyntaxNode, fnValue: Value & { t: 'extern' }) => Value;

/**
 * Where the interpreter finds the user's other files. The workspace layer
 * (server/src/program/) implements it; without one, imports of local modules
 * stay unknown.
 */
export interface ModuleLoader {
  /** Folders searched for an absolute import (sys.path order). */
  searchDirs(extra: string[]): string[];
  /** The file or package folder for `dotted` in `dirs`. */
  find(dotted: string, dirs: string[]): { path?: string; dir?: string } | undefined;
  /** The package folder `level` dots up from a file (`from . import x`: level 1). */
  relativeBase(fromFile: string, level: number): string | undefined;
  /** A workspace file's text and tree, or undefined when it cannot be read. */
  load(path: string): { path: string; text: string; tree: Tree } | undefined;
  /** The path as shown to the user (relative to the workspace root). */
  rel(path: string): string;
  /** A data file the program reads (JSON, YAML, TOML): an absolute path inside the workspace for a path as written, or undefined. */
  locate(written: string): string | undefined;
  /** The text of a workspace file, or undefined (outside the workspace, unreadable, too large, binary). */
  readText(path: string): string | undefined;
  /** The entries of a workspace folder (names, sorted), or undefined when it is outside the workspace or unreadable. */
  list?(dir: string): string[] | undefined;
  /**
   * For a path as written that names no file: whether it would be inside the workspace (undefined: outside
   * or not decidable), and which workspace script in its folder (or the folders up to the root) names it.
   */
  missing(written: string): { madeByScript?: string } | undefined;
}

/** At most this many workspace modules are evaluated in one analysis. */
/** Methods that add or remove parts of a module (ModuleList / ModuleDict / Sequential edits, Module registration). */
const CONTAINER_EDITS = new Set(['append', 'extend', 'insert', 'add_module', 'register_module', 'register_buffer', 'register_parameter', 'update', 'setdefault', 'pop', 'popitem', 'clear', '__setitem__', '__delitem__']);

/** Builtins without side effects, allowed in a loop body that only fills local data (localOnlyWrites). */
const PURE_BUILTINS = new Set(['len', 'isinstance', 'str', 'int', 'float', 'bool', 'tuple', 'list', 'dict', 'min', 'max', 'abs', 'print', 'repr', 'sorted', 'enumerate', 'zip', 'range', 'hasattr']);
/** Methods of dicts, lists and strings a local-only loop body may call (they touch only that local value). */
/** Python's dict methods (docs, "Mapping Types — dict"). */
const DICT_METHODS = new Set(['clear', 'copy', 'fromkeys', 'get', 'items', 'keys', 'pop', 'popitem', 'setdefault', 'update', 'values']);
const MUTATING_METHODS = new Set(['append', 'extend', 'insert', 'update', 'setdefault', 'pop', 'add', 'remove', 'discard', 'clear']);
const DATA_METHODS = new Set(['append', 'extend', 'insert', 'update', 'setdefault', 'pop', 'get', 'add', 'remove', 'discard', 'clear', 'items', 'keys', 'values', 'startswith', 'endswith', 'replace', 'split', 'strip', 'lower', 'upper', 'format', 'join', 'copy', 'count', 'index']);
const MAX_MODULES = 300;

const MAX_DEPTH = 60;
const MAX_LOOP = 100_000;
/** Iterations of a `while True:` loop followed before it is taken as not ending (execWhile). */
const MAX_FOREVER = 1_000;
/** The analyzer's own time and memory budget, checked every few thousand steps. */
const CHECK_EVERY = 4096;

export class Interpreter {
  /** The module namespace; its map counts changes (phases cache lookups by value over it). */
  readonly globals: Env & { vars: VersionedMap<string, Value> } = { vars: new VersionedMap() };
  readonly frames: Env[] = [];
  readonly temps: Value[] = [];
  /** Attribute-assignment targets being evaluated, outermost first ("layers", "attention"...). */
  readonly targets: string[] = [];
  /** The assignment statements those targets belong to. */
  readonly targetNodes: SyntaxNode[] = [];
  /** The calls being evaluated, outermost first, with their evaluated callee and arguments and the frame that made them. */
  readonly callSites: { node: SyntaxNode; fn: Value; call: CallArgs; frame: Env }[] = [];
  /** Plain-JAX parameter init (frameworks/jax/plain-init.ts): called before a random draw or initializer call, and when its record's statement ends (true: keep it as a model). */
  plainInitDraw?: (node: SyntaxNode) => void;
  plainInitEnd?: (r: ModelRecord, bound: Value | undefined, stmt: SyntaxNode | undefined) => boolean;
  readonly unknowns: UnknownV[] = [];
  /** Start offsets of the analysed file's functions the run called (program/unreached.ts asks which were not). */
  readonly entered = new Set<number>();
  /** The last object the run made of each plain class of the analysed file, by class start (program/unreached.ts). */
  readonly lastInstance = new Map<number, InstV>();
  /**
   * Objects whose attributes are all known to be their instance dict (an argparse Namespace from
   * parse_args): `**vars(obj)` / `**obj.__dict__` expand to them. One whose `__dict__` was handed
   * out (vars(obj) alone, obj.__dict__), or that got an attribute of a name not known, leaves.
   */
  readonly completeAttrs = new WeakSet<InstV>();
  /**
   * Objects a loop that could not be unrolled may have changed (`model.append(...)` in its body): the
   * reason. A model holding one has an unknown count (analyze.ts), never the count before the loop.
   */
  readonly changedByUnknownLoop = new WeakMap<InstV, string>();
  /**
   * The library object behind an instance of a program's subclass of a library class oomlens models as a value
   * (`class ArgumentParserPlus(HfArgumentParser)`): made by the base's `__init__` handler, it answers the attributes
   * the subclass does not define.
   */
  readonly libBase = new WeakMap<InstV, Value>();
  /**
   * Every name an import statement bound, in execution order: the local
   * name, the statement, whether it is at module level, and the import
   * re-spelled for that one name (`import os as o`, `from os import environ`),
   * so a fix that moves code above an import can bring the binding with it.
   */
  readonly imports: { local: string; span: Span; moduleLevel: boolean; text: string }[] = [];
  readonly memory: Memory;
  steps = 0;
  /** Current nesting of exec/eval (through calls); see MAX_NESTING. */
  private nesting = 0;
  /** Wall-clock deadline (Date.now() based) and heap cap; exceeding either ends the run with an unknown. */
  deadline = Infinity;
  heapCapBytes = Infinity;
  /** Polled with the budget: returns true when the run is no longer wanted (a newer edit superseded it). */
  cancelled: () => boolean = () => false;
  private nextInstId = 1;
  /** Handlers for library calls, by qualified name (frameworks.ts fills this). */
  readonly externs = new Map<string, ExternHandler>();
  /** Prefix handlers: first matching prefix wins (e.g. 'transformers.' for every Auto class). */
  readonly externPrefixes: [string, ExternHandler][] = [];
  /**
   * Told of every call the program's own code does not run (a library function or method, calling an instance,
   * an unknown callable), before it is made: a framework notes what its objects are handed to (a model passed to a
   * trainer, run, or moved is used; one only read for its state dict is not).
   */
  readonly callObservers: ((fn: Value, call: CallArgs, node: SyntaxNode) => void)[] = [];
  /** Library attributes that are values rather than functions (`absl.flags.FLAGS`), by qualified name. */
  readonly externValues = new Map<string, (it: Interpreter, node: SyntaxNode) => Value>();
  /** Free-form state the framework models keep (flax/haiku contexts, torch device scopes). */
  readonly state = new Map<string, unknown>();

  /** Workspace modules imported so far, by file path (or package folder). */
  readonly modules = new Map<string, ModuleV>();
  /** The file each syntax tree other than the main one was read from. */
  readonly fileOf = new Map<Tree, string>();
  /** Lines to add to a tree's rows (a declaration's construct sits at a line of pyproject.toml). */
  readonly lineBase = new Map<Tree, number>();
  /** Trees made for this analysis only (declarations), deleted with it. */
  readonly ownedTrees: Tree[] = [];
  /** Folders the program added to sys.path with literal values. */
  readonly sysPath: string[] = [];
  loader?: ModuleLoader;
  /** How many workspace module bodies are running (imports in progress). */
  importDepth = 0;
  /** Path of the main file, when known. */
  path?: string;

  constructor(readonly text: string, readonly tree: Tree, readonly cat: Catalogues, readonly stepBudget: number) {
    this.memory = new Memory(this);
  }

  // ---------------------------------------------------------------- helpers

  /** Offsets of a node; nodes of another file than the main one carry that file's path. */
  span(node: SyntaxNode): Span {
    if (node.tree === this.tree || this.fileOf.size === 0) return { start: node.startIndex, end: node.endIndex };
    const file = this.fileOf.get(node.tree);
    return file ? { start: node.startIndex, end: node.endIndex, file, line: node.startPosition.row + 1 + (this.lineBase.get(node.tree) ?? 0) } : { start: node.startIndex, end: node.endIndex };
  }

  /** The file a node belongs to (the main file's path for the main tree). */
  fileOfNode(node: SyntaxNode): string | undefined {
    return node.tree === this.tree ? this.path : this.fileOf.get(node.tree);
  }

  tick(node: SyntaxNode): void {
    if (++this.steps > this.stepBudget) {
      throw new BudgetExceeded(`analysis step budget (${this.stepBudget}) exhausted at line ${node.startPosition.row + 1}`);
    }
    if (this.steps % CHECK_EVERY === 0) this.checkResources(node);
  }

  private checkResources(node: SyntaxNode): void {
    if (this.cancelled()) throw new Cancelled('superseded by a newer edit');
    if (Date.now() > this.deadline) throw new BudgetExceeded(`analysis time budget exhausted at line ${node.startPosition.row + 1}`);
    if (this.heapCapBytes !== Infinity && this.steps % (CHECK_EVERY * 16) === 0 && process.memoryUsage().heapUsed > this.heapCapBytes) {
      throw new BudgetExceeded(`analysis memory budget (${Math.round(this.heapCapBytes / 2 ** 20)} MiB of heap) exhausted at line ${node.startPosition.row + 1}`);
    }
  }

  /** A list or tuple value, or an unknown naming the size cap when it holds more than MAX_ITEMS. */
  sized(t: 'list' | 'tuple', items: Value[], node?: SyntaxNode): Value {
    if (items.length > MAX_ITEMS) return this.note(`${t} of ${items.length} items is over the analysis size cap (${MAX_ITEMS} items)`, node);
    return { t, items };
  }

  /** A string value, or an unknown naming the size cap when it is longer than MAX_STR. */
  sizedStr(v: string, node?: SyntaxNode): Value {
    if (v.length > MAX_STR) return this.note(`string of ${v.length} characters is over the analysis size cap (${MAX_STR} characters)`, node);
    return str(v);
  }

  /** True (after noting why) when `n` more items would take a list past MAX_ITEMS; the list is then left as it was. */
  overCap(current: number, more: number, node: SyntaxNode): boolean {
    if (current + more <= MAX_ITEMS) return false;
    this.note(`list would grow past the analysis size cap (${MAX_ITEMS} items); the items past it are not followed`, node);
    return true;
  }

  /** Set while a @contextmanager generator runs: its yield hands control to the with body (enterGenerator). */
  private yieldHook: ((value: Value, at: SyntaxNode) => boolean) | undefined;

  note(reason: string, node?: SyntaxNode): UnknownV {
    const u = unknown(reason, node ? this.span(node) : undefined);
    this.unknowns.push(u);
    this.memory.noteUnknown({ what: node ? clip(node.text, 50) : 'value', reason, span: u.span });
    return u;
  }

  newInst(cls: ClassV): InstV {
    return { t: 'inst', id: this.nextInstId++, cls, attrs: new Map() };
  }

  line(node: SyntaxNode): number {
    return node.startPosition.row + 1;
  }

  withTemps<T>(vals: Value[], fn: () => T): T {
    const n = this.temps.length;
    for (const v of vals) this.temps.push(v);
    try {
      return fn();
    } finally {
      this.temps.length = n;
    }
  }

  // ------------------------------------------------------------ statements

  /** Runs the file as `__main__`, or, for a console script (`entry`), as the module it is, then calls its function. */
  run(entry?: { module: string; func: string }): void {
    this.globals.vars.set('__name__', str(entry?.module ?? '__main__'));
    if (this.path) this.globals.vars.set('__file__', str(this.path));
    this.frames.push(this.globals);
    try {
      this.execBlock(this.tree.rootNode.namedChildren);
      if (entry) {
        const f = this.globals.vars.get(entry.func);
        if (f) this.call(f, { args: [], kw: new Map() }, this.tree.rootNode);
        else this.unknowns.push(unknown(`the console script's function ${entry.module}:${entry.func} is not defined in the module`));
      }
    } catch (e) {
      if (e instanceof BudgetExceeded) this.unknowns.push(unknown(e.message));
      else if (e instanceof RangeError && /call stack/i.test(e.message)) this.unknowns.push(unknown(`nesting too deep for the analysis (depth limit): ${e.message}`));
      else if (e instanceof ReturnSignal || e instanceof BreakSignal || e instanceof ContinueSignal) { /* stray at module level */ }
      else if (e instanceof RaiseSignal) this.unknowns.push(unknown(`${e.reason} raises ${e.type}, not caught: the program stops there`));
      else throw e;
    } finally {
      this.frames.pop();
    }
  }

  /**
   * `exec(open(path).read())` of a workspace Python file: its statements run in the current frame (CPython
   * `exec(source)` with no namespaces given uses the caller's globals and locals). False when it cannot be read.
   */
  execFile(path: string): boolean {
    const src = this.loader?.load(path);
    if (!src) return false;
    this.fileOf.set(src.tree, src.path);
    this.execBlock(src.tree.rootNode.namedChildren);
    return true;
  }

  execBlock(stmts: (SyntaxNode | null)[]): void {
    for (const s of stmts) if (s) this.exec(s);
  }

  private body(node: SyntaxNode | null): void {
    if (node) this.execBlock(node.namedChildren);
  }

  exec(node: SyntaxNode): void {
    this.tick(node);
    if (this.nesting >= MAX_NESTING) {
      this.note(`statements nested deeper than ${MAX_NESTING} levels are not followed (depth limit)`, node);
      return;
    }
    this.nesting++;
    try {
      this.execNode(node);
    } finally {
      this.nesting--;
    }
    if (this.memory.current?.loose) this.memory.endLoose(this.boundBy(node), node);
  }

  /** The value an assignment statement bound to a name (`model = ...`), if it is one. */
  private boundBy(node: SyntaxNode): Value | undefined {
    const a = node.type === 'expression_statement' ? node.namedChildren[0] : undefined;
    const left = a?.type === 'assignment' ? a.childForFieldName('left') : undefined;
    if (left?.type !== 'identifier') return undefined;
    return this.lookup(left.text, left);
  }

  private execNode(node: SyntaxNode): void {
    switch (node.type) {
      case 'expression_statement': {
        for (const c of node.namedChildren) if (c) this.execExprStatement(c);
        return;
      }
      case 'import_statement': return this.execImport(node);
      case 'import_from_statement': return this.execImportFrom(node);
      case 'future_import_statement': return;
      case 'function_definition': { this.defineFunction(node, []); return; }
      case 'class_definition': { this.defineClass(node, []); return; }
      case 'decorated_definition': return this.execDecorated(node);
      case 'if_statement': return this.execIf(node);
      case 'for_statement': return this.execFor(node);
      case 'while_statement': return this.execWhile(node);
      case 'with_statement': return this.execWith(node);
      case 'try_statement': return this.execTry(node);
      case 'return_statement': {
        const e = node.namedChildren[0];
        throw new ReturnSignal(e ? this.eval(e) : NONE);
      }
      case 'exec_statement': {
        // tree-sitter-python reads `exec(code)` as Python 2's exec statement: the builtin, called with the code.
        const e = node.namedChildren.filter((c): c is SyntaxNode => !!c && !c.isExtra);
        const h = this.externs.get('builtins.exec');
        if (h && e.length === 1) h(this, undefined, { args: [this.eval(e[0])], kw: new Map() }, node, { t: 'extern', name: 'builtins.exec' });
        return;
      }
      case 'pass_statement': case 'assert_statement': case 'global_statement': case 'nonlocal_statement':
      case 'comment': case 'print_statement': case 'type_alias_statement':
        if (node.type === 'global_statement') {
          const f = this.frames[this.frames.length - 1];
          f.globals ??= new Set();
          for (const c of node.namedChildren) if (c) f.globals.add(c.text);
        }
        return;
      case 'break_statement': throw new BreakSignal();
      case 'continue_statement': throw new ContinueSignal();
      case 'raise_statement': {
        // Inside a try of this frame, `raise Name(...)` goes to its handler; elsewhere the function's result is unknown.
        const e = node.namedChildren[0];
        const callee = e?.type === 'call' ? e.childForFieldName('function') : e;
        if (callee && (callee.type === 'identifier' || callee.type === 'attribute') && (this.currentFrame().tryDepth ?? 0) > 0) {
          throw new RaiseSignal(callee.text.split('.').pop() ?? callee.text, `\`${clip(node.text)}\``);
        }
        // Outside a try the function ends with an unknown result; the raise is noted, so that a program that
        // stops here ("no model found") says why.
        this.note(`the program raises here: \`${clip(node.text)}\``, node);
        throw new ReturnSignal(unknown('raised an exception'));
      }
      case 'delete_statement': {
        for (const t of node.namedChildren) if (t) this.deleteTarget(t);
        return;
      }
      case 'match_statement':
        this.note('match statements are not followed', node);
        return;
      case 'ERROR':
        // Half-typed code: try the statements tree-sitter could still recognise inside.
        for (const c of node.namedChildren) if (c && /statement|definition/.test(c.type)) this.exec(c);
        return;
      default:
        return;
    }
  }

  private deleteTarget(t: SyntaxNode): void {
    if (t.type === 'identifier') this.currentFrame().vars.delete(t.text);
    else if (t.type === 'expression_list') {
      for (const c of t.namedChildren) if (c) this.deleteTarget(c);
    } else if (t.type === 'attribute') {
      const obj = this.eval(t.childForFieldName('object')!);
      if (obj.t === 'inst') obj.attrs.delete(t.childForFieldName('attribute')!.text);
    } else if (t.type === 'subscript') this.deleteItem(t);
    this.memory.collect();
  }

  /**
   * `del xs[i]` / `del xs[a:b]` / `del d[k]` (Python reference, "The del statement": deletion of a subscription
   * calls `__delitem__`). An index or key that is not known leaves the items unknown; a module container's item
   * (`del model.layers[-1]`) is not followed and says so.
   */
  private deleteItem(t: SyntaxNode): void {
    const obj = this.eval(t.childForFieldName('value')!);
    const sub = t.childForFieldName('subscript');
    if (!sub) return;
    const why = (w: string) => unknown(`\`del ${clip(t.text)}\`: ${w}`, this.span(t));
    if (obj.t === 'list') {
      if (sub.type === 'slice') {
        const [a, b, st] = sliceParts(sub).map((n) => (n ? num(this.eval(n)) : undefined));
        const hasStep = !!sliceParts(sub)[2];
        const n = obj.items.length;
        const norm = (x: number | undefined, d: number) => (x === undefined ? d : x < 0 ? Math.max(0, n + x) : Math.min(n, x));
        if (hasStep && st !== 1) { const u = why('a slice with a step is not followed'); obj.items = obj.items.map(() => u); return; }
        if ((sliceParts(sub)[0] && a === undefined) || (sliceParts(sub)[1] && b === undefined)) { const u = why('the slice bounds are not known'); obj.items = obj.items.map(() => u); return; }
        const from = norm(a, 0), to = norm(b, n);
        if (to > from) obj.items.splice(from, to - from);
        return;
      }
      const i = num(this.eval(sub));
      if (i === undefined || !Number.isInteger(i)) { const u = why('the index is not known'); obj.items = obj.items.map(() => u); return; }
      const at = i < 0 ? obj.items.length + i : i;
      if (at < 0 || at >= obj.items.length) { this.note(`\`del ${clip(t.text)}\`: index out of range (IndexError)`, t); return; }
      obj.items.splice(at, 1);
    } else if (obj.t === 'dict') {
      const k = this.eval(sub);
      const i = dictIndexOf(obj.keys, k);
      if (k.t === 'unknown') { const u = why('the key is not known'); obj.vals = obj.vals.map(() => u); return; }
      if (i >= 0) { obj.keys.splice(i, 1); obj.vals.splice(i, 1); if (obj.scope && k.t === 'str') obj.scope.vars.delete(k.v); }
    } else if (obj.t === 'inst') {
      this.note(`\`del ${clip(t.text)}\` is not followed: what ${describe(obj)} holds after it is not known`, t);
    }
  }

  private execExprStatement(e: SyntaxNode): void {
    if (e.type === 'assignment') return this.execAssign(e);
    if (e.type === 'augmented_assignment') return this.execAugAssign(e);
    this.eval(e);
    this.memory.collect(true);
  }

  currentFrame(): Env {
    return this.frames[this.frames.length - 1];
  }

  /** A name or attribute chain (no call in it) read in `env` as code there reads it; undefined for anything else. */
  evalNameIn(env: Env, node: SyntaxNode): Value | undefined {
    if ((node.type !== 'identifier' && node.type !== 'attribute') || node.descendantsOfType('call').length) return undefined;
    this.frames.push(env);
    try { return this.eval(node); } catch { return undefined; } finally { this.frames.pop(); }
  }

  private execAssign(node: SyntaxNode): void {
    const left = node.childForFieldName('left')!;
    const right = node.childForFieldName('right');
    if (!right) {
      // Annotation only (`x: int`): class bodies collect these as fields elsewhere.
      return;
    }
    let value: Value;
    const target = this.targetName(left);
    if (target) { this.targets.push(target); this.targetNodes.push(node); }
    try {
      if (right.type === 'assignment') {
        // Chained assignment a = b = expr.
        this.execAssign(right);
        value = this.eval(right.childForFieldName('left')!);
      } else {
        value = this.eval(right);
      }
    } finally {
      if (target) { this.targets.pop(); this.targetNodes.pop(); }
    }
    this.withTemps([value], () => this.assign(left, value, node));
    this.memory.collect(true);
  }

  /** The name a statement assigns to, used to label the buffers it creates. */
  private targetName(left: SyntaxNode): string | undefined {
    if (left.type === 'attribute') return left.childForFieldName('attribute')?.text;
    if (left.type === 'identifier') return left.text;
    if (left.type === 'subscript') return this.targetName(left.childForFieldName('value')!);
    return undefined;
  }

  private execAugAssign(node: SyntaxNode): void {
    const left = node.childForFieldName('left')!;
    const op = node.childForFieldName('operator')!.text.replace('=', '');
    const cur = this.eval(left);
    const rhs = this.withTemps([cur], () => this.eval(node.childForFieldName('right')!));
    // `+=` on a list or a module container is in place (list.__iadd__ extends it; ModuleList.__iadd__ is
    // `self.extend(modules)`, torch/nn/modules/container.py): every name holding it sees the new items.
    if (op === '+' && cur.t === 'inst' && cur.items && cur.cls.kind === 'torch') {
      const ext = this.getAttr(cur, 'extend', node);
      if (ext.t !== 'unknown') {
        this.call(ext, { args: [rhs], kw: new Map() }, node);
        this.memory.collect(true);
        return;
      }
    }
    const v = cur.t === 'list' && op === '+' ? this.extendInPlace(cur, rhs, node) : this.binop(op, cur, rhs, node);
    this.assign(left, v, node);
    this.memory.collect(true);
  }

  /** `xs += ys` on a list: ys's items appended to xs itself (list.__iadd__), or unknown when ys is not iterable here. */
  private extendInPlace(cur: Value & { t: 'list' }, rhs: Value, node: SyntaxNode): Value {
    const more = this.iterate(rhs, node);
    if (!more) return this.binop('+', cur, rhs, node);
    if (this.overCap(cur.items.length, more.length, node)) return cur;
    cur.items.push(...more.slice());
    return cur;
  }

  assign(target: SyntaxNode, value: Value, at: SyntaxNode): void {
    switch (target.type) {
      case 'identifier': {
        const f = this.currentFrame();
        if (f.globals?.has(target.text)) this.globals.vars.set(target.text, value);
        else f.vars.set(target.text, value);
        return;
      }
      case 'pattern_list': case 'tuple_pattern': case 'expression_list': case 'tuple': case 'list_pattern': case 'list': {
        const targets = target.namedChildren.filter((c): c is SyntaxNode => !!c);
        const items = this.iterate(value, at, targets.length);
        if (!items) {
          for (const t of targets) this.assign(t, unknown(`cannot unpack ${describe(value)}`, this.span(at)), at);
          return;
        }
        const star = targets.findIndex((t) => t.type === 'list_splat_pattern');
        if (star >= 0) {
          const before = targets.slice(0, star), after = targets.slice(star + 1);
          before.forEach((t, i) => this.assign(t, items[i] ?? unknown('unpack'), at));
          this.assign(targets[star].namedChildren[0]!, { t: 'list', items: items.slice(star, items.length - after.length) }, at);
          after.forEach((t, i) => this.assign(t, items[items.length - after.length + i] ?? unknown('unpack'), at));
          return;
        }
        targets.forEach((t, i) => this.assign(t, items[i] ?? unknown(`not enough values to unpack at line ${this.line(at)}`), at));
        return;
      }
      case 'attribute': {
        const obj = this.eval(target.childForFieldName('object')!);
        const name = target.childForFieldName('attribute')!.text;
        this.setAttr(obj, name, value, at);
        return;
      }
      case 'subscript': {
        const obj = this.eval(target.childForFieldName('value')!);
        const idx = target.childrenForFieldName('subscript').filter((c): c is SyntaxNode => !!c).map((s) => this.eval(s));
        const key = idx.length === 1 ? idx[0] : { t: 'tuple' as const, items: idx };
        this.setItem(obj, key, value, at);
        return;
      }
      case 'parenthesized_expression':
        return this.assign(target.namedChildren[0]!, value, at);
      default:
        return;
    }
  }

  setAttr(obj: Value, name: string, value: Value, at: SyntaxNode): void {
    const m = obj.t === 'inst' ? dictSubclassMapping(obj) : undefined;
    if (m && name === '__dict__' && value === obj) {
      // `self.__dict__ = self` in a dict subclass (the AttrDict idiom): attribute reads and writes are its items.
      m.attrs = true;
      return;
    }
    if (m?.attrs && name !== '__dict__') { this.setItem(m, str(name), value, at); return; }
    if (obj.t === 'inst') {
      // A dict subclass whose __setattr__ stores into the mapping (`self[name] = value`, `__setattr__ =
      // dict.__setitem__`): the attribute is a key.
      const backing = dictSubclassMapping(obj);
      if (backing && this.classAttr(obj.cls, '__setattr__') !== undefined) { this.setItem(backing, str(name), value, at); return; }
      const h = this.externs.get('__setattr__');
      if (h) h(this, obj, { args: [str(name), value], kw: new Map() }, at, { t: 'extern', name: '__setattr__' });
      else obj.attrs.set(name, value);
    } else if (obj.t === 'class') obj.ns.set(name, value);
    // `pkg.mod.Name = X` rebinds the name in that workspace module's namespace: its functions see X from then on.
    else if (obj.t === 'module' && obj.env) obj.env.vars.set(name, value);
    else if (obj.t === 'dict' && obj.attrs) this.setItem(obj, str(obj.aliases && Object.hasOwn(obj.aliases, name) ? obj.aliases[name] : name), value, at);
    // A library object that carries its keyword values (TrainingArguments, SFTConfig): later reads see the new one.
    else if (obj.t === 'extern' && obj.kw && !obj.self) obj.kw.set(name, value);
    // `param.requires_grad = flag` is requires_grad_(flag) (torch/_tensor.py: the property's setter).
    else if (obj.t === 'tensor' && name === 'requires_grad') {
      const h = this.externs.get('torch.Tensor.requires_grad_');
      if (h) h(this, obj, { args: [value], kw: new Map() }, at, { t: 'extern', name: 'torch.Tensor.requires_grad_' });
    }
  }

  /** A method the program's own class defines (`__getitem__` of `class HParams`), to dispatch `x[k]` / `x[k] = v` to. */
  private userMethod(obj: Value, name: string): (Value & { t: 'func' }) | undefined {
    if (obj.t !== 'inst' || !obj.cls.node) return undefined;
    const f = this.classAttr(obj.cls, name);
    return f?.t === 'func' ? f : undefined;
  }

  setItem(obj: Value, key: Value, value: Value, at: SyntaxNode): void {
    const own = this.userMethod(obj, '__setitem__');
    if (own) { this.callFunction({ ...own, self: obj }, { args: [key, value], kw: new Map() }, at); return; }
    if (obj.t === 'dict') {
      const i = dictIndexOf(obj.keys, key);
      if (obj.scope && key.t === 'str') obj.scope.vars.set(key.v, value);
      if (i >= 0) obj.vals[i] = value;
      else if (obj.keys.length >= MAX_DICT) this.note(`dict would grow past the analysis size cap (${MAX_DICT} keys); the keys past it are not followed`, at);
      else { obj.keys.push(key); obj.vals.push(value); }
    } else if (obj.t === 'list') {
      const i = num(key);
      if (i !== undefined && Number.isInteger(i)) obj.items[i < 0 ? obj.items.length + i : i] = value;
    } else if (obj.t === 'environ') {
      const h = this.externs.get('os.environ.__setitem__');
      if (h) h(this, obj, { args: [key, value], kw: new Map() }, at, { t: 'extern', name: 'os.environ.__setitem__' });
    } else if (obj.t === 'inst' && dictSubclassMapping(obj) && this.classAttr(obj.cls, '__setitem__')?.t !== 'func') {
      this.setItem(dictSubclassMapping(obj)!, key, value, at);
    } else if (obj.t === 'inst') {
      const h = this.externs.get('__setitem__');
      if (h) h(this, obj, { args: [key, value], kw: new Map() }, at, { t: 'extern', name: '__setitem__' });
    }
  }

  private execImport(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'dotted_name') {
        // `import a.b.c` binds `a`, with a.b and a.b.c loaded as its attributes.
        const first = c.text.split('.')[0];
        const chain = this.importChain(c.text, node);
        this.currentFrame().vars.set(first, chain ? chain[0] : { t: 'extern', name: first });
        this.logImport(first, node, `import ${c.text}`);
      } else if (c.type === 'aliased_import') {
        const name = c.childForFieldName('name')!.text;
        const alias = c.childForFieldName('alias')!.text;
        const chain = this.importChain(name, node);
        this.currentFrame().vars.set(alias, chain ? chain[chain.length - 1] : { t: 'extern', name: canonical(name) });
        this.logImport(alias, node, `import ${name} as ${alias}`);
      }
    }
  }

  private execImportFrom(node: SyntaxNode): void {
    const mod = node.childForFieldName('module_name');
    if (!mod) return;
    const base = mod.text;
    let module: ModuleV | Value | undefined;
    if (base.startsWith('.')) {
      const level = /^\.+/.exec(base)![0].length;
      module = this.importRelative(base.slice(level), level, node);
    } else {
      const chain = this.importChain(base, node);
      if (chain) module = chain[chain.length - 1];
    }
    const names = node.childrenForFieldName('name');
    if (names.length === 0 && node.namedChildren.some((c) => c?.type === 'wildcard_import')) {
      if (module?.t === 'module' && module.env) {
        const all = module.env.vars.get('__all__');
        const keys = all && (all.t === 'list' || all.t === 'tuple') ? all.items.flatMap((v) => (v.t === 'str' ? [v.v] : [])) : [...module.env.vars.keys()].filter((k) => !k.startsWith('_'));
        for (const k of keys) { const v = module.env.vars.get(k); if (v !== undefined) this.currentFrame().vars.set(k, v); }
      }
      return;
    }
    for (const n of names) {
      if (!n) continue;
      const name = n.type === 'aliased_import' ? n.childForFieldName('name')!.text : n.text;
      const local = n.type === 'aliased_import' ? n.childForFieldName('alias')!.text : name.split('.').pop()!;
      let v: Value;
      if (module?.t === 'module') v = this.moduleAttr(module, name, node);
      else if (module) v = module;
      else if (base.startsWith('.')) v = unknown(`module \`${base}\` is not a file of this workspace`, this.span(node));
      else {
        const full = canonical(`${base}.${name}`);
        const named = this.externValues.get(full);
        v = named ? named(this, node) : { t: 'extern', name: full };
      }
      this.currentFrame().vars.set(local, v);
      this.logImport(local, node, `from ${base} import ${name}${local === name ? '' : ` as ${local}`}`);
    }
  }

  private logImport(local: string, node: SyntaxNode, text: string): void {
    this.imports.push({ local, span: this.span(node), moduleLevel: node.parent?.type === 'module', text });
  }

  /**
   * Loads `a`, `a.b`, `a.b.c` from the workspace as `import a.b.c` does, or
   * returns undefined when `a` is not a workspace module (a library).
   */
  importChain(dotted: string, node: SyntaxNode): ModuleV[] | undefined {
    if (!this.loader) return undefined;
    const parts = dotted.split('.');
    // A library oomlens models (torch, jax, flax, ...) stays the library even inside its own repository:
    // its catalogue answers, not its source.
    if (MODELLED_LIBS.has(parts[0])) return undefined;
    const dirs = this.loader.searchDirs(this.sysPath);
    const top = this.loader.find(parts[0], dirs);
    if (!top) return undefined;
    const chain: ModuleV[] = [this.loadModule(parts[0], top, node)];
    for (let i = 1; i < parts.length; i++) {
      const parent = chain[i - 1];
      const sub = this.submodule(parent, parts[i], node);
      if (!sub) break;
      chain.push(sub);
    }
    return chain;
  }

  private importRelative(rest: string, level: number, node: SyntaxNode): ModuleV | undefined {
    const from = this.fileOfNode(node);
    if (!this.loader || !from) return undefined;
    const baseDir = this.loader.relativeBase(from, level);
    if (!baseDir) return undefined;
    const pkgName = this.packageName(from, level);
    const pkgFound = this.loader.find('__init__', [baseDir]);
    let mod: ModuleV = this.loadModule(pkgName, { path: pkgFound?.path, dir: baseDir }, node);
    if (!rest) return mod;
    for (const part of rest.split('.')) {
      const sub = this.submodule(mod, part, node);
      if (!sub) return undefined;
      mod = sub;
    }
    return mod;
  }

  /** A dotted name for the package `level` dots up from a file (for labels only). */
  private packageName(from: string, level: number): string {
    const segs = from.split(/[\\/]/);
    segs.pop();
    for (let i = 1; i < level; i++) segs.pop();
    return segs[segs.length - 1] ?? '';
  }

  private submodule(parent: ModuleV, name: string, node: SyntaxNode): ModuleV | undefined {
    const existing = parent.env?.vars.get(name);
    if (existing?.t === 'module') return existing;
    if (!this.loader || !parent.dir) return undefined;
    const found = this.loader.find(name, [parent.dir]);
    if (!found) return undefined;
    const m = this.loadModule(`${parent.name}.${name}`, found, node);
    parent.env ??= { vars: new Map() };
    parent.env.vars.set(name, m);
    return m;
  }

  /** Runs a workspace file as a module (a config file named by path), once per analysis. */
  importFile(path: string, node: SyntaxNode): ModuleV | undefined {
    if (!this.loader) return undefined;
    const name = path.split(/[\\/]/).pop()!.replace(/\.py$/, '');
    return this.loadModule(name, { path }, node);
  }

  /** An attribute of a workspace module: a name it defines, else its submodule (`from pkg import mod`). */
  moduleAttr(m: ModuleV, name: string, node: SyntaxNode): Value {
    if (name === '__dict__' && m.env) return { t: 'dict', keys: [...m.env.vars.keys()].map(str), vals: [...m.env.vars.values()] };
    const v = m.env?.vars.get(name);
    if (v !== undefined) return v;
    const sub = this.submodule(m, name, node);
    if (sub) return sub;
    if (m.loading) return unknown(`\`${name}\` is not yet defined in ${m.name}: the modules import each other (cycle)`, this.span(node));
    return unknown(`module ${m.name} defines no \`${name}\` that oomlens could follow`, this.span(node));
  }

  /** Runs a workspace module's body once per analysis, in its own namespace. */
  private loadModule(name: string, found: { path?: string; dir?: string }, node: SyntaxNode): ModuleV {
    const key = found.path ?? found.dir ?? name;
    const have = this.modules.get(key);
    if (have) return have;
    const m: ModuleV = { t: 'module', name, path: found.path, dir: found.dir };
    this.modules.set(key, m);
    if (!found.path || !this.loader) return m;
    if (this.modules.size > MAX_MODULES) {
      this.note(`more than ${MAX_MODULES} workspace modules imported: ${name} is not followed`, node);
      return m;
    }
    if (found.path === this.path) {
      // The main file imported under its module name: Python runs it a second time; its names are the main namespace's.
      m.env = this.globals;
      return m;
    }
    const src = this.loader.load(found.path);
    if (!src) {
      this.note(`could not read ${this.loader.rel(found.path)}`, node);
      return m;
    }
    this.fileOf.set(src.tree, src.path);
    const env: Env = { vars: new Map() };
    env.vars.set('__name__', str(name));
    env.vars.set('__file__', str(src.path));
    m.env = env;
    m.loading = true;
    this.importDepth++;
    this.frames.push(env);
    try {
      this.execBlock(src.tree.rootNode.namedChildren);
    } catch (e) {
      if (e instanceof RaiseSignal) this.note(`${e.reason} raises ${e.type} while importing the module, not caught`);
      else if (!(e instanceof ReturnSignal || e instanceof BreakSignal || e instanceof ContinueSignal)) throw e;
    } finally {
      this.frames.pop();
      this.importDepth--;
      m.loading = false;
    }
    return m;
  }

  /**
   * Runs Python source that oomlens ships (its own model of a library's modules, frameworks/torch/vision_models.ts)
   * as the module `name`, once per analysis; `label` stands for its file in spans.
   */
  runBundled(name: string, label: string, tree: Tree): ModuleV {
    const have = this.modules.get(label);
    if (have) return have;
    const m: ModuleV = { t: 'module', name };
    this.modules.set(label, m);
    this.fileOf.set(tree, label);
    const env: Env = { vars: new Map() };
    env.vars.set('__name__', str(name));
    m.env = env;
    m.loading = true;
    this.importDepth++;
    this.frames.push(env);
    try {
      this.execBlock(tree.rootNode.namedChildren);
    } finally {
      this.frames.pop();
      this.importDepth--;
      m.loading = false;
    }
    return m;
  }

  private execDecorated(node: SyntaxNode): void {
    const decos = node.namedChildren.filter((c): c is SyntaxNode => c?.type === 'decorator');
    const def = node.childForFieldName('definition')!;
    const values: Value[] = [];
    const names = decos.map((d) => {
      const e = d.namedChildren[0]!;
      const v = this.eval(e);
      values.push(v);
      if (v.t === 'extern') return v.name + (e.type === 'call' ? '()' : '');
      if (v.t === 'func' && v.partialArgs?.[0]?.t === 'extern') return (v.partialArgs[0] as { name: string }).name;
      return e.text;
    });
    if (def.type === 'function_definition') {
      const fn = this.defineFunction(def, names);
      // Decorators that frameworks list in state 'applyDecorators' change what the function creates
      // (`@hk.layer_stack(n)` stacks its parameters): they are applied, innermost first, as Python does.
      const apply = this.state.get('applyDecorators') as Set<string> | undefined;
      if (apply && values.some((v) => v.t === 'extern' && apply.has(v.name))) {
        let v: Value = this.currentFrame().vars.get(fn.name) ?? fn;
        for (let i = values.length - 1; i >= 0; i--) {
          const dv = values[i];
          if (dv.t === 'extern' && apply.has(dv.name)) v = this.call(dv, { args: [v], kw: new Map() }, decos[i]!);
        }
        this.currentFrame().vars.set(fn.name, v);
      }
    } else if (def.type === 'class_definition') {
      const cls = this.defineClass(def, names);
      // The program's own class decorators (a registry: `@register_model(name="ncsnpp")` storing the class in a
      // dict that `get_model(name)` reads) run, innermost first, as Python runs them. The name stays bound to the
      // class unless a decorator returns another class: a wrapper oomlens cannot follow leaves it as it was.
      let v: Value = cls;
      for (let i = values.length - 1; i >= 0; i--) {
        const dv = values[i];
        if (dv.t !== 'func' || dv.partialArgs?.[0]?.t === 'extern') continue;
        const out = this.call(dv, { args: [v], kw: new Map() }, decos[i]!);
        if (out.t === 'class') v = out;
      }
      if (v !== cls) this.currentFrame().vars.set(cls.name, v);
    }
  }

  /**
   * The scope a function defined here closes over: the current frame, past any class bodies (Python's name
   * resolution skips class scopes: a method's bare `f()` is the module's `f`, not the class's method `f`).
   */
  closureFrame(): Env {
    let f = this.currentFrame();
    while (f.classBody && f.parent) f = f.parent;
    return f;
  }

  defineFunction(node: SyntaxNode, decorators: string[]): FuncV {
    const name = node.childForFieldName('name')!.text;
    const defaults = new Map<string, Value>();
    const params = node.childForFieldName('parameters');
    for (const p of params?.namedChildren ?? []) {
      if (!p) continue;
      if (p.type === 'default_parameter' || p.type === 'typed_default_parameter') {
        const pn = p.childForFieldName('name')!.text;
        defaults.set(pn, this.eval(p.childForFieldName('value')!));
      }
    }
    const fn: FuncV = {
      t: 'func', name, node, closure: this.closureFrame(), defaults, decorators,
      jitted: decorators.some((d) => /(^|\.)(jit|filter_jit|pjit)(\(\))?$/.test(d)),
    };
    let v: Value = fn;
    if (decorators.some((d) => d === 'builtins.property' || d === 'property' || d.endsWith('.cached_property'))) {
      v = { t: 'extern', name: '__property__', self: fn };
    } else if (decorators.includes('builtins.staticmethod') || decorators.includes('staticmethod')) {
      v = { t: 'extern', name: '__staticmethod__', self: fn };
    } else if (decorators.includes('builtins.classmethod') || decorators.includes('classmethod')) {
      v = { t: 'extern', name: '__classmethod__', self: fn };
    }
    this.currentFrame().vars.set(name, v);
    return fn;
  }

  defineClass(node: SyntaxNode, decorators: string[]): ClassV {
    const name = node.childForFieldName('name')!.text;
    const bases: Value[] = [];
    const supers = node.childForFieldName('superclasses');
    for (const b of supers?.namedChildren ?? []) {
      if (!b || b.type === 'keyword_argument') continue;
      // A subscripted generic base (`class C(Base[T])`, `Generic[T]`): Python's `__mro_entries__`
      // (PEP 560; typing._GenericAlias, types.GenericAlias) puts the unsubscripted class in the bases.
      if (b.type === 'subscript') {
        const origin = this.eval(b.childForFieldName('value')!);
        if (origin.t === 'class' || origin.t === 'extern') { bases.push(origin); continue; }
      }
      bases.push(this.eval(b));
    }
    const cls: ClassV = {
      t: 'class', name, node, bases, ns: new Map(), kind: 'plain',
      // `@dataclass`, `@dataclasses.dataclass()`, `@dataclass(frozen=True)` / `(slots=True)` (an unevaluated call keeps its text).
      dataclass: decorators.some((d) => /(^|\.)dataclass(\([^]*\))?$/.test(d) || d.startsWith('flax.struct.dataclass') || d.startsWith('chex.dataclass')),
      fields: [],
    };
    for (const b of bases) {
      if (b.t === 'class') {
        if (b.kind !== 'plain') cls.kind = b.kind;
        if (b.dataclass) cls.dataclass = true;
        for (const f of b.fields) if (!cls.fields.includes(f)) cls.fields.push(f);
      } else if (b.t === 'extern') {
        const k = classKindOf(b.name);
        if (k) cls.kind = k;
        if (/NamedTuple$|struct\.PyTreeNode$/.test(b.name)) cls.dataclass = true;
      }
    }
    // Equinox and Flax modules are dataclasses: their annotated fields are constructor arguments.
    if (cls.kind === 'equinox' || cls.kind === 'flax') cls.dataclass = true;
    // The methods these dataclass makers add (python.ts `dataclasses.replace`): flax.struct.dataclass and
    // chex.dataclass add `replace` (flax/struct.py, chex/_src/dataclass.py), as does a struct.PyTreeNode base;
    // NamedTuple adds `_replace`. A method of that name in the class body (run next) takes its place here.
    const replaceIn = (n: string): void => { cls.ns.set(n, { t: 'extern', name: '__dataclass_replace__' }); };
    if (decorators.some((d) => d.startsWith('flax.struct.dataclass') || d.startsWith('chex.dataclass'))) replaceIn('replace');
    for (const b of bases) {
      if (b.t !== 'extern') continue;
      if (/(^|\.)struct\.PyTreeNode$/.test(b.name)) replaceIn('replace');
      if (/(^|\.)NamedTuple$/.test(b.name)) replaceIn('_replace');
    }
    const env: Env = { vars: cls.ns, parent: this.currentFrame(), classBody: true };
    this.frames.push(env);
    try {
      for (const s of node.childForFieldName('body')?.namedChildren ?? []) {
        if (!s) continue;
        if (s.type === 'expression_statement') {
          const a = s.namedChildren[0];
          if (a?.type === 'assignment' && a.childForFieldName('type') && a.childForFieldName('left')?.type === 'identifier') {
            const f = a.childForFieldName('left')!.text;
            const ann = a.childForFieldName('type')!.text;
            if (!/ClassVar/.test(ann) && !cls.fields.includes(f)) cls.fields.push(f);
            (cls.fieldTypes ??= new Map()).set(f, ann);
          }
        }
        this.exec(s);
      }
    } catch (e) {
      if (!(e instanceof ReturnSignal)) throw e;
    } finally {
      this.frames.pop();
    }
    this.currentFrame().vars.set(name, cls);
    return cls;
  }

  /**
   * try/except/else/finally. The happy path is what allocates; a handler runs only when the body raises an
   * exception the analysis knows of (RaiseSignal, thrown only inside a try of the same frame) and the handler's
   * class catches it. A handler that cannot be matched (a program's own exception class) is noted, and the
   * statement ends there. `else:` runs after a body that did not raise; `finally:` always.
   */
  private execTry(node: SyntaxNode): void {
    const frame = this.currentFrame();
    const clauses = node.namedChildren.filter((c): c is SyntaxNode => !!c && !c.isExtra);
    const blockOf = (c: SyntaxNode) => c.childForFieldName('body') ?? c.namedChildren.find((x) => x?.type === 'block') ?? null;
    try {
      let raised: RaiseSignal | undefined;
      frame.tryDepth = (frame.tryDepth ?? 0) + 1;
      try {
        this.body(node.childForFieldName('body'));
      } catch (e) {
        if (!(e instanceof RaiseSignal)) throw e;
        raised = e;
      } finally {
        frame.tryDepth--;
      }
      if (!raised) {
        const alt = clauses.find((c) => c.type === 'else_clause');
        if (alt) this.body(blockOf(alt));
        return;
      }
      for (const c of clauses) {
        if (c.type !== 'except_clause' && c.type !== 'except_group_clause') continue;
        let typ = c.childForFieldName('value') ?? c.namedChildren.find((x) => x && x.type !== 'block') ?? null;
        let alias: SyntaxNode | null = null;
        if (typ?.type === 'as_pattern') { alias = typ.childForFieldName('alias'); typ = typ.namedChild(0); }
        const names = !typ ? [] : (typ.type === 'tuple' || typ.type === 'parenthesized_expression' ? typ.namedChildren : [typ]).filter((x): x is SyntaxNode => !!x).map((x) => x.text.split('.').pop() ?? x.text);
        // The clause catches the exception when one of its names does; a raise that may be one of several types
        // (`A|B`) is caught only when every one of them would be.
        const one = (t: string) => names.map((n) => exceptionMatches(n, t)).reduce<boolean | undefined>((a, b) => (a === true || b === true ? true : a === undefined || b === undefined ? undefined : false), false);
        const each = raised.type.split('|').map(one);
        const m = !typ ? true : each.every((x) => x === true) ? true : each.every((x) => x === false) ? false : undefined;
        if (m === undefined) {
          this.note(`${raised.reason} raises ${raised.type}; whether \`${clip(c.text.split('\n')[0])}\` catches it is not known: the rest of this try statement is not followed`, c);
          return;
        }
        if (!m) continue;
        const target = alias?.namedChild(0) ?? alias;
        if (target?.type === 'identifier') frame.vars.set(target.text, unknown(`the ${raised.type} caught here (${raised.reason})`, this.span(target)));
        this.body(blockOf(c));
        return;
      }
      throw raised;
    } finally {
      const fin = clauses.find((c) => c.type === 'finally_clause');
      if (fin) this.body(blockOf(fin));
    }
  }

  /**
   * An exception the program certainly raises here: inside a try statement of this frame it goes to the handler
   * (RaiseSignal); elsewhere the value is unknown with the reason, as before, and the analysis goes on.
   */
  raise(type: string, reason: string, node: SyntaxNode): UnknownV {
    if ((this.currentFrame().tryDepth ?? 0) > 0) throw new RaiseSignal(type, reason);
    return unknown(`${reason} raises ${type}`, this.span(node));
  }

  /** Whether every branch of the `if` only assigns into elements of tensors the frame already holds. */
  private sizeInertIf(node: SyntaxNode): boolean {
    const blocks = [node.childForFieldName('consequence'), ...node.childrenForFieldName('alternative').map((a) => (a?.type === 'else_clause' ? a.childForFieldName('body') : a?.type === 'elif_clause' ? a.childForFieldName('consequence') : null))];
    if (node.childrenForFieldName('alternative').some((a) => a?.type === 'elif_clause')) return false;
    return blocks.every((b) => !!b && b.namedChildren.every((st) => {
      if (!st || st.type === 'comment') return true;
      const a = st.type === 'expression_statement' ? st.namedChildren[0] : null;
      if (!a || (a.type !== 'assignment' && a.type !== 'augmented_assignment')) return false;
      const left = a.childForFieldName('left');
      const base = left?.type === 'subscript' ? left.childForFieldName('value') : null;
      if (base?.type !== 'identifier') return false;
      const v = this.currentFrame().vars.get(base.text);
      return v?.t === 'tensor';
    }));
  }

  private execIf(node: SyntaxNode): void {
    const cond = this.eval(node.childForFieldName('condition')!);
    const t = truthy(cond);
    if (t === undefined && this.sizeInertIf(node)) {
      // Every branch only writes elements of existing tensors (`if torch.det(W) < 0: W[:, 0] = -1 * W[:, 0]`): an
      // item assignment keeps the tensor's shape and dtype (torch `Tensor.__setitem__` copies into the view, numpy
      // and jax `.at[].set` likewise), so whichever branch runs, no size depends on it.
      this.body(node.childForFieldName('consequence'));
      return;
    }
    if (t === undefined) {
      const u = this.note(`condition \`${clip(node.childForFieldName('condition')!.text)}\` could not be decided (${describe(cond)}); the branch taken is assumed`, node.childForFieldName('condition')!);
      // A branch chosen on a value the command line must supply decides what is built after it:
      // every model built later carries that unknown (never a confident number on a guess).
      const input = raisesOnly(node.childForFieldName('consequence')) ? undefined : this.inputDependence(node.childForFieldName('condition')!);
      if (input) this.memory.taints.push({ what: 'command line', reason: `${input}; the branch at line ${this.line(node)} depends on it`, span: u.span });
    }
    // An undecidable guard whose branch only raises or leaves (`if cond: raise ValueError(...)`, `if not data:
    // return`) is taken as not leaving: the program that runs is the one that continues.
    if (t === true || (t === undefined && !raisesOnly(node.childForFieldName('consequence')))) {
      this.body(node.childForFieldName('consequence'));
      return;
    }
    for (const alt of node.childrenForFieldName('alternative')) {
      if (!alt) continue;
      if (alt.type === 'else_clause') { this.body(alt.childForFieldName('body')); return; }
      const c = this.eval(alt.childForFieldName('condition')!);
      const ct = truthy(c);
      if (ct === undefined) this.note(`condition \`${clip(alt.childForFieldName('condition')!.text)}\` could not be decided`, alt);
      if (ct !== false) { this.body(alt.childForFieldName('consequence')); return; }
    }
  }

  /**
   * The local names a `for` loop writes, when its body writes nothing else: assignments to
   * names and to subscripts of local dicts / lists, method calls on local dicts, lists and
   * strings (and on the loop variables), a few pure builtins, `if` / `continue` / `break`.
   * Undefined when the body may do anything more (an attribute write, any other call, a
   * nested definition, `return` / `yield` / `del` / `global`, `with`, `try`).
   */
  private localOnlyWrites(loop: SyntaxNode): Set<string> | undefined {
    const body = loop.childForFieldName('body');
    const left = loop.childForFieldName('left');
    if (!body || !left) return undefined;
    const loopVars = new Set(left.type === 'identifier' ? [left.text] : left.descendantsOfType('identifier').map((n) => n!.text));
    const written = new Set<string>();
    const localData = (name: string): boolean => {
      if (name === 'self' || name === 'cls') return false;
      if (loopVars.has(name) || written.has(name)) return true;
      const v = this.currentFrame().vars.get(name);
      return !!v && (v.t === 'dict' || v.t === 'list' || v.t === 'str');
    };
    const target = (t: SyntaxNode): boolean => {
      if (t.type === 'identifier') { if (t.text === 'self') return false; written.add(t.text); return true; }
      if (t.type === 'subscript') {
        const base = t.childForFieldName('value');
        if (base?.type !== 'identifier' || !localData(base.text)) return false;
        written.add(base.text);
        return true;
      }
      if (t.type === 'pattern_list' || t.type === 'tuple_pattern') return t.namedChildren.every((c) => !!c && target(c));
      return false;
    };
    const ok = (n: SyntaxNode): boolean => {
      switch (n.type) {
        case 'function_definition': case 'class_definition': case 'lambda': case 'return_statement': case 'yield':
        case 'delete_statement': case 'global_statement': case 'nonlocal_statement': case 'with_statement':
        case 'try_statement': case 'await': case 'import_statement': case 'import_from_statement':
          return false;
        case 'assignment': case 'augmented_assignment': {
          const l = n.childForFieldName('left');
          const r = n.childForFieldName('right');
          return !!l && target(l) && (!r || ok(r));
        }
        case 'call': {
          const fn = n.childForFieldName('function');
          const args = n.childForFieldName('arguments');
          if (!fn || (args && !ok(args))) return false;
          if (fn.type === 'identifier') return PURE_BUILTINS.has(fn.text) && !this.currentFrame().vars.has(fn.text);
          if (fn.type !== 'attribute') return false;
          const obj = fn.childForFieldName('object');
          const method = fn.childForFieldName('attribute')?.text ?? '';
          if (!(obj?.type === 'identifier' && localData(obj.text) && DATA_METHODS.has(method))) return false;
          // A method that changes its receiver (xs.append, names.add, d.update …) writes it: unknown after the loop.
          if (MUTATING_METHODS.has(method)) written.add(obj.text);
          return true;
        }
        default:
          return n.namedChildren.every((c) => !c || ok(c));
      }
    };
    for (const v of loopVars) written.add(v);
    return body.namedChildren.every((c) => !c || ok(c)) ? written : undefined;
  }

  /**
   * The objects a body that was not run may change: the names it calls methods on or writes attributes or
   * items of (`model.append(m)`, `model.head = h`, `layers[i] = l`), when they hold objects.
   */
  private markChangedObjects(body: SyntaxNode | null, reason: string): void {
    if (!body) return;
    const receivers = new Set<string>();
    for (const n of body.descendantsOfType(['call', 'assignment', 'augmented_assignment'])) {
      if (!n) continue;
      const at = n.type === 'call' ? n.childForFieldName('function') : n.childForFieldName('left');
      if (!at || (at.type !== 'attribute' && at.type !== 'subscript')) continue;
      // Calls: only the container edits that add or remove parts (torch/nn/modules/container.py, module.py).
      if (n.type === 'call' && (at.type !== 'attribute' || !CONTAINER_EDITS.has(at.childForFieldName('attribute')?.text ?? ''))) continue;
      let base: SyntaxNode | null = at.type === 'attribute' ? at.childForFieldName('object') : at.childForFieldName('value');
      while (base && (base.type === 'attribute' || base.type === 'subscript')) base = base.type === 'attribute' ? base.childForFieldName('object') : base.childForFieldName('value');
      if (base?.type === 'identifier') receivers.add(base.text);
    }
    for (const name of receivers) {
      let frame: Env | undefined = this.currentFrame();
      while (frame && !frame.vars.has(name)) frame = frame.parent;
      if (!frame && this.globals.vars.has(name)) frame = this.globals;
      const v = frame?.vars.get(name);
      if (v?.t === 'inst') this.changedByUnknownLoop.set(v, reason);
      // A list or dict the body fills or empties (`buffer.append(x)` in a function, on a module-level list): its
      // length and items are not known after it. Left as it was, a `while len(buffer) < n:` around the call
      // repeated it until the step budget ended the whole analysis (nanochat's data loader).
      else if (frame && (v?.t === 'list' || v?.t === 'dict')) frame.vars.set(name, unknown(`\`${name}\` is changed by a loop that was not unrolled (${reason})`, this.span(body)));
    }
  }

  /** The reason of a command-line value the names in a condition hold, if any (names and attributes only: no calls are re-run). */
  private inputDependence(cond: SyntaxNode): string | undefined {
    const names = [cond, ...cond.descendantsOfType(['attribute', 'identifier'])].filter((n): n is SyntaxNode => !!n && (n.type === 'attribute' || n.type === 'identifier') && n.parent?.type !== 'attribute' && n.parent?.type !== 'call');
    for (const n of names.slice(0, 20)) {
      let v: Value;
      try { v = n.type === 'identifier' ? this.lookup(n.text, n) : this.eval(n); } catch { continue; }
      if (v.t === 'unknown' && INPUT_DEPENDENT.test(v.reason)) return v.reason;
    }
    return undefined;
  }

  private execFor(node: SyntaxNode): void {
    const iterV = this.eval(node.childForFieldName('right')!);
    const cap = this.loopCap(node);
    let items = this.iterate(iterV, node);
    // A bounded loop over a generator takes an item like its first at every step (runGenerator).
    if (!items && cap !== undefined && iterV.t === 'extern' && iterV.name === '__generator__' && iterV.args?.[0]) items = Array.from({ length: cap }, () => iterV.args![0]);
    if (!items && cap !== undefined) {
      // A bounded loop (a training loop) over items that are not known still runs its body, with an unknown item.
      const u = unknown(`the items of \`${clip(node.childForFieldName('right')!.text)}\` are not known (${describe(iterV)})`, this.span(node.childForFieldName('right')!));
      items = Array.from({ length: cap }, () => u);
    }
    if (!items) {
      const reason = `loop over ${clip(node.childForFieldName('right')!.text)} could not be unrolled (${describe(iterV)})`;
      // A body that only fills local dicts / lists (copying matching keys of a downloaded
      // state dict, collecting names) cannot create, resize or free a tensor of the program:
      // what it writes becomes unknown, and nothing else does.
      const written = this.localOnlyWrites(node);
      if (written) {
        const u = unknown(reason, this.span(node));
        for (const name of written) this.currentFrame().vars.set(name, u);
        return;
      }
      this.note(reason, node);
      this.markChangedObjects(node.childForFieldName('body'), reason);
      return;
    }
    this.withTemps([iterV], () => {
      let n = 0;
      for (const it of items) {
        if (cap !== undefined && n++ >= cap) return;
        this.tick(node);
        this.assign(node.childForFieldName('left')!, it, node);
        try {
          this.body(node.childForFieldName('body'));
        } catch (e) {
          if (e instanceof BreakSignal) return;
          if (e instanceof ContinueSignal) continue;
          throw e;
        }
      }
      const alt = node.childForFieldName('alternative');
      if (alt) this.body(alt.childForFieldName('body'));
    });
  }

  /** How many iterations of a loop to follow, when a framework model bounds it (training loops repeat their second iteration). */
  private loopCap(node: SyntaxNode): number | undefined {
    return (this.state.get('loopCap') as ((n: SyntaxNode) => number | undefined) | undefined)?.(node);
  }

  private execWhile(node: SyntaxNode): void {
    const cap = this.loopCap(node);
    // `while True:` ends only by break, return, an exception or a yield. One that runs MAX_FOREVER iterations
    // without any is taken as not ending here: an inner loop whose condition is undecidable returns at once, and
    // the outer loop would repeat it until the step budget ends the whole analysis (nanochat's data loader). What
    // its body changes becomes unknown, as for a loop that is not unrolled.
    const forever = /^(True|1)$/.test(node.childForFieldName('condition')?.text ?? '');
    for (let i = 0; i < MAX_LOOP; i++) {
      if (cap !== undefined && i >= cap) return;
      if (forever && i >= MAX_FOREVER) {
        const reason = `\`while ${node.childForFieldName('condition')!.text}:\` ran ${MAX_FOREVER.toLocaleString('en-US')} iterations without a break, return or yield`;
        this.note(reason, node);
        this.markChangedObjects(node.childForFieldName('body'), reason);
        return;
      }
      this.tick(node);
      const c = truthy(this.eval(node.childForFieldName('condition')!));
      if (c === undefined) { this.note('while-loop condition could not be decided', node); return; }
      if (!c) return;
      try {
        this.body(node.childForFieldName('body'));
      } catch (e) {
        if (e instanceof BreakSignal) return;
        if (e instanceof ContinueSignal) continue;
        throw e;
      }
    }
    this.note('while-loop did not finish within the analysis limit', node);
  }

  private execWith(node: SyntaxNode): void {
    const clause = node.namedChildren.find((c) => c?.type === 'with_clause');
    // Only the grammar's with_item nodes: a comment or a backslash continuation sits between them too.
    const items = (clause?.namedChildren ?? []).filter((c): c is SyntaxNode => c?.type === 'with_item');
    this.withItems(node, items, 0);
  }

  /** Enters `items[i]`, then the rest, then runs the body; exits in reverse (Python's nested-with semantics). */
  private withItems(node: SyntaxNode, items: SyntaxNode[], i: number): void {
    if (i === items.length) { this.body(node.childForFieldName('body')); return; }
    const item = items[i];
    let e = item.childForFieldName('value') ?? item.namedChildren[0];
    if (!e) { this.withItems(node, items, i + 1); return; }
    let alias: SyntaxNode | null = null;
    if (e.type === 'as_pattern') {
      alias = e.childForFieldName('alias') ?? e.namedChildren[1] ?? null;
      e = e.namedChildren[0]!;
    }
    const bind = (v: Value) => { if (alias) this.assign(alias.type === 'as_pattern_target' ? alias.namedChildren[0] ?? alias : alias, v, node); };
    const v = this.eval(e);
    if (v.t === 'extern' && v.name === '__contextmanager__' && v.args?.[0]?.t === 'func') {
      this.enterGenerator(v.args[0], { args: v.args.slice(1), kw: v.kw ?? new Map() }, e, (y) => { bind(y); this.withItems(node, items, i + 1); });
      return;
    }
    const enter = this.externs.get('__enter__');
    bind(enter ? enter(this, v, { args: [], kw: new Map() }, e, { t: 'extern', name: '__enter__' }) : v);
    // A torch function (or dispatch) mode of the program (`with EmptyInitOnDevice(device, dtype):`, lit-llama): its
    // __torch_function__ may change the dtype and device of every tensor made inside (torch/overrides.py
    // TorchFunctionMode), which oomlens does not follow: what is built inside carries that unknown (of its bytes: the
    // count does not depend on the dtype).
    const mode = v.t === 'inst' && linearize(v.cls).some((k) => k.bases.some((b) => b.t === 'extern' && /^torch\.(overrides\.TorchFunctionMode|utils\._python_dispatch\.TorchDispatchMode)$/.test(b.name)));
    const taint: Unknown | undefined = mode ? { what: 'dtype and device', reason: `built under \`${clip(e.text)}\`, a torch mode of the program (${(v as InstV).cls.name}) whose __torch_function__ may give the tensors made inside another dtype and device: not followed, so their sizes are not known`, span: this.span(e) } : undefined;
    if (taint) this.memory.phaseTaints.push(taint);
    // Such modes usually carry the dtype they give the factories as `self.dtype` (lit-llama's EmptyInitOnDevice): a
    // known floating dtype there sizes what is built inside (a lower bound with the unknown above); none, float32.
    const saved = taint ? this.state.get('torchDefaultDtype') : undefined;
    const modeDtype = taint ? (v as InstV).attrs.get('dtype') : undefined;
    if (modeDtype?.t === 'dtype' && ['float16', 'bfloat16', 'float32', 'float64'].includes(modeDtype.dtype)) this.state.set('torchDefaultDtype', modeDtype.dtype);
    try {
      this.withItems(node, items, i + 1);
    } finally {
      if (taint) {
        const k = this.memory.phaseTaints.indexOf(taint);
        if (k >= 0) this.memory.phaseTaints.splice(k, 1);
        if (saved === undefined) this.state.delete('torchDefaultDtype'); else this.state.set('torchDefaultDtype', saved);
      }
      const exit = this.externs.get('__exit__');
      if (exit) exit(this, v, { args: [], kw: new Map() }, node, { t: 'extern', name: '__exit__' });
    }
  }

  /**
   * Runs a @contextmanager generator function: its statements up to the `yield` (the enter), then `inside` with
   * the yielded value in the `with` statement's own frame, then the statements after the yield (the exit), as
   * contextlib's _GeneratorContextManager does. A signal the with body raises (return, break, an exception the
   * analysis knows of) goes on after the exit part ran. A generator that never yields: the body runs, noted.
   */
  private enterGenerator(fn: FuncV, call: CallArgs, node: SyntaxNode, inside: (yielded: Value) => void): void {
    const depth = this.frames.length + 1;
    let ran = false;
    let pending: unknown;
    const prev = this.yieldHook;
    this.yieldHook = (value, at) => {
      if (ran || this.frames.length !== depth) return false;
      ran = true;
      this.yieldHook = prev;
      const gen = this.frames.pop()!;
      try { inside(value); } catch (e) { pending = e; } finally { this.frames.push(gen); }
      void at;
      return true;
    };
    try {
      this.callFunction(fn, call, node);
    } finally {
      if (!ran) this.yieldHook = prev;
    }
    if (!ran) {
      this.note(`the context manager ${fn.name}() did not reach its yield in the analysis; the with body runs without it`, node);
      inside(unknown(`the value ${fn.name}() yields`, this.span(node)));
    }
    if (pending !== undefined) throw pending;
  }

  /**
   * Calling a generator function makes a generator; its body runs on `next()` up to each yield (Python reference,
   * "Generator functions" / "yield expressions"). The body is run here up to its first yield and paused for good:
   * the generator stands for a stream of items like its first (`next(gen)` gives it; a bounded training loop over it
   * takes it at every step); how many it makes is not known. Running the whole body instead never ends for
   * `while True: for x in loader: yield x` (an endless batch stream) and used up the analysis budget.
   */
  private runGenerator(fn: FuncV, call: CallArgs, node: SyntaxNode): Value {
    const depth = this.frames.length + 1;
    const prev = this.yieldHook;
    this.yieldHook = (value) => {
      if (this.frames.length !== depth) return prev?.(value, node) ?? false;
      throw new GeneratorPaused(value);
    };
    try {
      this.callFunction(fn, call, node);
      // Returned without a yield: an empty generator.
      return { t: 'list', items: [] };
    } catch (e) {
      if (e instanceof GeneratorPaused) return { t: 'extern', name: '__generator__', args: [e.value] };
      throw e;
    } finally {
      this.yieldHook = prev;
    }
  }

  // ----------------------------------------------------------- expressions

  eval(node: SyntaxNode): Value {
    this.tick(node);
    if (this.nesting >= MAX_NESTING) {
      return this.note(`expression nested deeper than ${MAX_NESTING} levels is not followed (depth limit)`, node);
    }
    this.nesting++;
    try {
      return this.evalNode(node);
    } finally {
      this.nesting--;
    }
  }

  private evalNode(node: SyntaxNode): Value {
    switch (node.type) {
      case 'integer': {
        const t = node.text.replace(/_/g, '').toLowerCase();
        const n = t.startsWith('0x') ? parseInt(t, 16) : t.startsWith('0o') ? parseInt(t.slice(2), 8) : t.startsWith('0b') ? parseInt(t.slice(2), 2) : Number(t);
        return Number.isSafeInteger(n) ? { t: 'int', v: n, lit: this.span(node) } : unknown(`integer literal ${node.text} is too large`, this.span(node));
      }
      case 'float': return { t: 'float', v: Number(node.text.replace(/_/g, '')) };
      case 'true': return { t: 'bool', v: true };
      case 'false': return { t: 'bool', v: false };
      case 'none': return NONE;
      case 'ellipsis': return { t: 'ellipsis' };
      case 'string': return this.evalString(node);
      case 'concatenated_string': {
        let s = '';
        for (const c of node.namedChildren) {
          const v = c ? this.evalString(c) : NONE;
          if (v.t !== 'str') return v;
          s += v.v;
          if (s.length > MAX_STR) return this.sizedStr(s, node);
        }
        return str(s);
      }
      case 'identifier': return this.lookup(node.text, node);
      case 'attribute': {
        const obj = this.eval(node.childForFieldName('object')!);
        return this.getAttr(obj, node.childForFieldName('attribute')!.text, node);
      }
      case 'parenthesized_expression': return node.namedChildren[0] ? this.eval(node.namedChildren[0]) : NONE;
      case 'tuple': case 'expression_list': return this.sized('tuple', this.evalItems(node), node);
      case 'list': return this.sized('list', this.evalItems(node), node);
      case 'set': return this.sized('list', this.evalItems(node), node);
      case 'dictionary': return this.evalDict(node);
      case 'call': return this.evalCall(node);
      case 'binary_operator': {
        const l = this.eval(node.childForFieldName('left')!);
        const r = this.withTemps([l], () => this.eval(node.childForFieldName('right')!));
        return this.withTemps([l, r], () => this.binop(node.childForFieldName('operator')!.text, l, r, node));
      }
      case 'unary_operator': {
        const v = this.eval(node.childForFieldName('argument')!);
        const op = node.childForFieldName('operator')!.text;
        if (v.t === 'int' || v.t === 'float') return op === '-' ? { t: v.t, v: -v.v } : op === '~' ? int(~v.v) : v;
        if (v.t === 'bool') return op === '-' ? int(v.v ? -1 : 0) : op === '~' ? int(v.v ? -2 : -1) : int(v.v ? 1 : 0);
        if (v.t === 'tensor') return this.arrayOp('jax.numpy.negative', [v], new Map(), node);
        return unknown(`unary ${op} on ${describe(v)}`, this.span(node));
      }
      case 'not_operator': {
        const t = truthy(this.eval(node.childForFieldName('argument')!));
        return t === undefined ? unknown('`not` of an undecidable value', this.span(node)) : { t: 'bool', v: !t };
      }
      case 'boolean_operator': {
        const l = this.eval(node.childForFieldName('left')!);
        const op = node.childForFieldName('operator')!.text;
        const lt = truthy(l);
        if (lt === undefined) return unknown(`\`${clip(node.text)}\` could not be decided`, this.span(node));
        if (op === 'and') return lt ? this.eval(node.childForFieldName('right')!) : l;
        return lt ? l : this.eval(node.childForFieldName('right')!);
      }
      case 'comparison_operator': return this.evalCompare(node);
      case 'conditional_expression': {
        // A comment or a `\` line continuation is an extra node among the named children: skipped.
        const [a, cond, b] = node.namedChildren.filter((c): c is SyntaxNode => !!c && !c.isExtra);
        const c = truthy(this.eval(cond));
        if (c === undefined) {
          this.note(`condition \`${clip(cond.text)}\` could not be decided; the first branch is assumed`, cond);
          return this.eval(a);
        }
        return this.eval(c ? a : b);
      }
      case 'subscript': return this.evalSubscript(node);
      case 'slice': {
        const parts: Value[] = [NONE, NONE, NONE];
        let i = 0;
        for (const c of node.children) {
          if (!c) continue;
          if (c.type === ':') { i++; continue; }
          parts[i] = this.eval(c);
        }
        const s: Value & { t: 'slice' } = { t: 'slice', start: parts[0], stop: parts[1], step: parts[2] };
        const w = this.sliceWidth(node, parts);
        if (w !== undefined) s.width = w;
        return s;
      }
      case 'lambda': {
        const fn: FuncV = { t: 'func', name: '<lambda>', node, closure: this.closureFrame(), defaults: new Map(), decorators: [] };
        for (const p of node.childForFieldName('parameters')?.namedChildren ?? []) {
          if (p?.type === 'default_parameter') fn.defaults.set(p.childForFieldName('name')!.text, this.eval(p.childForFieldName('value')!));
        }
        return fn;
      }
      case 'list_comprehension': case 'generator_expression': case 'set_comprehension': case 'dictionary_comprehension': {
        // A comprehension over more items than the size cap is an unknown (runClauses), not the items built so far.
        const outer = this.compOverCap;
        this.compOverCap = undefined;
        try {
          const v: Value = node.type === 'dictionary_comprehension' ? this.evalDictComprehension(node)
            : { t: node.type === 'generator_expression' ? 'tuple' : 'list', items: this.evalComprehension(node) };
          return this.compOverCap ?? v;
        } finally {
          this.compOverCap = outer;
        }
      }
      case 'named_expression': {
        const v = this.eval(node.childForFieldName('value')!);
        this.assign(node.childForFieldName('name')!, v, node);
        return v;
      }
      case 'keyword_argument': return this.eval(node.childForFieldName('value')!);
      case 'await': return this.eval(node.namedChildren[0]!);
      case 'yield': {
        // A @contextmanager's yield (enterGenerator): the with body runs here. Any other generator is not followed.
        const arg = node.namedChildren[0];
        const v = arg && arg.type !== 'from' ? this.eval(arg) : NONE;
        if (this.yieldHook?.(v, node)) return NONE;
        return unknown('a generator\'s yield is not followed', this.span(node));
      }
      case 'ERROR': return this.note(`syntax error near \`${clip(node.text)}\``, node);
      default:
        return unknown(`expression \`${clip(node.text)}\` (${node.type}) is not modelled`, this.span(node));
    }
  }

  private evalString(node: SyntaxNode): Value {
    let s = '';
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'escape_sequence') s += unescape(c.text);
      else if (c.type === 'string_content') s += contentText(c);
      else if (c.type === 'interpolation') {
        const v = this.eval(c.namedChildren[0]!);
        const shown = v.t === 'str' || v.t === 'int' || v.t === 'float' ? String(v.v) : pathText(v);
        if (shown !== undefined) s += shown;
        else return unknown('f-string with a value that is not known', this.span(node));
        if (s.length > MAX_STR) return this.sizedStr(s, node);
      }
    }
    return str(s);
  }

  private evalItems(node: SyntaxNode): Value[] {
    const out: Value[] = [];
    // The items so far stay alive while the next is evaluated: pinned once, as the list being built.
    const pin: Value[] = [{ t: 'list', items: out }];
    for (const c of node.namedChildren) {
      if (!c || c.isExtra) continue;
      if (c.type === 'list_splat') {
        const v = this.withTemps(pin, () => this.eval(c.namedChildren[0]!));
        const it = this.iterate(v, c);
        if (it && out.length + it.length > MAX_ITEMS) return [...out, this.note(`*${clip(c.namedChildren[0]!.text)} would take the sequence past the analysis size cap (${MAX_ITEMS} items)`, c)];
        if (it) for (const x of it) out.push(x);
        else out.push(unknown(`cannot expand *${clip(c.text)}`, this.span(c)));
      } else out.push(this.withTemps(pin, () => this.eval(c)));
    }
    return out;
  }

  private evalDict(node: SyntaxNode): Value {
    const d: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'pair') {
        const k = this.eval(c.childForFieldName('key')!);
        const v = this.withTemps([d], () => this.eval(c.childForFieldName('value')!));
        this.setItem(d, k, v, c);
      } else if (c.type === 'dictionary_splat') {
        const v = this.eval(c.namedChildren[0]!);
        if (v.t === 'dict') v.keys.forEach((k, i) => this.setItem(d, k, v.vals[i], c));
      }
    }
    return d;
  }

  private comprehensionClauses(node: SyntaxNode): { body: SyntaxNode; clauses: SyntaxNode[] } {
    const body = node.childForFieldName('body')!;
    const clauses = node.namedChildren.filter((c): c is SyntaxNode => !!c && (c.type === 'for_in_clause' || c.type === 'if_clause'));
    return { body, clauses };
  }

  private runClauses(clauses: SyntaxNode[], i: number, env: Env, emit: () => void, at: SyntaxNode): void {
    if (i === clauses.length) { emit(); return; }
    const c = clauses[i];
    if (c.type === 'if_clause') {
      const t = truthy(this.eval(c.namedChildren[0]!));
      if (t === undefined) this.note('comprehension condition could not be decided; the item is kept', c);
      if (t !== false) this.runClauses(clauses, i + 1, env, emit, at);
      return;
    }
    const iterV = this.eval(c.childForFieldName('right')!);
    // Over more items than a list may hold (a corpus encoded character by character): what it builds is past the
    // size cap anyway, so it is not run item by item (which would only spend the step budget); it is an unknown.
    const overCap = (n: number): void => {
      this.compOverCap = this.note(`comprehension over ${clip(c.childForFieldName('right')!.text)} of ${n} items is over the analysis size cap (${MAX_ITEMS} items)`, c);
    };
    if (iterV.t === 'str' && iterV.v.length > MAX_ITEMS) { overCap(iterV.v.length); return; }
    const items = this.iterate(iterV, c);
    if (!items) {
      // Not the items made so far (none, for an unknown `range(n)`): the whole comprehension is unknown, so that
      // `nn.Sequential(*[Block() for _ in range(n)])` holds an unknown part instead of silently nothing.
      this.compOverCap = this.note(`comprehension over ${clip(c.childForFieldName('right')!.text)} could not be unrolled (${describe(iterV)})`, c);
      return;
    }
    if (items.length > MAX_ITEMS) { overCap(items.length); return; }
    for (const it of items) {
      this.tick(c);
      this.assign(c.childForFieldName('left')!, it, at);
      this.runClauses(clauses, i + 1, env, emit, at);
    }
  }

  /** Set by runClauses when the comprehension being evaluated iterates over more than MAX_ITEMS items, or over what cannot be unrolled. */
  private compOverCap: UnknownV | undefined;

  private evalComprehension(node: SyntaxNode): Value[] {
    const { body, clauses } = this.comprehensionClauses(node);
    const out: Value[] = [];
    const env: Env = { vars: new Map(), parent: this.currentFrame() };
    this.frames.push(env);
    try {
      this.withTemps([{ t: 'list', items: out }], () =>
        this.runClauses(clauses, 0, env, () => out.push(this.eval(body)), node));
    } finally {
      this.frames.pop();
    }
    return out;
  }

  private evalDictComprehension(node: SyntaxNode): Value {
    const { body, clauses } = this.comprehensionClauses(node);
    const d: Value & { t: 'dict' } = { t: 'dict', keys: [], vals: [] };
    const env: Env = { vars: new Map(), parent: this.currentFrame() };
    this.frames.push(env);
    try {
      this.withTemps([d], () => this.runClauses(clauses, 0, env, () => {
        this.setItem(d, this.eval(body.childForFieldName('key')!), this.eval(body.childForFieldName('value')!), body);
      }, node));
    } finally {
      this.frames.pop();
    }
    return d;
  }

  private evalCompare(node: SyntaxNode): Value {
    const operands = node.namedChildren.filter((c): c is SyntaxNode => !!c && !c.isExtra);
    const ops = node.childrenForFieldName('operators').map((o) => o?.text ?? '');
    let left = this.eval(operands[0]);
    for (let i = 1; i < operands.length; i++) {
      const right = this.eval(operands[i]);
      const r = compare(ops[i - 1] ?? node.children[1]?.text ?? '', left, right);
      if (r === undefined) return unknown(`comparison \`${clip(node.text)}\` could not be decided`, this.span(node));
      if (!r) return { t: 'bool', v: false };
      left = right;
    }
    return { t: 'bool', v: true };
  }

  /**
   * The name under which the external module or object `qualified` is
   * visible in the current frame (`import torch as th` → 'th'), checked to
   * resolve back to it (not shadowed by an inner binding); undefined when no
   * binding in reach holds it. Fixes use it to spell a reference the way the
   * program already can, instead of guessing from the text.
   */
  nameFor(qualified: string): string | undefined {
    const frames: Env[] = [];
    for (let f: Env | undefined = this.currentFrame(); f; f = f.parent) frames.push(f);
    if (!frames.includes(this.globals)) frames.push(this.globals);
    for (const f of frames) {
      for (const [k, v] of f.vars) {
        if (v.t !== 'extern' || v.name !== qualified || v.self !== undefined || v.kw || v.args) continue;
        if (this.boundValue(k) === v) return k;
      }
    }
    return undefined;
  }

  /** What `name` resolves to in the current frame, without builtins; undefined when unbound. */
  private boundValue(name: string): Value | undefined {
    for (let f: Env | undefined = this.currentFrame(); f; f = f.parent) {
      const v = f.vars.get(name);
      if (v !== undefined) return v;
    }
    return this.globals.vars.get(name);
  }

  lookup(name: string, node: SyntaxNode): Value {
    for (let f: Env | undefined = this.currentFrame(); f; f = f.parent) {
      const v = f.vars.get(name);
      if (v !== undefined) return v;
    }
    const g = this.globals.vars.get(name);
    if (g !== undefined) return g;
    if (BUILTINS.has(name)) return { t: 'extern', name: `builtins.${name}` };
    return unknown(`name \`${name}\` is not defined here`, this.span(node));
  }

  getAttr(obj: Value, name: string, node: SyntaxNode): Value {
    switch (obj.t) {
      case 'module': return this.moduleAttr(obj, name, node);
      case 'dict': {
        if (!obj.attrs) return this.externAttr(obj, name, node);
        const key = obj.aliases && Object.hasOwn(obj.aliases, name) ? obj.aliases[name] : name;
        const i = obj.keys.findIndex((k) => k.t === 'str' && k.v === key);
        if (i >= 0) return obj.vals[i];
        // A name the mapping does not hold: a method of the dict (modelled or a Python dict method), else not set —
        // unknown, never a bound method that would read as true in a condition.
        if (this.externs.has(`builtins.dict.${name}`) || DICT_METHODS.has(name)) return this.externAttr(obj, name, node);
        return unknown(`\`${name}\` is not set in ${describe(obj)}`, this.span(node));
      }
      case 'extern': {
        if (obj.self === undefined && !obj.kw && !obj.args) {
          const full = canonical(`${obj.name}.${name}`);
          if (full === 'os.environ') return { t: 'environ' };
          const named = this.externValues.get(full);
          if (named) return named(this, node);
          const dt = externDType(full);
          if (dt) return { t: 'dtype', dtype: dt };
          return { t: 'extern', name: full };
        }
        return this.externAttr(obj, name, node);
      }
      case 'inst': {
        const a = obj.attrs.get(name);
        if (a !== undefined) {
          if (a.t !== 'tensor' || !a.standIn) return a;
          const part = this.externAttr(obj, name, node);
          return part.t === 'inst' ? part : a;
        }
        if (name === '__dict__') {
          // The instance dict, when its attributes are known complete: its items now, and a key set through it
          // (`self.__dict__.update(kwargs)`, `self.__dict__[k] = v`: an HParams bag) sets the attribute too. Other
          // changes through it (pop, del) are not followed, so the attributes are no longer known complete.
          const complete = this.completeAttrs.has(obj) && !dictSubclassMapping(obj);
          this.completeAttrs.delete(obj);
          if (complete) return { t: 'dict', keys: [...obj.attrs.keys()].map(str), vals: [...obj.attrs.values()], scope: { vars: obj.attrs } };
        }
        const c = this.classAttr(obj.cls, name);
        if (c !== undefined) return this.bindMember(c, obj, node);
        const lib = this.libBase.get(obj);
        if (lib) return this.getAttr(lib, name, node);
        // A dict subclass: the dict's methods act on its mapping; after `self.__dict__ = self` its items are
        // its attributes too (Python looks attributes up in the instance's __dict__, which is then the mapping).
        const m = dictSubclassMapping(obj);
        if (m) {
          if (m.attrs) {
            const i = m.keys.findIndex((k) => k.t === 'str' && k.v === name);
            if (i >= 0) return m.vals[i];
          }
          if (this.externs.has(`builtins.dict.${name}`) || DICT_METHODS.has(name)) return this.externAttr(m, name, node);
          if (m.attrs) return unknown(`\`${name}\` is not set in ${obj.cls.name}(...)`, this.span(node));
        }
        // A program's __getattr__ runs when normal lookup fails (Python data model, "Customizing attribute
        // access"). The CfgNode / AttrDict patterns (`return self[name]`, `__getattr__ = dict.__getitem__`) read the
        // mapping: a key it holds is that value; otherwise the program's __getattr__ runs (a raise is unknown).
        const ga = this.classAttr(obj.cls, '__getattr__');
        if (ga !== undefined) {
          if (m) {
            const i = dictIndexOf(m.keys, str(name));
            if (i >= 0) return m.vals[i];
          }
          if (ga.t === 'func') return this.callFunction({ ...ga, self: obj }, { args: [str(name)], kw: new Map() }, node);
          return unknown(`\`${name}\` is not set in ${describe(obj)}`, this.span(node));
        }
        return this.externAttr(obj, name, node);
      }
      case 'class': {
        const c = this.classAttr(obj, name);
        // `type(m).__name__`: the class's own name (Python sets it from the class statement; never inherited).
        if ((name === '__name__' || name === '__qualname__') && !obj.ns.has(name)) return str(obj.name);
        if (c !== undefined) {
          if (c.t === 'extern' && c.name === '__classmethod__' && c.self?.t === 'func') return { ...c.self, self: obj };
          if (c.t === 'extern' && c.name === '__staticmethod__' && c.self) return c.self;
          return c;
        }
        return this.externAttr(obj, name, node);
      }
      case 'super': {
        const mro = linearize(obj.cls).slice(1);
        for (const c of mro) {
          const v = c.ns.get(name);
          if (v !== undefined) return this.bindMember(v, obj.self, node);
        }
        for (const b of obj.cls.bases) if (b.t === 'extern') return { t: 'extern', name: `${b.name}.${name}`, self: obj.self };
        return { t: 'extern', name: `object.${name}`, self: obj.self };
      }
      case 'unknown': return obj;
      default:
        return this.externAttr(obj, name, node);
    }
  }

  classAttr(cls: ClassV, name: string): Value | undefined {
    for (const c of linearize(cls)) {
      const v = c.ns.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private bindMember(v: Value, self: Value, node: SyntaxNode): Value {
    if (v.t === 'func') return { ...v, self };
    if (v.t === 'extern' && v.name === '__property__' && v.self?.t === 'func') return this.callFunction({ ...v.self, self }, { args: [], kw: new Map() }, node);
    if (v.t === 'extern' && v.name === '__staticmethod__' && v.self) return v.self;
    if (v.t === 'extern' && v.name === '__classmethod__' && v.self?.t === 'func') return { ...v.self, self: self.t === 'inst' ? self.cls : self };
    if (v.t === 'extern' && v.name === '__dataclass_replace__') return { ...v, self };
    return v;
  }

  /** Attributes of values that are not user objects: tensor.shape, dict.items, layer methods... */
  externAttr(obj: Value, name: string, node: SyntaxNode): Value {
    const h = this.externs.get('__getattr__');
    if (h) {
      const r = h(this, obj, { args: [str(name)], kw: new Map() }, node, { t: 'extern', name: '__getattr__' });
      if (!(r.t === 'unknown' && r.reason === '__pass__')) return r;
    }
    return unknown(`attribute \`${name}\` of ${describe(obj)} is not modelled`, this.span(node));
  }

  /**
   * A window written as `a[i:i + k]` (or `a[i:k + i]`), step 1 or none, `k` a known count ≥ 0 and `i` not known:
   * Python's slice clamping (Objects/sliceobject.c PySlice_AdjustIndices) gives it at most k elements for any i
   * and any length, exactly k while i ≥ 0 and i + k ≤ len(a), the case such a window is written for.
   */
  sliceWidth(node: SyntaxNode, parts: Value[]): number | undefined {
    if (num(parts[0]) !== undefined || (parts[2].t !== 'none' && num(parts[2]) !== 1)) return undefined;
    const [startN, stopN] = sliceParts(node);
    if (!startN || !stopN) return undefined;
    // The terms of the stop's `+` chain (`i + b * t + 1` is ((i + b*t) + 1)): one is the start, the others known.
    const terms: SyntaxNode[] = [];
    const flatten = (n: SyntaxNode): void => {
      const l = n.childForFieldName('left'), r = n.childForFieldName('right');
      if (n.type === 'binary_operator' && n.childForFieldName('operator')?.type === '+' && l && r) { flatten(l); flatten(r); } else terms.push(n);
    };
    flatten(stopN);
    const at = terms.findIndex((t) => t.text === startN.text);
    if (terms.length < 2 || at < 0) return undefined;
    let k = 0;
    for (const [j, t] of terms.entries()) {
      if (j === at) continue;
      const v = num(this.eval(t));
      if (v === undefined || !Number.isInteger(v)) return undefined;
      k += v;
    }
    return k >= 0 ? k : undefined;
  }

  private evalSubscript(node: SyntaxNode): Value {
    const obj = this.eval(node.childForFieldName('value')!);
    const subs = node.childrenForFieldName('subscript').filter((c): c is SyntaxNode => !!c);
    const idx = this.withTemps([obj], () => subs.map((s) => this.eval(s)));
    const key: Value = idx.length === 1 ? idx[0] : { t: 'tuple', items: idx };
    return this.getItem(obj, key, node);
  }

  getItem(obj: Value, key: Value, node: SyntaxNode): Value {
    const own = this.userMethod(obj, '__getitem__');
    if (own) return this.callFunction({ ...own, self: obj }, { args: [key], kw: new Map() }, node);
    switch (obj.t) {
      case 'tuple': case 'list': {
        if (key.t === 'slice') {
          const n = obj.items.length;
          const s = sliceBounds(key, n);
          if (!s) return unknown('slice bounds are not known', this.span(node));
          const out: Value[] = [];
          for (let i = s.start; s.step > 0 ? i < s.stop : i > s.stop; i += s.step) out.push(obj.items[i]);
          return { t: obj.t, items: out };
        }
        const i = num(key);
        if (i === undefined || !Number.isInteger(i)) return unknown(`index ${describe(key)} is not known`, this.span(node));
        const v = obj.items[i < 0 ? obj.items.length + i : i];
        return v ?? unknown(`index ${i} out of range`, this.span(node));
      }
      case 'dict': {
        const i = dictIndexOf(obj.keys, key);
        return i >= 0 ? obj.vals[i] : unknown(`key ${describe(key)} not found in dict`, this.span(node));
      }
      case 'str': {
        if (key.t === 'slice') {
          // str slicing, by code points as CPython's str indexes them.
          const cps = [...obj.v];
          const s = sliceBounds(key, cps.length);
          if (!s) return unknown('string slice with bounds that are not known', this.span(node));
          let out = '';
          for (let i = s.start; s.step > 0 ? i < s.stop : i > s.stop; i += s.step) out += cps[i];
          return str(out);
        }
        const i = num(key);
        return i !== undefined ? str(obj.v.at(i) ?? '') : unknown('string index that is not known', this.span(node));
      }
      case 'unknown': return obj;
      default: {
        const backing = obj.t === 'inst' ? dictSubclassMapping(obj) : undefined;
        if (backing && obj.t === 'inst' && this.classAttr(obj.cls, '__getitem__')?.t !== 'func') return this.getItem(backing, key, node);
        const h = this.externs.get('__getitem__');
        if (h) return h(this, obj, { args: [key], kw: new Map() }, node, { t: 'extern', name: '__getitem__' });
        return unknown(`indexing ${describe(obj)} is not modelled`, this.span(node));
      }
    }
  }

  // ----------------------------------------------------------------- calls

  evalArgs(argNode: SyntaxNode | null): CallArgs {
    const args: Value[] = [];
    const kw = new Map<string, Value>();
    if (!argNode) return { args, kw };
    if (argNode.type === 'generator_expression') {
      args.push(this.eval(argNode));
      return { args, kw };
    }
    for (const c of argNode.namedChildren) {
      if (!c || c.isExtra) continue;
      const pinned = [...args, ...kw.values()];
      if (c.type === 'keyword_argument') {
        kw.set(c.childForFieldName('name')!.text, this.withTemps(pinned, () => this.eval(c.childForFieldName('value')!)));
      } else if (c.type === 'list_splat') {
        const v = this.withTemps(pinned, () => this.eval(c.namedChildren[0]!));
        const it = this.iterate(v, c);
        if (it) args.push(...it);
        else args.push(unknown(`*${clip(c.namedChildren[0]!.text)} could not be expanded`, this.span(c)));
      } else if (c.type === 'dictionary_splat') {
        const own = this.withTemps(pinned, () => this.instanceDictSplat(c.namedChildren[0]!));
        if (own) { for (const [k, v] of own) kw.set(k, v); continue; }
        const v = this.withTemps(pinned, () => this.eval(c.namedChildren[0]!));
        const mapping = v.t === 'inst' ? this.userMapping(v, c) : undefined;
        if (v.t === 'dict') v.keys.forEach((k, i) => { if (k.t === 'str') kw.set(k.v, v.vals[i]); });
        else if (mapping) for (const [k, x] of mapping) kw.set(k, x);
        else kw.set('**', unknown(`**${clip(c.namedChildren[0]!.text)} could not be expanded${v.t === 'unknown' ? ` (${v.reason})` : ''}`, this.span(c)));
      } else {
        args.push(this.withTemps(pinned, () => this.eval(c)));
      }
    }
    return { args, kw };
  }

  /**
   * `**obj` of a program's mapping class: Python's `**` takes `obj.keys()` and `obj[key]` for each
   * (language reference, Calls: "If the syntax **expression appears in the function call, expression
   * must evaluate to a mapping"; CPython's PyDict_Merge on a non-dict calls keys() then __getitem__).
   * A dict subclass gives its mapping. Undefined when a key is not a known string.
   */
  private userMapping(obj: InstV, at: SyntaxNode): Map<string, Value> | undefined {
    const m = dictSubclassMapping(obj);
    const pairs = new Map<string, Value>();
    if (m && !this.userMethod(obj, 'keys') && !this.userMethod(obj, '__getitem__')) {
      for (const [i, k] of m.keys.entries()) { if (k.t !== 'str') return undefined; pairs.set(k.v, m.vals[i]); }
      return pairs;
    }
    const keys = this.userMethod(obj, 'keys');
    if (!keys || !(this.userMethod(obj, '__getitem__') || m)) return undefined;
    const ks = this.iterate(this.callFunction({ ...keys, self: obj }, { args: [], kw: new Map() }, at), at);
    if (!ks) return undefined;
    for (const k of ks) {
      if (k.t !== 'str') return undefined;
      pairs.set(k.v, this.getItem(obj, k, at));
    }
    return pairs;
  }

  /**
   * `**vars(x)` / `**x.__dict__` where `x` (a name or attribute) is an object whose attributes are
   * its whole instance dict (Python's vars(): the object's __dict__): its attributes as keywords.
   * Undefined when it is not that form; the expression is then evaluated as usual.
   */
  private instanceDictSplat(e: SyntaxNode): Map<string, Value> | undefined {
    let target: SyntaxNode | null = null;
    if (e.type === 'call') {
      const fnNode = e.childForFieldName('function');
      const argList = e.childForFieldName('arguments');
      const args = argList?.namedChildren.filter((a) => a && !a.isExtra) ?? [];
      if (fnNode?.type !== 'identifier' || fnNode.text !== 'vars' || args.length !== 1) return undefined;
      const fn = this.eval(fnNode);
      if (fn.t !== 'extern' || fn.name !== 'builtins.vars') return undefined;
      target = args[0]!;
    } else if (e.type === 'attribute' && e.childForFieldName('attribute')?.text === '__dict__') {
      target = e.childForFieldName('object');
    }
    if (!target || (target.type !== 'identifier' && target.type !== 'attribute')) return undefined;
    const obj = this.eval(target);
    if (obj.t !== 'inst' || !this.completeAttrs.has(obj) || obj.attrs.has('__dict__')) return undefined;
    return new Map(obj.attrs);
  }

  private evalCall(node: SyntaxNode): Value {
    const fnNode = node.childForFieldName('function')!;
    const fn = this.eval(fnNode);
    const call = this.withTemps([fn], () => this.evalArgs(node.childForFieldName('arguments')));
    this.callSites.push({ node, fn, call, frame: this.currentFrame() });
    let out: Value;
    try {
      out = this.withTemps([fn, ...call.args, ...call.kw.values()], () => this.call(fn, call, node));
    } finally {
      this.callSites.pop();
    }
    if (this.memory.current?.gc) this.dropNestedArguments(node, call, out);
    if (fn.t === 'unknown' || (fn.t === 'extern' && out.t === 'unknown' && out.reason.startsWith('call to `') && !KNOWN_LIBS.test(fn.name))) {
      this.forgetMutableArgs(node, fn.t === 'extern' ? fn.name : clip(fnNode.text));
    }
    return out;
  }

  /**
   * `f(g(x))`: once f returned, g's result is referenced by nothing the statement still evaluates (CPython drops the
   * argument tuple), so it is freed now if nothing else reaches it (memory.ts dropArguments), not at the statement's
   * end. Arguments written as calls only; a call with `*args` / `**kwargs` is left to the statement's end.
   */
  private dropNestedArguments(node: SyntaxNode, call: CallArgs, out: Value): void {
    const argNodes = (node.childForFieldName('arguments')?.namedChildren ?? []).filter((a): a is SyntaxNode => !!a && a.type !== 'comment');
    if (argNodes.some((a) => a.type === 'list_splat' || a.type === 'dictionary_splat' || a.type === 'parenthesized_expression')) return;
    if (node.childForFieldName('arguments')?.type !== 'argument_list') return;
    const drop: TensorV[] = [];
    let i = 0;
    for (const a of argNodes) {
      if (a.type === 'keyword_argument') {
        const v = call.kw.get(a.childForFieldName('name')?.text ?? '');
        if (a.childForFieldName('value')?.type === 'call' && v?.t === 'tensor') drop.push(v);
        continue;
      }
      const v = call.args[i++];
      if (a.type === 'call' && v?.t === 'tensor') drop.push(v);
    }
    if (drop.length) this.memory.dropArguments(drop, out);
  }

  /**
   * A function that is not followed (`_ovewrite_named_param(kwargs, "groups", 32)` imported
   * from a file that is not analysed) may change a dict or list passed to it: the names and
   * attributes that hold one are forgotten, so later reads are unknown instead of stale.
   */
  private forgetMutableArgs(node: SyntaxNode, callee: string): void {
    for (const c of node.childForFieldName('arguments')?.namedChildren ?? []) {
      const e = c?.type === 'keyword_argument' ? c.childForFieldName('value') : c;
      if (!e || (e.type !== 'identifier' && e.type !== 'attribute')) continue;
      const why = unknown(`\`${clip(e.text)}\` was passed to \`${callee}\`, which is not followed and may have changed it`, this.span(e));
      if (e.type === 'identifier') {
        for (let f: Env | undefined = this.currentFrame(); f; f = f.parent) {
          const v = f.vars.get(e.text);
          if (v === undefined) continue;
          if (v.t === 'dict' || v.t === 'list') f.vars.set(e.text, why);
          // An object handed to it may have got attributes: its instance dict is no longer known complete.
          if (v.t === 'inst') this.completeAttrs.delete(v);
          break;
        }
      } else if (e.childForFieldName('object')?.type === 'identifier') {
        // Only `name.attr` is looked up again: re-evaluating a call in the object would repeat its effects.
        const obj = this.lookup(e.childForFieldName('object')!.text, e);
        const name = e.childForFieldName('attribute')!.text;
        if (obj.t === 'inst' && ['dict', 'list'].includes(obj.attrs.get(name)?.t ?? '')) obj.attrs.set(name, why);
      }
    }
  }

  /** Modules whose `.forward(...)` is being run through `__call_inst__` (see `call`). */
  private forwardRouting = new Set<number>();

  call(fn: Value, call: CallArgs, node: SyntaxNode): Value {
    this.tick(node);
    if (fn.t !== 'func' && fn.t !== 'class' && fn.t !== 'extern') for (const o of this.callObservers) o(fn, call, node);
    switch (fn.t) {
      case 'func': {
        // @contextlib.contextmanager: calling it makes the context manager; its body runs when a `with` enters it
        // (contextlib.py _GeneratorContextManager: __enter__ runs the generator to its yield, __exit__ on from there).
        if (fn.decorators.some((d) => d === 'contextlib.contextmanager' || d === 'contextmanager')) {
          return { t: 'extern', name: '__contextmanager__', args: [fn, ...call.args], kw: new Map(call.kw) };
        }
        // `model.forward(x)` / `self.model.forward(x)` on a torch module runs what `model(x)` runs (nn.Module.__call__
        // calls forward; the hooks it skips hold no memory), so the phases see the call the same way.
        // `super().forward(x)` is the parent's forward of a module already running: called directly.
        const s = fn.self;
        const callee = node.type === 'call' ? node.childForFieldName('function') : null;
        const obj = callee?.type === 'attribute' ? callee.childForFieldName('object') : null;
        if (fn.name === 'forward' && s?.t === 'inst' && s.cls.kind === 'torch' && obj && obj.type !== 'call' && !this.forwardRouting.has(s.id)) {
          const h = this.externs.get('__call_inst__');
          if (h) {
            this.forwardRouting.add(s.id);
            try { return h(this, s, call, node, { t: 'extern', name: '__call_inst__' }); } finally { this.forwardRouting.delete(s.id); }
          }
        }
        if (isGeneratorFn(fn.node)) return this.runGenerator(fn, call, node);
        return this.callFunction(fn, call, node);
      }
      case 'class': return this.instantiate(fn, call, node);
      case 'extern': return this.callExtern(fn, call, node);
      case 'inst': {
        const h = this.externs.get('__call_inst__');
        if (h) return h(this, fn, call, node, { t: 'extern', name: '__call_inst__' });
        return unknown(`calling ${describe(fn)}`, this.span(node));
      }
      case 'unknown': return unknown(`call of unknown callable: ${fn.reason}`, this.span(node));
      default: {
        const h = this.externs.get('__call_value__');
        if (h) return h(this, fn, call, node, { t: 'extern', name: '__call_value__' });
        return unknown(`\`${clip(node.childForFieldName('function')?.text ?? node.text)}\` is not callable here`, this.span(node));
      }
    }
  }

  callExtern(fn: Value & { t: 'extern' }, call: CallArgs, node: SyntaxNode): Value {
    for (const o of this.callObservers) o(fn, call, node);
    const h = this.externs.get(fn.name);
    if (h) return h(this, fn.self, call, node, fn);
    for (const [p, ph] of this.externPrefixes) if (fn.name.startsWith(p)) {
      const r = ph(this, fn.self, call, node, fn);
      if (!(r.t === 'unknown' && r.reason === '__pass__')) return r;
    }
    const layer = this.cat.layers.get(fn.name);
    if (layer) {
      const lh = this.externs.get('__layer__');
      if (lh) return lh(this, fn.self, call, node, fn);
    }
    const op = this.cat.ops.get(fn.name);
    if (op) return this.applyOp(op, fn.self, call, node, fn.name);
    const init = this.cat.inits.get(fn.name);
    if (init) {
      if (init.factory) {
        const dt = call.kw.get('dtype');
        return { t: 'init', init: { kind: 'init', name: fn.name, random: init.random, ...(dt?.t === 'dtype' ? { dtype: dt.dtype } : {}) } };
      }
      const h = this.externs.get('__call_value__');
      if (h) return h(this, { t: 'init', init: { kind: 'init', name: fn.name, random: init.random } }, call, node, { t: 'extern', name: '__call_value__' });
      return unknown(`initializer ${fn.name} called directly`, this.span(node));
    }
    return unknown(`call to \`${fn.name}\` is not modelled`, this.span(node));
  }

  /** Binds arguments to a def's parameters and runs its body. */
  callFunction(fn: FuncV, call: CallArgs, node: SyntaxNode): Value {
    if (fn.node.tree === this.tree) this.entered.add(fn.node.startIndex);
    if (this.frames.length > MAX_DEPTH) return this.note(`call depth limit reached calling ${fn.name}`, node);
    const env: Env = { vars: new Map(), parent: fn.closure, params: [] };
    const args = [...(fn.partialArgs ?? []), ...call.args];
    const kw = new Map([...(fn.partialKw ?? []), ...call.kw]);
    if (fn.self !== undefined) args.unshift(fn.self);
    const params = fn.node.type === 'lambda' ? fn.node.childForFieldName('parameters') : fn.node.childForFieldName('parameters');
    let i = 0;
    let kwOnly = false;
    for (const p of params?.namedChildren ?? []) {
      if (!p) continue;
      switch (p.type) {
        case 'identifier': case 'typed_parameter': case 'default_parameter': case 'typed_default_parameter': {
          const name = p.type === 'identifier' ? p.text
            : p.type === 'typed_parameter' ? p.namedChildren.find((c) => c?.type === 'identifier')?.text ?? p.text
            : p.childForFieldName('name')!.text;
          if (p.type === 'typed_parameter' && p.namedChildren[0]?.type === 'list_splat_pattern') {
            env.vars.set(p.namedChildren[0].namedChildren[0]?.text ?? '_', { t: 'tuple', items: args.slice(i) });
            i = args.length; kwOnly = true; break;
          }
          if (p.type === 'typed_parameter' && p.namedChildren[0]?.type === 'dictionary_splat_pattern') {
            env.vars.set(p.namedChildren[0].namedChildren[0]?.text ?? '_', kwDict(kw));
            kw.clear(); break;
          }
          let v: Value | undefined;
          if (!kwOnly && i < args.length) v = args[i++];
          else if (kw.has(name)) { v = kw.get(name); kw.delete(name); }
          // `**d` that could not be expanded may set any parameter, defaulted ones included.
          else if (kw.has('**')) v = kw.get('**');
          else v = fn.defaults.get(name);
          if (v === undefined) {
            // A call written in the program that leaves out a required argument raises TypeError in Python ("missing
            // 1 required positional argument"): what it would have built is not built, so the record being built
            // (and the value) is unknown, never a count made without that argument.
            v = kw.has('**') ? kw.get('**')!
              : node.type === 'call' ? this.note(`\`${clip(node.text)}\` leaves out the required argument \`${name}\` of ${fn.name}: Python raises TypeError here`, node)
              : unknown(`argument \`${name}\` of ${fn.name} was not given`, this.span(node));
          }
          env.vars.set(name, v);
          env.params!.push(name);
          break;
        }
        case 'list_splat_pattern':
          env.vars.set(p.namedChildren[0]?.text ?? '_', { t: 'tuple', items: args.slice(i) });
          i = args.length; kwOnly = true;
          break;
        case 'dictionary_splat_pattern':
          env.vars.set(p.namedChildren[0]?.text ?? '_', kwDict(kw));
          env.varKw = p.namedChildren[0]?.text ?? '_';
          kw.clear();
          break;
        case 'keyword_separator': kwOnly = true; break;
        default: break;
      }
    }
    if (fn.self?.t === 'inst' && fn.decorators?.some((d) => /(^|\.)register_to_config(\(\))?$/.test(d))) this.registerToConfig(fn.self, env);
    const jit = fn.jitted && !this.memory.jitDepth;
    if (jit) this.memory.enterJit(node);
    this.frames.push(env);
    let result: Value = NONE;
    try {
      if (fn.node.type === 'lambda') result = this.eval(fn.node.childForFieldName('body')!);
      else this.body(fn.node.childForFieldName('body'));
    } catch (e) {
      if (e instanceof ReturnSignal) result = e.value;
      else if (e instanceof RaiseSignal) result = unknown(`${e.reason} raises ${e.type}, not caught in the function`, this.span(node));
      else throw e;
    } finally {
      this.frames.pop();
    }
    if (jit) result = this.memory.exitJit(result, node);
    return result;
  }

  /**
   * diffusers' `@register_to_config` on `__init__` (configuration_utils.py `register_to_config`): before the
   * `__init__` body runs, every parameter after `self` with the value it is called with (or its default), except
   * those the class lists in `ignore_for_config`, is registered as the model's config, read back as
   * `self.config.<name>` (a FrozenDict whose items are also attributes).
   */
  private registerToConfig(self: InstV, env: Env): void {
    const ignore = this.classAttr(self.cls, 'ignore_for_config');
    const ignored = new Set(ignore?.t === 'list' || ignore?.t === 'tuple' ? ignore.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : []);
    const names = (env.params ?? []).slice(1).filter((n) => !ignored.has(n));
    self.attrs.set('config', { t: 'dict', keys: names.map((n) => str(n)), vals: names.map((n) => env.vars.get(n) ?? NONE), attrs: true });
  }

  instantiate(cls: ClassV, call: CallArgs, node: SyntaxNode): Value {
    const h = this.externs.get('__instantiate__');
    if (h) return h(this, cls, call, node, { t: 'extern', name: '__instantiate__' });
    return this.instantiatePlain(cls, call, node);
  }

  /** Python object creation: dataclass fields or __init__. */
  instantiatePlain(cls: ClassV, call: CallArgs, node: SyntaxNode): InstV {
    const inst = this.newInst(cls);
    if (cls.kind === 'plain' && cls.node?.tree === this.tree) this.lastInstance.set(cls.node.startIndex, inst);
    // A plain object of a class the program defines, every class of whose MRO it defines too (no library base that
    // may set attributes oomlens does not see): its instance dict is the attributes set on it, as long as each is set
    // under a known name and it is not handed to code that is not followed (forgetMutableArgs, setattr).
    if (cls.kind === 'plain' && linearize(cls).every((k) => k.node && k.bases.every((b) => b.t === 'class' || (b.t === 'extern' && b.name === 'builtins.object')))) this.completeAttrs.add(inst);
    const init = this.classAttr(cls, '__init__');
    if (init?.t === 'func') {
      this.withTemps([inst], () => this.callFunction({ ...init, self: inst }, call, node));
    } else if (cls.dataclass) {
      this.bindFields(inst, call, node);
      const post = this.classAttr(cls, '__post_init__');
      if (post?.t === 'func') this.withTemps([inst], () => this.callFunction({ ...post, self: inst }, { args: [], kw: new Map() }, node));
    } else if (cls.kind === 'torch') {
      // No __init__ of its own: Python runs the library base's (class Norm(nn.LayerNorm): pass).
      const ext = linearize(cls).flatMap((k) => k.bases).find((b) => b.t === 'extern');
      if (ext?.t === 'extern') this.withTemps([inst], () => this.callExtern({ t: 'extern', name: `${ext.name}.__init__`, self: inst }, call, node));
    } else if (linearize(cls).flatMap((k) => k.bases).some((b) => b.t === 'extern' && this.externs.has(`${canonical(b.name)}.__init__`))) {
      // A library base whose __init__ oomlens models (a parser class): Python runs it with the call's arguments.
      const ext = linearize(cls).flatMap((k) => k.bases).find((b) => b.t === 'extern' && this.externs.has(`${canonical(b.name)}.__init__`)) as Value & { t: 'extern' };
      this.withTemps([inst], () => this.callExtern({ t: 'extern', name: `${canonical(ext.name)}.__init__`, self: inst }, call, node));
    } else if (call.args.length || call.kw.size) {
      // A library base class's __init__ (e.g. a plain object or NamedTuple) — bind fields when we know them.
      this.bindFields(inst, call, node);
    }
    return inst;
  }

  bindFields(inst: InstV, call: CallArgs, node: SyntaxNode): void {
    const fields = inst.cls.fields;
    fields.forEach((f, i) => {
      let v: Value | undefined = i < call.args.length ? call.args[i] : call.kw.get(f);
      // `**d` that could not be expanded may set any field, defaulted ones included.
      if (v === undefined && call.kw.has('**')) v = call.kw.get('**');
      if (v === undefined) {
        const d = this.classAttr(inst.cls, f);
        if (d?.t === 'extern' && d.name === '__field__') {
          v = d.kw?.get('default') ?? (d.kw?.get('default_factory') ? this.call(d.kw.get('default_factory')!, { args: [], kw: new Map() }, node) : undefined);
        } else v = d;
      }
      if (v === undefined) v = unknown(`field \`${f}\` of ${inst.cls.name} was not given`, this.span(node));
      inst.attrs.set(f, v);
    });
    // A dataclass deriving from a library dataclass (class TrainingArguments(transformers.TrainingArguments)):
    // the base's fields are constructor arguments too; oomlens keeps the ones given by name.
    if (inst.cls.kind === 'plain' && linearize(inst.cls).some((k) => k.bases.some((b) => b.t === 'extern'))) {
      for (const [k, v] of call.kw) if (k !== '**' && !fields.includes(k)) inst.attrs.set(k, v);
    }
  }

  // ------------------------------------------------------------ operators

  binop(op: string, l: Value, r: Value, node: SyntaxNode): Value {
    if (l.t === 'tensor' || r.t === 'tensor') {
      const name = TENSOR_BINOPS[op];
      if (!name) return unknown(`operator ${op} on arrays`, this.span(node));
      const out = this.arrayOp(name, [l, r], new Map(), node);
      // The operators share jax.numpy's entries; on torch tensors a reason names the operator, not jax.numpy.
      if (out.t === 'unknown' && [l, r].some((v) => v.t === 'tensor' && v.lib === 'torch')) return { ...out, reason: out.reason.split(name).join(`operator ${op}`) };
      return out;
    }
    if (l.t === 'unknown') return l;
    if (r.t === 'unknown') return r;
    const a = num(l), b = num(r);
    if (a !== undefined && b !== undefined) {
      const isInt = (l.t === 'int' || l.t === 'bool') && (r.t === 'int' || r.t === 'bool');
      switch (op) {
        case '+': return isInt ? int(a + b) : { t: 'float', v: a + b };
        case '-': return isInt ? int(a - b) : { t: 'float', v: a - b };
        case '*': return isInt ? int(a * b) : { t: 'float', v: a * b };
        case '/': return b === 0 ? unknown('division by zero', this.span(node)) : { t: 'float', v: a / b };
        case '//': return b === 0 ? unknown('division by zero', this.span(node)) : isInt ? int(Math.floor(a / b)) : { t: 'float', v: Math.floor(a / b) };
        case '%': return b === 0 ? unknown('modulo by zero', this.span(node)) : isInt ? int(((a % b) + b) % b) : { t: 'float', v: ((a % b) + b) % b };
        case '**': return isInt && b >= 0 ? int(a ** b) : { t: 'float', v: a ** b };
        case '<<': return int(a * 2 ** b);
        case '>>': return int(Math.floor(a / 2 ** b));
        case '&': return int(a & b);
        case '|': return int(a | b);
        case '^': return int(a ^ b);
      }
    }
    if (op === '+' && l.t === 'str' && r.t === 'str') {
      if (l.v.length + r.v.length > MAX_STR) return this.note(`string of ${l.v.length + r.v.length} characters is over the analysis size cap (${MAX_STR} characters)`, node);
      return str(l.v + r.v);
    }
    if (op === '+' && (l.t === 'list' || l.t === 'tuple') && l.t === r.t) {
      if (l.items.length + r.items.length > MAX_ITEMS) return this.note(`${l.t} of ${l.items.length + r.items.length} items is over the analysis size cap (${MAX_ITEMS} items)`, node);
      return { t: l.t, items: l.items.concat(r.items) };
    }
    if (op === '*' && (l.t === 'list' || l.t === 'tuple' || l.t === 'str') && r.t === 'int') {
      const len = l.t === 'str' ? l.v.length : l.items.length;
      const n = Math.max(0, r.v);
      if (l.t === 'str') return n * len > MAX_STR ? this.note(`string of ${n * len} characters is over the analysis size cap (${MAX_STR} characters)`, node) : str(l.v.repeat(n));
      if (n * len > MAX_ITEMS) return this.note(`${l.t} of ${n * len} items is over the analysis size cap (${MAX_ITEMS} items)`, node);
      const items: Value[] = [];
      for (let i = 0; i < n; i++) for (const x of l.items) items.push(x);
      return { t: l.t, items };
    }
    if (op === '%' && l.t === 'str') {
      const f = percentFormat(l.v, r);
      return f.t === 'unknown' ? unknown(f.reason, this.span(node)) : f;
    }
    // Sets are lists here (builtins.set): `-`, `&`, `|` and `^` between two lists can only be set operations
    // (Python lists do not define them). Items compare by value (keyEq); an item that is not a known
    // number, string, tuple or None makes membership undecidable, so the result is unknown.
    if ((op === '-' || op === '&' || op === '|' || op === '^') && l.t === 'list' && r.t === 'list') {
      const hashable = (x: Value): boolean => x.t === 'int' || x.t === 'float' || x.t === 'bool' || x.t === 'str' || x.t === 'none' || (x.t === 'tuple' && x.items.every(hashable));
      if (!l.items.every(hashable) || !r.items.every(hashable)) return unknown(`\`${clip(node.text)}\`: set operation ${op} on items that are not known values`, this.span(node));
      const inR = (x: Value) => r.items.some((y) => keyEq(x, y));
      const inL = (x: Value) => l.items.some((y) => keyEq(x, y));
      const out: Value[] = [];
      const add = (x: Value) => { if (!out.some((y) => keyEq(x, y))) out.push(x); };
      if (op === '-') l.items.filter((x) => !inR(x)).forEach(add);
      else if (op === '&') l.items.filter(inR).forEach(add);
      else if (op === '|') [...l.items, ...r.items].forEach(add);
      else [...l.items.filter((x) => !inR(x)), ...r.items.filter((x) => !inL(x))].forEach(add);
      return { t: 'list', items: out };
    }
    // Operators a library defines on its own objects (pathlib's `/`): answered by an extern `__binop__` rule.
    const h = this.externs.get('__binop__');
    if (h) {
      const v = h(this, undefined, { args: [str(op), l, r], kw: new Map() }, node, { t: 'extern', name: '__binop__' });
      if (!(v.t === 'unknown' && v.reason === '__pass__')) return v;
    }
    if (op === '|' && l.t === 'dict' && r.t === 'dict') {
      const d: Value & { t: 'dict' } = { t: 'dict', keys: [...l.keys], vals: [...l.vals] };
      r.keys.forEach((k, i) => this.setItem(d, k, r.vals[i], node));
      return d;
    }
    return unknown(`\`${clip(node.text)}\`: operator ${op} on ${describe(l)} and ${describe(r)}`, this.span(node));
  }

  // -------------------------------------------------------------- arrays

  /** Calls an op-catalogue entry by name (used for operators and methods). */
  arrayOp(name: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode): Value {
    const op = this.cat.ops.get(name);
    if (!op) return unknown(`array operation ${name} is not catalogued`, this.span(node));
    return this.applyOp(op, undefined, { args, kw }, node, name);
  }

  applyOp(op: OpEntry, self: Value | undefined, call: CallArgs, node: SyntaxNode, name = op.names[0]): Value {
    const h = this.externs.get('__op__');
    if (!h) return unknown('array operations are not available', this.span(node));
    const all = self !== undefined ? [self, ...call.args] : call.args;
    return h(this, { t: 'extern', name }, { args: all, kw: call.kw }, node, { t: 'extern', name });
  }

  // ---------------------------------------------------------- iteration

  iterate(v: Value, node: SyntaxNode, expect?: number): Value[] | undefined {
    switch (v.t) {
      case 'tuple': case 'list': return v.items;
      case 'dict': return v.keys;
      case 'str': return [...v.v].map(str);
      case 'tensor': {
        const d = v.shape[0];
        if (typeof d === 'number' && d <= 4096 && expect === undefined) {
          const items: Value[] = [];
          for (let i = 0; i < d; i++) items.push(this.getItem(v, int(i), node));
          return items;
        }
        if (typeof d === 'number' && expect !== undefined && d === expect) {
          const items: Value[] = [];
          for (let i = 0; i < d; i++) items.push(this.getItem(v, int(i), node));
          return items;
        }
        return undefined;
      }
      case 'key': {
        if (v.batch !== undefined && v.batch <= MAX_LOOP) return Array.from({ length: v.batch }, () => ({ t: 'key' as const }));
        return undefined;
      }
      case 'extern': case 'inst': {
        const backing = v.t === 'inst' ? dictSubclassMapping(v) : undefined;
        if (backing && v.t === 'inst' && this.classAttr(v.cls, '__iter__')?.t !== 'func') return backing.keys;
        const h = this.externs.get('__iter__');
        if (h) {
          const r = h(this, v, { args: [], kw: new Map() }, node, { t: 'extern', name: '__iter__' });
          if (r.t === 'list' || r.t === 'tuple') return r.items;
        }
        return undefined;
      }
      default: return undefined;
    }
  }

  // ------------------------------------------------ conversion for catalogues

  /** Converts an interpreter value to the catalogue's plain argument form. */
  toCat(v: Value): CatValue {
    switch (v.t) {
      case 'int': case 'float': return v.v;
      case 'str': return v.v;
      case 'bool': return v.v;
      case 'none': return null;
      case 'tuple': case 'list': return v.items.map((x) => this.toCat(x));
      case 'tensor': return { kind: 'array', shape: v.shape, dtype: v.dtype };
      case 'dtype': return { kind: 'dtype', dtype: v.dtype };
      case 'init': return v.init;
      case 'unknown': return { kind: 'unknown', reason: v.reason };
      case 'extern': {
        const i = this.cat.inits.get(v.name);
        if (i && !i.factory) return { kind: 'init', name: v.name, random: i.random };
        return { kind: 'opaque', name: v.name };
      }
      case 'func': return { kind: 'opaque', name: v.name };
      case 'slice': return { kind: 'opaque', name: 'slice' };
      case 'ellipsis': return { kind: 'opaque', name: 'Ellipsis' };
      default: return { kind: 'opaque', name: v.t };
    }
  }

  fromCat(c: CatValue): Value {
    if (c === null) return NONE;
    if (typeof c === 'number') return Number.isInteger(c) ? int(c) : { t: 'float', v: c };
    if (typeof c === 'string') return str(c);
    if (typeof c === 'boolean') return { t: 'bool', v: c };
    if (Array.isArray(c)) return { t: 'tuple', items: c.map((x) => this.fromCat(x)) };
    switch (c.kind) {
      case 'dtype': return { t: 'dtype', dtype: c.dtype };
      case 'unknown': return unknown(c.reason);
      case 'init': return { t: 'init', init: c };
      case 'opaque': return { t: 'extern', name: c.name };
      case 'array': return unknown('array value from a catalogue');
    }
  }

  /** Binds a call to a catalogue signature: positional by order, then keywords, then defaults. */
  bindCatalogue(signature: string[], defaults: Args | undefined, call: CallArgs): Args {
    const out: Args = { ...(defaults ?? {}) };
    call.args.forEach((a, i) => { if (i < signature.length) out[signature[i]] = this.toCat(a); });
    for (const [k, v] of call.kw) out[k] = this.toCat(v);
    // Python floats that are whole numbers (1.0) are plain numbers in the catalogue's form, like ints: the names
    // of the arguments holding one go along, so dtype inference keeps them floats (ops.ts pyFloat).
    const floats: string[] = [];
    call.args.forEach((a, i) => { if (i < signature.length && holdsFloat(a)) floats.push(signature[i]); });
    for (const [k, v] of call.kw) if (holdsFloat(v)) floats.push(k);
    if (floats.length) out[PY_FLOATS] = floats;
    // A layer, block or dimension count past the cap: the catalogue would make that many entries.
    for (const k of Object.keys(out)) {
      const v = out[k];
      if (typeof v === 'number' && v > MAX_COUNT && CATALOGUE_COUNTS.test(k)) out[k] = { kind: 'unknown', reason: countCapReason(k, v) };
    }
    return out;
  }
}

// ------------------------------------------------------------------ helpers

/** A Python float, or a list/tuple with one among its items (nested, bounded). */
function holdsFloat(v: Value, depth = 0): boolean {
  if (v.t === 'float') return true;
  if ((v.t === 'list' || v.t === 'tuple') && depth < 8) {
    for (let i = 0; i < v.items.length && i < 10_000; i++) if (holdsFloat(v.items[i], depth + 1)) return true;
  }
  return false;
}

/** Catalogue arguments that count layers, blocks or dimensions (each becomes entries the analyzer makes). */
const CATALOGUE_COUNTS = /^(depth|num_spatial_dims|num_blocks|num_heads|num_experts|\w*layers)$/;

const BUILTINS = new Set([
  'range', 'len', 'int', 'float', 'str', 'bool', 'min', 'max', 'sum', 'abs', 'round', 'list', 'tuple', 'dict', 'set',
  'zip', 'enumerate', 'reversed', 'sorted', 'isinstance', 'super', 'print', 'getattr', 'setattr', 'hasattr', 'any', 'all',
  'map', 'filter', 'iter', 'next', 'divmod', 'pow', 'type', 'object', 'property', 'staticmethod', 'classmethod', 'callable',
  'NotImplementedError', 'ValueError', 'Exception', 'RuntimeError', 'TypeError', 'KeyError', 'AssertionError', 'open', 'vars', 'exec', 'globals', 'id', 'hash', 'repr', 'format', '__import__',
]);

const TENSOR_BINOPS: Record<string, string> = {
  '+': 'jax.numpy.add', '-': 'jax.numpy.subtract', '*': 'jax.numpy.multiply', '/': 'jax.numpy.divide',
  '//': 'jax.numpy.floor_divide', '**': 'jax.numpy.power', '@': 'jax.numpy.matmul', '%': 'jax.numpy.mod',
  '>': 'jax.numpy.greater', '<': 'jax.numpy.less', '>=': 'jax.numpy.greater_equal', '<=': 'jax.numpy.less_equal',
  '==': 'jax.numpy.equal', '!=': 'jax.numpy.not_equal', '&': 'jax.numpy.logical_and', '|': 'jax.numpy.logical_or',
};

/** Known module aliases that point at the same public API. */
export function canonical(name: string): string {
  return name
    .replace(/^jax\.numpy\b/, 'jax.numpy')
    .replace(/^flax\.linen\.(linear|normalization|attention|stochastic|module|activation|recurrent)\./, 'flax.linen.')
    .replace(/^torch\.nn\.modules\.[a-z_]+\./, 'torch.nn.')
    .replace(/^equinox\.nn\._[a-z_]+\./, 'equinox.nn.')
    .replace(/^haiku\._src\.[a-z_]+\./, 'haiku.')
    // flax/nnx/__init__.py re-exports jax.nn's activations and initializers (`from .nn.activations import relu`).
    .replace(/^flax\.nnx\.(?:nn\.activations\.)?(celu|elu|gelu|glu|hard_sigmoid|hard_silu|hard_swish|hard_tanh|leaky_relu|log_sigmoid|log_softmax|logsumexp|one_hot|relu|relu6|selu|sigmoid|silu|soft_sign|softmax|softplus|standardize|swish|tanh)$/, 'jax.nn.$1')
    .replace(/^flax\.nnx\.nn\.(linear|normalization|attention|stochastic|activations)\.([A-Z]\w*)$/, 'flax.nnx.$2')
    .replace(/^jax\._src\.numpy\.[a-z_]+\./, 'jax.numpy.')
    .replace(/^tensorflow\.experimental\.numpy\./, 'numpy.')
    // Lightning's Trainer imported from its submodule (`from pytorch_lightning.trainer import Trainer`, ldm main.py).
    .replace(/^(pytorch_lightning|lightning\.pytorch)\.trainer(?:\.trainer)?\.Trainer\b/, '$1.Trainer');
}

const DTYPE_NAMES: Record<string, DType> = {
  float64: 'float64', float32: 'float32', float16: 'float16', bfloat16: 'bfloat16', half: 'float16', float: 'float32', double: 'float64',
  int64: 'int64', int32: 'int32', int16: 'int16', int8: 'int8', uint8: 'uint8', uint16: 'uint16', uint32: 'uint32', bool_: 'bool', long: 'int64',
  complex64: 'complex64', float8_e4m3fn: 'float8', float8_e5m2: 'float8',
};

/** `jnp.float16`, `torch.bfloat16`, `np.float32` → a dtype; other names → undefined. */
export function externDType(full: string): DType | undefined {
  const m = /^(jax\.numpy|numpy|torch|jax\.dtypes|ml_dtypes)\.([a-z0-9_]+)$/.exec(full);
  if (!m) return undefined;
  if (m[1] === 'torch' && m[2] === 'float') return 'float32';
  if (m[1] !== 'torch' && (m[2] === 'float' || m[2] === 'half' || m[2] === 'double' || m[2] === 'long')) return undefined;
  if (m[1] === 'torch' && m[2] === 'bool') return 'bool';
  return DTYPE_NAMES[m[2]];
}

/** Top-level packages whose calls the catalogues and framework models answer (never read as workspace source). */
const MODELLED_LIBS = new Set(['torch', 'torchvision', 'jax', 'jaxlib', 'flax', 'haiku', 'equinox', 'optax', 'chex', 'numpy', 'transformers',
  'peft', 'accelerate', 'bitsandbytes', 'einops', 'trl', 'timm', 'ml_collections', 'absl', 'fire', 'typer', 'click', 'jsonargparse',
  'omegaconf', 'yaml', 'orbax', 'safetensors', 'deepspeed', 'fairscale', 'loralib', 'diffusers']);

/** Libraries whose unmodelled functions are taken not to change the dicts and lists passed to them. */
const KNOWN_LIBS = /^(torch|jax|jaxlib|flax|haiku|equinox|optax|chex|numpy|math|builtins|os|sys|functools|collections|typing|dataclasses|transformers|einops|logging|warnings|time|random|json|re|itertools|copy|abc|enum|inspect|pathlib|contextlib|operator|argparse|tqdm|wandb|orbax|yaml|pickle|pprint|shutil|glob|datetime|subprocess|hashlib|csv|io|tempfile|textwrap|string|platform|uuid|traceback|tensorboardX|omegaconf|hydra)\./;

/** Reasons of values that only the command line or the data can supply (program/entrypoints.ts, configfiles.ts). */
const INPUT_DEPENDENT = /command-line argument|set by the command line/;

/** A block that ends in `raise` (what runs before it cannot matter to memory: the program stops). */
/**
 * A branch that only stops the program or the function: it ends in `raise`, or it is a guard — messages (calls
 * as statements) then a bare `return` / `return None`, `continue`, or `sys.exit()` / `exit()` / `quit()` (`if len(ds) == 0:
 * print("no data"); return`). Under an undecided condition the program that runs is the one that continues past it.
 */
function raisesOnly(block: SyntaxNode | null): boolean {
  const stmts = (block?.namedChildren ?? []).filter((c): c is SyntaxNode => !!c && c.type !== 'comment');
  const last = stmts.at(-1);
  // `continue` skips the rest of this iteration only: a guard that skips (`if client not in picked: log(...);
  // continue`, a federated round's clients drawn at random) leaves the iteration the way a return leaves a function.
  if (last?.type === 'raise_statement') return true;
  if (!last || !stmts.slice(0, -1).every((c) => c.type === 'expression_statement' && c.namedChildren[0]?.type === 'call')) return false;
  if (last.type === 'continue_statement') return true;
  if (last.type === 'return_statement') {
    const v = last.namedChildren.filter((c) => c && c.type !== 'comment');
    return v.length === 0 || (v.length === 1 && v[0]!.type === 'none');
  }
  const call = last.type === 'expression_statement' ? last.namedChildren[0] : undefined;
  const fn = call?.type === 'call' ? call.childForFieldName('function')?.text : undefined;
  return fn !== undefined && /^(sys\.exit|exit|quit|os\._exit)$/.test(fn);
}

export function classKindOf(name: string): ClassV['kind'] | undefined {
  if (name === 'equinox.Module') return 'equinox';
  if (name === 'flax.linen.Module' || name === 'flax.nn.Module') return 'flax';
  if (name === 'flax.nnx.Module' || name === 'flax.nnx.module.Module') return 'nnx';
  if (name === 'torch.nn.Module' || name === 'torch.nn.modules.module.Module') return 'torch';
  // Subclasses of torch.nn layers and containers (class MLPBlock(nn.Sequential)), and of their
  // private bases (class SyncBN(_BatchNorm)), are torch modules too.
  if (/^torch\.nn\.(modules\.\w+\.)?_?[A-Z]\w*$/.test(name) && !/\.(Parameter|Buffer|UninitializedParameter)$/.test(name)) return 'torch';
  if (name === 'haiku.Module') return 'haiku';
  // A LightningModule is a torch.nn.Module (lightning/pytorch/core/module.py).
  if (/^(lightning\.pytorch|lightning|pytorch_lightning)(\.core(\.module)?)?\.LightningModule$/.test(name)) return 'torch';
  // diffusers' ModelMixin is a torch.nn.Module (diffusers/models/modeling_utils.py `class ModelMixin(torch.nn.Module,
  // PushToHubMixin)`): a program's `class UNet(ModelMixin, ConfigMixin)` is a torch module.
  if (/^diffusers(\.models)?(\.modeling_utils)?\.ModelMixin$/.test(name)) return 'torch';
  // transformers' PreTrainedModel is a torch.nn.Module (modeling_utils.py `class PreTrainedModel(nn.Module, ...)`): a
  // program's own model written on it (`class MiniLM(PreTrainedModel)` with its own PretrainedConfig) builds its
  // modules in its own __init__ as any torch module does.
  if (/^transformers(\.modeling_utils)?\.PreTrainedModel$/.test(name)) return 'torch';
  // So is every transformers PyTorch model class (`class MyBart(BartForConditionalGeneration)`); its __init__ builds the
  // library's modules into the instance (frameworks/transformers/semantics.ts).
  if (/^transformers\.(?!TF|Flax|Auto)[A-Z]\w*(Model|For[A-Z]\w*)$/.test(name)) return 'torch';
  return undefined;
}

/** A class deriving from dict (builtins.dict, collections.OrderedDict / defaultdict). */
export function isDictClass(cls: ClassV): boolean {
  return linearize(cls).some((k) => k.bases.some((b) => b.t === 'extern' && /^(builtins\.dict|collections\.(OrderedDict|defaultdict))$/.test(b.name)));
}

/** The mapping of an instance of a dict subclass, made by its `dict.__init__`. */
export function dictSubclassMapping(obj: InstV): (Value & { t: 'dict' }) | undefined {
  const d = obj.attrs.get('__dict__');
  return d?.t === 'dict' && isDictClass(obj.cls) ? d : undefined;
}

export function linearize(cls: ClassV): ClassV[] {
  const out: ClassV[] = [];
  const visit = (c: ClassV) => {
    if (out.includes(c)) return;
    out.push(c);
    for (const b of c.bases) if (b.t === 'class') visit(b);
  };
  visit(cls);
  return out;
}

function kwDict(kw: Map<string, Value>): Value {
  return { t: 'dict', keys: [...kw.keys()].map(str), vals: [...kw.values()] };
}

const BUILTIN_TYPES = new Set(['builtins.int', 'builtins.float', 'builtins.str', 'builtins.bool', 'builtins.NoneType', 'builtins.list', 'builtins.tuple', 'builtins.dict', 'builtins.set']);
function isBuiltinType(v: Value): v is Value & { t: 'extern' } {
  return v.t === 'extern' && BUILTIN_TYPES.has(v.name) && !v.self && !v.kw && !v.args;
}

/** The map key of a number, string or None key (the keys `keyEq` compares by value), else undefined. */
function primitiveKey(k: Value): string | undefined {
  if (k.t === 'str') return `s${k.v}`;
  if (k.t === 'none') return 'N';
  if (k.t === 'int' || k.t === 'float' || k.t === 'bool') { const n = num(k); return n === undefined || Number.isNaN(n) ? undefined : `n${n}`; }
  return undefined;
}

/**
 * A dict's key positions by primitive key, built lazily for big dicts (a linear
 * scan per insertion made filling a 10,000-key dict in a loop quadratic: 6 s).
 * Dict keys are only ever appended (push) or removed (splice), so the index is
 * extended while the keys it covers are unchanged (same length seen and the
 * same last key object), rebuilt otherwise; every hit is checked with keyEq.
 */
const dictIndexes = new WeakMap<Value[], { at: Map<string, number>; n: number; last: Value | undefined }>();
const DICT_INDEX_FROM = 32;

/** The text of a pathlib path value (program/pathlib.ts), or undefined for anything else. */
export function pathText(v: Value): string | undefined {
  return v.t === 'extern' && v.name === '__path__' && v.args?.[0]?.t === 'str' ? v.args[0].v : undefined;
}

export function dictIndexOf(keys: Value[], key: Value): number {
  const pk = keys.length >= DICT_INDEX_FROM ? primitiveKey(key) : undefined;
  if (pk === undefined) return keys.findIndex((k) => keyEq(k, key));
  let ix = dictIndexes.get(keys);
  const build = (from: number) => {
    for (let i = from; i < keys.length; i++) { const p = primitiveKey(keys[i]); if (p !== undefined && !ix!.at.has(p)) ix!.at.set(p, i); }
    ix!.n = keys.length;
    ix!.last = keys[keys.length - 1];
  };
  if (!ix || ix.n > keys.length || (ix.n > 0 && keys[ix.n - 1] !== ix.last)) { ix = { at: new Map(), n: 0, last: undefined }; dictIndexes.set(keys, ix); build(0); }
  else if (ix.n < keys.length) build(ix.n);
  const i = ix.at.get(pk);
  if (i === undefined) return -1;
  if (keyEq(keys[i], key)) return i;
  dictIndexes.delete(keys); // stale: scan
  return keys.findIndex((k) => keyEq(k, key));
}

export function keyEq(a: Value, b: Value): boolean {
  if ((a.t === 'int' || a.t === 'float' || a.t === 'bool') && (b.t === 'int' || b.t === 'float' || b.t === 'bool')) return num(a) === num(b);
  if (a.t === 'str' && b.t === 'str') return a.v === b.v;
  if (a.t === 'tuple' && b.t === 'tuple') return a.items.length === b.items.length && a.items.every((x, i) => keyEq(x, b.items[i]));
  if (a.t === 'none' && b.t === 'none') return true;
  return a === b;
}

function compare(op: string, l: Value, r: Value): boolean | undefined {
  if (op === 'is' || op === 'is not') {
    if (l.t === 'unknown' || r.t === 'unknown') return undefined;
    // A builtin type is one object (`type(v) is dict`): two references to it are the same.
    const builtinType = (v: Value) => v.t === 'extern' && !v.self && !v.args && !v.kw && isBuiltinType(v);
    const same = (l.t === 'none' && r.t === 'none') || (l.t === 'bool' && r.t === 'bool' && l.v === r.v) || l === r
      || (builtinType(l) && builtinType(r) && (l as { name: string }).name === (r as { name: string }).name);
    const diffKind = l.t !== r.t && (l.t === 'none' || r.t === 'none');
    if (!same && !diffKind && l.t !== 'none' && r.t !== 'none' && l.t !== r.t) return op === 'is not';
    return op === 'is' ? same : !same;
  }
  if (op === 'in' || op === 'not in') {
    let items: Value[] | undefined;
    if (r.t === 'tuple' || r.t === 'list') items = r.items;
    else if (r.t === 'dict') items = r.keys;
    else if (r.t === 'inst' && dictSubclassMapping(r)) items = dictSubclassMapping(r)!.keys;
    else if (r.t === 'str' && l.t === 'str') return (op === 'in') === r.v.includes(l.v);
    // Nothing is in an empty container, whatever it is (a cache checked before it is filled).
    if (items && items.length === 0) return op === 'not in';
    if (!items || l.t === 'unknown') return undefined;
    const found = items.some((x) => keyEq(x, l));
    return op === 'in' ? found : !found;
  }
  if (l.t === 'unknown' || r.t === 'unknown') return undefined;
  if (op === '==' || op === '!=') {
    // A library value oomlens does not model (`jax.devices()[-1].platform`, `somelib.flag`) may be any string or
    // number at run time: its equality is not known (not False).
    if ((l.t === 'extern' && !isBuiltinType(l)) || (r.t === 'extern' && !isBuiltinType(r))) return undefined;
    let eq: boolean;
    if (l.t === 'str' || r.t === 'str' || l.t === 'none' || r.t === 'none' || num(l) !== undefined) eq = keyEq(l, r);
    else if (l.t === 'dtype' && r.t === 'dtype') eq = l.dtype === r.dtype;
    else if (l.t === 'tuple' || l.t === 'list') eq = keyEq(l, r);
    // Builtin types (`type(x) == type(True)`, `type(x) == str`): the same class or not.
    else if (isBuiltinType(l) && isBuiltinType(r)) eq = l.name === r.name;
    else if (l.t === 'class' && r.t === 'class') eq = l === r;
    else if ((l.t === 'class' && isBuiltinType(r)) || (r.t === 'class' && isBuiltinType(l))) eq = false;
    else return undefined;
    return op === '==' ? eq : !eq;
  }
  // Sequences order lexicographically: the first differing items decide, else the shorter is smaller (Python
  // reference, "Comparisons": `(7, 5) >= (8, 0)` is False). Strings by code point.
  if ((l.t === 'tuple' && r.t === 'tuple') || (l.t === 'list' && r.t === 'list')) {
    for (let i = 0; i < Math.min(l.items.length, r.items.length); i++) {
      const eq = compare('==', l.items[i], r.items[i]);
      if (eq === undefined) return undefined;
      if (!eq) return compare(op, l.items[i], r.items[i]);
    }
    return compare(op, { t: 'int', v: l.items.length }, { t: 'int', v: r.items.length });
  }
  if (l.t === 'str' && r.t === 'str') {
    switch (op) {
      case '<': return l.v < r.v;
      case '<=': return l.v <= r.v;
      case '>': return l.v > r.v;
      case '>=': return l.v >= r.v;
    }
  }
  const a = num(l), b = num(r);
  if (a === undefined || b === undefined) return undefined;
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
  }
  return undefined;
}

/** The parts of a slice node, by the colons between them. */
function sliceParts(node: SyntaxNode): (SyntaxNode | undefined)[] {
  const out: (SyntaxNode | undefined)[] = [undefined, undefined, undefined];
  let i = 0;
  for (const c of node.children) {
    if (!c) continue;
    if (c.type === ':') { i++; continue; }
    out[i] = c;
  }
  return out;
}

export function sliceBounds(s: Value & { t: 'slice' }, n: number): { start: number; stop: number; step: number } | undefined {
  const step = s.step.t === 'none' ? 1 : num(s.step);
  if (step === undefined || step === 0) return undefined;
  const norm = (v: Value, dflt: number): number | undefined => {
    if (v.t === 'none') return dflt;
    const x = num(v);
    if (x === undefined) return undefined;
    const y = x < 0 ? x + n : x;
    return step > 0 ? Math.min(Math.max(y, 0), n) : Math.min(Math.max(y, -1), n - 1);
  };
  const start = norm(s.start, step > 0 ? 0 : n - 1);
  const stop = norm(s.stop, step > 0 ? n : -1);
  if (start === undefined || stop === undefined) return undefined;
  return { start, stop, step };
}

/**
 * A string literal's escape sequence as Python reads it (Python reference, 2.4.1 "Escape sequences"):
 * \n \t \r \\ \' \" \a \b \f \v, octal \ooo, \xhh, \uXXXX, \UXXXXXXXX, and a backslash before a
 * line end (the line continues). Others (\N{name}, unknown ones) stay as written, as Python keeps them.
 */
function unescape(s: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
  if (s.length === 2 && map[s[1]] !== undefined) return map[s[1]];
  if (s === '\\\r\n') return '';
  const m = /^\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))$/.exec(s);
  if (!m) return s;
  const code = m[4] !== undefined ? parseInt(m[4], 8) : parseInt(m[1] ?? m[2] ?? m[3], 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : s;
}

/** The text of a string literal's content node, its escape sequences (children of it in tree-sitter-python) read. */
function contentText(c: SyntaxNode): string {
  const escapes = c.namedChildren.filter((e): e is SyntaxNode => !!e && e.type === 'escape_sequence');
  if (!escapes.length) return c.text;
  let out = '';
  let at = c.startIndex;
  for (const e of escapes) {
    out += c.text.slice(at - c.startIndex, e.startIndex - c.startIndex) + unescape(e.text);
    at = e.endIndex;
  }
  return out + c.text.slice(at - c.startIndex);
}

export function clip(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

export type { TensorV, InstV, ClassV, FuncV, Dim };
export { isUnknown };
