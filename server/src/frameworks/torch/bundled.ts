/**
 * oomlens's own Python descriptions of library code (torchvision's models, timm's blocks): parsed once per process
 * and run by the interpreter as a module of its own (Interpreter.runBundled), whose names programs reach by the
 * library's import paths.
 */
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode, Tree } from '../../interp/parser';
import { parsePythonSync } from '../../interp/parser';
import { type Env, type Value, unknown } from '../../interp/values';

export interface Bundled {
  /** The module's names, run in this interpreter (once per analysis). */
  env(it: Interpreter): Env | undefined;
  /** Makes `full` (an import path) the module's `local` name. */
  expose(it: Interpreter, full: string, local: string): void;
}

export function bundled(module: string, label: string, source: string): Bundled {
  // The tree is shared by every analysis and never edited.
  let tree: Tree | undefined;
  const env = (i: Interpreter) => {
    tree ??= parsePythonSync(source);
    return i.runBundled(module, label, tree).env;
  };
  return {
    env,
    expose(it, full, local) {
      it.externValues.set(full, (i: Interpreter, node: SyntaxNode): Value => {
        try {
          return env(i)?.vars.get(local) ?? unknown(`${full} is not modelled here`, i.span(node));
        } catch {
          return unknown(`${full} is not modelled here`, i.span(node));
        }
      });
    },
  };
}
