"""Ground truth for Flax NNX models: each case's source defines `build()`;
the model is built with `nnx.eval_shape(build)` (no allocation) and its
`nnx.Param` and `nnx.BatchStat` leaves are counted.

stdin: {"cases": {name: source}}; stdout: {name: {"params": n, "batch_stats": n, "state": n, "param_dtypes": [...]}}.
"""
import json
import sys

import jax
import numpy as np
from flax import nnx


def count(state):
    leaves = jax.tree_util.tree_leaves(state)
    return int(sum(int(np.prod(x.shape)) for x in leaves)), sorted({str(x.dtype) for x in leaves})


def main():
    cases = json.load(sys.stdin)["cases"]
    out = {}
    for name, src in cases.items():
        ns = {"__name__": "case"}
        exec(compile(src, name, "exec"), ns)
        model = nnx.eval_shape(ns["build"])
        params, dtypes = count(nnx.state(model, nnx.Param))
        stats, _ = count(nnx.state(model, nnx.BatchStat))
        # Every other Variable (BatchStat, Cache, plain Variable) except the RNG streams' keys and counters.
        kept, _ = count(nnx.state(model, nnx.All(nnx.Not(nnx.Param), nnx.Not(nnx.RngState))))
        out[name] = {"params": params, "batch_stats": stats, "state": kept, "param_dtypes": dtypes}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
