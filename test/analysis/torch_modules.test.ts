// PyTorch module semantics that decide a parameter count, checked against real
// PyTorch: each snippet below is analysed by oomlens and executed by
// /usr/bin/python3 with torch on the meta device (the same meta-device mode
// the corpus uses, test/corpus/torch_truth.py), and the parameter and buffer
// element counts must agree. Covers subclasses of nn.Sequential / ModuleList
// / catalogue layers (`super().__init__(...)`), in-place tensor initialisers
// (`torch.empty(...).normal_()`), torch.nn.init, named_parameters() loops,
// weight tying, and hasattr feature detection answered from the pinned torch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { pythonWithTorch } from '../corpus/compare';
import { venvPython } from '../python/venv';

interface Snippet { name: string; src: string; model: string }

const HEADER = 'import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n';

const SNIPPETS: Snippet[] = [
  {
    // timm / DINO / Swin style stochastic depth: the per-block rates come from torch.linspace(...).item(), and a
    // rate > 0 picks a block of another class. Built on the CPU (Tensor.item() refuses meta tensors).
    name: 'drop-path schedule from torch.linspace(...).item() decides which block class each depth gets',
    model: 'Net',
    src: `
class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

class Net(nn.Module):
    def __init__(self, depth=12, drop_path_rate=0.1):
        super().__init__()
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        widths = [int(w * 64) for w in torch.linspace(1, 2, 5).tolist()]
        self.blocks = nn.ModuleList([nn.Linear(8, 8) if dpr[i] > 0.05 else DropPath(dpr[i]) for i in range(depth)])
        self.heads = nn.ModuleList([nn.Linear(w, 3) for w in widths])
        self.last = nn.Linear(4, 4) if torch.linspace(-1, 1, 3)[-1].item() == 1.0 else nn.Identity()

with torch.device('cpu'):
    model = Net()
`,
  },
  {
    // A conditional expression broken over lines with a backslash: the line continuation is an extra node of the
    // syntax tree, not the condition (DDPM U-Net style up-sampling block).
    name: 'a conditional expression continued with a backslash',
    model: 'Up',
    src: `
class Up(nn.Module):
    def __init__(self, c, up_sample=True):
        super().__init__()
        self.up_sample = up_sample
        self.conv = nn.ConvTranspose2d(c // 2, c // 2,
                                       4, 2, 1) \\
            if self.up_sample else nn.Identity()
        self.out = nn.Conv2d(c, c, kernel_size=3, padding=1) if not self.up_sample \\
            else nn.Conv2d(c, c // 2, kernel_size=1)

model = Up(16)
`,
  },
  {
    // SAC's learnable temperature: torch.tensor(np.log(init_alpha)) is a 0-d tensor attribute (not a parameter).
    name: 'torch.tensor of a numpy scalar (np.log of a Python float) is a known 0-d tensor, not a parameter',
    model: 'Policy',
    src: `
import numpy as np

class Policy(nn.Module):
    def __init__(self, init_alpha=0.01):
        super().__init__()
        self.fc = nn.Linear(3, int(np.sqrt(16.0)) * 32)
        self.log_alpha = torch.tensor(np.log(init_alpha))
        self.log_alpha.requires_grad = True

model = Policy()
`,
  },
  {
    name: 'nn.Sequential subclass filled by super().__init__',
    model: 'Net',
    src: `
class MLPBlock(nn.Sequential):
    def __init__(self, d, h):
        super().__init__(nn.Linear(d, h), nn.GELU(), nn.Linear(h, d))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([MLPBlock(16, 64) for _ in range(3)])
        self.norm = nn.LayerNorm(16)

model = Net()
`,
  },
  {
    name: 'nn.ModuleList.__init__(self, ...) called explicitly, and a Linear subclass with an extra Parameter',
    model: 'Stack',
    src: `
class Layers(nn.ModuleList):
    def __init__(self, n, d):
        nn.ModuleList.__init__(self, [nn.Linear(d, d) for _ in range(n)])

class ScaledLinear(nn.Linear):
    def __init__(self, i, o):
        super().__init__(i, o, bias=False)
        self.scale = nn.Parameter(torch.ones(o))

class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = Layers(4, 12)
        self.out = ScaledLinear(12, 5)

model = Stack()
`,
  },
  {
    name: 'in-place initialisers and torch.nn.init keep the tensor (torchvision ViT style)',
    model: 'Tokens',
    src: `
class Tokens(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.pos = nn.Parameter(torch.empty(1, n, d).normal_(std=0.02))
        self.cls = nn.Parameter(torch.zeros(1, 1, d).uniform_(-0.1, 0.1))
        self.proj = nn.Conv2d(3, d, kernel_size=4, stride=4)
        nn.init.trunc_normal_(self.proj.weight, std=0.02)
        nn.init.zeros_(self.proj.bias)
        self.register_buffer("mask", torch.ones(n, n).tril_())
        self.frozen = nn.Parameter(torch.zeros(7, 3), requires_grad=False)
        self.scale = nn.Parameter(torch.ones(5)).requires_grad_(False)
        self.gate = nn.Linear(2, 2) if not self.frozen.requires_grad else None

model = Tokens(65, 32)
`,
  },
  {
    name: 'weight tying counted once; named_parameters() yields (name, tensor) pairs',
    model: 'LM',
    src: `
class LM(nn.Module):
    def __init__(self, vocab, d, n_layer):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.h = nn.ModuleList([nn.Linear(d, d) for _ in range(n_layer)])
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight
        for pn, p in self.named_parameters():
            if pn.endswith("bias"):
                torch.nn.init.zeros_(p)
        self.extra = nn.Linear(d, 2) if len([n for n, _ in self.named_parameters()]) == 2 * n_layer + 1 else None

model = LM(1000, 24, 3)
`,
  },
  {
    name: 'only registered members count: a plain list of layers, a dict of tensors and a function attribute are not parameters',
    model: 'Student',
    src: `
class Big(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(100, 100)

teacher = Big()

def act(x):
    return teacher(x)

class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.act = act
        self.helpers = [nn.Linear(3, 3)]
        self.cache = {"k": torch.zeros(4)}
        self.scales = nn.ParameterList([torch.ones(5), nn.Parameter(torch.zeros(6))])
        self.scales.append(torch.ones(7))
        self.gates = nn.ParameterDict({"a": torch.ones(2, 3)})

model = Student()
`,
  },
  {
    name: 'DenseNet-style ModuleDict subclass filled by add_module with %-formatted and str.format names',
    model: 'Net',
    src: `
class Block(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, width):
        super().__init__()
        for i in range(num_layers):
            self.add_module("denselayer%d" % (i + 1), nn.Conv2d(width + i * 4, 4, 3, bias=False))

class Net(nn.Module):
    def __init__(self, blocks=(2, 3)):
        super().__init__()
        self.features = nn.Sequential()
        for i, n in enumerate(blocks):
            self.features.add_module("denseblock{}".format(i + 1), Block(n, 8))
            self.features.add_module("norm%s_%d" % ("x", i), nn.BatchNorm2d(8 + n * 4))

model = Net()
`,
  },
  {
    name: 'layer attributes read back (fc.in_features, conv.kernel_size[0], mha.head_dim, an absent bias is None)',
    model: 'FineTune',
    src: `
class FineTune(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 5, stride=2, bias=False), nn.Flatten())
        conv = self.backbone[0]
        self.fc = nn.Linear(conv.out_channels * conv.kernel_size[0] * conv.kernel_size[1] * conv.stride[1], 10)
        self.head = nn.Linear(self.fc.out_features, self.fc.in_features // 4)
        self.emb = nn.Embedding(100, 16, padding_idx=-1)
        self.extra = nn.Linear(self.emb.padding_idx, self.emb.embedding_dim)
        self.mha = nn.MultiheadAttention(64, 8)
        self.proj = nn.Linear(self.mha.head_dim, self.mha.kdim)
        self.norm = nn.LayerNorm(32, elementwise_affine=False)
        self.gate = nn.Linear(3, 3) if self.norm.weight is None and conv.bias is None else nn.Linear(5, 5)
        self.lstm = nn.LSTM(10, 20, 2)
        self.out = nn.Linear(self.lstm.hidden_size * self.lstm.num_layers, self.norm.normalized_shape[0])

model = FineTune()
`,
  },
  {
    name: 'subclasses of a layer: no __init__ of their own, and super().forward() inside forward',
    model: 'Net',
    src: `
class Norm(nn.LayerNorm):
    pass

class Norm2(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.float())

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm(16)
        self.norm2 = Norm2(16, eps=1e-6)
        self.head = nn.Linear(self.norm2(self.norm(torch.zeros(2, 16))).shape[-1], 4)

model = Net()
`,
  },
  {
    name: 'copy.deepcopy clones (DETR / nn.TransformerEncoder _get_clones) are independent parameters; ties inside a clone stay tied',
    model: 'Enc',
    src: `
import copy

def _get_clones(module, N):
    return nn.ModuleList([copy.deepcopy(module) for i in range(N)])

class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8, bias=False)
        self.b = nn.Linear(8, 8, bias=False)
        self.b.weight = self.a.weight

class Enc(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = _get_clones(layer, n)
        self.tied = _get_clones(Tied(), 2)
        self.norm = nn.LayerNorm(8)

model = Enc(nn.Linear(8, 8), 3)
`,
  },
  {
    name: 'container edits: ModuleList.insert / [i] =, ModuleDict [k] = / update, ParameterList.append, ParameterDict [k] =',
    model: 'Edits',
    src: `
class Edits(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2)])
        self.layers.insert(0, nn.Linear(3, 3))
        self.heads = nn.ModuleDict()
        self.heads["a"] = nn.Linear(4, 4)
        self.heads.update({"b": nn.Linear(5, 5)})
        self.heads.update([("c", nn.Linear(1, 1))])
        self.seq = nn.Sequential()
        self.seq.append(nn.Linear(6, 6))
        self.layers[1] = nn.Linear(7, 7)
        self.plist = nn.ParameterList()
        self.plist.append(torch.zeros(8))
        self.pdict = nn.ParameterDict()
        self.pdict["w"] = torch.zeros(9)
        self.out = nn.Linear(len(self.heads), len(list(self.heads.keys())) + len(self.layers))

model = Edits()
`,
  },
  {
    name: 'modules() / children() / named_modules() list the registered modules as PyTorch does',
    model: 'Walk',
    src: `
class B(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

class Walk(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Sequential(B(), B())
        self.fc = nn.Linear(4, 2)
        self.plain = [nn.Linear(9, 9)]
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        n = len(list(self.modules()))
        k = len(list(self.children()))
        names = [name for name, _ in self.named_modules()]
        self.extra = nn.Linear(n, k * 10 + len(names) + len([c for c in self.b.children()]))

model = Walk()
`,
  },
  {
    name: 'legacy typed constructors: torch.FloatTensor(in, out) sizes, torch.LongTensor([..]) data, torch.Tensor(n)',
    model: 'GCN',
    src: `
class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = nn.Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.register_buffer('index', torch.LongTensor([0, 2, 4]))
        self.register_buffer('pair', torch.FloatTensor((3, 4)))
        self.scale = nn.Parameter(torch.Tensor(1))
        if isinstance(self.weight, torch.Tensor) and isinstance(self.weight, nn.Parameter):
            self.extra = nn.Linear(2, 2)
        if isinstance(self.index, nn.Parameter) or isinstance(self.index, (int, float)):
            self.wrong = nn.Linear(2, 2)

class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gc1 = GraphConvolution(1433, 16)
        self.gc2 = GraphConvolution(16, 7, bias=False)

model = GCN()
`,
  },
  {
    name: 'a norm deriving from the private base _BatchNorm (super().__init__ and no __init__ of its own)',
    model: 'Net',
    src: `
from torch.nn.modules.batchnorm import _BatchNorm

class SyncBN(_BatchNorm):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super(SyncBN, self).__init__(num_features, eps=eps, momentum=momentum, affine=affine)

class PlainBN(_BatchNorm):
    pass

class Net(nn.Module):
    def __init__(self, norm=SyncBN):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.bn = norm(16)
        self.bn2 = PlainBN(16, affine=False)

model = Net()
`,
  },
  {
    name: 'a loop over a state dict of unknown content that only fills local dicts leaves the count known',
    model: 'Backbone',
    src: `
import os

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 4)
        pretrain_dict = dict(vars(os))  # stands for a downloaded state dict: oomlens does not know its content
        model_dict = {}
        state_dict = self.state_dict()
        for k, v in pretrain_dict.items():
            if k in state_dict and not k.startswith('fc.'):
                model_dict[k] = v
        state_dict.update(model_dict)
        self.load_state_dict(state_dict)

model = Backbone()
`,
  },
  {
    name: 'weight_norm / spectral_norm (hook and parametrization versions) and remove_weight_norm change parameters and buffers',
    model: 'Vocoder',
    src: `
from torch.nn.utils import weight_norm, remove_weight_norm, spectral_norm
from torch.nn.utils.parametrizations import weight_norm as pweight_norm, spectral_norm as pspectral_norm

class Vocoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = weight_norm(nn.Conv1d(80, 64, 7, padding=3))
        self.ups = nn.ModuleList([weight_norm(nn.ConvTranspose1d(64, 32, 16, 8)), weight_norm(nn.Linear(32, 32), dim=None)])
        self.disc = nn.ModuleList([spectral_norm(nn.Conv2d(1, 16, (5, 1))), spectral_norm(nn.ConvTranspose1d(16, 8, 4)), spectral_norm(nn.Linear(8, 3), dim=1)])
        self.post = pweight_norm(nn.Conv1d(32, 1, 7), dim=1)
        self.head = pspectral_norm(nn.Linear(12, 6))
        self.plain = weight_norm(nn.Conv1d(4, 4, 3))
        remove_weight_norm(self.plain)
        self.acts = [F.leaky_relu]

model = Vocoder()
`,
  },
  {
    name: 'a dict subclass whose __dict__ is itself (AttrDict) read as attributes, items, get() and len()',
    model: 'Gen',
    src: `
import json

class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super(AttrDict, self).__init__(*args, **kwargs)
        self.__dict__ = self

class Gen(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.num_ups = len(h.upsample_rates)
        self.ups = nn.ModuleList([nn.Conv1d(h.ch, h.ch, k) for k in h.upsample_rates])
        self.post = nn.Linear(h["ch"], h.get("out", 1) + len(h))

h = AttrDict(json.loads('{"ch": 8, "upsample_rates": [4, 2]}'))
h.ch = 16
model = Gen(h)
`,
  },
  {
    name: 'itertools.product(..., repeat=2) loops and torch.autograd.Variable (the tensor itself) size a layer and a buffer',
    model: 'Priors',
    src: `
from itertools import product
from torch.autograd import Variable

class Priors(nn.Module):
    def __init__(self):
        super().__init__()
        mean = []
        for f in [3, 2]:
            for i, j in product(range(f), repeat=2):
                mean += [i, j, f, 1.0]
        pairs = list(product('ab', [1, 2, 3]))
        self.priors = Variable(torch.Tensor(mean).view(-1, 4), volatile=True)
        self.head = nn.Linear(self.priors.size(0), len(pairs))
        self.register_buffer('anchors', Variable(torch.zeros(self.priors.shape[0], 2)))

model = Priors()
`,
  },
  {
    // timm's to_2tuple (timm/layers/helpers.py _ntuple: `tuple(repeat(x, n))`), as open_clip's ViT sizes its patches.
    name: 'itertools.repeat(x, n) sizes a patch embedding through to_2tuple',
    model: 'Patches',
    src: `
from itertools import repeat

def _ntuple(n):
    def parse(x):
        if isinstance(x, (list, tuple)):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse

to_2tuple = _ntuple(2)

class Patches(nn.Module):
    def __init__(self, image_size=224, patch_size=16, width=768):
        super().__init__()
        ih, iw = to_2tuple(image_size)
        ph, pw = to_2tuple(patch_size)
        self.conv = nn.Conv2d(3, width, kernel_size=(ph, pw), stride=(ph, pw), bias=False)
        self.pos = nn.Parameter(torch.zeros((ih // ph) * (iw // pw) + 1, width))

model = Patches()
`,
  },
  {
    name: 'a mapping class of the program (HParams: __setitem__ -> setattr, __getitem__, keys() from self.__dict__) expanded with **',
    model: 'Synth',
    src: `
import json

class HParams():
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            if type(v) == dict:
                v = HParams(**v)
            self[k] = v

    def keys(self):
        return self.__dict__.keys()

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        return setattr(self, key, value)

class Synth(nn.Module):
    def __init__(self, n_vocab, hidden, layers, use_norm=False):
        super().__init__()
        self.emb = nn.Embedding(n_vocab, hidden)
        self.blocks = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(layers)])
        self.norm = nn.LayerNorm(hidden) if use_norm else nn.Identity()

hps = HParams(**json.loads('{"data": {"n_vocab": 50}, "model": {"hidden": 16, "layers": 2, "use_norm": true}}'))
model = Synth(hps.data["n_vocab"], **hps.model)
`,
  },
  {
    // DeepLabV3+ backbone surgery (VainF/DeepLabV3Plus-Pytorch network/modeling.py): slices of a Sequential become
    // new Sequentials on new attributes, the original is set to None, and the children are re-wrapped in an
    // nn.ModuleDict subclass. A slice was a plain list (lost), and the cut backbone a model of its own.
    name: 'slices of a Sequential are Sequentials; a backbone re-wrapped by its children is a part of the model',
    model: 'Seg',
    src: `
from collections import OrderedDict

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(*[nn.Conv2d(16, 16, 3, padding=1) for _ in range(8)])
        self.classifier = nn.Linear(16, 1000)

class Getter(nn.ModuleDict):
    def __init__(self, model):
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
        super().__init__(layers)

class Seg(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.classifier = head

def build():
    backbone = Backbone()
    backbone.low_level_features = backbone.features[0:4]
    backbone.high_level_features = backbone.features[4:-1]
    backbone.mid = nn.ModuleList(list(backbone.features))[2:3]
    backbone.features = None
    backbone.classifier = None
    return Seg(Getter(backbone), nn.Conv2d(16, 21, 1))

model = build()
`,
  },
];

