"""Ground truth for PyTorch: the live tensor storage of a program, measured.

A TorchDispatchMode sees every aten op, forward and backward (the autograd
engine carries the mode to its threads). Each storage an op reads or writes
is registered once (keyed by its UntypedStorage object, whose Python object
PyTorch preserves for the storage's lifetime) with a weakref finaliser that
removes it when the storage is freed. After every op the live total is
compared with the current segment's peak; at a new peak the set of live
storages is kept, so the live set at the peak can be classified at the end,
once it is known which storages were parameters, gradients, optimizer state.

Segments (phases) come from the program itself, which runs unmodified:
  build     everything before the first forward (construction, init, casts)
  load      inside torch.load / from_pretrained
  forward   from an outermost module call until the next backward, step,
            generate or load (so the loss computed outside the module, and
            further outermost calls, e.g. a loss module or the batches of an
            eval loop, belong to it)
  backward  inside torch.autograd.backward (loss.backward())
  step      after a backward until the next forward (clipping, optimizer
            step, zero_grad)
  generate  inside transformers' generate()
Forward calls made inside backward (checkpoint recomputation) or generate do
not start a segment.

Kinds at a peak: parameter and buffer (of any nn.Module seen), gradient
(.grad of a parameter), optimizer (a tensor in optimizer.state), output (what
an outermost forward returned, e.g. logits), otherwise by the segment that
allocated it: activation (forward/generate), backward (backward temporaries,
gradients of activations), step (optimizer temporaries), input (build/load:
batches, masks, state dicts).

Reads only: it never changes what the program computes.
"""
import contextlib
import os
import functools
import weakref

import torch
import torch.nn as nn
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

KIND_PRIORITY = ["parameter", "buffer", "gradient", "optimizer", "output"]
ORIGIN_KIND = {"forward": "activation", "generate": "activation", "backward": "backward",
               "step": "step", "build": "input", "load": "input"}


class Segment:
    def __init__(self, name, index, start_total, grad_enabled):
        self.name = name
        self.index = index
        self.grad_enabled = grad_enabled
        self.peak = start_total
        self.snapshot = None  # serials live at the peak (None: the start of the segment)
        self.start_snapshot = None
        self.mt_peak = None
        self.training = False


