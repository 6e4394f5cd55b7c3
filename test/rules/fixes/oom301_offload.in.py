# oomlens-test: device=a100-40gb versions=transformers==4.46.3 fix=OOM301 unsafe
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, device_map="cuda:0")
ids = torch.randint(0, 32000, (4, 2048), device="cuda:0")
out = model.generate(ids, max_new_tokens=2048, num_beams=4)
