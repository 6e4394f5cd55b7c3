# oomlens-test: device=a100-40gb fix=OOM402
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float32)
model.to("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)

model.gradient_checkpointing_enable()
for step in range(1000):
    batch = torch.randint(0, 50257, (32, 1024), device="cuda")
    out = model(input_ids=batch, labels=batch)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
