/**
 * timm's vision-transformer building blocks, as Python the interpreter runs: `PatchEmbed`, `Mlp`, `Attention`,
 * `Block`, `LayerScale` and `DropPath`, which research code imports one by one (DiT and SiT:
 * `from timm.models.vision_transformer import PatchEmbed, Attention, Mlp`; MAE: `Block`). A program's model built
 * from them is a real module tree (its layers, its forward), so its parameters, and the activations a traced forward
 * saves, come out as for the program's own modules.
 *
 * The source below is oomlens's own description of those classes, following timm 1.0's documented signatures and
 * module names (timm/layers/patch_embed.py PatchEmbed: `proj` a Conv2d of kernel and stride `patch_size`, `norm`,
 * `num_patches`; timm/layers/mlp.py Mlp: `fc1`, `act`, `drop1`, `norm`, `fc2`, `drop2`; timm/layers/attention.py
 * Attention: `qkv` Linear(dim, 3·dim, bias=qkv_bias), `q_norm` / `k_norm` when qk_norm, `proj`; timm/models/
 * vision_transformer.py Block: `norm1`, `attn`, `ls1`, `drop_path1`, `norm2`, `mlp`, `ls2`, `drop_path2`). Older
 * keywords the same classes took (timm 0.3–0.6: `qk_scale`, `drop`) are accepted: they change no size. Parameter
 * counts are checked against timm 1.0.31 (test/program/timm_layers.test.ts).
 *
 * Also timm's `NativeScaler` (timm/utils/cuda.py), the loss scaler DeiT, ConvNeXt, MAE and timm's own train.py step
 * through: its `__call__` runs the backward and the optimizer step.
 *
 * The attention's forward: timm ≥ 0.9 calls `F.scaled_dot_product_attention` (no [B, H, N, N] matrix kept),
 * older releases build the attention matrix (`q @ k.transpose(-2, -1)`, softmax). The pinned timm decides; unpinned,
 * a current release is taken.
 */
import type { Interpreter } from '../../interp/interp';
import { bundled } from './bundled';
import { type Value, unknown } from '../../interp/values';

