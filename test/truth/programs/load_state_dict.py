"""A checkpoint saved with torch.save and loaded back with
torch.load(map_location="cpu") into a freshly built model (MLP, 4 x 1024 x 4096)."""
import os
import tempfile

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim=1024, hidden=4096, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim)) for _ in range(depth)]
        )

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x


path = os.path.join(tempfile.mkdtemp(), "mlp.pt")
torch.save(MLP().state_dict(), path)

model = MLP()
state_dict = torch.load(path, map_location="cpu")
model.load_state_dict(state_dict)
model.eval()
with torch.no_grad():
    out = model(torch.randn(16, 1024))
print(out.shape)
