"""Builds models with the real frameworks and counts their parameters.

Reads a JSON list of {"dir": project folder, "path": [extra sys.path entries],
"code": Python that binds `model` (a torch module, built on the meta device)
or `params` (a JAX pytree, e.g. from jax.eval_shape / eqx.filter_eval_shape)}
and prints a JSON list of parameter counts (null and the error when it fails).
"""
import json
import os
import sys


def count(ns):
    if "model" in ns and hasattr(ns["model"], "parameters"):
        return sum(p.numel() for p in ns["model"].parameters())
    import jax
    import numpy as np

    tree = ns["params"]
    leaves = [x for x in jax.tree_util.tree_leaves(tree) if hasattr(x, "shape") and hasattr(x, "dtype")]
    return int(sum(int(np.prod(x.shape)) for x in leaves))


def main():
    cases = json.load(sys.stdin)
    out = []
    here = os.getcwd()
    for c in cases:
        os.chdir(c["dir"])
        saved = list(sys.path)
        sys.path[:0] = [os.path.join(c["dir"], p) for p in c.get("path", [""])]
        try:
            ns = {}
            import torch

            with torch.device("meta"):
                exec(c["code"], ns)
            out.append({"params": count(ns)})
        except Exception as e:  # reported to the test, which fails on it
            out.append({"params": None, "error": f"{type(e).__name__}: {e}"})
        finally:
            sys.path[:] = saved
            for m in [m for m in sys.modules if m.split(".")[0] in c.get("modules", [])]:
                del sys.modules[m]
            os.chdir(here)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