const SOURCE = `import torch
import torch.nn as nn
import torch.nn.functional as F
from itertools import repeat
from timm.layers.config import use_fused_attn


def _pair(x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return tuple(repeat(x, 2))


class PatchEmbed(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768, norm_layer=None, flatten=True, output_fmt=None, bias=True, strict_img_size=True, dynamic_img_pad=False, device=None, dtype=None):
        super().__init__()
        self.patch_size = _pair(patch_size)
        if img_size is not None:
            self.img_size = _pair(img_size)
            self.grid_size = tuple([s // p for s, p in zip(self.img_size, self.patch_size)])
            self.num_patches = self.grid_size[0] * self.grid_size[1]
        else:
            self.img_size = None
            self.grid_size = None
            self.num_patches = None
        self.flatten = flatten
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=self.patch_size, stride=self.patch_size, bias=bias)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x):
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)
        x = self.norm(x)
        return x


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU, norm_layer=None, bias=True, drop=0.0, use_conv=False, device=None, dtype=None):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        bias = _pair(bias)
        drop_probs = _pair(drop)
        if use_conv:
            self.fc1 = nn.Conv2d(in_features, hidden_features, kernel_size=1, bias=bias[0])
        else:
            self.fc1 = nn.Linear(in_features, hidden_features, bias=bias[0])
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop_probs[0])
        self.norm = norm_layer(hidden_features) if norm_layer is not None else nn.Identity()
        if use_conv:
            self.fc2 = nn.Conv2d(hidden_features, out_features, kernel_size=1, bias=bias[1])
        else:
            self.fc2 = nn.Linear(hidden_features, out_features, bias=bias[1])
        self.drop2 = nn.Dropout(drop_probs[1])

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        x = self.drop1(x)
        x = self.norm(x)
        x = self.fc2(x)
        x = self.drop2(x)
        return x


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, attn_head_dim=None, dim_out=None, qkv_bias=False, qk_norm=False, scale_norm=False, proj_bias=True, gated=False, attn_drop=0.0, proj_drop=0.0, norm_layer=None, qk_scale=None, device=None, dtype=None):
        super().__init__()
        dim_out = dim_out or dim
        head_dim = attn_head_dim
        if head_dim is None:
            head_dim = dim // num_heads
        if qk_norm or scale_norm:
            if norm_layer is None:
                norm_layer = nn.LayerNorm
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.attn_dim = num_heads * head_dim
        self.scale = head_dim ** -0.5
        self.fused_attn = use_fused_attn()
        self.qkv = nn.Linear(dim, self.attn_dim * 3, bias=qkv_bias)
        self.q_norm = norm_layer(head_dim) if qk_norm else nn.Identity()
        self.k_norm = norm_layer(head_dim) if qk_norm else nn.Identity()
        self.attn_drop = nn.Dropout(attn_drop)
        self.norm = norm_layer(self.attn_dim) if scale_norm else nn.Identity()
        self.gate = nn.Linear(dim, self.attn_dim) if gated else None
        self.proj = nn.Linear(self.attn_dim, dim_out, bias=proj_bias)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x, attn_mask=None, is_causal=False):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v)
        else:
            q = q * self.scale
            attn = q @ k.transpose(-2, -1)
            attn = attn.softmax(dim=-1)
            attn = self.attn_drop(attn)
            x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, self.attn_dim)
        x = self.norm(x)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False, device=None, dtype=None):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0, scale_by_keep=True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return x


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qkv_bias=False, qk_norm=False, scale_attn_norm=False, scale_mlp_norm=False, proj_bias=True, proj_drop=0.0, attn_drop=0.0, init_values=None, drop_path=0.0, act_layer=nn.GELU, norm_layer=nn.LayerNorm, mlp_layer=Mlp, attn_layer=Attention, depth=0, qk_scale=None, drop=None, device=None, dtype=None):
        super().__init__()
        if drop is not None:
            proj_drop = drop
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, num_heads=num_heads, qkv_bias=qkv_bias, qk_norm=qk_norm, scale_norm=scale_attn_norm, proj_bias=proj_bias, attn_drop=attn_drop, proj_drop=proj_drop, norm_layer=norm_layer)
        self.ls1 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        self.drop_path1 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp = mlp_layer(in_features=dim, hidden_features=int(dim * mlp_ratio), act_layer=act_layer, norm_layer=norm_layer if scale_mlp_norm else None, bias=proj_bias, drop=proj_drop)
        self.ls2 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        self.drop_path2 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x, attn_mask=None):
        x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
        x = x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))
        return x


def _layer_norm_eps6(dim):
    return nn.LayerNorm(dim, eps=1e-6)


class VisionTransformer(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, num_classes=1000, global_pool="token", embed_dim=768, depth=12, num_heads=12, mlp_ratio=4.0, qkv_bias=True, qk_norm=False, init_values=None, class_token=True, no_embed_class=False, reg_tokens=0, pre_norm=False, fc_norm=None, dynamic_img_size=False, dynamic_img_pad=False, drop_rate=0.0, pos_drop_rate=0.0, patch_drop_rate=0.0, proj_drop_rate=0.0, attn_drop_rate=0.0, drop_path_rate=0.0, weight_init="", fix_init=False, embed_layer=PatchEmbed, norm_layer=None, act_layer=None, block_fn=Block, mlp_layer=Mlp, representation_size=None, distilled=False, qk_scale=None, hybrid_backbone=None, device=None, dtype=None):
        super().__init__()
        use_fc_norm = global_pool in ("avg", "avgmax", "max") if fc_norm is None else fc_norm
        norm_layer = norm_layer or _layer_norm_eps6
        act_layer = act_layer or nn.GELU
        self.num_classes = num_classes
        self.global_pool = global_pool
        self.num_features = self.embed_dim = embed_dim
        self.num_prefix_tokens = (1 if class_token else 0) + reg_tokens
        self.patch_embed = embed_layer(img_size=img_size, patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim, bias=not pre_norm)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim)) if class_token else None
        self.reg_token = nn.Parameter(torch.zeros(1, reg_tokens, embed_dim)) if reg_tokens else None
        embed_len = num_patches if no_embed_class else num_patches + self.num_prefix_tokens
        self.pos_embed = nn.Parameter(torch.zeros(1, embed_len, embed_dim))
        self.pos_drop = nn.Dropout(p=pos_drop_rate)
        self.norm_pre = norm_layer(embed_dim) if pre_norm else nn.Identity()
        self.blocks = nn.Sequential(*[block_fn(dim=embed_dim, num_heads=num_heads, mlp_ratio=mlp_ratio, qkv_bias=qkv_bias, qk_norm=qk_norm, init_values=init_values, proj_drop=proj_drop_rate, attn_drop=attn_drop_rate, drop_path=drop_path_rate * i / max(depth - 1, 1), norm_layer=norm_layer, act_layer=act_layer, mlp_layer=mlp_layer) for i in range(depth)])
        self.norm = norm_layer(embed_dim) if not use_fc_norm else nn.Identity()
        self.fc_norm = norm_layer(embed_dim) if use_fc_norm else nn.Identity()
        self.head_drop = nn.Dropout(drop_rate)
        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()

    def forward_features(self, x):
        x = self.patch_embed(x)
        if self.cls_token is not None:
            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = x + self.pos_embed
        x = self.pos_drop(x)
        x = self.norm_pre(x)
        x = self.blocks(x)
        x = self.norm(x)
        return x

    def forward_head(self, x, pre_logits=False):
        if self.global_pool == "avg":
            x = x[:, self.num_prefix_tokens:].mean(dim=1)
        elif self.global_pool:
            x = x[:, 0]
        x = self.fc_norm(x)
        x = self.head_drop(x)
        return x if pre_logits else self.head(x)

    def forward(self, x):
        x = self.forward_features(x)
        x = self.forward_head(x)
        return x


class NativeScaler:
    # timm/utils/cuda.py NativeScaler (timm 0.4-1.0): a GradScaler; __call__ scales the loss, runs its backward and,
    # when the step is due, steps the optimizer through the scaler (clipping the unscaled gradients in place).
    state_dict_key = "amp_scaler"

    def __init__(self, device="cuda"):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, clip_mode="norm", parameters=None, create_graph=False, need_update=True):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if need_update:
            self._scaler.step(optimizer)
            self._scaler.update()

    def state_dict(self):
        return self._scaler.state_dict()

    def load_state_dict(self, state_dict):
        self._scaler.load_state_dict(state_dict)


def _vit(patch_size, embed_dim, depth, num_heads, img_size=224, **kwargs):
    return VisionTransformer(img_size=kwargs.pop("img_size", img_size), patch_size=patch_size, embed_dim=embed_dim, depth=depth, num_heads=num_heads, **kwargs)


def vit_tiny_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 192, 12, 3, **kwargs)


def vit_small_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 384, 12, 6, **kwargs)


def vit_small_patch32_224(pretrained=False, **kwargs):
    return _vit(32, 384, 12, 6, **kwargs)


def vit_base_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 768, 12, 12, **kwargs)


def vit_base_patch32_224(pretrained=False, **kwargs):
    return _vit(32, 768, 12, 12, **kwargs)


def vit_base_patch16_384(pretrained=False, **kwargs):
    return _vit(16, 768, 12, 12, img_size=384, **kwargs)


def vit_large_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 1024, 24, 16, **kwargs)


def vit_large_patch14_224(pretrained=False, **kwargs):
    return _vit(14, 1024, 24, 16, **kwargs)


def vit_huge_patch14_224(pretrained=False, **kwargs):
    # Its only pretrained weights are a feature extractor (the mim_in22k tag): no classifier head by default.
    kwargs.setdefault("num_classes", 0)
    return _vit(14, 1280, 32, 16, **kwargs)


def deit_tiny_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 192, 12, 3, **kwargs)


def deit_small_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 384, 12, 6, **kwargs)


def deit_base_patch16_224(pretrained=False, **kwargs):
    return _vit(16, 768, 12, 12, **kwargs)
`;