/** Runs every snippet under PyTorch on the meta device; returns {params, buffers} per snippet. */
function torchCounts(): { ok: true; counts: { params: number; buffers: number; error?: string }[] } | { ok: false; error: string } {
  // The test environment's PyTorch (.venv, scripts/venv.sh), whose version oomlens models; $OOMLENS_PYTHON overrides it.
  const exe = process.env.OOMLENS_PYTHON ?? venvPython();
  const prog = `
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, ${JSON.stringify(join(__dirname, '..', 'corpus'))})
from torch_truth import meta_device
out = []
for s in json.load(sys.stdin):
    ns = {}
    try:
        with meta_device():
            exec(s["src"], ns)
        m = ns["model"]
        out.append({"params": sum(p.numel() for p in m.parameters()), "buffers": sum(b.numel() for b in m.buffers())})
    except Exception as e:
        out.append({"params": -1, "buffers": -1, "error": "%s: %s" % (type(e).__name__, e)})
print(json.dumps(out))
`;
  const r = spawnSync(exe, ['-c', prog], { input: JSON.stringify(SNIPPETS.map((s) => ({ src: HEADER + s.src }))), encoding: 'utf8' });
  if (r.status !== 0) return { ok: false, error: r.stderr };
  return { ok: true, counts: JSON.parse(r.stdout) };
}

