/**
 * Layers placed on devices by hand: a naive pipeline that moves each part of one model to its own GPU
 * (`layer.to(f"cuda:{i}")` for the embedding, each decoder layer, the head). PyTorch moves what it is asked to
 * move: `Module.to(device)` converts the module's own parameters and buffers and those of its children
 * (torch/nn/modules/module.py `Module.to` → `_apply`), so after the loop each part's tensors sit on the device
 * its last move named, and its activations, gradients (made like the parameter, torch/csrc/autograd/functions/
 * accumulate_grad.h) and optimizer state (`torch.zeros_like(p)`, torch/optim/adamw.py `_init_group`) sit there too.
 *
 * oomlens does not model which part lands where beyond the parameters: every device-placed tensor of the model's
 * phases is spread evenly over the devices the parts went to, and each phase carries an unknown saying so. The
 * busiest device holds at least the average (the total over N devices, N counted from the moves), so the even
 * split is a lower bound of the per-device peak, shown as "≥", never as a verdict.
 */
import type { Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import type { PhaseTrace, Span } from '../../../shared/src/facts';
import { moduleTensors, TORCH_MOVES, type TorchMove } from '../frameworks/torch/semantics';

/** `cuda` is the current device: device 0 unless the program set another (torch/cuda/__init__.py current_device). */
const normal = (d: string): string => (d === 'cuda' ? 'cuda:0' : d);
const accelerator = (d: string): boolean => d !== 'cpu' && d !== 'meta' && d !== 'disk';

/**
 * The devices the model's parameters end up on when parts of it were moved separately; undefined when the model
 * is on one device (or never moved part by part).
 */
export function handPlacement(rec: ModelRecord, it: Interpreter): { over: number; devices: string[]; span: Span } | undefined {
  const moves = it.state.get(TORCH_MOVES) as TorchMove[] | undefined;
  const root = rec.result;
  if (!moves || moves.length < 2 || !root || root.t !== 'inst') return undefined;
  // Cheap check first: at least two accelerator devices among all moves of the program. A part moved to a device
  // the interpreter could not resolve (`layer.to(args.device)`) is not taken for a split: a data-parallel script
  // moves its parts to its one device the same way.
  const named = new Set(moves.map((m) => normal(m.device)).filter(accelerator));
  if (named.size < 2) return undefined;
  const own = new Set(moduleTensors(root).params.map((t) => t.id));
  const where = new Map<number, { device: string; span: Span }>();
  for (const m of moves) {
    if (m.module === root) continue;
    for (const t of moduleTensors(m.module).params) if (own.has(t.id)) where.set(t.id, { device: normal(m.device), span: m.span });
  }
  const parts = [...where.values()].filter((w) => accelerator(w.device));
  const devices = [...new Set(parts.map((w) => w.device))].sort();
  if (devices.length < 2) return undefined;
  // A device the program names beyond the target's count is still one device of the split (the timeline counts
  // it on device 0 with a note, timeline.ts); a single-device target divides by one.
  return { over: devices.length, devices, span: parts[0].span };
}

/** Spreads the model's device-placed tensors over the devices its parts went to, with an unknown in every phase. */
export function applyHandPlacement(phases: PhaseTrace[], placed: { over: number; devices: string[]; span: Span }): void {
  const shown = placed.devices.length > 4 ? `${placed.devices.slice(0, 3).join(', ')}, … ${placed.devices[placed.devices.length - 1]}` : placed.devices.join(', ');
  const reason = `parts of the model are moved to devices by hand (${shown}): which activations, gradients and optimizer state each device holds is not modelled; the peak is the even split over ${placed.over} devices, a lower bound of the busiest one`;
  for (const ph of phases) {
    ph.events = ph.events.map((e) => (e.op === 'alloc' && e.tensor.placement.kind === 'device' ? { ...e, tensor: { ...e.tensor, placement: { kind: 'sharded', over: placed.over } } }
      // A step's temporaries are made per device too (torch.optim's foreach groups by device: optimizer.py
      // `_group_tensors_by_device_and_dtype`): the same even split.
      : e.op === 'transient' ? { ...e, bytesPerDevice: e.bytesPerDevice / placed.over, formula: `(${e.formula}) / ${placed.over} devices` }
      : e));
    ph.unknowns = [...ph.unknowns, { what: 'placement', reason, span: placed.span }];
  }
}
