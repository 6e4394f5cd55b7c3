"""Ground truth for the real-repository measurement (test/realcode/manifest.json).

For every manifest file whose truth is a model, run the entry's `build`
snippet with the real framework and count what it builds:

- torch / transformers: the snippet runs inside `with torch.device("meta")`
  and assigns `model`; the truth is sum(numel) over parameters() and buffers().
- flax / haiku / equinox: the snippet assigns `tree`, a pytree of abstract
  arrays (from jax.eval_shape, nnx.eval_shape or eqx.filter_eval_shape);
  the truth is the total size of its array leaves.

Each snippet runs in its own Python process with the repository checkout as
working directory and first entry of sys.path (plus the entry's `sysPath`
folders), so modules of different repositories never mix. Nothing here is
run by oomlens; this is only how the expected numbers are obtained.

Usage:
  python test/realcode/truth.py [--checkouts DIR] [--only OWNER/NAME] [--update]

--checkouts defaults to .cache/realcode (filled by `npm run realcode -- --checkout-only`).
--update writes the counts back into the manifest; without it the counts
are compared with the manifest and differences are reported (exit 1).
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.json")


def checkout_dir(checkouts, repo):
    return os.path.join(checkouts, repo.replace("/", "+"))


def count_torch(model):
    params = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for b in model.buffers())
    return {"params": int(params), "buffers": int(buffers)}


def count_tree(tree):
    import jax

    total = 0
    for leaf in jax.tree_util.tree_leaves(tree):
        shape = getattr(leaf, "shape", None)
        if shape is not None and hasattr(leaf, "dtype"):
            total += math.prod(shape)
    return {"params": int(total)}


def defs_from(path, *names, env=None):
    """The named top-level classes/functions of a script, without running it.

    For scripts that train or parse arguments at import time: executes only
    the file's imports (those that fail are skipped), then the named
    definitions, in a fresh namespace pre-filled with `env`.
    """
    import ast

    with open(path) as f:
        tree = ast.parse(f.read(), path)
    ns = {"__name__": "realcode_defs"}
    ns.update(env or {})
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            try:
                exec(compile(ast.Module([node], []), path, "exec"), ns)
            except Exception:
                pass
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names:
            exec(compile(ast.Module([node], []), path, "exec"), ns)
    return ns


def stub_modules(*names):
    """Empty stand-ins for heavy imports a model file does not need (tensorflow, datasets)."""
    import types

    class _Any(types.ModuleType):
        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return _Any(f"{self.__name__}.{attr}")

        def __call__(self, *a, **k):
            return _Any(self.__name__ + "()")

    for name in names:
        sys.modules[name] = _Any(name)


def lightning_standin(*roots):
    """Lightning is not in .venv: `pytorch_lightning` (and the other `roots`, e.g. torchvision) become
    permissive stand-ins whose LightningModule is a torch.nn.Module whose save_hyperparameters() stores
    the caller's __init__ arguments in self.hparams (pytorch_lightning/core/mixins/hparams_mixin.py);
    other names are inert. Every layer counted is a real torch layer."""
    import importlib.abc
    import importlib.machinery
    import inspect
    import types

    import torch

    class AttributeDict(dict):
        __getattr__ = dict.__getitem__

    class LightningModule(torch.nn.Module):
        def save_hyperparameters(self, *a, **k):
            f = inspect.getargvalues(inspect.currentframe().f_back)
            hp = AttributeDict({n: f.locals[n] for n in f.args[1:]})
            if f.keywords:
                hp.update(f.locals[f.keywords])
            self.hparams = hp

    class _Lib(types.ModuleType):
        __path__ = []

        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            if attr == "LightningModule":
                return LightningModule
            if attr[0].isupper():
                # a class; its instances called as decorators hand the function back
                return type(attr, (_InertClass,), {})
            return _Inert()

    class _InertMeta(type):
        def __getattr__(cls, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return _Inert()

        def __or__(cls, other):
            return cls

        __ror__ = __or__

    class _InertClass(metaclass=_InertMeta):
        def __init__(self, *a, **k):
            pass

        def __call__(self, *a, **k):
            return a[0] if a and callable(a[0]) else _Inert()

    class _Inert:
        """Any other name: attributes, calls and settings are inert; a call on a function hands it back (a decorator)."""

        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return _Inert()

        def __call__(self, *a, **k):
            return a[0] if a and callable(a[0]) else _Inert()

        def __iter__(self):
            return iter(())

        def __getitem__(self, key):
            return _Inert()

        def __bool__(self):
            # `if _WANDB_AVAILABLE:` (module_available stood in): the optional package is absent
            return False

        def __or__(self, other):
            # type annotations such as `tf.Tensor | None`
            return self

        __ror__ = __or__

        def __mro_entries__(self, bases):
            # used as a base class (class D(torchvision.datasets.ImageFolder))
            return (_InertClass,)

    names = ("pytorch_lightning", "lightning", "lightning_utilities", "torchmetrics") + roots

    class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            return importlib.machinery.ModuleSpec(name, self, is_package=True) if name.split(".")[0] in names else None

        def create_module(self, spec):
            return _Lib(spec.name)

        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, _Finder())


def run_one(spec):
    """Child process: build one model and print its counts as JSON."""
    root = spec["root"]
    os.chdir(root)
    for extra in reversed(spec.get("sysPath", [])):
        sys.path.insert(0, os.path.join(root, extra))
    sys.path.insert(0, root)
    sys.argv = [spec.get("argv0", "truth")]
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    code = "\n".join(spec["build"])
    ns = {"__name__": "realcode_truth", "defs_from": defs_from, "stub_modules": stub_modules, "lightning_standin": lightning_standin}
    if spec["framework"] in ("torch", "transformers"):
        import torch

        with torch.device("meta"):
            exec(compile(code, "<build>", "exec"), ns)
        result = count_torch(ns["model"])
    else:
        exec(compile(code, "<build>", "exec"), ns)
        result = count_tree(ns["tree"])
        if "buffers_tree" in ns:
            result["buffers"] = count_tree(ns["buffers_tree"])["params"]
    print("REALCODE_TRUTH " + json.dumps(result))


def build_in_child(spec):
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--one", json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("REALCODE_TRUTH "):
            return json.loads(line[len("REALCODE_TRUTH "):]), None
    err = (proc.stderr or proc.stdout).strip().splitlines()
    return None, (err[-1] if err else f"exit status {proc.returncode}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkouts", default=os.path.join(".cache", "realcode"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        run_one(json.loads(args.one))
        return 0

    with open(MANIFEST) as f:
        manifest = json.load(f)
    checkouts = os.path.abspath(args.checkouts)
    cache = {}
    mismatches = 0
    for entry in manifest["files"]:
        if args.only and entry["repo"] != args.only:
            continue
        truth = entry["truth"]
        if truth["kind"] != "model":
            continue
        for model in truth["models"]:
            spec = {
                "root": checkout_dir(checkouts, entry["repo"]),
                "framework": entry["framework"],
                "build": model["build"],
                "sysPath": model.get("sysPath", []),
            }
            key = json.dumps(spec, sort_keys=True)
            if key not in cache:
                cache[key] = build_in_child(spec)
            counts, error = cache[key]
            label = f"{entry['repo']} {entry['path']} {model['class']}"
            if error:
                print(f"! {label}: {error}")
                mismatches += 1
                continue
            print(f"{label}: {counts}")
            for k, v in counts.items():
                if model.get(k) != v:
                    if not args.update:
                        print(f"  differs from manifest: {k} {model.get(k)} != {v}")
                        mismatches += 1
                    model[k] = v
    if args.update:
        with open(MANIFEST, "w") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
        print(f"manifest updated: {MANIFEST}")
    return 1 if mismatches and not args.update else 0


if __name__ == "__main__":
    sys.exit(main())
