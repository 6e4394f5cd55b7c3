"""Ground truth for oomlens's config.json parameter formulas: builds each
model with transformers itself from the given config on the meta device (no
weights allocated, nothing downloaded) and counts its parameters (tied
weights once, as nn.Module.parameters() yields them).

stdin: JSON list of {"config": {...config.json...}, "class": "AutoModelForCausalLM" | "AutoModel" | ...}
stdout: JSON list of {"params": int} or {"error": str}, same order.
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import transformers
from transformers import AutoConfig


def build(entry):
    cfg = dict(entry["config"])
    model_type = cfg.pop("model_type")
    config = AutoConfig.for_model(model_type, **cfg)
    cls = getattr(transformers, entry.get("class", "AutoModelForCausalLM"))
    with torch.device("meta"):
        model = cls.from_config(config) if hasattr(cls, "from_config") else cls._from_config(config)
    return sum(p.numel() for p in model.parameters())


out = []
for e in json.load(sys.stdin):
    try:
        out.append({"params": build(e)})
    except Exception as ex:  # reported to the test, which fails on it
        out.append({"error": f"{type(ex).__name__}: {ex}"})
print(json.dumps(out))
