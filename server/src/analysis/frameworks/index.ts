/** Installs every framework model into an interpreter. */
import type { Interpreter } from '../interp';
import { installArrays } from './arrays';
import { installJax } from './jax';
import { installModules } from './modules';
import { installPython } from './python';
import { installRuntime } from './runtime';
import { installTorch } from './torch';
import { installTransformers } from './transformers';

export function installFrameworks(it: Interpreter): void {
  installPython(it);
  installRuntime(it);
  installArrays(it);
  installJax(it);
  installModules(it);
  installTorch(it);
  installTransformers(it);
}
