"""A transformer encoder built from nn.MultiheadAttention (4 layers, d=256),
trained with Adam on a regression target, batch 16 x 128."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, dim=256, heads=8):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(4)])
        self.head = nn.Linear(256, 1)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


model = Encoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
x = torch.randn(16, 128, 256)
target = torch.randn(16, 128, 1)
for step in range(2):
    loss = F.mse_loss(model(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
