/** Installs every framework model into an interpreter. */
import type { Interpreter } from '../interp/interp';
import { installArrays } from '../interp/arrays';
import { installJax } from './jax/semantics';
import { installModules } from './modules';
import { installPython } from '../interp/python';
import { installRuntime } from './jax/runtime';
import { installTorch } from './torch/semantics';
import { installDataLoader } from './torch/data';
import { installTorchReparam } from './torch/reparam';
import { installEquinox } from './equinox/semantics';
import { installHaiku } from './haiku/semantics';
import { installSharding } from '../phases/sharding';
import { installTransformers } from './transformers/semantics';
import { installTrainer } from './transformers/trainer';
import { installPeft } from './peft/semantics';
import { installDatasets } from './datasets/semantics';
import { installTrl } from './transformers/trl';
import { installLightning } from './lightning/semantics';
import { installFabric } from './lightning/fabric';
import { installAccelerate } from './accelerate/semantics';
import { installInference } from '../phases/inference';
import { installPlainInit } from './jax/plain-init';
import { installTraining } from '../phases/training';

export function installFrameworks(it: Interpreter): void {
  installPython(it);
  installRuntime(it);
  installArrays(it);
  installJax(it);
  installPlainInit(it);
  installSharding(it);
  installModules(it);
  installTorch(it);
  installDataLoader(it);
  installTorchReparam(it);
  installEquinox(it);
  installHaiku(it);
  installTransformers(it);
  installInference(it);
  installTraining(it);
  installTrainer(it);
  installPeft(it);
  installDatasets(it);
  installTrl(it);
  installLightning(it);
  installAccelerate(it);
  installFabric(it);
}
