"""Ground truth for PEFT LoRA and bitsandbytes loading (test/analysis/peft.test.ts).

stdin: JSON list of {"config": {...}, "lora": {LoraConfig kwargs} | null, "quant": {BitsAndBytesConfig kwargs} | null,
                     "dtype": "bfloat16", "kbit": bool, "class": "AutoModelForCausalLM" (default) | "AutoModelForSequenceClassification"}
stdout: JSON list of {"trainable": int (peft get_nb_trainable_parameters), "adapter_dtypes": [...],
                      "error": str (get_peft_model raised ValueError: peft refuses the LoraConfig),
                      "weight_bytes": int (every parameter plus every bitsandbytes quantisation-state tensor, each storage once)}
The model is built from the config with transformers on the CPU, saved, and loaded back with from_pretrained
(with the BitsAndBytesConfig when given: bitsandbytes quantises on the CPU).
"""
import json
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig


def state_tensors(qs):
    out = [qs.absmax, qs.code]
    if getattr(qs, "offset", None) is not None:
        out.append(qs.offset)
    if getattr(qs, "state2", None) is not None:
        out += [qs.state2.absmax]  # state2.code is the shared dynamic map (one per process)
    return out


res = []
for case in json.load(sys.stdin):
    cfg = dict(case["config"])
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    torch.manual_seed(0)
    d = tempfile.mkdtemp()
    cls = getattr(transformers, case.get("class") or "AutoModelForCausalLM")
    cls.from_config(config).save_pretrained(d)
    kw = {"dtype": getattr(torch, case.get("dtype") or "float32")}
    if case.get("quant"):
        q = dict(case["quant"])
        if "bnb_4bit_compute_dtype" in q:
            q["bnb_4bit_compute_dtype"] = getattr(torch, q["bnb_4bit_compute_dtype"])
        kw["quantization_config"] = BitsAndBytesConfig(**q)
        kw["device_map"] = "cpu"
    model = cls.from_pretrained(d, **kw)
    if case.get("kbit"):
        from peft import prepare_model_for_kbit_training
        model = prepare_model_for_kbit_training(model)
    seen, wbytes = set(), 0
    for _, p in model.named_parameters():
        ts = [p] + (state_tensors(p.quant_state) if getattr(p, "quant_state", None) is not None else [])
        if getattr(p, "SCB", None) is not None:
            ts.append(p.SCB)
        for t in ts:
            if t.data_ptr() not in seen:
                seen.add(t.data_ptr())
                wbytes += t.numel() * t.element_size()
    out = {"weight_bytes": wbytes, "params": sum(p.numel() for p in model.parameters())}
    if case.get("lora"):
        from peft import LoraConfig, get_peft_model
        try:
            pm = get_peft_model(model, LoraConfig(**case["lora"]))
        except ValueError as e:  # peft refuses the config
            out["error"] = str(e)
            res.append(out)
            continue
        trainable, _ = pm.get_nb_trainable_parameters()
        out["trainable"] = trainable
        out["adapter_dtypes"] = sorted({str(p.dtype).replace("torch.", "") for n, p in pm.named_parameters() if p.requires_grad})
    res.append(out)
print(json.dumps(res))