const elements = (ts: { shape: number[] }[]) => ts.reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0);

test('torch module semantics: parameter and buffer counts equal real PyTorch', async (t) => {
  const truth = torchCounts();
  if (!truth.ok) assert.fail(truth.error);
  for (const [i, s] of SNIPPETS.entries()) {
    await t.test(s.name, async () => {
      const want = truth.counts[i];
      assert.equal(want.error, undefined, `PyTorch could not run the snippet: ${want.error}`);
      const r = await analyze(HEADER + s.src, { device: 'a100-80gb', versions: {} });
      const m = r.models.find((x) => x.facts.name === s.model);
      assert.ok(m, `no model ${s.model}: ${r.models.map((x) => x.facts.name).join(', ')}`);
      assert.deepEqual(m.facts.unknowns.map((u) => u.reason), []);
      assert.equal(m.facts.paramCount, want.params, 'parameters');
      assert.equal(elements(m.facts.buffers), want.buffers, 'buffers');
    });
  }
});

const NANO_FLASH = `${HEADER}
class Attn(nn.Module):
    def __init__(self, block_size, d):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

model = Attn(64, 8)
`;

test('hasattr(torch.nn.functional, "scaled_dot_product_attention") follows the pinned torch (added in 2.0)', async () => {
  const run = async (versions: Record<string, string>) => {
    const r = await analyze(NANO_FLASH, { device: 'a100-80gb', versions });
    const m = r.models.find((x) => x.facts.name === 'Attn')!;
    assert.deepEqual(m.facts.unknowns, []);
    assert.equal(m.facts.paramCount, 8 * 24 + 24);
    return elements(m.facts.buffers);
  };
  assert.equal(await run({ torch: '1.13.1' }), 64 * 64, 'torch 1.13 has no SDPA: the causal-mask buffer is registered');
  assert.equal(await run({ torch: '2.1.0+cu121' }), 0);
  // Unpinned: the catalogued PyTorch (2.1), which has it.
  assert.equal(await run({}), 0);
  // The installed PyTorch agrees with the version table.
  const py = pythonWithTorch();
  if (!py.exe) assert.fail(`no python3 with PyTorch; tried ${py.tried.join('; ')}`);
  const r = spawnSync(py.exe, ['-c', 'import torch; print(torch.__version__, hasattr(torch.nn.functional, "scaled_dot_product_attention"))'], { encoding: 'utf8' });
  const [version, has] = r.stdout.trim().split(' ');
  assert.equal(has, Number(version.split('.')[0]) >= 2 ? 'True' : 'False', r.stdout + r.stderr);
});

