"""Ground truth for oomlens's config.json parameter formulas: builds each
model with transformers itself from the given config on the meta device (no
weights allocated, nothing downloaded) and counts its parameters (tied
weights once, as nn.Module.parameters() yields them).

stdin: JSON list of {"config": {...config.json...}, "class": "AutoModelForCausalLM" | "AutoModel" | ...,
"kwargs": {...} (optional: from_pretrained's keyword arguments, applied as from_pretrained applies them: the
config.json is written to a folder and read by AutoConfig.from_pretrained(folder, **kwargs))}
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
    if "kwargs" in entry:
        import os
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg, f)
            kwargs = dict(entry["kwargs"])
            if "id2label" in kwargs:
                kwargs["id2label"] = {int(k): v for k, v in kwargs["id2label"].items()}
            config = AutoConfig.from_pretrained(d, **kwargs)
    else:
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
