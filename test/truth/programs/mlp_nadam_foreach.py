"""An MLP trained with torch.optim.NAdam (foreach=True, weight decay): the optimizer step is the peak (large
weights, a small batch), so its temporaries are measured."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 2048)
        self.fc2 = nn.Linear(2048, 1024)
        self.fc3 = nn.Linear(1024, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


model = MLP()
optimizer = torch.optim.NAdam(model.parameters(), weight_decay=1e-4, foreach=True)
x = torch.randn(8, 1024)
y = torch.randint(0, 10, (8,))
for step in range(2):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