test('a subclass of a torch.nn module the catalogue does not know gives an unknown count, not zero', async () => {
  const src = `${HEADER}
class Enc(nn.TransformerEncoder):
    def __init__(self):
        super().__init__(nn.TransformerEncoderLayer(16, 2), 3)

model = Enc()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Enc')!;
  assert.equal(m.facts.paramCount, null);
  assert.ok(m.facts.unknowns.some((u) => /TransformerEncoder\.__init__/.test(u.reason)), JSON.stringify(m.facts.unknowns));
});

test('slicing a split key array keeps the slice length (keys[4:], keys[::2], keys[-3:])', async () => {
  const src = (slice: string) => `import equinox as eqx
import jax

class M(eqx.Module):
    layers: list
    def __init__(self, key):
        keys = jax.random.split(key, 9)
        self.layers = [eqx.nn.Linear(4, 4, key=k) for k in keys[${slice}]]

model = M(jax.random.PRNGKey(0))
`;
  // len(range(9)[s]) for each slice, as Python computes it; 20 parameters per Linear(4, 4).
  for (const [slice, n] of [['4:', 5], ['::2', 5], ['-3:', 3], ['1:-1:3', 3], ['::-4', 3], ['10:', 0]] as const) {
    const r = await analyze(src(slice), { device: 'a100-80gb', versions: {} });
    const m = r.models.find((x) => x.facts.name === 'M');
    // No key, no layer: an equinox Module holding no array is no model (analysis/evidence.ts holdsNothing).
    if (n === 0) { assert.equal(m, undefined, `keys[${slice}]`); continue; }
    assert.equal(m!.facts.paramCount, 20 * n, `keys[${slice}]: ${JSON.stringify(m!.facts.unknowns)}`);
  }
});

test('a base class that is not known, a module registered under an unknown name, an unknown container item, unexpanded or possibly changed **kwargs give an unknown count', async () => {
  const src = `${HEADER}
from .blocks import MLP

class Block(MLP):
    def __init__(self):
        super().__init__(16, [64, 16])

class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = Block()

class B(nn.Module):
    def __init__(self, names):
        super().__init__()
        for n in names:
            self.add_module(n.title(), nn.Linear(2, 2))

class C(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(make_stem(), nn.Linear(8, 8))

class F(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.layers.pop(0)

from dataclasses import dataclass
from .cfg import load_args

@dataclass
class Cfg:
    d: int = 16
    n: int = 2

class D(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(cfg.d, cfg.d) for _ in range(cfg.n)])

from .utils import overwrite

class E(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])

def build_e(**kwargs):
    overwrite(kwargs, "n", 4)
    return E(**kwargs)

a = A()
b = B(["first", "second"])
c = C()
d = D(Cfg(**load_args()))
e = build_e()
f = F()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const a = r.models.find((x) => x.facts.name === 'A')!;
  assert.equal(a.facts.paramCount, null);
  assert.ok(a.facts.unknowns.some((u) => /Block derives from a class that is not known/.test(u.reason)), JSON.stringify(a.facts.unknowns));
  const b = r.models.find((x) => x.facts.name === 'B')!;
  assert.equal(b.facts.paramCount, null);
  assert.ok(b.facts.unknowns.some((u) => /module registered under a name that is not known/.test(u.reason)), JSON.stringify(b.facts.unknowns));
  const c = r.models.find((x) => x.facts.name === 'C')!;
  assert.equal(c.facts.paramCount, null);
  assert.ok(c.facts.unknowns.some((u) => /Sequential holds a module that is not known/.test(u.reason)), JSON.stringify(c.facts.unknowns));
  // Cfg(**load_args()): the unexpanded keywords may set any field, so the defaults are not used.
  const d = r.models.find((x) => x.facts.name === 'D')!;
  assert.equal(d.facts.paramCount, null);
  assert.ok(d.facts.unknowns.some((u) => /could not be expanded/.test(u.reason)), JSON.stringify(d.facts.unknowns));
  // torchvision's `_ovewrite_named_param(kwargs, "groups", 32)`: a function that is not followed may change the dict.
  const e = r.models.find((x) => x.facts.name === 'E')!;
  assert.equal(e.facts.paramCount, null);
  assert.ok(e.facts.unknowns.some((u) => /was passed to `overwrite`/.test(u.reason)), JSON.stringify(e.facts.unknowns));
  // ModuleList.pop is not modelled: the count must not silently include the removed layer.
  const f = r.models.find((x) => x.facts.name === 'F')!;
  assert.equal(f.facts.paramCount, null);
  assert.ok(f.facts.unknowns.some((u) => /pop\(\) is not modelled/.test(u.reason)), JSON.stringify(f.facts.unknowns));
});

