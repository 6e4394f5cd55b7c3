"""A small Mixtral-style sparse mixture-of-experts decoder: a gate without
bias, a ModuleList of SwiGLU experts, grouped-query attention and a config
passed as keyword arguments."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoE(nn.Module):
    def __init__(self, dim, hidden_dim, num_experts=8, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden_dim) for _ in range(num_experts)])

    def forward(self, x):
        weights, selected = torch.topk(self.gate(x), self.top_k, dim=-1)
        weights = F.softmax(weights, dim=-1)
        out = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            mask = (selected == i).any(-1)
            out[mask] += expert(x[mask])
        return out


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * head_dim, bias=False)
        self.wo = nn.Linear(n_heads * head_dim, dim, bias=False)

    def forward(self, x):
        return self.wo(self.wq(x))


class MoEBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden_dim, num_experts, top_k, norm_eps=1e-5):
        super().__init__()
        self.attention_norm = nn.LayerNorm(dim, eps=norm_eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = nn.LayerNorm(dim, eps=norm_eps)
        self.moe = SparseMoE(dim, hidden_dim, num_experts, top_k)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.moe(self.ffn_norm(h))


class MoETransformer(nn.Module):
    def __init__(self, vocab_size, n_layers, **block_kwargs):
        super().__init__()
        dim = block_kwargs["dim"]
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([MoEBlock(**block_kwargs) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        h = self.embed(tokens)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.norm(h))


CONFIG = dict(dim=1024, n_heads=16, n_kv_heads=4, hidden_dim=2816, num_experts=8, top_k=2)

if __name__ == "__main__":
    model = MoETransformer(vocab_size=32000, n_layers=8, **CONFIG)
    print(sum(p.numel() for p in model.parameters()))
