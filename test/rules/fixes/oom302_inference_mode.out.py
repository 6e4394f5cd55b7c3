# oomlens-test: device=a100-40gb versions=transformers==4.46.3 fix=OOM302 unsafe
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
model.eval()
batches = [torch.randint(0, 50257, (8, 1024), device="cuda") for _ in range(4)]
kept = []
with torch.inference_mode():
    for ids in batches:
        out = model(input_ids=ids)
        kept.append(out.logits)
