"""Self-checks of the ground-truth trackers: cases whose answer is known
exactly. Exits non-zero, naming the case, when a tracker is wrong.

    python test/truth/selfcheck.py [torch|jax|jax-mesh]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(name, got, want):
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} {name}: measured {got}, expected {want}")
    if not ok:
        failures.append(name)


def torch_checks():
    import torch
    import torch.nn as nn
    from tracker_torch import track_program

    # 1. plain allocations: peak is the sum of what is alive together; views are free
    with track_program(use_memtracker=False) as tr:
        a = torch.empty(1000, dtype=torch.float32)          # 4000
        b = torch.zeros(250, 4, dtype=torch.float64)        # 8000
        v = b.view(1000).t()                                 # view: no new storage
        del a
        c = torch.ones(500, dtype=torch.int8)                # 500
        del b, v, c
    s = tr.report()["segments"][0]
    check("torch: peak of live storages (float32 4000 + float64 8000, view free)", s["peak"], 12000)
    check("torch: everything freed at the end", tr.total, 0)

    # 2. a Linear trained one step with Adam: params + grads + 2 Adam moments
    torch.manual_seed(0)
    with track_program(use_memtracker=False) as tr:
        lin = nn.Linear(100, 50)                             # (5000 + 50) * 4 = 20200
        opt = torch.optim.Adam(lin.parameters(), lr=1e-3, foreach=False)
        x = torch.randn(8, 100)                              # 3200
        y = lin(x).sum()
        y.backward()
        opt.step()
        tr.scan()
        kinds_after = tr.classify(list(tr.sizes.items()))
    P = 5050 * 4
    check("torch: Linear parameters", kinds_after.get("parameter"), P)
    check("torch: Linear gradients", kinds_after.get("gradient"), P)
    # Adam: exp_avg + exp_avg_sq per parameter (+ a float32 scalar step per parameter)
    check("torch: Adam state (2 moments + 2 step scalars)", kinds_after.get("optimizer"), 2 * P + 2 * 4)
    check("torch: step segment exists", [s["name"] for s in tr.report()["segments"]][:4], ["build", "forward", "backward", "step"])

    # 3. a matmul saves its input for the weight's gradient: after forward of
    # y = (x @ w).sum() with w requiring grad, x is kept and nothing else big
    with track_program(use_memtracker=False) as tr:
        w = torch.randn(256, 128, requires_grad=True)       # 131072
        m = nn.Identity()
        x = m(torch.randn(64, 256))                          # 65536 (forward segment starts at m(...))
        h = x @ w                                            # 32768 output
        loss = h.sum()                                       # 4
        del h
        fwd_live = tr.total
        loss.backward()
    # alive after the forward: w, x (saved by mm for grad of w), loss; h freed (sum saves only the shape)
    check("torch: matmul keeps its input for backward, frees its output", fwd_live, 131072 + 65536 + 4)
    seg = {s["name"]: s for s in tr.report()["segments"]}
    # backward: d loss = ones (4); sum's backward expands it to h's shape as a
    # view (stride 0, no storage), so dh is never materialised; mm's backward
    # makes dw = x.T @ dh (131072)
    check("torch: backward peak (w, x, loss, dloss, dw; dh is an expanded view)", seg["backward"]["peak"], 131072 + 65536 + 4 + 4 + 131072)

    # 4. the storage freed in-op is not double counted: in-place ops keep one storage
    with track_program(use_memtracker=False) as tr:
        t = torch.zeros(1024)
        t.add_(1).mul_(2)
        t2 = t.clone()
    check("torch: in-place ops do not add storage", tr.report()["segments"][0]["peak"], 8192)

    # 4b. a model cast with .half() before any forward: at the cast's peak both float32 weights and the first
    # half copy are alive (torch/nn/modules/module.py `_apply`: `param.data = fn(param)` one parameter at a
    # time), and all of them are parameters then, though the float32 storages are gone by the next scan
    with track_program(use_memtracker=False) as tr:
        two = nn.Sequential(nn.Linear(256, 256, bias=False), nn.Linear(256, 256, bias=False))
        two.half()
        tr.scan()
        cast_peak = tr.segments[0].peak
        cast_kinds = tr.classify(tr.segments[0].snapshot)
    check("torch: cast peak (2 float32 weights + the first half copy)", cast_peak, 2 * 262144 + 131072)
    check("torch: cast peak: every storage alive is a parameter", cast_kinds, {"parameter": 2 * 262144 + 131072})

    # 5. MemTracker side by side sees the same simple peak
    with track_program(use_memtracker=True) as tr:
        m = nn.Identity()
        x = m(torch.zeros(1000))
        y = x * 2
        del y
    seg = tr.report()["segments"][-1]
    check("torch: tracker peak of a simple forward (x 4000 + 2x 4000)", seg["peak"], 8000)
    check("torch: MemTracker peak agrees on it", seg["memTracker"], 8000)

    # 5b. FakeTensorMode (programs marked `# truth: fake-tensors`): the same Linear step with no memory
    # allocated measures the same bytes, kind by kind and segment by segment, as the real run, and MemTracker
    # under the fake mode agrees with the tracker.
    from tracker_torch import fake_tensors

    def linear_adam_step(fake, mt):
        torch.manual_seed(0)
        with fake_tensors(fake), track_program(use_memtracker=mt) as tr:
            lin = nn.Sequential(nn.Linear(100, 50))
            opt = torch.optim.Adam(lin.parameters(), lr=1e-3, foreach=False)
            x = torch.randn(8, 100)
            for _ in range(2):
                lin(x).sum().backward()
                opt.step()
                opt.zero_grad()
            tr.scan()
            kinds = tr.classify(list(tr.sizes.items()))
            fake_seen = isinstance(lin[0].weight, torch._subclasses.fake_tensor.FakeTensor)
        segs = [(s["name"], s["peak"], s["byKind"]) for s in tr.report()["segments"]]
        return kinds, segs, [s["memTracker"] for s in tr.report()["segments"]], fake_seen

    real_kinds, real_segs, real_mt, _ = linear_adam_step(False, True)
    fake_kinds, fake_segs, fake_mt, fake_seen = linear_adam_step(True, True)
    check("torch: fake tensors: the program's tensors are FakeTensors", fake_seen, True)
    check("torch: fake tensors: Linear parameters, gradients, Adam state as the real run", fake_kinds, real_kinds)
    check("torch: fake tensors: Adam state (2 moments + 2 step scalars)", fake_kinds.get("optimizer"), 2 * P + 2 * 4)
    check("torch: fake tensors: every segment's peak and live set by kind as the real run", fake_segs, real_segs)
    check("torch: fake tensors: MemTracker's segment peaks as the tracker's", fake_mt, [s[1] for s in fake_segs])

    # 6. the kernels a CUDA device runs (last: it patches torch.nn.functional): dropout keeps a bool mask
    # (native_dropout) where the CPU's own path keeps float32 noise; SDPA with dropout keeps its output and
    # a float32 logsumexp per query row (flash) where the CPU's math path keeps s x s tensors.
    import torch.nn.functional as F
    from tracker_torch import use_accelerator_kernels, KERNEL_SWAPS

    def dropout_step():
        with track_program(use_memtracker=False) as tr:
            w = torch.randn(256, 128, requires_grad=True)   # 131072
            x = torch.randn(64, 256)                         # 65536
            h = x @ w                                        # 32768, freed: only the dropout reads it
            loss = F.dropout(h, 0.5, True).sum()             # 4
            del h
            live = tr.total
            loss.backward()
        return live

    def sdpa_step():
        with track_program(use_memtracker=False) as tr:
            q = torch.randn(1, 2, 16, 8, requires_grad=True)  # q, k, v: 1024 each
            k = torch.randn(1, 2, 16, 8, requires_grad=True)
            v = torch.randn(1, 2, 16, 8, requires_grad=True)
            before = tr.total
            loss = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1).sum()
            live = tr.total - before
            loss.backward()
        return live

    def adam_step():
        with track_program(use_memtracker=False) as tr:
            lin = nn.Sequential(nn.Linear(100, 50))
            opt = torch.optim.Adam(lin.parameters(), lr=1e-3)  # foreach and fused left to their defaults
            lin(torch.randn(8, 100)).sum().backward()
            opt.step()
        return max(s["peak"] for s in tr.report()["segments"] if s["name"] == "step")

    # the CPU's single-tensor Adam: parameters, gradients, 2 moments + 2 step scalars, and the weight's
    # exp_avg_sq.sqrt() and its quotient by the bias correction (2 x 50 x 100 x 4 B) alive together
    check("torch: CPU Adam step: single-tensor temporaries of one parameter", adam_step(), P + P + 2 * P + 8 + 2 * 20000)
    cpu_dropout = dropout_step()
    check("torch: CPU dropout keeps float32 noise", cpu_dropout, 131072 + 65536 + 32768 + 4)
    use_accelerator_kernels(swap=True)
    check("torch: accelerator kernels: dropout keeps a bool mask (native_dropout)", dropout_step(), 131072 + 65536 + 8192 + 4)
    check("torch: accelerator kernels: SDPA with dropout keeps output and logsumexp", sdpa_step(), 1024 + 2 * 16 * 4 + 4)
    check("torch: accelerator kernels: swaps counted", (KERNEL_SWAPS["dropout"] >= 1, KERNEL_SWAPS["sdpa_dropout"]), (True, 1))
    # CUDA's default multi-tensor Adam: exp_avg_sq's square roots for every parameter at once (_foreach_sqrt), divided
    # in place: one tensor like each parameter (P), instead of the CPU's two like the largest
    check("torch: accelerator kernels: foreach Adam step keeps sqrt(exp_avg_sq) of every parameter", adam_step(), P + P + 2 * P + 8 + P)
    check("torch: accelerator kernels: an optimizer step with foreach unset counted", KERNEL_SWAPS["optimizer_foreach"], 1)


def jax_checks():
    import jax
    import jax.numpy as jnp
    from tracker_jax import track_program, compiled_memory

    # 1. memory_analysis of a jitted matmul: arguments and output sizes exact
    f = lambda x, w: x @ w
    ma = compiled_memory(jax.jit(f), (jnp.zeros((64, 128), jnp.float32), jnp.zeros((128, 32), jnp.float32)), {})
    check("jax: jit argument bytes (64x128 + 128x32 float32)", ma["argument"], (64 * 128 + 128 * 32) * 4)
    check("jax: jit output bytes (64x32 float32)", ma["output"], 64 * 32 * 4)
    # 2. donation is reported as alias
    g = jax.jit(lambda x: x + 1, donate_argnums=0)
    ma = compiled_memory(g, (jnp.zeros((1000,), jnp.float32),), {})
    check("jax: donated input aliased to output", ma["alias"], 4000)
    # 3. eager live arrays: peak of what is alive together
    with track_program() as tr:
        a = jnp.zeros((1000,), jnp.float32)
        b = jnp.ones((500,), jnp.float64 if jax.config.jax_enable_x64 else jnp.float32)
        c = a + 1.0
        del a, c
        d = jnp.zeros((10,), jnp.int8)
    rep = tr.report()
    want = 4000 + b.nbytes + 4000
    check("jax: eager peak of live arrays", rep["phases"]["pre"]["peak"], want)
    # 4. repeated jitted calls are all seen (no C++ fast path), and a call that
    # takes a gradient is a training call; donated params do not count twice
    w = jnp.zeros((256, 256), jnp.float32)
    x = jnp.ones((8, 256), jnp.float32)
    fwd = jax.jit(lambda w, x: (x @ w).sum())
    step = jax.jit(lambda w, x: w - 0.1 * jax.grad(lambda w: (x @ w).sum())(w), donate_argnums=0)
    with track_program() as tr:
        fwd(w, x)
        fwd(w, x)
        w2 = step(w, x)
    ev = [(e["name"], e["training"]) for e in tr.events]
    check("jax: every top-level call seen, grad marks training", ev, [("<lambda>", False), ("<lambda>", False), ("<lambda>", True)])
    e = tr.events[-1]
    check("jax: donated step output aliases its input", (e["alias"], e["output"]), (256 * 256 * 4, 256 * 256 * 4))
    check("jax: after the donated step, w is gone and w2 live", e["after"] - e["before"], 0)
    # 5. the Threefry lowering of GPU/TPU registered for the CPU (last: it changes later compilations):
    # the same values bit for bit; XLA fuses counters, hash and float conversion into the output
    # (no temporaries), where the CPU's rolled loop keeps 3 uint32 arrays of the sample's shape.
    from tracker_jax import use_accelerator_threefry_lowering
    key = jax.random.PRNGKey(3)
    draw = lambda k: jax.random.normal(k, (256, 128))
    cpu_ma = compiled_memory(jax.jit(draw), (key,), {})
    cpu_vals = jax.jit(draw)(key)
    check("jax: CPU lowering keeps 3 uint32 sample-sized temporaries", cpu_ma["temp"] >= 3 * 256 * 128 * 4, True)
    use_accelerator_threefry_lowering()
    draw2 = lambda k: jax.random.normal(k, (256, 128))  # a new function: compiled again with the new rule
    acc_ma = compiled_memory(jax.jit(draw2), (key,), {})
    check("jax: accelerator lowering draws the same values", bool((jax.jit(draw2)(key) == cpu_vals).all()), True)
    check("jax: accelerator lowering: output only, no temporaries", (acc_ma["output"], acc_ma["temp"] < 1024), (256 * 128 * 4, True))


def jax_mesh_checks():
    """On a mesh of 8 CPU devices (this process started with
    XLA_FLAGS=--xla_force_host_platform_device_count=8): the compiled memory analysis of an SPMD
    executable and the tracker's live arrays are per device, a shard's bytes, not the global array's."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P
    from tracker_jax import track_program, live_bytes

    check("jax mesh: 8 CPU devices", len(jax.devices()), 8)
    mesh = jax.make_mesh((8,), ("x",))
    shape = (8 * 256, 512)
    G = 8 * 256 * 512 * 4                                   # the global float32 array: 4 MiB
    zeros = jax.jit(lambda: jnp.zeros(shape, jnp.float32), out_shardings=NamedSharding(mesh, P("x")))
    with track_program() as tr:
        z = zeros()
    e = tr.events[-1]
    check("jax mesh: compiled output of a sharded zeros is one shard (global / 8)", e["output"], G // 8)
    check("jax mesh: live arrays after it, per device (global / 8)", e["after"], G // 8)
    check("jax mesh: init peak per device (global / 8)", tr.report()["phases"]["pre"]["peak"], G // 8)
    ones = jax.jit(lambda: jnp.ones(shape, jnp.float32), out_shardings=NamedSharding(mesh, P()))
    r = ones()
    check("jax mesh: a replicated array is a full copy on every device (shard + copy)", live_bytes(), G // 8 + G)
    del z, r
    # partitionable Threefry, sharded: the CPU's rolled loop keeps 3 uint32 shard-sized arrays; with the
    # lowering of GPU and TPU (last: it changes later compilations) each device computes its shard's bits
    # fused into the sample, the same values, nothing but the output shard.
    from tracker_jax import compiled_memory, use_accelerator_threefry_lowering
    jax.config.update("jax_threefry_partitionable", True)
    key = jax.random.PRNGKey(1)
    out = NamedSharding(mesh, P(None, "x"))
    cpu_ma = compiled_memory(jax.jit(lambda k: jax.random.normal(k, shape), out_shardings=out), (key,), {})
    cpu_vals = jax.jit(lambda k: jax.random.normal(k, shape), out_shardings=out)(key)
    check("jax mesh: partitionable Threefry, CPU loop: 3 uint32 shard-sized temporaries", cpu_ma["temp"] >= 3 * G // 8, True)
    use_accelerator_threefry_lowering()
    draw = lambda k: jax.random.normal(k, shape)  # a new function: compiled again with the new rule
    acc_ma = compiled_memory(jax.jit(draw, out_shardings=out), (key,), {})
    check("jax mesh: partitionable Threefry, accelerator lowering: same values",
          bool((jax.jit(draw, out_shardings=out)(key) == cpu_vals).all()), True)
    check("jax mesh: partitionable Threefry, accelerator lowering: the output shard, no temporaries",
          (acc_ma["output"], acc_ma["temp"] < 1024), (G // 8, True))


if __name__ == "__main__":
    which = sys.argv[1:] or ["torch", "jax"]
    if "torch" in which:
        torch_checks()
    if "jax" in which:
        jax_checks()
        # the mesh checks need 8 devices, which XLA's CPU client offers only if told before it starts
        import subprocess
        env = {**os.environ, "XLA_FLAGS": (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()}
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "jax-mesh"], env=env, capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            sys.stdout.write(r.stderr[-3000:])
            failures.append("jax mesh checks (subprocess)")
    if "jax-mesh" in which:
        jax_mesh_checks()
    if failures:
        print(f"SELF-CHECK FAILED: {len(failures)} case(s): {', '.join(failures)}")
        sys.exit(1)
    print("all self-checks passed")
