"""Ground truth for einops patterns: applies each case to a numpy array of the
given shape with the real einops and prints the output shapes.

stdin: {"cases": [{"fn": "rearrange"|"repeat"|"reduce", "shape": [...], "pattern": str,
"reduction": str?, "sizes": {...}, "list": bool?}]}; stdout: [[...shape] | "error: ..."].
"""
import json
import sys

import einops
import numpy as np


def main():
    out = []
    for c in json.load(sys.stdin)["cases"]:
        x = np.zeros(c["shape"], np.float32)
        if c.get("list"):
            x = list(x)
        args = [x, c["pattern"]] + ([c["reduction"]] if c["fn"] == "reduce" else [])
        try:
            out.append(list(getattr(einops, c["fn"])(*args, **c.get("sizes", {})).shape))
        except Exception as e:  # einops rejects the pattern: the analyzer must not give a shape either
            out.append(f"error: {type(e).__name__}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
