"""Generate 3,585 tokens after a 512-token prompt with Llama-2-7B in float16.

The prompt is padded and truncated to exactly 512 tokens, so the KV cache
ends at 512 + 3,585 - 1 = 4,096 positions: 2 GiB in float16 on top of the
13.5 GB of weights. On a 16 GB V100 this fits with under 1 GB to spare; a
second prompt in the batch would double the cache and not fit.
"""
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

CKPT = "meta-llama/Llama-2-7b-hf"

tokenizer = AutoTokenizer.from_pretrained(CKPT)
model = AutoModelForCausalLM.from_pretrained(CKPT, torch_dtype=torch.float16, device_map="cuda:0")

prompt = ["Summarise the following report. " * 100]
inputs = tokenizer(prompt, return_tensors="pt", padding="max_length", max_length=512, truncation=True).to("cuda:0")
with torch.inference_mode():
    out = model.generate(**inputs, max_new_tokens=3585, do_sample=False)
print(tokenizer.batch_decode(out, skip_special_tokens=True)[0])