/** timm's own architectures oomlens builds by name (create_model): the ViT and DeiT families, plain (timm 1.0 vision_transformer.py / deit.py defaults). */
const TIMM_NAMES = ['vit_tiny_patch16_224', 'vit_small_patch16_224', 'vit_small_patch32_224', 'vit_base_patch16_224', 'vit_base_patch32_224', 'vit_base_patch16_384', 'vit_large_patch16_224', 'vit_large_patch14_224', 'vit_huge_patch14_224', 'deit_tiny_patch16_224', 'deit_small_patch16_224', 'deit_base_patch16_224'];

/** Where programs import each class from (timm 0.4–1.0 module paths and the package's re-exports). */
const WHERE: Record<string, string[]> = {
  PatchEmbed: ['timm.layers', 'timm.layers.patch_embed', 'timm.models.layers', 'timm.models.layers.patch_embed', 'timm.models.vision_transformer'],
  Mlp: ['timm.layers', 'timm.layers.mlp', 'timm.models.layers', 'timm.models.layers.mlp', 'timm.models.vision_transformer'],
  Attention: ['timm.layers', 'timm.layers.attention', 'timm.models.vision_transformer'],
  Block: ['timm.models.vision_transformer'],
  VisionTransformer: ['timm.models.vision_transformer', 'timm.models'],
  LayerScale: ['timm.layers', 'timm.layers.layer_scale', 'timm.models.vision_transformer'],
  DropPath: ['timm.layers', 'timm.layers.drop', 'timm.models.layers', 'timm.models.layers.drop'],
  NativeScaler: ['timm.utils', 'timm.utils.cuda'],
};

