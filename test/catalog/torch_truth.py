"""Ground truth for test/catalog/torch.test.ts.

Reads a JSON list of {"qualname", "args", "kwargs"} on stdin, builds each
module with real PyTorch (on the meta device where the constructor accepts
`device=`, so nothing is allocated) and prints one JSON object per case:
{"params": {name: [shape, dtype]}, "buffers": {...}} or {"error": "..."}.
A dtype given as {"dtype": "float16"} becomes torch.float16.
"""
import importlib
import json
import sys

import torch


def resolve(qualname):
    mod, _, attr = qualname.rpartition(".")
    return getattr(importlib.import_module(mod), attr)


def decode(v):
    if isinstance(v, dict) and set(v) == {"dtype"}:
        return getattr(torch, v["dtype"])
    if isinstance(v, list):
        return tuple(decode(x) for x in v)
    return v


def build(case):
    cls = resolve(case["qualname"])
    args = [decode(a) for a in case.get("args", [])]
    kwargs = {k: decode(v) for k, v in case.get("kwargs", {}).items()}
    try:
        return cls(*args, device="meta", **kwargs)
    except TypeError:
        # Modules without factory kwargs (activations, dropout, pooling).
        return cls(*args, **kwargs)


def describe(named):
    return {n: [list(t.shape), str(t.dtype).replace("torch.", "")] for n, t in named}


def main():
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        try:
            m = build(case)
            out.append({"params": describe(m.named_parameters()), "buffers": describe(m.named_buffers())})
        except Exception as e:  # reported per case so one bad call does not hide the rest
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump({"version": torch.__version__, "results": out}, sys.stdout)


if __name__ == "__main__":
    main()
