"""A T5 encoder block following the module layout of Hugging Face's
modeling_t5.py: RMS-style T5LayerNorm without bias, attention without biases,
a relative position bias table only in the first layer, and a ModuleList
named `layer` holding the self-attention and feed-forward sublayers."""
import torch
from torch import nn

T5_BASE = dict(d_model=768, d_kv=64, d_ff=3072, num_heads=12, relative_attention_num_buckets=32,
               dropout_rate=0.1, layer_norm_epsilon=1e-6)


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, h):
        var = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (h * torch.rsqrt(var + self.variance_epsilon))


class T5DenseActDense(nn.Module):
    def __init__(self, d_model, d_ff, dropout_rate, **unused):
        super().__init__()
        self.wi = nn.Linear(d_model, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d_model, bias=False)
        self.dropout = nn.Dropout(dropout_rate)
        self.act = nn.ReLU()

    def forward(self, h):
        return self.wo(self.dropout(self.act(self.wi(h))))


class T5Attention(nn.Module):
    def __init__(self, d_model, d_kv, num_heads, relative_attention_num_buckets, has_relative_attention_bias=False, **unused):
        super().__init__()
        self.n_heads = num_heads
        self.inner_dim = num_heads * d_kv
        self.has_relative_attention_bias = has_relative_attention_bias
        self.q = nn.Linear(d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(relative_attention_num_buckets, self.n_heads)

    def forward(self, h):
        return self.o(self.v(h))


class T5LayerSelfAttention(nn.Module):
    def __init__(self, cfg, has_relative_attention_bias=False):
        super().__init__()
        self.SelfAttention = T5Attention(has_relative_attention_bias=has_relative_attention_bias, **cfg)
        self.layer_norm = T5LayerNorm(cfg["d_model"], eps=cfg["layer_norm_epsilon"])
        self.dropout = nn.Dropout(cfg["dropout_rate"])

    def forward(self, h):
        return h + self.dropout(self.SelfAttention(self.layer_norm(h)))


class T5LayerFF(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.DenseReluDense = T5DenseActDense(**cfg)
        self.layer_norm = T5LayerNorm(cfg["d_model"], eps=cfg["layer_norm_epsilon"])
        self.dropout = nn.Dropout(cfg["dropout_rate"])

    def forward(self, h):
        return h + self.dropout(self.DenseReluDense(self.layer_norm(h)))


class T5Block(nn.Module):
    def __init__(self, cfg, has_relative_attention_bias=False):
        super().__init__()
        self.layer = nn.ModuleList()
        self.layer.append(T5LayerSelfAttention(cfg, has_relative_attention_bias=has_relative_attention_bias))
        self.layer.append(T5LayerFF(cfg))

    def forward(self, h):
        for sub in self.layer:
            h = sub(h)
        return h


if __name__ == "__main__":
    block = T5Block(T5_BASE, has_relative_attention_bias=True)
    print(block(torch.randn(2, 16, 768)).shape)
