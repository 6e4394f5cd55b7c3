"""A mixture-of-experts feed-forward layer (8 experts, top-2 routing) in a
2-layer model, trained with AdamW on 16 x 64 tokens of width 256."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self, dim=256, hidden=1024, num_experts=8, top_k=2):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(num_experts)])
        self.top_k = top_k

    def forward(self, x):
        B, T, D = x.shape
        flat = x.reshape(-1, D)
        weights, idx = torch.topk(F.softmax(self.gate(flat), dim=-1), self.top_k, dim=-1)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            rows, slot = torch.where(idx == e)
            if rows.numel() == 0:
                continue
            out[rows] += weights[rows, slot, None] * expert(flat[rows])
        return out.reshape(B, T, D)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([MoE() for _ in range(2)])
        self.norm = nn.LayerNorm(256)
        self.head = nn.Linear(256, 256)

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(self.norm(x))
        return self.head(x)


model = Model()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(16, 64, 256)
target = torch.randn(16, 64, 256)
for step in range(2):
    loss = F.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
