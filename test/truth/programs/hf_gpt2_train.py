"""A transformers GPT-2 (from a small in-code config, no download) trained
one AdamW step per batch on 4 x 128 tokens with labels (the model's loss)."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
input_ids = torch.randint(0, 8192, (4, 128))
for step in range(2):
    outputs = model(input_ids=input_ids, labels=input_ids)
    outputs.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
