/**
 * The load phase of a model that a sharding strategy takes from the host: DeepSpeed ZeRO stage 3 and FSDP with full
 * sharding never put the whole model on one device when the program leaves it on the host (no `.cuda()`, no
 * device_map) and hands it to the strategy.
 *
 * - ZeRO-3: transformers builds a model inside `deepspeed.zero.Init` once a DeepSpeed ZeRO-3 config is active
 *   (modeling_utils.py `PreTrainedModel` loading: `is_deepspeed_zero3_enabled()`), and `deepspeed.initialize`
 *   partitions a model built before it (deepspeed/runtime/zero/partition_parameters.py Init / `_convert_to_deepspeed_param`):
 *   each device keeps 1/N of every parameter, or none with `offload_param` to the host. The Trainer does not move a
 *   model to the device under DeepSpeed (trainer.py: `place_model_on_device = False` when `is_deepspeed_enabled`).
 *   Buffers are not partitioned: they go to the device whole.
 * - FSDP (full shard): the wrapper moves to its device only the parameters of the unit it is wrapping and shards
 *   them as it flattens that unit (torch/distributed/fsdp/_init_utils.py `_move_module_to_device`, which skips
 *   nested FSDP instances): at any moment one unit is whole besides the shards. Which unit is largest (the root
 *   unit holds what no wrapped unit does: embeddings, head) is not modelled: the shards are a lower bound.
 */
import type { Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import type { PhaseTrace } from '../../../shared/src/facts';
import { trainingProgram } from './training';
import { hfLoadOf } from '../frameworks/transformers/semantics';

export function shardHostLoad(rec: ModelRecord, it: Interpreter, phases: PhaseTrace[], deviceCount: number): void {
  if (deviceCount < 2 || !phases.some((p) => p.phase === 'training')) return;
  const prog = trainingProgram(it);
  const zero3 = prog.zero && prog.zero.stage >= 3 ? prog.zero : undefined;
  const fsdp = !zero3 && prog.fsdp && prog.fsdp.stage >= 3 ? prog.fsdp : undefined;
  if (!zero3 && !fsdp) return;
  const id = rec.result?.t === 'inst' ? rec.result.id : undefined;
  const moved = id !== undefined ? it.state.get(`moved:${id}`) : undefined;
  if (typeof moved === 'string' && moved !== 'cpu' && moved !== 'meta') return;
  if (typeof it.state.get('torchDevice') === 'string' && it.state.get('torchDevice') !== 'cpu' && it.state.get('torchDevice') !== 'meta') return;
  const load = phases.find((p) => p.phase === 'load');
  if (!load) return;
  const params = load.events.filter((e) => e.op === 'alloc' && e.tensor.role === 'param');
  // A device_map that already spread the model, or weights kept on the host, are placed as loaded.
  if (!params.length || !params.every((e) => e.op === 'alloc' && e.tensor.placement.kind === 'device' && e.tensor.placement.index === 0)) return;
  const host = zero3?.offloadParams;
  load.events = load.events.map((e) => (e.op === 'alloc' && e.tensor.role === 'param'
    ? { ...e, tensor: { ...e.tensor, placement: host ? { kind: 'host' } : { kind: 'sharded', over: deviceCount } } } : e));
  load.notes = load.notes.filter((n) => !/this phase assumes it is moved to the accelerator/.test(n));
  if (zero3) {
    // Loading a checkpoint into a partitioned model gathers each module's parameters whole on every device while
    // its weights are copied in (transformers integrations/deepspeed.py `_load_state_dict_into_zero3_model`:
    // `deepspeed.zero.GatheredParameters(params_to_gather, modifier_rank=0)` per module).
    if (hfLoadOf(rec.result)) load.unknowns = [...load.unknowns, { what: 'ZeRO-3 checkpoint load', span: zero3.span, reason: 'from_pretrained under ZeRO-3 gathers each module\'s parameters whole on every device while it copies the checkpoint in (integrations/deepspeed.py _load_state_dict_into_zero3_model); the largest module\'s gathered parameters are not sized' }];
    load.notes.push(host
      ? `${zero3.how} with offload_param to ${host}: the parameters are partitioned on the host (deepspeed.zero.Init / deepspeed.initialize); the device holds buffers only until a layer is gathered`
      : `${zero3.how}: the parameters are partitioned as they are built or handed to DeepSpeed (deepspeed.zero.Init / deepspeed.initialize): 1/${deviceCount} of them on each device`);
  } else if (fsdp) {
    load.unknowns = [...load.unknowns, { what: 'FSDP wrapping', span: fsdp.span, reason: `${fsdp.how}: the model is moved to the device and sharded one wrapped unit at a time (torch/distributed/fsdp/_init_utils.py _move_module_to_device): the unit being flattened is whole for a moment; which unit is largest is not modelled, so the load shows the 1/${deviceCount} shards, a lower bound` }];
  }
}
