"""Ground truth for oomlens's device_map placement (shared/src/accelerate.ts):
builds each model from a config on the meta device (nothing allocated,
nothing downloaded) and asks the real libraries where each module goes.

- "via": "transformers": what `from_pretrained(device_map=..., max_memory=...)`
  computes (transformers.integrations.accelerate._get_device_map, the model
  built in `dtype`);
- "via": "accelerate": what `load_checkpoint_and_dispatch(model, ...,
  device_map=..., max_memory=..., no_split_module_classes=model._no_split_modules,
  dtype=...)` computes on a model made under `init_empty_weights()`
  (accelerate.utils.get_balanced_memory + infer_auto_device_map, as
  accelerate/big_modeling.py does).

stdin: JSON list of {"source": "<python program binding dm>"} or {"config": {...}, "class": "AutoModelForCausalLM", "dtype": "float16",
  "device_map": "auto" | "balanced_low_0" | "sequential", "max_memory": {"0": "6GiB", "cpu": ...}, "via": ...}
  (max_memory keys that are digits are GPU indices).
stdout: JSON list of {"device_map": {module: device}} or {"error": str}, same order.
"""
import json
import logging
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import torch
import transformers
from transformers import AutoConfig


def max_memory_of(d):
    return {int(k) if k.isdigit() else k: v for k, v in d.items()}


def run(e):
    if "source" in e:
        # A test's own fixture program (torch modules under init_empty_weights, then infer_auto_device_map):
        # run it and return the map it bound to `dm`.
        scope = {}
        exec(compile(e["source"], "<fixture>", "exec"), scope)
        return scope["dm"]
    cfg = dict(e["config"])
    model_type = cfg.pop("model_type")
    config = AutoConfig.for_model(model_type, **cfg)
    cls = getattr(transformers, e.get("class", "AutoModelForCausalLM"))
    dtype = getattr(torch, e.get("dtype", "float32"))
    mode = e.get("device_map", "auto")
    if e.get("via", "transformers") == "transformers":
        from transformers.integrations.accelerate import _get_device_map
        with torch.device("meta"):
            model = cls.from_config(config, dtype=dtype) if hasattr(cls, "from_config") else cls._from_config(config, dtype=dtype)
        dm = _get_device_map(model, mode, max_memory_of(e["max_memory"]), None)
    else:
        from accelerate import init_empty_weights
        from accelerate.utils import get_balanced_memory, infer_auto_device_map
        with init_empty_weights():
            model = cls.from_config(config) if hasattr(cls, "from_config") else cls._from_config(config)
        model.tie_weights()
        no_split = list(model._no_split_modules or [])
        mm = max_memory_of(e["max_memory"])
        if mode != "sequential":
            mm = get_balanced_memory(model, max_memory=mm, no_split_module_classes=no_split, dtype=dtype, low_zero=(mode == "balanced_low_0"))
        dm = infer_auto_device_map(model, max_memory=mm, no_split_module_classes=no_split, dtype=dtype)
    return {k: v for k, v in dm.items()}


out = []
for e in json.load(sys.stdin):
    try:
        out.append({"device_map": run(e)})
    except Exception as ex:  # reported to the test, which fails on it
        out.append({"error": f"{type(ex).__name__}: {ex}"})
print(json.dumps(out))
