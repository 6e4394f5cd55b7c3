// timm's vision-transformer blocks as oomlens models them (server/src/frameworks/torch/timm_layers.ts), built the way
// DiT, SiT and MAE build them. The counts are timm 1.0.31's own: each module below built with timm and
// `sum(p.numel() for p in m.parameters())` (the test venv cannot import timm: it needs torchvision, which has no CPU
// wheel for the pinned torch on PyPI; the figures were taken with timm 1.0.31 and torch 2.13.0, torchvision stubbed out
// for the import, 2026-11-24).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const TIMM_1_0_31: [string, number][] = [
  ['PatchEmbed(32, 2, 4, 1152, bias=True)', 19_584],
  ['PatchEmbed(224, 16, 3, 768)', 590_592],
  ['Mlp(in_features=1152, hidden_features=4608, act_layer=lambda: nn.GELU(approximate="tanh"), drop=0)', 10_622_592],
  ['Attention(1152, num_heads=16, qkv_bias=True)', 5_313_024],
  ['Attention(768, num_heads=12, qkv_bias=False, qk_norm=True, norm_layer=nn.LayerNorm)', 2_360_320],
  ['Block(768, 12, 4.0, qkv_bias=True, norm_layer=nn.LayerNorm)', 7_087_872],
  ['Block(384, 6, 4.0, qkv_bias=True, init_values=1e-5, drop_path=0.1)', 1_775_232],
];

const program = (expr: string) => `import torch
import torch.nn as nn
from timm.models.vision_transformer import PatchEmbed, Attention, Mlp, Block


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = ${expr}


model = Net().cuda()
`;

test('timm PatchEmbed, Mlp, Attention and Block: the parameter counts timm 1.0.31 gives', async () => {
  for (const [expr, want] of TIMM_1_0_31) {
    const r = await analyze(program(expr), { device: 't4', versions: {} });
    assert.equal(r.models[0]?.facts.paramCount, want, expr);
  }
});

test('a DiT-style model from timm blocks: exact parameters, its forward traced (num_patches, qkv.unbind, SDPA)', async () => {
  const r = await analyze(`import torch
import torch.nn as nn
from timm.models.vision_transformer import PatchEmbed, Attention, Mlp


class Net(nn.Module):
    def __init__(self, hidden=1152):
        super().__init__()
        self.x_embedder = PatchEmbed(32, 2, 4, hidden, bias=True)
        self.pos_embed = nn.Parameter(torch.zeros(1, self.x_embedder.num_patches, hidden), requires_grad=False)
        self.attn = Attention(hidden, num_heads=16, qkv_bias=True)
        self.mlp = Mlp(in_features=hidden, hidden_features=4 * hidden, act_layer=lambda: nn.GELU(approximate="tanh"), drop=0)

    def forward(self, x):
        x = self.x_embedder(x) + self.pos_embed
        x = x + self.attn(x)
        return x + self.mlp(x)


model = Net().cuda()
opt = torch.optim.AdamW(model.parameters())
for _ in range(3):
    loss = model(torch.randn(8, 4, 32, 32, device="cuda")).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 't4', versions: {} });
  const m = r.models[0];
  assert.equal(m.facts.paramCount, 19_584 + 256 * 1152 + 5_313_024 + 10_622_592);
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.equal(tr.peakIsLowerBound, false, JSON.stringify(m.facts.unknowns));
});

// A research repository's models registered with timm's @register_model and built by name with create_model (DeiT,
// ConvNeXt, PoolFormer and the like): the program's own function runs, with `pretrained` and the keywords that are
// not None (timm/models/_factory.py); a name only timm itself defines is an unknown, never a guess.
test('timm.create_model of a name the program registers builds the program\'s model', async () => {
  const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const root = mkdtempSync(join(tmpdir(), 'oomlens-timm-'));
  try {
    writeFileSync(join(root, 'pyproject.toml'), '');
    mkdirSync(join(root, 'models'));
    writeFileSync(join(root, 'models', '__init__.py'), 'from .nets import *\n');
    writeFileSync(join(root, 'models', 'nets.py'), `import torch.nn as nn
from timm.models.registry import register_model


class Net(nn.Module):
    def __init__(self, dim=64, depth=2, num_classes=10, drop_rate=0.0):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Linear(dim, dim) for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)


@register_model
def net_small(pretrained=False, **kwargs):
    return Net(dim=32, depth=3, **kwargs)
`);
    const text = `import timm
import models
model = timm.create_model("net_small", pretrained=False, num_classes=5, drop_rate=None, checkpoint_path="").cuda()
other = timm.create_model("convnext_tiny")
`;
    writeFileSync(join(root, 'train.py'), text);
    const r = await analyze(text, { path: join(root, 'train.py'), device: 't4', versions: {} });
    assert.deepEqual(r.models.map((m) => m.facts.paramCount), [3 * (32 * 32 + 32) + (32 * 5 + 5)]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});

// timm's ViT and DeiT families built by name (create_model) or as VisionTransformer(...): timm 1.0.31's counts, taken as
// above (each `timm.create_model(name)` on the meta device).
test('timm create_model of a ViT / DeiT name, and VisionTransformer(...): the counts timm 1.0.31 gives', async () => {
  const TIMM: [string, number][] = [
    ['timm.create_model("vit_tiny_patch16_224")', 5_717_416],
    ['timm.create_model("vit_small_patch32_224")', 22_878_952],
    ['timm.create_model("vit_base_patch16_224")', 86_567_656],
    ['timm.create_model("vit_base_patch16_384")', 86_859_496],
    ['timm.create_model("vit_large_patch14_224")', 304_203_752],
    ['timm.create_model("vit_huge_patch14_224")', 630_764_800],
    ['timm.create_model("deit_small_patch16_224")', 22_050_664],
    ['VisionTransformer(patch_size=16, embed_dim=384, depth=12, num_heads=6, mlp_ratio=4, qkv_bias=True, num_classes=100)', 21_704_164],
  ];
  for (const [expr, want] of TIMM) {
    const r = await analyze(`import timm\nfrom timm.models.vision_transformer import VisionTransformer\nmodel = ${expr}.cuda()\n`, { device: 'a100-80gb', versions: {} });
    assert.equal(r.models[0]?.facts.paramCount, want, expr);
  }
});
