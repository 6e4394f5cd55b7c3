"""Ground truth for oomlens's diffusers parameter formulas: builds each model
with diffusers itself from the given config on the meta device (no weights
allocated, nothing downloaded), counts its parameters and lists its nn.Linear
modules (name, in, out, bias), as peft's target_modules would see them.

stdin: JSON list of {"class": "UNet2DConditionModel" | "AutoencoderKL", "config": {...}}
stdout: JSON list of {"params": int, "linears": [[name, in, out, bias], ...]} or {"error": str}, same order.
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import torch
import diffusers


def build(entry):
    with torch.device("meta"):
        if entry["class"] == "StableDiffusionSafetyChecker":
            # A transformers PreTrainedModel built from a CLIPConfig (pipelines/stable_diffusion/safety_checker.py).
            from transformers import CLIPConfig
            from diffusers.pipelines.stable_diffusion.safety_checker import StableDiffusionSafetyChecker
            model = StableDiffusionSafetyChecker(CLIPConfig(**entry["config"]))
        else:
            model = getattr(diffusers, entry["class"]).from_config(entry["config"])
    linears = [[n, m.in_features, m.out_features, m.bias is not None] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]
    return {"params": sum(p.numel() for p in model.parameters()), "linears": linears}


out = []
for e in json.load(sys.stdin):
    try:
        out.append(build(e))
    except Exception as ex:  # reported to the test, which fails on it
        out.append({"error": f"{type(ex).__name__}: {ex}"})
print(json.dumps(out))
