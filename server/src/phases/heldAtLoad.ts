/**
 * What is already on the accelerator when a model is loaded: a model loaded earlier and still referenced (the 4-bit
 * model a fine-tuning notebook trained, still bound to `model` when the float16 copy is reloaded for merging), its
 * trainer's optimizer state. CPython frees an object only when its last reference goes, and the caching allocator
 * keeps its blocks until then, so the new load lands beside it: the load phase starts from those tensors.
 *
 * The snapshot is taken when the load begins (frameworks/transformers/semantics.ts: `liveAtStep` over every live
 * name); a model deleted before the load (`del model; gc.collect()`) is not reachable and is not counted.
 */
import type { ModelRecord } from '../interp/memory';
import type { MemoryEvent, PhaseTrace } from '../../../shared/src/facts';
import { liveAtStep } from './training';

type Snapshot = ReturnType<typeof liveAtStep>;
const AT_LOAD = new WeakMap<ModelRecord, Snapshot>();

export function noteLiveAtLoad(rec: ModelRecord, snap: Snapshot): void {
  AT_LOAD.set(rec, snap);
}

/** Adds to the load phase the weights of other modules on the device that are still referenced when it begins. */
export function addHeldAtLoad(rec: ModelRecord, phases: PhaseTrace[]): void {
  const snap = AT_LOAD.get(rec);
  const load = phases.find((p) => p.phase === 'load');
  if (!snap || !load) return;
  const mine = new Set<number>();
  for (const e of load.events) if (e.op === 'alloc') mine.add(e.tensor.id);
  const held: MemoryEvent[] = [];
  const owners = new Map<string, number>();
  for (const t of snap.tensors) {
    const module = snap.owner.get(t.id);
    if (!module || mine.has(t.id)) continue;
    mine.add(t.id);
    owners.set(module, (owners.get(module) ?? 0) + 1);
    const dt = snap.dtypes.get(t.id) ?? t.dtype;
    held.push({ op: 'alloc', tensor: {
      id: t.id, label: t.label, group: `another model on the device: ${module} (${dt})`, shape: t.shape as number[], dtype: dt, role: 'buffer',
      placement: t.placement.kind === 'host' ? { kind: 'device', index: 0 } : t.placement, span: t.span,
      note: 'a model loaded earlier and still referenced by a live name when this one is loaded',
      citation: 'CPython reference counting: an object is freed when its last reference goes; torch/cuda caching allocator returns blocks only on free',
    } });
  }
  if (!held.length) return;
  load.events = [...held, ...load.events];
  for (const [m, n] of owners) load.notes.push(`${m} (${n} tensors) is still referenced when this model is loaded: it stays on the device beside it`);
  if (snap.unsized.size) load.unknowns = [...load.unknowns, { what: 'another module on the device', reason: `a module on the accelerator whose size is not known is still referenced when this model is loaded (${[...snap.unsized.values()][0]})`, span: snap.span }];
}
