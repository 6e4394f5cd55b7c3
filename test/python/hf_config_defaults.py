"""The defaults of transformers' configuration classes, read from the
installed transformers (each class's dataclass fields, configuration_<arch>.py)
for the model_types oomlens has parameter formulas for.

stdin: JSON list of model_types.
stdout: JSON object model_type -> {"class": name, "defaults": {field: default},
"attribute_map": {alias: field}, "version": transformers.__version__}, or
{"error": str} for a model_type without a flat config class.

With `--ts` it prints server/src/frameworks/transformers/config-defaults.ts
instead (how that file is regenerated; the test compares the two).
"""
import dataclasses
import json
import sys
import warnings

warnings.filterwarnings("ignore")
import transformers
from transformers import CONFIG_MAPPING, PreTrainedConfig

BASE = {f.name: f for f in dataclasses.fields(PreTrainedConfig)}


def default_of(f):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def defaults(model_type):
    cls = CONFIG_MAPPING[model_type]
    out = {}
    for f in dataclasses.fields(cls):
        d = default_of(f)
        if d is dataclasses.MISSING:
            continue
        # PreTrainedConfig's own bookkeeping fields, unless the class changes their default (is_encoder_decoder).
        if f.name in BASE and default_of(BASE[f.name]) == d:
            continue
        try:
            json.dumps(d)
        except TypeError:
            raise ValueError(f"{cls.__name__}.{f.name} has a non-JSON default ({type(d).__name__})")
        if isinstance(d, dict) or (f.name.endswith("_config") and d is None):
            # Composite configs (CLIP's text_config / vision_config) build sub-configs in __post_init__.
            raise ValueError(f"{cls.__name__}.{f.name} is a sub-config")
        out[f.name] = d
    return {"class": cls.__name__, "defaults": out, "attribute_map": dict(getattr(cls, "attribute_map", {})), "version": transformers.__version__}


def main():
    ts = "--ts" in sys.argv
    types = json.load(sys.stdin)
    res = {}
    for t in types:
        try:
            res[t] = defaults(t)
        except Exception as ex:  # reported to the caller
            res[t] = {"error": f"{type(ex).__name__}: {ex}"}
    if not ts:
        print(json.dumps(res))
        return
    ok = {t: v for t, v in res.items() if "error" not in v}
    lines = [
        "/**",
        " * Defaults of transformers' configuration classes (GENERATED: do not edit).",
        f" * Source: transformers=={transformers.__version__}, src/transformers/models/<arch>/configuration_<arch>.py,",
        " * each class's dataclass fields (PreTrainedConfig's own bookkeeping fields left out unless the class",
        " * changes their default), and its attribute_map (alias -> field).",
        " * Regenerate: echo '[...model_types...]' | .venv/bin/python test/python/hf_config_defaults.py --ts",
        " * test/catalog/hf-config-classes.test.ts compares this table with the installed transformers.",
        " */",
        "export interface ConfigClassDefaults { modelType: string; defaults: Record<string, unknown>; attributeMap: Record<string, string> }",
        "",
        f"export const CONFIG_DEFAULTS_VERSION = {json.dumps(transformers.__version__)};",
        "",
        "export const CONFIG_CLASSES: Record<string, ConfigClassDefaults> = {",
    ]
    for t, v in ok.items():
        lines.append(f"  {v['class']}: {{ modelType: {json.dumps(t)}, attributeMap: {json.dumps(v['attribute_map'])}, defaults: {json.dumps(v['defaults'])} }},")
    lines.append("};")
    skipped = {t: v["error"] for t, v in res.items() if "error" in v}
    lines.append("")
    lines.append("/** model_types with a parameter formula whose config class is not listed here (why). */")
    lines.append(f"export const CONFIG_CLASSES_SKIPPED: Record<string, string> = {json.dumps(skipped)};")
    print("\n".join(lines))


main()
