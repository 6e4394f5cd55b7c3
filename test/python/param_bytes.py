"""Builds models with the real frameworks and sums their parameters' bytes.

Reads a JSON list of {"code": Python that binds `model` (a torch module, built on the CPU)
or `params` (a JAX pytree)} and prints a JSON list of {"bytes": total parameter bytes}
(null and the error when it fails). The dtype of each parameter is the framework's own,
so literal data (`torch.tensor([1.0, 2.0])`) and fill values are typed as PyTorch / JAX type them.
"""
import json
import sys


def total(ns):
    if "model" in ns and hasattr(ns["model"], "parameters"):
        return sum(p.numel() * p.element_size() for p in ns["model"].parameters())
    import jax

    leaves = [x for x in jax.tree_util.tree_leaves(ns["params"]) if hasattr(x, "dtype")]
    return int(sum(x.size * x.dtype.itemsize for x in leaves))


def main():
    out = []
    for c in json.load(sys.stdin):
        try:
            ns = {}
            exec(c["code"], ns)
            out.append({"bytes": total(ns)})
        except Exception as e:  # reported to the test, which fails on it
            out.append({"bytes": None, "error": f"{type(e).__name__}: {e}"})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
