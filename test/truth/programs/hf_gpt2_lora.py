"""The transformers GPT-2 of hf_gpt2_train.py with peft LoRA adapters (r=8 on
c_attn): only the adapters train, AdamW over the trainable parameters."""
import torch
from peft import LoraConfig, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
lora = LoraConfig(r=8, lora_alpha=16, target_modules=["c_attn"], lora_dropout=0.0, fan_in_fan_out=True)
model = get_peft_model(model, lora)
model.train()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
input_ids = torch.randint(0, 8192, (4, 128))
for step in range(2):
    outputs = model(input_ids=input_ids, labels=input_ids)
    outputs.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
