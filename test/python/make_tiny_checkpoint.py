"""Writes a real, tiny transformers checkpoint for the oomlens tests: the model
built from the given config with transformers, saved with save_pretrained
(config.json + safetensors; sharded with an index when max_shard_size is
given), and its parameter count as transformers reports it.

stdin: JSON {"out": dir, "config": {...}, "class": "AutoModelForCausalLM", "max_shard_size": "200KB" | null, "dtype": "bfloat16" | null}
stdout: JSON {"params": int, "bytes": int}
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import transformers
from transformers import AutoConfig

req = json.load(sys.stdin)
cfg = dict(req["config"])
config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
torch.manual_seed(0)
model = getattr(transformers, req.get("class") or "AutoModelForCausalLM").from_config(config)
if req.get("dtype"):
    model = model.to(getattr(torch, req["dtype"]))
kw = {"max_shard_size": req["max_shard_size"]} if req.get("max_shard_size") else {}
model.save_pretrained(req["out"], safe_serialization=True, **kw)
params = sum(p.numel() for p in model.parameters())
nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
print(json.dumps({"params": params, "bytes": nbytes}))
