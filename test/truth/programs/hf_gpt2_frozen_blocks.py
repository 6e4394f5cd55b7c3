"""A transformers GPT-2 (small in-code config, no download) with its first two
blocks frozen through the module tree (`model.transformer.h[:2]`), trained one
AdamW step per batch on 4 x 128 tokens with labels (the model's loss): the
frozen blocks get no gradient and no optimizer state; their activations are
still saved, since the gradient flows through them to the embeddings."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=8192, n_positions=128, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
model.train()
for p in model.transformer.h[:2].parameters():
    p.requires_grad = False
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-5)
input_ids = torch.randint(0, 8192, (4, 128))
for step in range(2):
    loss = model(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