test('%-formatting and str.format agree with Python', async () => {
  const { percentFormat, strFormat } = await import('../../server/src/interp/strings');
  const { int, str } = await import('../../server/src/interp/values');
  const fl = (v: number) => ({ t: 'float' as const, v });
  const cases: { py: string; got: () => ReturnType<typeof percentFormat> }[] = [
    { py: '"denselayer%d" % (3,)', got: () => percentFormat('denselayer%d', int(3)) },
    { py: '"%s_%i-%%" % ("x", 7)', got: () => percentFormat('%s_%i-%%', { t: 'tuple', items: [str('x'), int(7)] }) },
    { py: '"%d" % 3.9', got: () => percentFormat('%d', fl(3.9)) },
    { py: '"%s" % 2.0', got: () => percentFormat('%s', fl(2.0)) },
    { py: '"%s" % 0.25', got: () => percentFormat('%s', fl(0.25)) },
    { py: '"%s|%s" % (True, None)', got: () => percentFormat('%s|%s', { t: 'tuple', items: [{ t: 'bool', v: true }, { t: 'none' }] }) },
    { py: '"layer{}.{}".format(1, "w")', got: () => strFormat('layer{}.{}', [int(1), str('w')], new Map()) },
    { py: '"{1}{0}{{}}".format("a", "b")', got: () => strFormat('{1}{0}{{}}', [str('a'), str('b')], new Map()) },
    { py: '"{name}_{0}".format(5, name="n")', got: () => strFormat('{name}_{0}', [int(5)], new Map([['name', str('n')]])) },
  ];
  const py = pythonWithTorch().exe ?? 'python3';
  const r = spawnSync(py, ['-c', `import json; print(json.dumps([${cases.map((c) => c.py).join(', ')}]))`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const want = JSON.parse(r.stdout) as string[];
  cases.forEach((c, i) => assert.deepEqual(c.got(), { t: 'str', v: want[i] }, c.py));
  // Conversions that are not modelled stay unknown rather than guessed.
  assert.equal(percentFormat('%5.2f', fl(1.5)).t, 'unknown');
  assert.equal(strFormat('{:>4}', [int(1)], new Map()).t, 'unknown');
  assert.equal(percentFormat('%s', fl(1e-7)).t, 'unknown');
});

test('a base the catalogue does not know, or a loop over unknown items that writes the module, stays unknown', async () => {
  const src = `${HEADER}
import os
from torch.nn.modules.conv import _ConvNd

class OddConv(_ConvNd):
    pass

class Odd(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = OddConv(3, 16, (3, 3), (1, 1), (0, 0), (1, 1), False, (0, 0), 1, True, 'zeros')

class Appends(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        for k in torch.hub.load_state_dict_from_url('https://example.com/w.pth'):
            self.layers.append(nn.Linear(4, 4))
`;
  for (const name of ['Odd', 'Appends']) {
    const r = await analyze(`${src}\nmodel = ${name}()\n`, { device: 'a100-80gb', versions: {} });
    const m = r.models.find((x) => x.facts.name === name);
    assert.ok(m, `no model ${name}`);
    assert.equal(m.facts.paramCount, null, `${name}: a confident count where the parameters are not known`);
  }
});

test('copying matching keys of a downloaded state dict (a loop over unknown items into local dicts) keeps the count', async () => {
  // The same module as the snippet above ("a loop over a state dict of unknown content"), whose
  // count PyTorch checks there; here the dict comes from a download oomlens cannot read.
  const src = `${HEADER}
class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 4)
        pretrain_dict = torch.hub.load_state_dict_from_url('https://example.com/w.pth')
        model_dict = {}
        state_dict = self.state_dict()
        for k, v in pretrain_dict.items():
            if k in state_dict and not k.startswith('fc.'):
                model_dict[k] = v
        state_dict.update(model_dict)
        self.load_state_dict(state_dict)

model = Backbone()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Backbone');
  assert.ok(m);
  assert.equal(m.facts.paramCount, 3 * 8 * 9 + 8 + 8 * 4 + 4); // Conv2d(3, 8, 3) + Linear(8, 4)
});

test('torch.load without map_location: the checkpoint comes back where it was saved, not known — an unknown with its size; map_location="cuda" counts it', async () => {
  // Written for this test. Linear(1024, 1024) ×2 = 2 · (1,048,576 + 1,024) = 2,099,200 float32 parameters = 8,396,800 B.
  const src = (load: string) => `
import torch
import torch.nn as nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1024, 1024)
        self.b = nn.Linear(1024, 1024)

    def forward(self, x):
        return self.b(self.a(x))


model = Pair().cuda()
state = ${load}
model.load_state_dict(state)
`;
  const omitted = await analyze(src('torch.load("weights.pt")'), { device: 'a100-80gb' });
  const load = omitted.models.find((m) => m.facts.name === 'Pair')!.estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.breakdown.filter((b) => /^state dict/.test(b.label)).length, 0);
  assert.notEqual(load.fits, true);
  assert.ok(load.unknowns.some((u) => /without map_location/.test(u.reason) && /8\.4 MB/.test(u.reason)), JSON.stringify(load.unknowns));
  const cuda = await analyze(src('torch.load("weights.pt", map_location="cuda")'), { device: 'a100-80gb' });
  const load2 = cuda.models.find((m) => m.facts.name === 'Pair')!.estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load2.breakdown.filter((b) => /^state dict/.test(b.label)).reduce((a, b) => a + b.bytes, 0), 8_396_800);
});

test('a backbone whose modules a model took over without holding it is a part, not a model of its own', async () => {
  const s = SNIPPETS.find((x) => x.model === 'Seg')!;
  const r = await analyze(HEADER + s.src, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Seg']);
});
