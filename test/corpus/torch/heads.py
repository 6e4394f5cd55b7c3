"""A multi-task image model with mixins, **kwargs forwarding and an
nn.ModuleDict of task heads whose membership depends on constructor flags."""
import torch
import torch.nn as nn


class InitMixin:
    def init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)


class FreezeMixin:
    def freeze_backbone(self):
        for p in self.backbone.parameters():
            p.requires_grad_(False)


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Backbone(nn.Module):
    def __init__(self, widths=(32, 64, 128, 256), in_ch=3):
        super().__init__()
        stages = []
        for i, w in enumerate(widths):
            stages.append(conv_bn(in_ch, w, stride=1 if i == 0 else 2))
            in_ch = w
        self.stages = nn.Sequential(*stages)
        self.out_dim = in_ch

    def forward(self, x):
        return self.stages(x).mean((2, 3))


class MultiTaskNet(InitMixin, FreezeMixin, nn.Module):
    def __init__(self, num_classes=100, with_boxes=True, with_depth=False, **backbone_kwargs):
        super().__init__()
        self.backbone = Backbone(**backbone_kwargs)
        d = self.backbone.out_dim
        heads = {"cls": nn.Linear(d, num_classes)}
        if with_boxes:
            heads["box"] = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))
        if with_depth:
            heads["depth"] = nn.Linear(d, 1)
        self.heads = nn.ModuleDict(heads)
        self.init_weights()

    def forward(self, x):
        f = self.backbone(x)
        return {k: h(f) for k, h in self.heads.items()}


if __name__ == "__main__":
    model = MultiTaskNet(num_classes=10, with_depth=True, widths=(32, 64, 128, 256, 512))
    model.freeze_backbone()
    print({k: v.shape for k, v in model(torch.randn(2, 3, 64, 64)).items()})
