/** Installs every framework model into an interpreter. */
import type { Interpreter } from '../interp';
import { installArrays } from './arrays';
import { installJax } from './jax';
import { installModules } from './modules';
import { installPython } from './python';
import { installRuntime } from './runtime';
import { installTorch } from './torch';
import { installEquinox } from './equinox';
import { installHaiku } from './haiku';
import { installSharding } from './sharding';
import { installTransformers } from './transformers';
import { installInference } from './inference';
import { installTraining } from './training';

export function installFrameworks(it: Interpreter): void {
  installPython(it);
  installRuntime(it);
  installArrays(it);
  installJax(it);
  installSharding(it);
  installModules(it);
  installTorch(it);
  installEquinox(it);
  installHaiku(it);
  installTransformers(it);
  installInference(it);
  installTraining(it);
}
