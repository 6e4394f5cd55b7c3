"""Greedy generation with a hand-written KV cache (Llama model.py style):
cache tensors preallocated for batch 4 x 256 positions, prompt 32, 64 new tokens."""
import math

import torch
import torch.nn as nn
from torch.nn import functional as F

VOCAB, MAX_SEQ, N_LAYER, N_HEAD, DIM, BATCH = 8192, 256, 4, 4, 256, 4


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = DIM // N_HEAD
        self.wq = nn.Linear(DIM, DIM, bias=False)
        self.wk = nn.Linear(DIM, DIM, bias=False)
        self.wv = nn.Linear(DIM, DIM, bias=False)
        self.wo = nn.Linear(DIM, DIM, bias=False)
        self.cache_k = torch.zeros(BATCH, MAX_SEQ, N_HEAD, self.head_dim)
        self.cache_v = torch.zeros(BATCH, MAX_SEQ, N_HEAD, self.head_dim)

    def forward(self, x, start_pos):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, N_HEAD, self.head_dim)
        k = self.wk(x).view(B, T, N_HEAD, self.head_dim)
        v = self.wv(x).view(B, T, N_HEAD, self.head_dim)
        self.cache_k[:B, start_pos:start_pos + T] = k
        self.cache_v[:B, start_pos:start_pos + T] = v
        keys = self.cache_k[:B, :start_pos + T].transpose(1, 2)
        values = self.cache_v[:B, :start_pos + T].transpose(1, 2)
        q = q.transpose(1, 2)
        scores = q @ keys.transpose(2, 3) / math.sqrt(self.head_dim)
        if T > 1:
            mask = torch.full((T, T), float("-inf")).triu(1)
            scores[:, :, :, start_pos:] = scores[:, :, :, start_pos:] + mask
        out = F.softmax(scores, dim=-1) @ values
        return self.wo(out.transpose(1, 2).reshape(B, T, DIM))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(DIM)
        self.attn = Attention()
        self.norm2 = nn.LayerNorm(DIM)
        self.w1 = nn.Linear(DIM, 4 * DIM, bias=False)
        self.w2 = nn.Linear(4 * DIM, DIM, bias=False)

    def forward(self, x, start_pos):
        x = x + self.attn(self.norm1(x), start_pos)
        return x + self.w2(F.silu(self.w1(self.norm2(x))))


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.norm = nn.LayerNorm(DIM)
        self.output = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, tokens, start_pos):
        h = self.tok(tokens)
        for layer in self.layers:
            h = layer(h, start_pos)
        return self.output(self.norm(h))


model = Transformer()
model.eval()
prompt = torch.randint(0, VOCAB, (BATCH, 32))
tokens = prompt
with torch.inference_mode():
    logits = model(prompt, 0)
    pos = prompt.shape[1]
    for i in range(64):
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        tokens = torch.cat([tokens, next_token], dim=1)
        logits = model(next_token, pos)
        pos += 1
print(tokens.shape)
