"""Ground truth for test/catalog/signatures.test.ts.

Reads {"framework": "torch" | "flax" | "haiku" | "equinox" | "nnx", "cases": [...]}
on stdin; each case is {"layer", "args", "kwargs", "input"?, "input_dtype"?,
"state"?, "inputs"?}. Builds every layer with the installed framework without
allocating its parameters (torch: the meta device; flax: jax.eval_shape of
Module.init; haiku: jax.eval_shape of hk.transform(...).init; equinox:
eqx.filter_eval_shape of the constructor; nnx: nnx.eval_shape of the
constructor) and prints one JSON object:
{"version": ..., "results": [{"params": {dtype: elements}, "buffers":
{dtype: elements}, "key": bool} | {"error": "..."}]}.

Values in args/kwargs: numbers, strings, booleans, null; lists become
tuples; {"dtype": "bfloat16"} becomes the framework's dtype object.
"""
import json
import sys


def histogram(arrays):
    out = {}
    for shape, dtype in arrays:
        n = 1
        for d in shape:
            n *= int(d)
        out[dtype] = out.get(dtype, 0) + n
    return out


def decoder(dtype_of):
    def decode(v):
        if isinstance(v, dict) and set(v) == {"dtype"}:
            return dtype_of(v["dtype"])
        if isinstance(v, list):
            return tuple(decode(x) for x in v)
        return v
    return decode


def torch_case(case):
    import torch

    decode = decoder(lambda name: getattr(torch, name))
    cls = getattr(torch.nn, case["layer"])
    args = [decode(a) for a in case["args"]]
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    try:
        m = cls(*args, device="meta", **kwargs)
    except TypeError as e:
        if "device" not in str(e):
            raise
        m = cls(*args, **kwargs)
    named = lambda it: [(tuple(t.shape), str(t.dtype).replace("torch.", "")) for _, t in it]
    return {"params": histogram(named(m.named_parameters())), "buffers": histogram(named(m.named_buffers()))}


def leaves(tree):
    import jax

    return [(tuple(l.shape), str(l.dtype)) for l in jax.tree_util.tree_leaves(tree) if hasattr(l, "shape") and hasattr(l, "dtype")]


def jax_input(case):
    import jax.numpy as jnp

    return jnp.ones(tuple(case["input"]), getattr(jnp, case.get("input_dtype") or "float32"))


def flax_case(case):
    import jax
    import jax.numpy as jnp
    import flax.linen as nn

    decode = decoder(lambda name: getattr(jnp, name))
    module = getattr(nn, case["layer"])(*[decode(a) for a in case["args"]], **{k: decode(v) for k, v in case["kwargs"].items()})
    x = jax_input(case)
    variables = jax.eval_shape(lambda: module.init(jax.random.PRNGKey(0), x))
    return {
        "params": histogram(leaves(variables.get("params", {}))),
        "buffers": histogram(leaves({k: v for k, v in variables.items() if k != "params"})),
    }


def haiku_case(case):
    import jax
    import jax.numpy as jnp
    import haiku as hk

    decode = decoder(lambda name: getattr(jnp, name))
    args = [decode(a) for a in case["args"]]
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    cls = getattr(hk, case["layer"])
    if case.get("state"):
        f = hk.transform_with_state(lambda x: cls(*args, **kwargs)(x, is_training=True))
        params, state = jax.eval_shape(lambda: f.init(jax.random.PRNGKey(0), jax_input(case)))
    else:
        f = hk.transform(lambda x: cls(*args, **kwargs)(*[x] * case.get("inputs", 1)))
        params, state = jax.eval_shape(lambda: f.init(jax.random.PRNGKey(0), jax_input(case))), {}
    return {"params": histogram(leaves(params)), "buffers": histogram(leaves(state))}


def equinox_case(case):
    import inspect

    import jax
    import jax.numpy as jnp
    import equinox as eqx

    decode = decoder(lambda name: getattr(jnp, name))
    cls = getattr(eqx.nn, case["layer"])
    args = [decode(a) for a in case["args"]]
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    takes_key = "key" in inspect.signature(cls.__init__).parameters
    if takes_key:
        kwargs["key"] = jax.random.PRNGKey(0)
    m = eqx.filter_eval_shape(cls, *args, **kwargs)
    return {"params": histogram(leaves(m)), "buffers": {}, "key": takes_key}


def nnx_case(case):
    import inspect

    import jax.numpy as jnp
    from flax import nnx

    decode = decoder(lambda name: getattr(jnp, name))
    cls = getattr(nnx, case["layer"])
    args = [decode(a) for a in case["args"]]
    kwargs = {k: decode(v) for k, v in case["kwargs"].items()}
    takes_rngs = "rngs" in inspect.signature(cls.__init__).parameters
    if takes_rngs:
        m = nnx.eval_shape(lambda: cls(*args, **kwargs, rngs=nnx.Rngs(0)))
    else:
        m = nnx.eval_shape(lambda: cls(*args, **kwargs))
    # Parameters are the nnx.Param variables; the rest of the state less the RNG streams (a key and a
    # counter per stream) are buffers (BatchNorm's nnx.BatchStat mean / var).
    params = nnx.state(m, nnx.Param)
    rest = nnx.state(m, nnx.Not(nnx.Any(nnx.Param, nnx.RngState)))
    return {"params": histogram(leaves(params)), "buffers": histogram(leaves(rest)), "key": takes_rngs}


CASES = {"torch": torch_case, "flax": flax_case, "haiku": haiku_case, "equinox": equinox_case, "nnx": nnx_case}
MODULES = {"torch": "torch", "flax": "flax", "haiku": "haiku", "equinox": "equinox", "nnx": "flax"}


def main():
    req = json.load(sys.stdin)
    fw = req["framework"]
    run = CASES[fw]
    out = []
    for case in req["cases"]:
        try:
            out.append(run(case))
        except Exception as e:  # reported per case so one bad call does not hide the rest
            out.append({"error": f"{type(e).__name__}: {e}"})
    version = __import__(MODULES[fw]).__version__
    json.dump({"version": version, "results": out}, sys.stdout)


if __name__ == "__main__":
    main()
