"""Whether each family's causal-LM class takes `logits_to_keep` in forward()
(what generation/utils.py `_supports_logits_to_keep` checks before asking for
the last position's logits only), in the installed transformers.

stdin: JSON list of model_types.  stdout: JSON object model_type -> bool | "error: ...".
"""
import inspect
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
import transformers

out = {}
for t in json.load(sys.stdin):
    try:
        cls = getattr(transformers, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[t])
        out[t] = "logits_to_keep" in inspect.signature(cls.forward).parameters
    except Exception as ex:  # reported to the test
        out[t] = f"error: {type(ex).__name__}: {ex}"
print(json.dumps(out))
