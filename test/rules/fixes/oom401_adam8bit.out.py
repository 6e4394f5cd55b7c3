# oomlens-test: device=a100-80gb fix=OOM401 unsafe
import torch
import bitsandbytes as bnb
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float32)
model.gradient_checkpointing_enable()
optimizer = bnb.optim.AdamW8bit(model.parameters(), lr=1e-5)

for step in range(1000):
    batch = torch.randint(0, 32000, (1, 512), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(input_ids=batch, labels=batch)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
