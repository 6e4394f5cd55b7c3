/**
 * torchvision.models' ResNet and VGG families, AlexNet and MobileNetV2, as Python the interpreter runs: a model built by
 * `torchvision.models.resnet50(...)` is a real module tree (its layers, its forward), so its parameters, and the
 * activations a traced forward saves, come out as for the program's own modules.
 *
 * The source below is oomlens's own description of the architectures, not torchvision's code. It follows the
 * papers (He et al. 2016, "Deep Residual Learning", table 1, bottleneck variant with the stride on the 3×3
 * convolution, "ResNet v1.5"; Xie et al. 2017 ResNeXt; Zagoruyko & Komodakis 2016 wide ResNets; Simonyan &
 * Zisserman 2015 VGG, configurations A, B, D, E; Krizhevsky et al. 2012 AlexNet in torchvision's one-GPU variant
 * (64-192-384-256-256 channels); Sandler et al. 2018 MobileNetV2, table 2) and torchvision's documented module names and signatures
 * (pytorch.org/vision/stable/models.html: `model.fc`, `model.layer1`, `model.classifier[6]`, `num_classes`,
 * `weights` / `pretrained`; models/_utils.py IntermediateLayerGetter's documented behaviour: the children up to the
 * last returned one, a dict of the returned outputs), so that programs replacing a head (`model.fc = nn.Linear(model.fc.in_features, n)`)
 * read the attributes they expect. Parameter counts are checked against torchvision itself
 * (test/program/vision_models.test.ts). Pretrained weights change no size: they are loaded into the same tensors.
 */
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { bundled } from './bundled';
import { unknown, type Value } from '../../interp/values';

const SOURCE = `import torch
import torch.nn as nn


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        out = self.relu(out)
        return out


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu(out)
        out = self.conv3(out)
        out = self.bn3(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        out = self.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64, replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation = self.dilation * stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride), norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width, dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.maxpool(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def _resnet(block, layers, **fixed):
    # A builder as torchvision exposes it: pretrained (positional, the old API) or weights load into the same tensors.
    def build(pretrained=False, progress=True, weights=None, **kwargs):
        return ResNet(block, layers, **fixed, **kwargs)
    return build


resnet18 = _resnet(BasicBlock, [2, 2, 2, 2])
resnet34 = _resnet(BasicBlock, [3, 4, 6, 3])
resnet50 = _resnet(Bottleneck, [3, 4, 6, 3])
resnet101 = _resnet(Bottleneck, [3, 4, 23, 3])
resnet152 = _resnet(Bottleneck, [3, 8, 36, 3])
resnext50_32x4d = _resnet(Bottleneck, [3, 4, 6, 3], groups=32, width_per_group=4)
resnext101_32x8d = _resnet(Bottleneck, [3, 4, 23, 3], groups=32, width_per_group=8)
resnext101_64x4d = _resnet(Bottleneck, [3, 4, 23, 3], groups=64, width_per_group=4)
wide_resnet50_2 = _resnet(Bottleneck, [3, 4, 6, 3], width_per_group=128)
wide_resnet101_2 = _resnet(Bottleneck, [3, 4, 23, 3], width_per_group=128)


VGG_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
            if batch_norm:
                layers.append(nn.BatchNorm2d(v))
            layers.append(nn.ReLU(inplace=True))
            in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def _vgg(cfg, batch_norm):
    def build(pretrained=False, progress=True, weights=None, **kwargs):
        return VGG(make_layers(VGG_CFGS[cfg], batch_norm=batch_norm), **kwargs)
    return build


vgg11 = _vgg("A", False)
vgg11_bn = _vgg("A", True)
vgg13 = _vgg("B", False)
vgg13_bn = _vgg("B", True)
vgg16 = _vgg("D", False)
vgg16_bn = _vgg("D", True)
vgg19 = _vgg("E", False)
vgg19_bn = _vgg("E", True)


class AlexNet(nn.Module):
    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def alexnet(pretrained=False, progress=True, weights=None, **kwargs):
    return AlexNet(**kwargs)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, groups=1, norm_layer=None, activation_layer=None, dilation=1):
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        padding = (kernel_size - 1) // 2 * dilation
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation, groups=groups, bias=False), norm_layer(out_channels)]
        if activation_layer is not None:
            layers.append(activation_layer(inplace=True))
        super().__init__(*layers)
        self.out_channels = out_channels


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6))
        layers.append(Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer, activation_layer=nn.ReLU6))
        layers.append(nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False))
        layers.append(norm_layer(oup))
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=1000, width_mult=1.0, inverted_residual_setting=None, round_nearest=8, block=None, norm_layer=None, dropout=0.2):
        super().__init__()
        if block is None:
            block = InvertedResidual
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        input_channel = 32
        last_channel = 1280
        if inverted_residual_setting is None:
            inverted_residual_setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6)]
        for t, c, n, s in inverted_residual_setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(block(input_channel, output_channel, stride, expand_ratio=t, norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.classifier(x)


def mobilenet_v2(pretrained=False, progress=True, weights=None, **kwargs):
    return MobileNetV2(**kwargs)


class IntermediateLayerGetter(nn.ModuleDict):
    def __init__(self, model, return_layers):
        remaining = dict(return_layers)
        layers = {}
        for name, module in model.named_children():
            layers[name] = module
            if name in remaining:
                del remaining[name]
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = dict(return_layers)

    def forward(self, x):
        out = {}
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
`;

