# oomlens-test: device=2xv100-32gb versions=transformers==4.36.2 fix=OOM201 unsafe
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", device_map="auto", torch_dtype=torch.float16)
