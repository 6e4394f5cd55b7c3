"""Ground truth for oomlens's OmegaConf interpolations: loads each YAML text with OmegaConf, resolves it, and prints the
value at each asked dotted path (null and the error when OmegaConf raises).

stdin: JSON list of {"yaml": text, "paths": ["model.dim", ...]}
stdout: JSON list (one per case) of lists of {"value": ...} or {"error": str}.
"""
import json
import sys

from omegaconf import OmegaConf

out = []
for case in json.load(sys.stdin):
    cfg = OmegaConf.create(case["yaml"])
    vals = []
    for p in case["paths"]:
        try:
            v = OmegaConf.select(cfg, p, throw_on_missing=True)
            vals.append({"value": OmegaConf.to_container(v, resolve=True) if OmegaConf.is_config(v) else v})
        except Exception as e:  # reported to the test
            vals.append({"error": f"{type(e).__name__}: {e}"})
    out.append(vals)
print(json.dumps(out))
