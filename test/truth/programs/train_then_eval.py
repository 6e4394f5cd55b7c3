"""An MLP classifier trained with Adam, then evaluated under torch.no_grad() after each epoch (zero_grad first in the step)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 2048)
        self.fc2 = nn.Linear(2048, 2048)
        self.fc3 = nn.Linear(2048, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def train(model, optimizer, data, target):
    model.train()
    for step in range(2):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()


def test(model, data, target):
    model.eval()
    correct = 0
    with torch.no_grad():
        output = model(data)
        correct += output.argmax(dim=1).eq(target).sum().item()
    return correct


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(512, 1, 28, 28)
target = torch.randint(0, 10, (512,))
for epoch in range(2):
    train(model, optimizer, data, target)
    test(model, data, target)