/** The names the source defines that programs reach as torchvision.models.X (and torchvision.models.resnet.X, .vgg.X). */
const RESNET = ['resnet18', 'resnet34', 'resnet50', 'resnet101', 'resnet152', 'resnext50_32x4d', 'resnext101_32x8d', 'resnext101_64x4d', 'wide_resnet50_2', 'wide_resnet101_2', 'ResNet', 'BasicBlock', 'Bottleneck', 'conv3x3', 'conv1x1'];
const VGG = ['vgg11', 'vgg11_bn', 'vgg13', 'vgg13_bn', 'vgg16', 'vgg16_bn', 'vgg19', 'vgg19_bn', 'VGG', 'make_layers'];
const OTHERS: [string, string][] = [['alexnet', 'alexnet'], ['AlexNet', 'alexnet'], ['mobilenet_v2', 'mobilenetv2'], ['MobileNetV2', 'mobilenetv2'], ['InvertedResidual', 'mobilenetv2']];
/** torchvision.models._utils.IntermediateLayerGetter: a model's children up to the last one returned (DETR's backbone). */
const UTILS = ['IntermediateLayerGetter'];

/** Shown as the file of what this source builds (spans, breakdowns). */
export const VISION_MODELS_LABEL = 'torchvision.models (as oomlens models it)';

const SOURCE_MODULE = bundled('torchvision.models', VISION_MODELS_LABEL, SOURCE);

export function installVisionModels(it: Interpreter): void {
  const names: [string, string][] = [
    ...RESNET.flatMap((n): [string, string][] => [[`torchvision.models.${n}`, n], [`torchvision.models.resnet.${n}`, n]]),
    ...VGG.flatMap((n): [string, string][] => [[`torchvision.models.${n}`, n], [`torchvision.models.vgg.${n}`, n]]),
    ...UTILS.map((n): [string, string] => [`torchvision.models._utils.${n}`, n]),
    ...OTHERS.flatMap(([n, mod]): [string, string][] => [[`torchvision.models.${n}`, n], [`torchvision.models.${mod}.${n}`, n]]),
  ];
  const env = (i: Interpreter) => SOURCE_MODULE.env(i);
  for (const [full, local] of names) SOURCE_MODULE.expose(it, full, local);
  // `models.__dict__[args.arch]()` (pytorch/examples imagenet/main.py): the builders modelled here by name; any other
  // name is not in it, so a lookup of one is an unknown (getItem), never another model.
  it.externValues.set('torchvision.models.__dict__', (i: Interpreter, node: SyntaxNode): Value => {
    let e;
    try { e = env(i); } catch { return unknown('torchvision.models.__dict__ is not modelled here', i.span(node)); }
    const builders = [...RESNET, ...VGG, ...OTHERS.map(([n]) => n)].filter((n) => /^[a-z]/.test(n) && !n.startsWith('conv') && n !== 'make_layers');
    return { t: 'dict', keys: builders.map((n) => ({ t: 'str', v: n }) as Value), vals: builders.map((n) => e?.vars.get(n) ?? unknown(n)) };
  });
}
