"""A small U-Net (3 levels, skip connections by concatenation) trained with
Adam on 8 x 3 x 128 x 128 images, per-pixel 2-class segmentation."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv2(F.relu(self.conv1(x))))


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down1 = DoubleConv(3, 16)
        self.down2 = DoubleConv(16, 32)
        self.bottom = DoubleConv(32, 64)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec2 = DoubleConv(64, 32)
        self.up1 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec1 = DoubleConv(32, 16)
        self.out = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        s1 = self.down1(x)
        s2 = self.down2(F.max_pool2d(s1, 2))
        b = self.bottom(F.max_pool2d(s2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), s2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), s1], dim=1))
        return self.out(d1)


model = UNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.randn(8, 3, 128, 128)
masks = torch.randint(0, 2, (8, 128, 128))
for step in range(2):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), masks)
    loss.backward()
    optimizer.step()