/** Shown as the file of what this source builds (spans, breakdowns). */
export const TIMM_LAYERS_LABEL = 'timm layers (as oomlens models them)';

const SOURCE_MODULE = bundled('timm.layers', TIMM_LAYERS_LABEL, SOURCE);

/** Whether the pinned timm runs fused attention (timm ≥ 0.9 layers/config.py use_fused_attn); unpinned: a current release. */
function fusedAttention(it: Interpreter): boolean {
  const v = ((it.state.get('versions') as Record<string, string> | undefined) ?? {}).timm;
  const m = v ? /^(\d+)\.(\d+)/.exec(v) : null;
  return !m || Number(m[1]) > 0 || Number(m[2]) >= 9;
}

/** Where timm's registry functions are imported from (timm 0.4: timm.models.registry; 0.9+: timm.models._registry). */
const REGISTER = ['timm.models.register_model', 'timm.models.registry.register_model', 'timm.models._registry.register_model', 'timm.register_model'];
const CREATE = ['timm.create_model', 'timm.models.create_model', 'timm.models.factory.create_model', 'timm.models._factory.create_model'];
/** create_model's own keywords, not passed to the model's entry point (timm/models/_factory.py create_model). */
const CREATE_OWN = new Set(['pretrained_cfg', 'pretrained_cfg_overlay', 'checkpoint_path', 'cache_dir', 'scriptable', 'exportable', 'no_jit']);

export function installTimmLayers(it: Interpreter): void {
  const env = (i: Interpreter) => SOURCE_MODULE.env(i);

  // @register_model (timm/models/_registry.py): the decorated function, recorded under its name. create_model(name,
  // pretrained=False, **kwargs) (timm/models/_factory.py) calls that function with `pretrained` and the keywords that
  // are not None (`kwargs = {k: v for k, v in kwargs.items() if v is not None}`), its own keywords left out; a
  // name after a '.' is a pretrained tag (`vit_base_patch16_224.augreg_in21k`), a 'timm/' or 'hf-hub:' prefix a hub
  // name. Names the program registers are built by its own function; timm's own architectures are not modelled.
  const apply = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  it.state.set('applyDecorators', apply);
  for (const n of REGISTER) {
    apply.add(n);
    it.externs.set(n, (i, _s, c) => {
      const fn = c.args[0];
      if (fn?.t === 'func') {
        const reg = (i.state.get('timmRegistry') as Map<string, Value> | undefined) ?? new Map<string, Value>();
        reg.set(fn.name, fn);
        i.state.set('timmRegistry', reg);
      }
      return fn ?? unknown('register_model of nothing');
    });
  }
  for (const n of CREATE) {
    it.externs.set(n, (i, _s, c, node) => {
      const nameV = c.args[0] ?? c.kw.get('model_name');
      if (nameV?.t !== 'str') return unknown(`timm.create_model of a name that is not known (${nameV ? nameV.t : 'none'})`, i.span(node));
      const name = nameV.v.replace(/^(hf-hub:|hf_hub:|timm\/)/, '').split('.')[0];
      let fn = ((i.state.get('timmRegistry') as Map<string, Value> | undefined) ?? new Map()).get(name);
      if (!fn && TIMM_NAMES.includes(name)) { try { fn = env(i)?.vars.get(name); } catch { fn = undefined; } }
      if (!fn) return i.note(`timm.create_model("${nameV.v}"): this timm architecture is not modelled by oomlens (the ViT and DeiT families are, and a model the program registers with @register_model)`, node);
      const kw = new Map<string, Value>();
      kw.set('pretrained', c.args[1] ?? c.kw.get('pretrained') ?? { t: 'bool', v: false });
      for (const [k, v] of c.kw) if (k !== 'model_name' && k !== 'pretrained' && !CREATE_OWN.has(k) && v.t !== 'none') kw.set(k, v);
      return i.call(fn, { args: [], kw }, node);
    });
  }
  for (const n of ['timm.layers.config.use_fused_attn', 'timm.layers.use_fused_attn']) it.externs.set(n, (i) => ({ t: 'bool', v: fusedAttention(i) }));
  for (const [local, modules] of Object.entries(WHERE)) for (const mod of modules) SOURCE_MODULE.expose(it, `${mod}.${local}`, local);
}
