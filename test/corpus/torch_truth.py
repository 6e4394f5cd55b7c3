"""Ground truth for the PyTorch corpus: imports each corpus file as a module
(its __main__ block does not run), evaluates the manifest's `setup` and
`construct` on the meta device, and prints one JSON object with parameter
and buffer element counts per entry. parameters() de-duplicates tied
weights, so a tied embedding is counted once, as oomlens must count it.

Usage: python3 test/corpus/torch_truth.py [manifest.json]
"""
import importlib.util
import json
import os
import sys
import traceback

sys.dont_write_bytecode = True  # keep the corpus directory free of __pycache__

import torch
from torch.overrides import TorchFunctionMode

HERE = os.path.dirname(os.path.abspath(__file__))

# Factory functions that accept a `device` keyword; torch>=2.0's
# `with torch.device('meta')` injects the device into exactly these calls.
# Debian's torch 1.13 has no device context manager, so this mode does the
# same thing through the __torch_function__ hook it is built on.
_FACTORIES = {
    torch.empty, torch.zeros, torch.ones, torch.full, torch.rand, torch.randn, torch.randint,
    torch.arange, torch.range, torch.linspace, torch.logspace, torch.eye, torch.tensor,
    torch.empty_strided, torch.zeros_like, torch.ones_like, torch.empty_like, torch.full_like,
    torch.rand_like, torch.randn_like, torch.as_tensor, torch.tril_indices, torch.triu_indices,
}


class MetaDevice(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in _FACTORIES and kwargs.get("device") is None:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


def meta_device():
    if hasattr(torch, "get_default_device") or getattr(torch.device, "__enter__", None) is not None:
        return torch.device("meta")
    return MetaDevice()


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    manifest_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "manifest.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    out = {"torch": torch.__version__, "python": sys.version.split()[0], "entries": {}}
    modules = {}
    for i, entry in enumerate(manifest["models"]):
        if entry["framework"] != "torch":
            continue
        key = entry["file"] + "::" + entry["name"] + "::" + str(entry.get("index", 0))
        try:
            path = os.path.join(HERE, entry["file"])
            if path not in modules:
                modules[path] = load_module(path, "corpus_%d" % len(modules))
            ns = dict(vars(modules[path]))
            with meta_device():
                if entry.get("setup"):
                    exec(entry["setup"], ns)
                model = eval(entry["construct"], ns)
            params = sum(p.numel() for p in model.parameters())
            buffers = sum(b.numel() for b in model.buffers())
            devices = sorted({str(p.device) for p in model.parameters()})
            out["entries"][key] = {
                "params": params,
                "buffers": buffers,
                "class": type(model).__name__,
                "devices": devices,
            }
        except Exception as exc:  # report per entry, keep going
            out["entries"][key] = {"error": "%s: %s" % (type(exc).__name__, exc), "trace": traceback.format_exc(limit=3)}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
