/**
 * What a training step leaves behind for a later inference use of the same model.
 *
 * A test loop run after training steps (`for epoch: train(); test()`) runs beside
 * the optimizer's state, which lives as long as the optimizer, and beside the
 * last step's gradients unless a `zero_grad()` freed them after that backward
 * (set_to_none=True, the default since torch 2.0). The inference phase is built
 * from the load phase alone, so without this it counted neither: pytorch/examples
 * `mnist/main.py`'s test loop measured 317.3 MB and was predicted 302.8 (−4.5%),
 * the difference being exactly the Adam state and the gradients.
 *
 * The order comes from the interpreter's step count at each call (`at` of a use,
 * `clock` of the training program), not from the text, so a test function defined
 * above the training loop and called after it counts, and an evaluation run once
 * before any training does not.
 * Sources: torch/optim/optimizer.py (`Optimizer.state` is kept until the optimizer
 * is deleted; `zero_grad(set_to_none=True)` sets `.grad` to None), torch/nn/modules/
 * module.py `zero_grad` (the same for a module).
 */
import type { Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import type { TensorV } from '../interp/values';
import type { MemoryEvent, PhaseTrace, TensorFact, Unknown } from '../../../shared/src/facts';
import { dtypeBytes } from '../../../shared/src/dtypes';
import { liveAtEnd } from '../../../shared/src/timeline';
import { inferenceUses } from './inference';
import { optimizerOf, paramIds, trainingProgram } from './training';

const STATE_CITATION = 'torch/optim/optimizer.py Optimizer.state (kept for the optimizer\'s lifetime)';
const GRAD_CITATION = 'torch/optim/optimizer.py and torch/nn/modules/module.py zero_grad (set_to_none=True frees .grad; nothing else does)';

/** Adds to the model's inference phase what its training left, when an inference use ran after a training step. */
export function addTrainingLeftovers(rec: ModelRecord, it: Interpreter, phases: PhaseTrace[], params: TensorV[]): void {
  const inf = phases.find((p) => p.phase === 'inference');
  const tr = phases.find((p) => p.phase === 'training');
  if (!inf || !tr) return;
  const prog = trainingProgram(it);
  const { backward, gradsFreed } = prog.clock;
  if (!backward.length) return;
  const first = Math.min(...backward);
  const after = inferenceUses(rec).flatMap((u) => (u.at !== undefined && u.at > first ? [u.at] : []));
  if (!after.length) return;
  const at = Math.max(...after);

  const base = phases.find((p) => p.phase === 'load' || p.phase === 'init');
  const inBase = new Set(base ? liveAtEnd(base).map((t) => t.id) : []);
  const left = liveAtEnd(tr).filter((t) => !inBase.has(t.id));
  const added: TensorFact[] = [];
  const notes: string[] = [];
  const unknowns: Unknown[] = [];

  // Optimizer state: from the first step of the optimizer that trains this model (a trainer steps its own:
  // no step() call is seen, and its backward stands for the step). State made at construction (Adagrad) is
  // in the load phase already.
  const opt = optimizerOf(prog, paramIds(rec, params), it.memory.reportedCount(2) === 1);
  const stepped = opt ? (opt.steppedAt !== undefined ? opt.steppedAt < at : prog.clock.steps === 0) : false;
  const baseHasState = base ? liveAtEnd(base).some((t) => t.role === 'optimizer') : false;
  if (stepped && !baseHasState) {
    const state = left.filter((t) => t.role === 'optimizer');
    added.push(...state.map((t) => ({ ...t, note: 'left by the training steps before this call: kept as long as the optimizer is', citation: STATE_CITATION })));
  }

  // Gradients: alive when the last backward before the use was not followed by a zero_grad() that frees them.
  const lastBackward = Math.max(...backward.filter((b) => b < at));
  const gradsAlive = !gradsFreed.some((f) => f > lastBackward && f < at);
  if (gradsAlive) {
    let grads = left.filter((t) => t.role === 'gradient');
    if (!grads.length) {
      // Freed by the end of the modelled step (a zero_grad the step's model places after it) although the program's
      // order keeps them: the full gradients the step made.
      const all = tr.events.flatMap((e: MemoryEvent) => (e.op === 'alloc' && e.tensor.role === 'gradient' ? [e.tensor] : []));
      const full = all.reduce<TensorFact | undefined>((m, t) => (!m || size(t) > size(m) ? t : m), undefined);
      grads = full ? [full] : [];
    }
    added.push(...grads.map((t) => ({ ...t, note: 'the last training step\'s gradients: no zero_grad() freed them before this call', citation: GRAD_CITATION })));
  }
  // What the training phase could not size about its state stays unknown here.
  for (const u of tr.unknowns) if (/optimi[sz]er|gradient/i.test(u.what) && !inf.unknowns.some((x) => x.what === u.what && x.reason === u.reason)) unknowns.push(u);
  if (!added.length && !unknowns.length) return;

  const mb = (ts: TensorFact[]) => (ts.reduce((a, t) => a + size(t), 0) / 1e6).toFixed(1);
  const st = added.filter((t) => t.role === 'optimizer');
  const gr = added.filter((t) => t.role === 'gradient');
  notes.push(`runs after training steps: ${[st.length ? `the optimizer state (${mb(st)} MB)` : '', gr.length ? `the last step's gradients (${mb(gr)} MB)` : ''].filter(Boolean).join(' and ') || 'what the training left'} ${st.length + gr.length > 1 ? 'are' : 'is'} alive during it`);
  // After the weights and inputs the phase starts with, before what the forward makes.
  let i = 0;
  for (const e = inf.events; i < e.length; i++) { const ev = e[i]; if (ev.op !== 'alloc' || !(inBase.has(ev.tensor.id) || ev.tensor.role === 'input')) break; }
  inf.events.splice(i, 0, ...added.map((t): MemoryEvent => ({ op: 'alloc', tensor: t })));
  inf.notes = [...inf.notes, ...notes];
  inf.unknowns = [...inf.unknowns, ...unknowns];
}

function size(t: TensorFact): number {
  return t.shape.reduce((a, d) => a * d, 1) * dtypeBytes(t.dtype);
}
