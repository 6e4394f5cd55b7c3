/**
 * Runtime settings a program makes that change memory: `os.environ[...]`
 * assignments of XLA_* / JAX_* variables and `jax.config.update(...)`, and
 * the moment JAX's backend starts. JAX reads XLA_PYTHON_CLIENT_* when the
 * GPU plugin initialises, inside `xla_bridge.backends()`, at the first
 * operation that needs a device — not at `import jax` (jax/_src/xla_bridge.py
 * `backends()` → `_discover_and_register_pjrt_plugins()`, same at jax-v0.4.30
 * and later; jax_plugins/cuda/__init__.py `initialize()` reads the
 * variables). A setting made after that moment is ignored.
 */
import type { Span } from '../../../../shared/src/facts';
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, unknown } from '../../interp/values';

export interface EnvSet {
  name: string;
  value: Value;
  span: Span;
  /** The statement that holds the assignment (for fixes that move it). */
  stmt: Span;
  /** Set when the backend had already started (the setting is ignored). */
  afterBackend?: { span: Span; what: string };
  /** Whether the statement sits directly in the module body (not in a function, `if` or loop). */
  moduleLevel: boolean;
  /**
   * Whether the statement reads nothing but literals and the name it reaches
   * os through, so it means the same wherever it runs.
   */
  literal: boolean;
  /** The name the statement reaches os through (`os`, an alias, `environ`, `putenv`) and the import that bound it last. */
  root?: { name: string; import?: { span: Span; moduleLevel: boolean; text: string } };
  /** Whether the statement is the only one in its block (removing it needs a `pass`). */
  alone: boolean;
}

export interface ConfigSet { name: string; value: Value; span: Span; afterBackend?: { span: Span; what: string } }

export function envSets(it: Interpreter): EnvSet[] {
  let v = it.state.get('envSets') as EnvSet[] | undefined;
  if (!v) it.state.set('envSets', (v = []));
  return v;
}

export function configSets(it: Interpreter): ConfigSet[] {
  let v = it.state.get('configSets') as ConfigSet[] | undefined;
  if (!v) it.state.set('configSets', (v = []));
  return v;
}

export function backendStart(it: Interpreter): { span: Span; what: string } | undefined {
  return it.state.get('backendStart') as { span: Span; what: string } | undefined;
}

/** Records the first JAX operation that needs a device (abstract evaluation does not count). */
export function markBackendStart(it: Interpreter, node: SyntaxNode, what: string): void {
  if (it.memory.abstractDepth > 0) return;
  if (!it.state.has('backendStart')) it.state.set('backendStart', { span: it.span(node), what });
}

function statementOf(node: SyntaxNode): SyntaxNode {
  let n: SyntaxNode = node;
  while (n.parent && n.parent.type !== 'module' && n.parent.type !== 'block') n = n.parent;
  return n;
}

/** The first name a statement evaluates (`os` in `os.environ[...] = v`, `putenv` in `putenv(k, v)`). */
function leftmostName(stmt: SyntaxNode): string | undefined {
  let n: SyntaxNode | null = stmt;
  while (n && n.type !== 'identifier') n = n.namedChild(0);
  return n?.text;
}

/** Whether every name the statement reads is `root` (attribute names and keywords aside). */
function readsOnly(stmt: SyntaxNode, root: string): boolean {
  const walk = (n: SyntaxNode): boolean => {
    if (n.type === 'identifier') {
      const p = n.parent;
      if (p?.type === 'attribute' && p.childForFieldName('attribute')?.id === n.id) return true;
      if (p?.type === 'keyword_argument' && p.childForFieldName('name')?.id === n.id) return true;
      return n.text === root;
    }
    return n.namedChildren.every((c) => !c || walk(c));
  };
  return walk(stmt);
}

export function installRuntime(it: Interpreter): void {
  const setEnv = (key: Value, value: Value, node: SyntaxNode) => {
    if (key.t !== 'str') return;
    const stmt = statementOf(node);
    const rootName = leftmostName(stmt);
    const imp = rootName ? [...it.imports].reverse().find((i) => i.local === rootName && i.span.start < stmt.startIndex) : undefined;
    const siblings = stmt.parent?.namedChildren.filter((c) => c && c.type !== 'comment') ?? [];
    envSets(it).push({
      name: key.v, value, span: it.span(node), stmt: it.span(stmt), afterBackend: backendStart(it),
      moduleLevel: stmt.parent?.type === 'module', literal: rootName !== undefined && readsOnly(stmt, rootName),
      root: rootName ? { name: rootName, import: imp && { span: imp.span, moduleLevel: imp.moduleLevel, text: imp.text } } : undefined,
      alone: stmt.parent?.type === 'block' && siblings.length === 1,
    });
  };
  // `from os import environ` binds the same mapping `os.environ` reaches.
  it.externValues.set('os.environ', () => ({ t: 'environ' }));
  it.externs.set('os.environ.__setitem__', (_i, _s, c, node) => { setEnv(c.args[0], c.args[1], node); return NONE; });
  it.externs.set('os.environ.setdefault', (_i, _s, c, node) => {
    const prev = envSets(it).find((e) => c.args[0]?.t === 'str' && e.name === c.args[0].v);
    if (!prev) setEnv(c.args[0], c.args[1], node);
    return c.args[1] ?? NONE;
  });
  it.externs.set('os.putenv', (_i, _s, c, node) => { setEnv(c.args[0], c.args[1], node); return NONE; });
  it.externs.set('os.environ.get', (_i, _s, c) => {
    const prev = [...envSets(it)].reverse().find((e) => c.args[0]?.t === 'str' && e.name === c.args[0].v);
    // The user's shell environment is unknown; a default given in code is what runs when it is unset.
    return prev?.value ?? c.args[1] ?? NONE;
  });
  it.externs.set('os.getenv', (_i, _s, c) => {
    const prev = [...envSets(it)].reverse().find((e) => c.args[0]?.t === 'str' && e.name === c.args[0].v);
    return prev?.value ?? c.args[1] ?? NONE;
  });
  it.externs.set('jax.config.update', (_i, _s, c, node) => {
    const name = c.args[0];
    if (name?.t === 'str') configSets(it).push({ name: name.v, value: c.args[1] ?? NONE, span: it.span(statementOf(node)), afterBackend: backendStart(it) });
    return NONE;
  });
  it.externs.set('jax.config.config_with_absl', () => NONE);
  it.externs.set('__environ_attr__', (_i, _s, _c, node) => unknown('os.environ method', it.span(node)));
}
