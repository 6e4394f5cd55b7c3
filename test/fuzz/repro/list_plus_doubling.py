# List + doubling in a loop: 2**40 items if followed (the size cap stops it).
import torch.nn as nn

x = [0]
for _ in range(40):
    x = x + x

model = nn.Linear(1024, 1024)
