"""Ground truth for LoRA on a diffusers model: builds the model from the config on the meta device, freezes it,
calls `add_adapter(LoraConfig(**lora))` as diffusers' training scripts do, and counts the trainable parameters.

stdin: {"class": "UNet2DConditionModel" (default), "config": {...}, "lora": {...LoraConfig keywords...}}
stdout: {"trainable": int, "total": int}
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import diffusers
from peft import LoraConfig

e = json.load(sys.stdin)
with torch.device("meta"):
    model = getattr(diffusers, e.get("class", "UNet2DConditionModel")).from_config(e["config"])
    model.requires_grad_(False)
    model.add_adapter(LoraConfig(**e["lora"]))
print(json.dumps({"trainable": sum(p.numel() for p in model.parameters() if p.requires_grad), "total": sum(p.numel() for p in model.parameters())}))
