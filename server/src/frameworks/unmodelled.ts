/**
 * Libraries that build a model inside their own code from a name or a config, which oomlens does not model: a
 * program that uses one has a model all the same. Each call is said at file level ("a model is built here by …,
 * not sized"), so "No model found" is never the whole answer for an RL agent, a detector or a YOLO model.
 *
 * - stable-baselines3 / sb3-contrib algorithms (`PPO("MlpPolicy", env)`: the policy network is made from the
 *   environment's spaces, stable_baselines3/common/policies.py);
 * - detectron2 (`DefaultTrainer(cfg)`, `build_model(cfg)`: the model from the config's META_ARCHITECTURE,
 *   detectron2/modeling/meta_arch/build.py);
 * - ultralytics (`YOLO("yolov8n.pt")`), mmdetection (`init_detector`, `build_detector`);
 * - jaxline (`platform.main(Experiment, argv)`: the experiment's networks are made inside jaxline's training loop);
 * - a program's class on ninjax's `Module` (below).
 */
import { linearize, type Interpreter } from '../interp/interp';
import type { SyntaxNode } from '../interp/parser';
import { type ClassV, type Value, unknown } from '../interp/values';

const BUILDERS: [RegExp, string][] = [
  [/^(stable_baselines3|sb3_contrib)(\.[a-z_]+)*\.(PPO|A2C|DQN|SAC|TD3|DDPG|HerReplayBuffer|QRDQN|TQC|TRPO|ARS|RecurrentPPO|MaskablePPO|CrossQ)$/, 'stable-baselines3 builds its policy networks from the environment\'s spaces'],
  [/^detectron2(\.[a-z_]+)*\.(DefaultTrainer|build_model|DefaultPredictor)$/, 'detectron2 builds the model from the config\'s META_ARCHITECTURE'],
  [/^ultralytics(\.[a-z_]+)*\.(YOLO|RTDETR|SAM|NAS)$/, 'ultralytics builds the model from its weights or YAML'],
  [/^mmdet(\.[a-z_]+)*\.(init_detector|build_detector)$/, 'mmdetection builds the detector from its config'],
  // jaxline (jaxline/platform.py main → train.train): the experiment class is built and stepped by jaxline itself,
  // from the ml_collections config that `--config` names.
  [/^jaxline(\.[a-z_]+)*\.platform\.main$|^jaxline\.platform\.main$/, 'jaxline builds and steps the experiment class it is given'],
];

export const LIBRARY_MODEL = /is built by (?:stable-baselines3|detectron2|ultralytics|mmdetection|jaxline|ninjax|a library)/;

/**
 * Module base classes of neural-network libraries oomlens does not model: a program's class on one of them is a model
 * all the same (ninjax's `nj.Module`, dreamerv3's networks: their parameters are made by `self.value(...)` /
 * `self.sub(...)` calls inside ninjax's own state handling, ninjax/ninjax.py).
 */
const UNMODELLED_BASES: [RegExp, string][] = [
  [/^ninjax(\.ninjax)?\.Module$/, 'ninjax makes its modules\' parameters inside its own state handling'],
];

/** A note when `cls` derives from a module class of a library oomlens does not model; undefined otherwise. */
export function unmodelledBase(it: Interpreter, cls: ClassV, node: SyntaxNode): void {
  const bases = linearize(cls).flatMap((k) => k.bases).filter((b): b is Value & { t: 'extern' } => b.t === 'extern');
  for (const b of bases) {
    const hit = UNMODELLED_BASES.find(([re]) => re.test(b.name));
    if (hit) { it.note(`\`${cls.name}(…)\`: a model is built by ${hit[1].split(' ')[0]} here (${hit[1]}), which oomlens does not model; its size is not known`, node); return; }
  }
}

export function installUnmodelled(it: Interpreter): void {
  it.externPrefixes.push(['', (_i, _self, _c, node, fnv) => {
    const hit = BUILDERS.find(([re]) => re.test(fnv.name));
    if (!hit) return unknown('__pass__');
    const short = fnv.name.split('.').slice(-1)[0];
    return it.note(`\`${short}(…)\`: a model is built by ${hit[1].split(' ')[0]} here (${hit[1]}), which oomlens does not model; its size is not known`, node);
  }]);
}
