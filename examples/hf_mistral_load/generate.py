"""Load Mistral-7B for generation without saying which dtype."""
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

CKPT = "mistralai/Mistral-7B-v0.1"

tok = AutoTokenizer.from_pretrained(CKPT)
model = AutoModelForCausalLM.from_pretrained(CKPT, device_map="auto")
inputs = tok(["Hello"], return_tensors="pt").to("cuda")
with torch.no_grad():
    out = model.generate(**inputs, max_new_tokens=32)
