# oomlens-test: device=a100-40gb fix=OOM301 unsafe
# A hand-written cache (Meta's Llama model.py style) preallocated for 32 sequences while 4 prompts run:
# 16 layers × 2 tensors × 32 × 2048 × 32 × 128 × 2 B = 17,179,869,184 B, of which 28/32 = 15,032,385,536 B
# are rows no forward uses: more than the 2,147,483,648 B of weights (16 × 4 × 4096² × 2 B).
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, n_heads, max_batch_size, max_seq_len):
        super().__init__()
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False, dtype=torch.float16)
        self.wk = nn.Linear(dim, dim, bias=False, dtype=torch.float16)
        self.wv = nn.Linear(dim, dim, bias=False, dtype=torch.float16)
        self.wo = nn.Linear(dim, dim, bias=False, dtype=torch.float16)
        self.cache_k = torch.zeros((max_batch_size, max_seq_len, n_heads, self.head_dim), dtype=torch.float16).cuda()
        self.cache_v = torch.zeros((max_batch_size, max_seq_len, n_heads, self.head_dim), dtype=torch.float16).cuda()


class Transformer(nn.Module):
    def __init__(self, max_batch_size, max_seq_len):
        super().__init__()
        self.layers = nn.ModuleList([Attention(4096, 32, max_batch_size, max_seq_len) for _ in range(16)])

    def forward(self, tokens, start_pos):
        return tokens


model = Transformer(max_batch_size=4, max_seq_len=2048).cuda()
prompts = ["a", "b", "c", "d"]
tokens = torch.zeros((len(prompts), 64), dtype=torch.long, device="cuda")
with torch.inference_mode():
    out = model.forward(tokens, 0)
