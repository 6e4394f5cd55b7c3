"""A CNN segmentation step the way many PyTorch training scripts write it: RMSprop with momentum and weight
decay, foreach=True, and a GradScaler (disabled, as without --amp) around the loss on 4 x 3 x 96 x 96 images."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 64, 3, padding=1)
        self.head = nn.Conv2d(64, n_classes, 1)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        return self.head(x)


model = SegNet()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-5, weight_decay=1e-8, momentum=0.999, foreach=True)
grad_scaler = torch.amp.GradScaler("cuda", enabled=False)
criterion = nn.CrossEntropyLoss()
images = torch.randn(4, 3, 96, 96)
masks = torch.randint(0, 2, (4, 96, 96))
model.train()
for step in range(2):
    masks_pred = model(images)
    loss = criterion(masks_pred, masks)
    optimizer.zero_grad(set_to_none=True)
    grad_scaler.scale(loss).backward()
    grad_scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    grad_scaler.step(optimizer)
    grad_scaler.update()
