"""transformers generate(): greedy decoding of 64 new tokens from a 32-token
prompt, batch 4, with a small in-code GPT-2 config (no download)."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=8192, n_positions=256, n_embd=256, n_layer=4, n_head=4)
model = GPT2LMHeadModel(config)
model.eval()
input_ids = torch.randint(0, 8192, (4, 32))
out = model.generate(input_ids, max_new_tokens=64, do_sample=False, pad_token_id=0)
print(out.shape)
