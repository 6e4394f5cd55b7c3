/**
 * ## What it does
 * Finds `os.environ[...]` assignments of XLA/JAX memory settings made after
 * the program's first JAX operation.
 *
 * ## Why is this bad?
 * JAX reads `XLA_PYTHON_CLIENT_PREALLOCATE`, `XLA_PYTHON_CLIENT_MEM_FRACTION`
 * and `XLA_PYTHON_CLIENT_ALLOCATOR` once, when its GPU backend starts — at
 * the first operation that needs a device (creating a key or an array), not
 * at `import jax`. A setting made later is silently ignored.
 *
 * ## Example
 * ```python
 * import os
 * import jax
 * key = jax.random.PRNGKey(0)
 * os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
 * ```
 *
 * ## Use instead
 * ```python
 * import os
 * os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
 * import jax
 * key = jax.random.PRNGKey(0)
 * ```
 *
 * ## Fix safety
 * Safe for a module-level statement: the fix moves it (with the comment
 * lines directly above it) above the first JAX import, where it takes
 * effect as the code intended, and brings the import that binds `os` (or
 * its alias, `environ`, `putenv`) along when that import comes later.
 * Unsafe for a statement inside a function or block: the fix moves it to
 * module level above the first JAX import, so it runs when the module is
 * imported rather than when the function is called (left in place with a
 * `pass` when it was the block's only statement). A statement that reads
 * anything but literals is not moved.
 *
 * ## References
 * - jax/_src/xla_bridge.py `backends()` → `_discover_and_register_pjrt_plugins()`; jax_plugins/cuda/__init__.py `initialize()`
 * - JAX docs, "GPU memory allocation"; khdlr/augmax#9
 */
import type { Rule } from './types';
import { lineSpan } from './util';

/** Start of the module-level comment lines directly above `lineStart`: they describe the statement and move with it. */
function attachedComments(text: string, lineStart: number): number {
  let from = lineStart;
  while (from > 0) {
    const prevStart = text.lastIndexOf('\n', from - 2) + 1;
    if (!text.slice(prevStart, from).startsWith('#')) break;
    from = prevStart;
  }
  return from;
}

const RELEVANT = /^(XLA_PYTHON_CLIENT_|XLA_CLIENT_MEM_FRACTION|TF_GPU_ALLOCATOR|XLA_FLAGS|JAX_)/;

export const jaxEnvAfterBackendStart: Rule = {
  code: 'OOM901',
  name: 'jax-env-after-backend-start',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'An XLA/JAX environment setting is made after the backend started, so JAX ignores it.',
  check(ctx) {
    const out = [];
    for (const e of ctx.runtime.envSets) {
      if (!RELEVANT.test(e.name) || !e.afterBackend) continue;
      const fixes = [];
      const first = ctx.runtime.firstJaxImport;
      if (first && first.start < e.stmt.start && e.literal && e.root) {
        const statement = ctx.text.slice(e.stmt.start, e.stmt.end);
        // The import that binds the name the statement reaches os through must run before it.
        const imp = e.root.import;
        const needImport = !imp || !imp.moduleLevel || imp.span.start > first.start;
        const importText = needImport ? `${imp?.text ?? 'import os'}\n` : '';
        const edits = [];
        if (e.moduleLevel) {
          const stmt = lineSpan(ctx.text, e.stmt);
          const block = attachedComments(ctx.text, stmt.start);
          const moved = ctx.text.slice(block, stmt.start) + statement + '\n';
          // A block that stood between two blank lines leaves one blank line behind, not two.
          const blankBefore = block >= 2 && ctx.text.slice(block - 2, block) === '\n\n';
          const end = blankBefore && ctx.text[stmt.end] === '\n' ? stmt.end + 1 : stmt.end;
          edits.push({ start: first.start, end: first.start, newText: `${importText}${moved}` }, { start: block, end, newText: '' });
        } else {
          // Only the statement's own lines go; a block left empty keeps a `pass`.
          const stmt = lineSpan(ctx.text, e.stmt);
          edits.push(
            { start: first.start, end: first.start, newText: `${importText}${statement}\n` },
            e.alone ? { start: e.stmt.start, end: e.stmt.end, newText: 'pass' } : { start: stmt.start, end: stmt.end, newText: '' },
          );
        }
        fixes.push({
          title: `Move the ${e.name} setting above the first JAX import`,
          applicability: e.moduleLevel ? 'safe' as const : 'unsafe' as const,
          preferred: e.moduleLevel,
          edits,
        });
      }
      out.push({
        span: e.span,
        message: `${e.name} is set after JAX's backend started (${e.afterBackend.what} at line ${ctx.lineOf(e.afterBackend.span.start)}): JAX reads it once, when the backend starts, so this setting is ignored.`,
        related: [{ span: e.afterBackend.span, message: `JAX's backend starts here (${e.afterBackend.what})` }],
        fixes,
      });
    }
    return out;
  },
};
