"""Ground truth for JAX: every top-level XLA execution of a program, measured.

Every eager operation and every jitted call that runs at the top level (not
inside a trace) goes through jax._src.pjit._pjit_call_impl_python once the
C++ fast path is turned off (_get_fastpath_data returns None, so the C++
dispatcher calls back into Python every time). Wrapping it gives, per
execution:
  before   bytes of jax.live_arrays() (arguments included), just before
  compiled memory analysis of the executable XLA runs: temp, output, alias
           (donated arguments reused for outputs), argument sizes
  peak     before + temp + output - alias: what is allocated at once while it
           runs (XLA's buffer assignment; the arguments are already live)
  after    bytes of jax.live_arrays() after (donated arguments are gone)
A call is a training step when a VJP was traced for it (jax.vjp/grad/
value_and_grad and the Equinox/Flax/Haiku wrappers all linearize through
jax._src.interpreters.ad.linearize).

Optimizer state creation (optax's init, called by the program, by
TrainState.create or nnx.Optimizer) is marked by wrapping the init function
of every optax GradientTransformation as it is constructed; its executions
belong to no init phase.

Per phase, "peak" is the largest execution's peak and "peakLive" the largest
set of arrays alive around one execution (its arguments and outputs, its XLA
temporaries left out): the second is the same on CPU and GPU for a program
whose executions are the same, the first is not (Threefry temporaries).

Phases: "pre" (init: everything before the first optimizer init or training
call, so an eager init is the largest of its operations and a jitted init
its one call),
"training" (the largest training call), "inference" (other calls after the first training call, outside optimizer init).
"""
import contextlib

import jax
import jax._src.pjit as pjit_mod
from jax._src.interpreters import ad


def live_bytes():
    """Bytes of live arrays on the fullest device.

    An array's `nbytes` is its global size; on a mesh each device holds only its
    shard (`sharding.shard_shape`), or a full copy where the array is replicated
    (every device of `sharding.device_set` holds one shard of that shape). Summed per
    device, the largest: the figure to compare with XLA's memory analysis, which is
    per device for an SPMD executable (one partition's buffers). On one device this
    is the sum of `nbytes`.
    """
    per_device = {}
    for a in jax.live_arrays():
        try:
            if a.is_deleted():
                continue
            sharding = a.sharding
            shard = sharding.shard_shape(a.shape)
            n = a.dtype.itemsize
            for d in shard:
                n *= d
            for dev in sharding.device_set:
                per_device[dev] = per_device.get(dev, 0) + n
        except Exception:
            try:
                per_device[None] = per_device.get(None, 0) + a.nbytes
            except Exception:
                pass
    if None in per_device:
        # an array whose per-device layout is not known: counted whole on every device (an upper bound)
        extra = per_device.pop(None)
        return max(per_device.values(), default=0) + extra
    return max(per_device.values(), default=0)


def stats_of(executable):
    """XLA's compiled memory stats of a MeshExecutable or stages.Compiled."""
    ms = None
    for get in (lambda e: e.memory_analysis(),
                lambda e: e.xla_executable.get_compiled_memory_stats(),
                lambda e: e.runtime_executable().get_compiled_memory_stats()):
        try:
            ms = get(executable)
            if ms is not None:
                break
        except Exception:
            continue
    if ms is None:
        return None
    return {"argument": ms.argument_size_in_bytes, "output": ms.output_size_in_bytes,
            "temp": ms.temp_size_in_bytes, "alias": ms.alias_size_in_bytes}


def compiled_memory(jitted, args, kwargs):
    return stats_of(jitted.lower(*args, **kwargs).compile())


