"""Ground truth for transformers models built from a config written in the
program: runs each snippet with the real transformers on the meta device (no
memory, nothing downloaded) and reports the parameters of its `model`
(tied weights once) and their dtype.

stdin: JSON list of Python sources that leave a model in `model`.
stdout: JSON list of {"params": int, "dtype": str} or {"error": str}, same order.
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import transformers  # noqa: F401  (the snippets import what they use)


def run(src):
    ns = {}
    with torch.device("meta"):
        exec(compile(src, "<snippet>", "exec"), ns)
    model = ns["model"]
    params = list(model.parameters())
    return {"params": sum(p.numel() for p in params), "dtype": str(params[0].dtype).replace("torch.", "")}


out = []
for src in json.load(sys.stdin):
    try:
        out.append(run(src))
    except Exception as ex:  # reported to the test, which fails on it
        out.append({"error": f"{type(ex).__name__}: {ex}"})
print(json.dumps(out))