class StorageTracker(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.sizes = {}          # serial -> nbytes, live storages only
        self.serial_of = {}      # id(storage object) -> (serial, weakref)
        self.next_serial = 0
        self.total = 0
        self.origin = {}         # serial -> segment name at registration
        self.kind = {}           # serial -> kind from KIND_PRIORITY
        self.segments = []
        self.seg = None
        self.modules = weakref.WeakSet()
        self.optimizers = weakref.WeakSet()
        self.events = 0
        self.mt_failed = None
        self.detail = {}         # serial -> "op shape dtype" (TRUTH_DETAIL=1: what made each storage)
        self.keep_detail = False

    # ---- storage bookkeeping -------------------------------------------------
    def _free(self, serial, key, _ref):
        n = self.sizes.pop(serial, None)
        if n is not None:
            self.total -= n
        ent = self.serial_of.get(key)
        if ent is not None and ent[0] == serial:
            del self.serial_of[key]

    def track(self, t):
        """Registers the storage of t; returns its serial (None for meta/empty/sparse)."""
        if not isinstance(t, torch.Tensor) or t.device.type == "meta" or t.is_sparse:
            return None
        try:
            st = t.untyped_storage()
        except Exception:
            return None
        n = st.nbytes()
        key = id(st)
        ent = self.serial_of.get(key)
        if ent is not None and ent[1]() is st:
            serial = ent[0]
            old = self.sizes.get(serial)
            if old is not None and old != n:  # resize_ (out= ops)
                self.total += n - old
                self.sizes[serial] = n
            return serial
        # A FakeTensor's storage is a meta storage: its nbytes are the real size, its data_ptr is 0.
        if n == 0 or (not isinstance(t, FakeTensor) and st.data_ptr() == 0):
            return None
        serial = self.next_serial
        self.next_serial += 1
        ref = weakref.ref(st, functools.partial(self._free, serial, key))
        self.serial_of[key] = (serial, ref)
        self.sizes[serial] = n
        self.total += n
        self.origin[serial] = self.seg.name if self.seg else "build"
        return serial

    def mark(self, t, kind):
        s = self.track(t)
        if s is None:
            return
        old = self.kind.get(s)
        if old is None or KIND_PRIORITY.index(kind) < KIND_PRIORITY.index(old):
            self.kind[s] = kind

    def note_peak(self):
        seg = self.seg
        if self.total > seg.peak:
            seg.peak = self.total
            seg.snapshot = list(self.sizes.items())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        for t in tree_flatten((args, kwargs))[0]:
            if isinstance(t, torch.Tensor):
                self.track(t)
        out = func(*args, **kwargs)
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                s = self.track(t)
                if self.keep_detail and s is not None and s not in self.detail:
                    self.detail[s] = f"{func.__name__} {list(t.shape)} {str(t.dtype).replace('torch.', '')}"

        self.events += 1
        self.note_peak()
        return out

    # ---- classification -------------------------------------------------------
    def scan(self):
        """Marks what is known now: parameters, buffers, gradients, optimizer state."""
        for m in list(self.modules):
            for p in m._parameters.values():
                if p is not None:
                    self.mark(p, "parameter")
                    if p.grad is not None:
                        self.mark(p.grad, "gradient")
            for b in m._buffers.values():
                if b is not None:
                    self.mark(b, "buffer")
        for opt in list(self.optimizers):
            for st in opt.state.values():
                for v in (st.values() if isinstance(st, dict) else []):
                    if isinstance(v, torch.Tensor):
                        self.mark(v, "optimizer")

    def classify(self, snapshot):
        out = {}
        for serial, n in snapshot:
            k = self.kind.get(serial) or ORIGIN_KIND.get(self.origin.get(serial), "input")
            out[k] = out.get(k, 0) + n
        return out

    # ---- segments --------------------------------------------------------------
    def begin(self, name, mt=None):
        self.scan()
        if self.seg is not None and mt is not None:
            self.seg.mt_peak = mt_peak(mt)
        self.seg = Segment(name, len(self.segments), self.total, torch.is_grad_enabled())
        self.seg.start_snapshot = list(self.sizes.items())
        self.segments.append(self.seg)
        if mt is not None:
            mt_reset_peak(mt, name == "forward")

    def finish(self, mt=None):
        self.scan()
        if self.seg is not None and mt is not None:
            self.seg.mt_peak = mt_peak(mt)
        # forward segments followed by a backward (before the next forward) are training
        segs = self.segments
        for i, s in enumerate(segs):
            if s.name in ("backward", "step"):
                s.training = True
            elif s.name == "forward":
                for t in segs[i + 1:]:
                    if t.name == "backward":
                        s.training = True
                        break
                    if t.name in ("forward", "generate"):
                        break

    def live_detail(self, snapshot):
        """The live set at a peak, storage by storage: kind, the op that made it, bytes (TRUTH_DETAIL=1)."""
        out = {}
        for serial, n in snapshot:
            k = self.kind.get(serial) or ORIGIN_KIND.get(self.origin.get(serial), "input")
            key = f"{k}: {self.detail.get(serial, '(made outside an op)')}"
            c, b = out.get(key, (0, 0))
            out[key] = (c + 1, b + n)
        return sorted(([k, c, b] for k, (c, b) in out.items()), key=lambda r: -r[2])

    def report(self):
        segs = []
        for s in self.segments:
            snap = s.snapshot if s.snapshot is not None else s.start_snapshot
            if self.keep_detail:
                segs.append({"name": s.name, "index": s.index, "peak": s.peak, "live": self.live_detail(snap)})
                continue
            segs.append({"name": s.name, "index": s.index, "training": s.training,
                         "gradEnabled": s.grad_enabled, "peak": s.peak,
                         "byKind": self.classify(snap),
                         "memTracker": None if self.mt_failed else s.mt_peak})
        return {"segments": segs, "events": self.events, "memTrackerFailed": self.mt_failed}


def mt_total(mt):
    snap = mt._curr_mem_snap
    return sum(d.get("Total", 0) for d in snap.values())


def mt_peak(mt):
    return sum(mt._peak_mem.values()) if mt._peak_mem else 0


def mt_reset_peak(mt, new_forward=False):
    if new_forward:
        mt.reset_mod_stats()  # MemTracker refuses a module called again otherwise
    for dev, d in mt._curr_mem_snap.items():
        mt._peak_mem[dev] = d.get("Total", 0)


@contextlib.contextmanager
def fake_tensors(on=True):
    """Runs what it wraps under FakeTensorMode (no memory; a program marked `# truth: fake-tensors`).

    Entered before track_program, so that the tracker's mode is above it on the dispatch mode stack: the tracker
    sees every op with FakeTensor arguments and results, and its call of the op goes down to FakeTensorMode, which
    computes shapes, dtypes and strides on the meta device. A FakeTensor has a storage of its own (one
    UntypedStorage object per storage, shared by views, freed with the tensor) whose nbytes are the real tensor's:
    the tracker counts them as it counts real storages (selfcheck.py checks a Linear's parameters, gradients and
    Adam state byte for byte against the real run). allow_non_fake_inputs: tensors a library made at import time,
    before the mode, may meet fake ones.
    """
    if not on:
        yield None
        return
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        yield mode


@contextlib.contextmanager
def track_program(use_memtracker=True):
    """Installs the tracker and the phase hooks; yields the tracker."""
    tr = StorageTracker()
    tr.keep_detail = os.environ.get("TRUTH_DETAIL") == "1"
    mt = None
    if use_memtracker:
        try:
            from torch.distributed._tools.mem_tracker import MemTracker
            mt = MemTracker()
        except Exception:
            mt = None
    if mt is not None:
        # MemTracker's module hooks refuse some programs (a module called twice
        # in one forward, frozen parameters, checkpoint recomputation); its
        # first refusal is recorded and it answers nothing for the program
        # rather than stopping it.
        tr.mt_failed = None
        for hook in ("_pre_fw_hook", "_post_fw_hook", "_pre_bw_hook", "_post_bw_hook"):
            def guarded(*a, _orig=getattr(mt, hook), **k):
                if tr.mt_failed is not None:
                    return None
                try:
                    return _orig(*a, **k)
                except Exception as e:  # noqa: BLE001
                    tr.mt_failed = f"{type(e).__name__}: {str(e)[:200]}"
                    return None
            setattr(mt, hook, guarded)
    state = {"depth": 0, "in_backward": 0, "in_generate": 0}
    handles = []
    patches = []

    def patch(obj, name, wrapper):
        orig = getattr(obj, name)
        setattr(obj, name, wrapper(orig))
        patches.append((obj, name, orig))

    def pre_hook(module, args):
        tr.modules.add(module)
        if state["depth"] == 0 and not state["in_backward"]:
            # consecutive outermost calls (model, then a loss module; an eval
            # loop) stay in one forward segment
            if not state["in_generate"] and tr.seg.name != "forward":
                tr.begin("forward", mt)
            elif mt is not None and not torch.is_grad_enabled():
                mt.reset_mod_stats()  # no backward will ask for these stats
        state["depth"] += 1

    def post_hook(module, args, output):
        state["depth"] -= 1
        if state["depth"] == 0 and not state["in_backward"] and not state["in_generate"]:
            for t in tree_flatten(output)[0]:
                if isinstance(t, torch.Tensor):
                    tr.mark(t, "output")
            if isinstance(output, dict):  # transformers ModelOutput is an OrderedDict
                for v in output.values():
                    if isinstance(v, torch.Tensor):
                        tr.mark(v, "output")

    # A storage is a parameter (buffer) from the moment it is registered as one, not only at the next scan: a
    # model cast with .half() / .to(dtype) before its first forward swaps each parameter's storage
    # (`param.data = fn(param)`, torch/nn/modules/module.py `_apply`), and the float32 storages alive at the
    # cast's peak were parameters then, though no scan saw them (selfcheck.py: a cast Linear).
    def param_reg(module, name, param):
        tr.modules.add(module)
        if param is not None:
            tr.mark(param, "parameter")

    def buffer_reg(module, name, buf):
        tr.modules.add(module)
        if buf is not None:
            tr.mark(buf, "buffer")

    def opt_pre(opt, args, kwargs):
        tr.optimizers.add(opt)
        if tr.seg is None or tr.seg.name != "step":
            tr.begin("step", mt)

    def wrap_backward(orig):
        @functools.wraps(orig)
        def backward(*a, **k):
            tr.begin("backward", mt)
            state["in_backward"] += 1
            try:
                return orig(*a, **k)
            finally:
                state["in_backward"] -= 1
                tr.begin("step", mt)
        return backward

    def wrap_region(name):
        def wrapper(orig):
            @functools.wraps(orig)
            def region(*a, **k):
                prev = tr.seg.name if tr.seg else "build"
                tr.begin(name, mt)
                key = "in_generate" if name == "generate" else None
                if key:
                    state[key] += 1
                try:
                    return orig(*a, **k)
                finally:
                    if key:
                        state[key] -= 1
                    tr.begin(prev if prev in ("build", "load") else ("build" if name == "load" else prev), mt)
            return region
        return wrapper

    handles.append(nn.modules.module.register_module_forward_pre_hook(pre_hook))
    handles.append(nn.modules.module.register_module_forward_hook(post_hook))
    handles.append(nn.modules.module.register_module_parameter_registration_hook(param_reg))
    handles.append(nn.modules.module.register_module_buffer_registration_hook(buffer_reg))
    from torch.optim.optimizer import register_optimizer_step_pre_hook
    handles.append(register_optimizer_step_pre_hook(opt_pre))
    patch(torch.autograd, "backward", wrap_backward)
    patch(torch, "load", wrap_region("load"))
    try:
        import transformers  # noqa: F401  (only when installed)
        from transformers.generation.utils import GenerationMixin
        patch(GenerationMixin, "generate", wrap_region("generate"))
        from transformers import PreTrainedModel
        patch(PreTrainedModel, "from_pretrained", lambda orig: classmethod(wrap_region("load")(orig.__func__)))
    except Exception:
        pass

    tr.begin("build", None)
    try:
        if mt is not None:
            with mt:
                mt_reset_peak(mt)
                with tr:
                    yield tr
                tr.finish(mt)
        else:
            with tr:
                yield tr
            tr.finish(None)
    finally:
        for h in handles:
            h.remove()
        for obj, name, orig in reversed(patches):
            setattr(obj, name, orig)


# ---- the kernels a CUDA device runs, on the CPU ------------------------------------------
# Two ops save different tensors on the CPU than on a CUDA GPU, for a kernel choice, not a fact
# about the model:
#  - dropout in training: aten/src/ATen/native/Dropout.cpp (PyTorch 2.13) `dropout` calls the
#    fused `native_dropout` only when `is_fused_kernel_acceptable` (input.is_cuda() / xpu / lazy /
#    privateuse1, 0 < p < 1); on the CPU `_dropout_impl` makes `noise` in the input's dtype and
#    returns `input * noise`, whose backward keeps the noise (4 B per element in float32), where
#    `native_dropout` keeps a bool mask (derivatives.yaml `native_dropout: result1`, 1 B).
#  - scaled_dot_product_attention with dropout: the CPU's flash kernel refuses dropout > 0
#    ("Currently do not support dropout > 0"), so the CPU takes the math path, which keeps the
#    softmax, its dropout noise and the dropped-out scores (s x s per head); CUDA's flash and
#    memory-efficient kernels support dropout and keep q, k, v, the output and a float32
#    logsumexp per query row (derivatives.yaml `_scaled_dot_product_flash_attention`).
#  - an optimizer step whose `foreach` / `fused` are left unset: torch/optim/optimizer.py
#    `_default_to_fused_or_foreach` picks the multi-tensor (foreach) implementation only when every parameter is on
#    a device of `_get_foreach_kernels_supported_devices()` (torch/utils/_foreach_utils.py: cuda, xpu and the
#    privateuse1 backend, not the CPU), so the CPU runs the single-tensor loop, whose temporaries are those of one
#    parameter at a time (Adam: `exp_avg_sq.sqrt()` and its quotient, 2 x the largest parameter), where CUDA's
#    `_multi_tensor_adam` makes `exp_avg_sqs`' square roots for the whole (device, dtype) group at once
#    (`exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`, one tensor like every parameter).
# TRUTH_TORCH_KERNELS=accelerator runs the program with `native_dropout` (its CPU kernel, the
# same saved mask as CUDA's) and SDPA with dropout through the CPU flash kernel
# (`_scaled_dot_product_flash_attention_for_cpu`, which saves q, k, v, output and logsumexp as the
# CUDA kernels do) with its dropout left out: the values drawn differ (no attention dropout, a
# different use of the generator), the tensors kept are those a CUDA device keeps (less CUDA's
# philox seed and offset: two 8 B scalars). Without the variable the wrappers only count calls,
# so a program that never reaches them is not run twice. The accelerator run also lists the CPU among the foreach
# devices, so an optimizer left to its default takes the multi-tensor path CUDA takes (its CPU `_foreach_*` kernels
# loop over the list, making the same output tensors); an optimizer step counts only where the CPU's peak could
# be in it (run.py `foreach_may_matter`).
KERNEL_SWAPS = {"dropout": 0, "sdpa_dropout": 0, "optimizer_foreach": 0}


def use_accelerator_kernels(swap):
    import torch.nn.functional as F
    orig_dropout = F.dropout
    orig_sdpa = F.scaled_dot_product_attention

    @functools.wraps(orig_dropout)
    def dropout(input, p=0.5, training=True, inplace=False):
        if training and 0 < p < 1 and input.numel() > 0 and not inplace:
            KERNEL_SWAPS["dropout"] += 1
            if swap:
                return torch.native_dropout(input, p, True)[0]
        return orig_dropout(input, p, training, inplace)

    @functools.wraps(orig_sdpa)
    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False, **kw):
        if dropout_p > 0 and torch.is_grad_enabled() and query.device.type == "cpu" and not enable_gqa and not kw \
                and query.dim() == 4 and (attn_mask is None or not is_causal):
            KERNEL_SWAPS["sdpa_dropout"] += 1
            if swap:
                return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
                    query, key, value, 0.0, is_causal, attn_mask=attn_mask, scale=scale)[0]
        return orig_sdpa(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
                         scale=scale, enable_gqa=enable_gqa, **kw)

    F.dropout = dropout
    F.scaled_dot_product_attention = sdpa

    import torch.optim.optimizer as optimizer_mod
    orig_foreach_devices = optimizer_mod._get_foreach_kernels_supported_devices

    def foreach_devices():
        # called by _default_to_fused_or_foreach only, i.e. for a step whose foreach and fused are both unset
        KERNEL_SWAPS["optimizer_foreach"] += 1
        devices = list(orig_foreach_devices())
        return devices + ["cpu"] if swap and "cpu" not in devices else devices

    optimizer_mod._get_foreach_kernels_supported_devices = foreach_devices
    if swap and FakeTensor not in optimizer_mod._foreach_supported_types:
        # a parameter made under FakeTensorMode is a FakeTensor (nn.Parameter of a tensor subclass keeps its type),
        # which _default_to_fused_or_foreach's type check (Tensor, Parameter) would send to the single-tensor path
        optimizer_mod._foreach_supported_types.append(FakeTensor)