class JaxTracker:
    def __init__(self):
        self.events = []
        self.saw_vjp = False
        self.training_jaxprs = set()
        self.in_opt_init = 0

    def record(self, name, training, before, ma, after):
        if ma is None:
            peak = max(before, after)
        else:
            peak = max(before + ma["temp"] + ma["output"] - ma["alias"], before, after)
        self.events.append({"name": name, "training": training, "optInit": self.in_opt_init > 0, "before": before,
                            "peak": peak, "after": after, **(ma or {})})

    def report(self):
        ev = self.events
        first_train = next((i for i, e in enumerate(ev) if e["training"] or e["optInit"]), len(ev))
        first_step = next((i for i, e in enumerate(ev) if e["training"]), len(ev))
        groups = {"pre": ev[:first_train], "training": [e for e in ev if e["training"]],
                  "inference": [e for e in ev[first_step:] if not e["training"] and not e["optInit"]]}
        phases = {}
        for name, group in groups.items():
            if not group:
                continue
            best = max(group, key=lambda e: e["peak"])
            by = {"live before (arguments and the rest)": best["before"]}
            if "temp" in best:
                by["XLA temporaries"] = best["temp"]
                by["outputs (not aliased)"] = best["output"] - best["alias"]
            # The largest set of arrays alive at once, XLA's temporaries inside each execution left out:
            # the arguments and the result of the call (before + output - alias), or what stays after it.
            # Inside one execution the temporaries are the backend's (the CPU expands Threefry into
            # elementwise ops where a GPU runs one kernel); the arrays between executions are the program's.
            live = max(group, key=lambda e: max(e["before"] + e.get("output", 0) - e.get("alias", 0), e["after"]))
            phases[name] = {"peak": best["peak"], "byKind": by, "segment": f'{best["name"]}#{ev.index(best)}',
                            "memTracker": None,
                            "peakLive": max(live["before"] + live.get("output", 0) - live.get("alias", 0), live["after"]),
                            "segmentLive": f'{live["name"]}#{ev.index(live)}'}
        return {"phases": phases, "events": len(ev),
                "calls": [e for e in ev if e["name"] not in ("prim_fun",) or e["peak"] > 1 << 20][:50]}


def use_accelerator_threefry_lowering():
    """Registers, for the CPU, the Threefry lowering that JAX uses on every other platform.

    jax/_src/random/threefry2x32.py (jax 0.10.2) registers `_threefry2x32_lowering_rule`
    (use_rolled_loops=False: straight-line elementwise HLO) as the default, and for
    platform='cpu' only `_threefry2x32_cpu_lowering_rule` (use_rolled_loops=True: a
    `fori_loop` over the 5 key-schedule steps). XLA cannot fuse through the loop, so on
    the CPU the loop state (two uint32 arrays of the sample's shape) and the body's new
    state are temporaries; with the straight-line lowering the counters, hash and float
    conversion fuse into the output. CUDA/ROCm take the straight-line rule too
    (`_threefry2x32_gpu_lowering_rule` falls back to it unless
    jax_threefry_gpu_kernel_lowering is set, off by default since jax 0.4.27).
    The values drawn are the same; only the buffers XLA needs differ.
    """
    from jax._src.interpreters import mlir
    from jax._src.random import threefry2x32 as tf
    mlir.register_lowering(tf.threefry2x32_p, tf._threefry2x32_lowering_rule, platform="cpu")


@contextlib.contextmanager
def track_program():
    tr = JaxTracker()
    orig_impl = pjit_mod._pjit_call_impl_python
    orig_fast = pjit_mod._get_fastpath_data
    orig_lin = ad.linearize

    def linearize(*a, **k):
        tr.saw_vjp = True
        return orig_lin(*a, **k)

    def impl(*args, jaxpr, **params):
        key = id(jaxpr.jaxpr)
        if tr.saw_vjp:
            tr.training_jaxprs.add(key)
            tr.saw_vjp = False
        before = live_bytes()
        res = orig_impl(*args, jaxpr=jaxpr, **params)
        out = res[0]
        for o in out:
            try:
                o.block_until_ready()
            except Exception:
                pass
        ma = stats_of(res[1])
        tr.record(params.get("name", "?"), key in tr.training_jaxprs, before, ma, live_bytes())
        return res

    restore = []
    try:
        import optax._src.base as ob

        def wrap_init(init):
            def opt_init(*a, **k):
                tr.in_opt_init += 1
                try:
                    return init(*a, **k)
                finally:
                    tr.in_opt_init -= 1
            return opt_init

        for cls in (ob.GradientTransformation, ob.GradientTransformationExtraArgs):
            orig_new = cls.__new__

            def new(_cls, init, update, *rest, _orig=orig_new, **kw):
                return _orig(_cls, wrap_init(init), update, *rest, **kw)
            cls.__new__ = new
            restore.append((cls, orig_new))
    except ImportError:
        pass

    pjit_mod._pjit_call_impl_python = impl
    pjit_mod._get_fastpath_data = lambda *a, **k: None
    ad.linearize = linearize
    try:
        yield tr
    finally:
        pjit_mod._pjit_call_impl_python = orig_impl
        pjit_mod._get_fastpath_data = orig_fast
        ad.linearize = orig_lin
        for cls, orig_new in restore:
            cls.__new__ = orig_new
