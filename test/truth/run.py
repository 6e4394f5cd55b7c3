"""Runs one program unmodified under the ground-truth tracker and prints JSON.

    python test/truth/run.py PROGRAM.py

PyTorch programs run under tracker_torch (live tensor storage, per segment,
plus PyTorch's MemTracker side by side); JAX programs under tracker_jax
(compiled memory analysis of each jitted call, live arrays between eager
operations), twice: as it is and, in a second process, with the Threefry
lowering JAX uses on GPU and TPU (TRUTH_JAX_LOWERING=accelerator; see
tracker_jax.use_accelerator_threefry_lowering). The report maps segments onto oomlens's phases:
  init/load  the largest segment before the first forward or jitted train step
  training   forward segments followed by a backward, backward, step segments;
             a jitted call that takes a gradient
  inference  other forward segments and generate()
"""
import json
import os
import re
import runpy
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def harness_env(src):
    """Environment a program asks the harness for: `# truth-harness: NAME=VALUE ...` on its first line.

    Set before the framework is imported (XLA reads XLA_FLAGS when its CPU client starts), e.g.
    `XLA_FLAGS=--xla_force_host_platform_device_count=8` for a program written for a mesh of 8
    devices: the CPU then offers 8 devices. truth.test.ts reads the same line for the device count
    oomlens is asked to target."""
    first = src.split("\n", 1)[0]
    m = re.match(r"#\s*truth-harness:\s*(.*)", first)
    if not m:
        return {}
    return dict(item.split("=", 1) for item in m.group(1).split() if "=" in item)


def framework_of(src):
    for mod in ("jax", "flax", "equinox", "haiku"):
        if f"import {mod}" in src or f"from {mod}" in src:
            return "jax"
    return "torch"


def is_fake_program(src):
    """A program whose first lines hold `# truth: fake-tensors` runs under FakeTensorMode: full-size configurations
    (a 7B model's training step) are measured without allocating their memory (tracker_torch.fake_tensors)."""
    return any(re.match(r"#\s*truth:\s*fake-tensors\b", line.strip()) for line in src.splitlines()[:5])


def foreach_may_matter(phases, segments):
    """Whether CUDA's multi-tensor optimizer step could raise the training peak: its temporaries are one tensor like
    each parameter at most (Adam's square roots of exp_avg_sq, half its state; SGD's weight-decayed or Nesterov
    gradients, as large as the gradients), so a step segment below the peak by more than the larger of its
    optimizer state and its gradients cannot become it."""
    peak = phases.get("training", {}).get("peak")
    return peak is not None and any(
        s["name"] == "step" and s["peak"] + max(s["byKind"].get("optimizer", 0), s["byKind"].get("gradient", 0)) >= peak
        for s in segments)


def summarise_torch(rep):
    segs = rep["segments"]
    first_run = next((i for i, s in enumerate(segs) if s["name"] in ("forward", "generate")), len(segs))
    groups = {"pre": segs[:first_run],
              "training": [s for s in segs[first_run:] if s["training"]],
              "inference": [s for s in segs[first_run:] if not s["training"] and s["name"] in ("forward", "generate")]}
    phases = {}
    for name, group in groups.items():
        if not group:
            continue
        best = max(group, key=lambda s: s["peak"])
        mts = [s["memTracker"] for s in group if s["memTracker"] is not None]
        phases[name] = {"peak": best["peak"], "byKind": best["byKind"],
                        "segment": f'{best["name"]}#{best["index"]}',
                        "memTracker": max(mts) if mts else None}
    return phases


def rerun(path, extra_env):
    """Runs this script on the program again in a fresh process with extra_env; returns its JSON."""
    env = {**os.environ, **extra_env}
    r = subprocess.run([sys.executable, os.path.abspath(__file__), path], env=env,
                       capture_output=True, text=True, timeout=600)
    m = re.search(r"@@TRUTH@@(.*)", r.stdout)
    if r.returncode != 0 or not m:
        raise RuntimeError(f"{extra_env} run failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return json.loads(m.group(1))


def main():
    path = os.path.abspath(sys.argv[1])
    src = open(path).read()
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [path]
    fw = framework_of(src)
    os.environ.update(harness_env(src))
    if fw == "torch":
        import torch
        torch.manual_seed(0)
        from tracker_torch import track_program, use_accelerator_kernels, KERNEL_SWAPS, fake_tensors
        accelerator = os.environ.get("TRUTH_TORCH_KERNELS") == "accelerator"
        use_accelerator_kernels(swap=accelerator)
        fake = is_fake_program(src)
        # MemTracker's own hooks take most of a full-size fake run's time (a Llama-2-7B step: about 20 s without it,
        # 80 s or more with it, which agreed to the byte): on for such a program only with TRUTH_MEMTRACKER=1.
        use_mt = os.environ.get("TRUTH_MEMTRACKER", "0" if fake else "1") == "1"
        with fake_tensors(fake), track_program(use_memtracker=use_mt) as tr:
            runpy.run_path(path, run_name="__main__")
        rep = tr.report()
        if tr.keep_detail:
            # TRUTH_DETAIL=1: the live set at each segment's peak, storage by storage (kind, making op, count, bytes)
            for seg in rep["segments"]:
                print(f'--- {seg["name"]}#{seg["index"]} peak {seg["peak"] / 1e6:.2f} MB')
                for key, count, n in seg["live"]:
                    if n >= float(os.environ.get("TRUTH_DETAIL_MIN", "0.005")) * seg["peak"]:
                        print(f'  {n / 1e6:9.2f} MB  x{count:<3} {key}')
            return
        phases = summarise_torch(rep)
        if not accelerator and not foreach_may_matter(phases, rep["segments"]):
            # an optimizer step that cannot become the peak is no kernel swap that matters: no second run for it
            KERNEL_SWAPS["optimizer_foreach"] = 0
        out = {"framework": "torch", "fakeTensors": fake, "phases": phases, "segments": rep["segments"],
               "memTrackerFailed": rep["memTrackerFailed"], "kernelSwaps": dict(KERNEL_SWAPS)}
        if not accelerator and any(KERNEL_SWAPS.values()):
            # The same program again in a fresh process with the kernels a CUDA device runs for dropout and
            # SDPA with dropout (tracker_torch.use_accelerator_kernels): the `accelerator kernels` rows.
            acc = rerun(path, {"TRUTH_TORCH_KERNELS": "accelerator", "TRUTH_MEMTRACKER": "0"})  # its MemTracker column is not used
            out["acceleratorKernels"] = {k: {"peak": v["peak"], "segment": v["segment"], "byKind": v["byKind"]}
                                         for k, v in acc["phases"].items()}
    else:
        from tracker_jax import track_program, use_accelerator_threefry_lowering
        if os.environ.get("TRUTH_JAX_LOWERING") == "accelerator":
            use_accelerator_threefry_lowering()
        with track_program() as tr:
            runpy.run_path(path, run_name="__main__")
        out = {"framework": "jax", **tr.report()}
        if os.environ.get("TRUTH_JAX_LOWERING") != "accelerator":
            # The same program again in a fresh process with the Threefry lowering that JAX registers
            # for every platform but the CPU (tracker_jax.use_accelerator_threefry_lowering): what
            # XLA's buffers are when the random bits are not computed in the CPU's rolled loop.
            acc = rerun(path, {"TRUTH_JAX_LOWERING": "accelerator"})["phases"]
            out["acceleratorLowering"] = {k: {"peak": v["peak"], "segment": v["segment"]} for k, v in acc.items()}
    sys.stdout.write("\n@@TRUTH@@" + json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
