/**
 * diffusers models: the parameter arithmetic of `UNet2DConditionModel` and
 * `AutoencoderKL` from their config.json, and a shipped table of the configs
 * of popular Stable Diffusion checkpoints (never the network).
 *
 * Each function rebuilds the modules the model's `__init__` creates, in the
 * order it creates them (huggingface/diffusers 0.42.1,
 * src/diffusers/models/unets/unet_2d_condition.py, unets/unet_2d_blocks.py,
 * resnet.py, attention.py, attention_processor.py, embeddings.py,
 * transformers/transformer_2d.py, downsampling.py, upsampling.py,
 * autoencoders/autoencoder_kl.py, autoencoders/vae.py), so a checkpoint's size
 * follows from its config alone. test/catalog/diffusers.test.ts checks every
 * table entry against diffusers itself (the model built from the same config
 * on the meta device, its parameters counted).
 *
 * A config option that changes the modules and is not modelled here (another
 * block type, a Fourier time embedding, scale-shift time norms, class
 * embeddings ...) throws: the size is unknown, never a guess.
 */
import type { ModuleSize } from '../transformers/catalog';
import type { LinearModule } from '../transformers/linears';

export type DiffusersConfig = Record<string, unknown>;

/** Sizes by top-level module, and every nn.Linear with its full name (what peft's target_modules match). */
export interface DiffusersSizes { modules: ModuleSize[]; linears: LinearModule[] }

class Unsupported extends Error {}

const conv = (i: number, o: number, k: number, bias = true) => i * o * k * k + (bias ? o : 0);
const groupNorm = (c: number) => 2 * c;
const layerNorm = (c: number) => 2 * c;

/** Collects parameters and Linear layers under a module path. */
class Acc {
  params = 0;
  constructor(readonly linears: LinearModule[]) {}
  add(n: number): void { this.params += n; }
  lin(name: string, i: number, o: number, bias: boolean): void {
    this.params += i * o + (bias ? o : 0);
    this.linears.push({ name, in: i, out: o, bias });
  }
}

function num(c: DiffusersConfig, k: string, dflt?: number): number {
  const v = c[k];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === undefined || v === null) { if (dflt !== undefined) return dflt; }
  throw new Unsupported(`config field ${k} is ${v === undefined ? 'missing' : 'not a number'}`);
}
function list(c: DiffusersConfig, k: string, len: number, dflt?: unknown): unknown[] {
  const v = c[k] ?? dflt;
  if (Array.isArray(v)) { if (v.length !== len) throw new Unsupported(`config field ${k} has ${v.length} entries for ${len} blocks`); return v; }
  return Array(len).fill(v);
}
function ints(c: DiffusersConfig, k: string, len: number, dflt?: unknown): number[] {
  const v = list(c, k, len, dflt);
  if (!v.every((x) => typeof x === 'number' && Number.isInteger(x) && x > 0)) throw new Unsupported(`config field ${k} is not a positive integer per block`);
  return v as number[];
}
/** A config option whose non-default values change the modules in a way not modelled here. */
function only(c: DiffusersConfig, k: string, allowed: unknown[]): void {
  const v = c[k] ?? null;
  if (!allowed.some((a) => a === v)) throw new Unsupported(`${k}=${JSON.stringify(v)} is not modelled`);
}

/**
 * ResnetBlock2D (resnet.py): norm1 GroupNorm(in), conv1 3×3 in→out, time_emb_proj Linear(temb→out) when a time
 * embedding is given (time_embedding_norm "default"), norm2 GroupNorm(out), conv2 3×3 out→out, conv_shortcut 1×1
 * in→out when in ≠ out.
 */
function resnet(a: Acc, name: string, cin: number, cout: number, temb: number | null): void {
  a.add(groupNorm(cin) + conv(cin, cout, 3));
  if (temb !== null) a.lin(`${name}.time_emb_proj`, temb, cout, true);
  a.add(groupNorm(cout) + conv(cout, cout, 3));
  if (cin !== cout) a.add(conv(cin, cout, 1));
}

/**
 * Attention (attention_processor.py Attention.__init__): to_q Linear(query→inner), to_k / to_v
 * Linear(cross or query→inner), to_out.0 Linear(inner→query, out_bias=True); `bias` for q/k/v; a GroupNorm on
 * the input when norm_num_groups is given (the VAE's mid-block attention).
 */
function attention(a: Acc, name: string, query: number, heads: number, dimHead: number, cross: number | null, bias: boolean, groupNormGroups = false): void {
  const inner = heads * dimHead;
  if (groupNormGroups) a.add(groupNorm(query));
  a.lin(`${name}.to_q`, query, inner, bias);
  a.lin(`${name}.to_k`, cross ?? query, inner, bias);
  a.lin(`${name}.to_v`, cross ?? query, inner, bias);
  a.lin(`${name}.to_out.0`, inner, query, true);
}

/**
 * Transformer2DModel with continuous input (transformers/transformer_2d.py `_init_continuous_input`): norm
 * GroupNorm(in), proj_in Linear or 1×1 Conv in→inner (use_linear_projection), `layers` BasicTransformerBlocks
 * (attention.py: norm1 LayerNorm, attn1 self-attention without q/k/v bias, norm2 + attn2 cross-attention,
 * norm3, ff FeedForward GEGLU: proj Linear(d→2·4d), out Linear(4d→d)), proj_out inner→in.
 */
function transformer2d(a: Acc, name: string, cin: number, heads: number, dimHead: number, layers: number, cross: number, linearProj: boolean): void {
  const inner = heads * dimHead;
  a.add(groupNorm(cin));
  if (linearProj) a.lin(`${name}.proj_in`, cin, inner, true); else a.add(conv(cin, inner, 1));
  for (let l = 0; l < layers; l++) {
    const b = `${name}.transformer_blocks.${l}`;
    a.add(layerNorm(inner));
    attention(a, `${b}.attn1`, inner, heads, dimHead, null, false);
    a.add(layerNorm(inner));
    attention(a, `${b}.attn2`, inner, heads, dimHead, cross, false);
    a.add(layerNorm(inner));
    const ffInner = inner * 4;
    a.lin(`${b}.ff.net.0.proj`, inner, ffInner * 2, true);
    a.lin(`${b}.ff.net.2`, ffInner, inner, true);
  }
  if (linearProj) a.lin(`${name}.proj_out`, inner, cin, true); else a.add(conv(inner, cin, 1));
}

/** TimestepEmbedding (embeddings.py): linear_1 Linear(in→dim), linear_2 Linear(dim→dim), both with bias. */
function timestepEmbedding(a: Acc, name: string, cin: number, dim: number): void {
  a.lin(`${name}.linear_1`, cin, dim, true);
  a.lin(`${name}.linear_2`, dim, dim, true);
}

/** UNet2DConditionModel (unets/unet_2d_condition.py `__init__`) from its config. */
export function unet2dConditionSizes(c: DiffusersConfig): DiffusersSizes {
  return unetLike(c, false);
}

/**
 * ControlNetModel (models/controlnets/controlnet.py `__init__`): the UNet's encoder half (conv_in, time and added
 * embeddings, down blocks, mid block) plus controlnet_cond_embedding (conv_in 3×3 from conditioning_channels, then
 * per step a 3×3 conv and a 3×3 stride-2 conv, conv_out 3×3 to block_out_channels[0]), a zero 1×1 conv after
 * conv_in, after every down-block layer and downsampler (controlnet_down_blocks) and after the mid block; its time
 * embedding is 4 · block_out_channels[0] wide. `ControlNetModel.from_unet(unet)` builds it from the UNet's config.
 */
export function controlNetSizes(c: DiffusersConfig): DiffusersSizes {
  return unetLike(c, true);
}

function unetLike(c: DiffusersConfig, controlnet: boolean): DiffusersSizes {
  for (const [k, allowed] of [
    ['time_embedding_type', ['positional', null]], ['resnet_time_scale_shift', ['default', null]], ['class_embed_type', [null]],
    ['num_class_embeds', [null]], ['encoder_hid_dim_type', [null]], ['encoder_hid_dim', [null]], ['time_cond_proj_dim', [null]],
    ['attention_type', ['default', null]], ['class_embeddings_concat', [false, null]], ['dual_cross_attention', [false, null]],
    ['only_cross_attention', [false, null]], ['mid_block_only_cross_attention', [false, null]], ['conv_in_kernel', [3, null]],
    ['conv_out_kernel', [3, null]], ['addition_embed_type', [null, 'text_time']], ['num_attention_heads', [null]],
    ['reverse_transformer_layers_per_block', [null]], ['cross_attention_norm', [null]], ['resnet_skip_time_act', [false, null]],
  ] as [string, unknown[]][]) only(c, k, allowed);
  const down = c.down_block_types ?? ['CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'DownBlock2D'];
  const up = c.up_block_types ?? ['UpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D'];
  if (!Array.isArray(down) || !Array.isArray(up) || (!controlnet && down.length !== up.length)) throw new Unsupported('down_block_types / up_block_types are not two lists of one length');
  const n = down.length;
  const boc = ints(c, 'block_out_channels', n, [320, 640, 1280, 1280]);
  const lpb = ints(c, 'layers_per_block', n, 2);
  const tlpb = ints(c, 'transformer_layers_per_block', n, 1);
  // `num_attention_heads = num_attention_heads or attention_head_dim` (a naming issue kept for compatibility:
  // the config's attention_head_dim is the number of heads; each block's head size is out_channels // heads).
  const heads = ints(c, 'attention_head_dim', n, 8);
  const cross = ints(c, 'cross_attention_dim', n, 1280);
  const groups = c.norm_num_groups === null ? null : num(c, 'norm_num_groups', 32);
  const linearProj = c.use_linear_projection === true;
  const cin = num(c, 'in_channels', 4);
  const cout = num(c, 'out_channels', 4);
  const midType = c.mid_block_type === undefined ? 'UNetMidBlock2DCrossAttn' : c.mid_block_type;
  const linears: LinearModule[] = [];
  const modules: ModuleSize[] = [];
  const mod = (name: string, build: (a: Acc) => void) => { const a = new Acc(linears); build(a); if (a.params > 0) modules.push({ name, params: a.params }); };

  mod('conv_in', (a) => a.add(conv(cin, boc[0], 3)));
  // _set_time_proj, positional: Timesteps(block_out_channels[0]) has no parameters; time_embed_dim = time_embedding_dim or 4·boc[0].
  const temb = c.time_embedding_dim == null || controlnet ? boc[0] * 4 : num(c, 'time_embedding_dim');
  mod('time_embedding', (a) => timestepEmbedding(a, 'time_embedding', boc[0], temb));
  if (c.addition_embed_type === 'text_time') {
    // _set_add_embedding "text_time": add_time_proj Timesteps (no parameters), add_embedding TimestepEmbedding(projection_class_embeddings_input_dim → temb).
    mod('add_embedding', (a) => timestepEmbedding(a, 'add_embedding', num(c, 'projection_class_embeddings_input_dim'), temb));
  }
  if (controlnet) {
    // ControlNetConditioningEmbedding(block_out_channels[0], conditioning_channels, conditioning_embedding_out_channels).
    const cc = num(c, 'conditioning_channels', 3);
    const ce = c.conditioning_embedding_out_channels == null ? [16, 32, 96, 256] : (c.conditioning_embedding_out_channels as unknown[]);
    if (!ce.every((x) => typeof x === 'number' && x > 0)) throw new Unsupported('conditioning_embedding_out_channels is not a list of channel counts');
    const co = ce as number[];
    mod('controlnet_cond_embedding', (a) => {
      a.add(conv(cc, co[0], 3));
      for (let i = 0; i + 1 < co.length; i++) a.add(conv(co[i], co[i], 3) + conv(co[i], co[i + 1], 3));
      a.add(conv(co[co.length - 1], boc[0], 3));
    });
  }
  const crossBlock = (a: Acc, name: string, ch: number, i: number) => {
    if (ch % heads[i] !== 0) throw new Unsupported(`out_channels ${ch} is not a multiple of ${heads[i]} heads`);
    transformer2d(a, name, ch, heads[i], Math.floor(ch / heads[i]), tlpb[i], cross[i], linearProj);
  };
  let out = boc[0];
  for (let i = 0; i < n; i++) {
    const input = out;
    out = boc[i];
    const t = down[i];
    if (t !== 'CrossAttnDownBlock2D' && t !== 'DownBlock2D') throw new Unsupported(`down block ${String(t)} is not modelled`);
    mod(`down_blocks.${i}`, (a) => {
      for (let l = 0; l < lpb[i]; l++) {
        resnet(a, `down_blocks.${i}.resnets.${l}`, l === 0 ? input : out, out, temb);
        if (t === 'CrossAttnDownBlock2D') crossBlock(a, `down_blocks.${i}.attentions.${l}`, out, i);
      }
      // Downsample2D(out, use_conv=True): a 3×3 stride-2 convolution, except after the last block.
      if (i < n - 1) a.add(conv(out, out, 3));
    });
  }
  if (controlnet) {
    // controlnet_down_blocks: a zero 1×1 conv after conv_in, after each down-block layer and after each downsampler.
    mod('controlnet_down_blocks', (a) => {
      a.add(conv(boc[0], boc[0], 1));
      for (let i = 0; i < n; i++) for (let l = 0; l < lpb[i] + (i < n - 1 ? 1 : 0); l++) a.add(conv(boc[i], boc[i], 1));
    });
  }
  const last = boc[n - 1];
  if (midType === 'UNetMidBlock2DCrossAttn') {
    // UNetMidBlock2DCrossAttn (unet_2d_blocks.py), num_layers 1: resnet, then attention + resnet.
    mod('mid_block', (a) => {
      resnet(a, 'mid_block.resnets.0', last, last, temb);
      crossBlock(a, 'mid_block.attentions.0', last, n - 1);
      resnet(a, 'mid_block.resnets.1', last, last, temb);
    });
  } else if (midType !== null) {
    throw new Unsupported(`mid block ${String(midType)} is not modelled`);
  }
  if (controlnet) {
    mod('controlnet_mid_block', (a) => a.add(conv(last, last, 1)));
    return { modules, linears };
  }
  const rev = [...boc].reverse();
  const revHeads = [...heads].reverse();
  const revLayers = [...lpb].reverse();
  const revCross = [...cross].reverse();
  const revT = [...tlpb].reverse();
  out = rev[0];
  for (let i = 0; i < n; i++) {
    const prev = out;
    out = rev[i];
    const input = rev[Math.min(i + 1, n - 1)];
    const t = up[i];
    if (t !== 'CrossAttnUpBlock2D' && t !== 'UpBlock2D') throw new Unsupported(`up block ${String(t)} is not modelled`);
    const layers = revLayers[i] + 1;
    mod(`up_blocks.${i}`, (a) => {
      for (let l = 0; l < layers; l++) {
        // CrossAttnUpBlock2D / UpBlock2D: the skip connection's channels join the resnet's input.
        const skip = l === layers - 1 ? input : out;
        const rin = l === 0 ? prev : out;
        resnet(a, `up_blocks.${i}.resnets.${l}`, rin + skip, out, temb);
        if (t === 'CrossAttnUpBlock2D') {
          if (out % revHeads[i] !== 0) throw new Unsupported(`out_channels ${out} is not a multiple of ${revHeads[i]} heads`);
          transformer2d(a, `up_blocks.${i}.attentions.${l}`, out, revHeads[i], Math.floor(out / revHeads[i]), revT[i], revCross[i], linearProj);
        }
      }
      // Upsample2D(out, use_conv=True): a 3×3 convolution, except after the last block.
      if (i < n - 1) a.add(conv(out, out, 3));
    });
  }
  if (groups !== null) mod('conv_norm_out', (a) => a.add(groupNorm(boc[0])));
  mod('conv_out', (a) => a.add(conv(boc[0], cout, 3)));
  return { modules, linears };
}

/**
 * UNetMidBlock2D as the VAE builds it (unet_2d_blocks.py, temb_channels None, add_attention): resnet, then an
 * Attention with one head of the block's width (GroupNorm on its input, q/k/v with bias) and a resnet.
 */
function vaeMid(a: Acc, name: string, ch: number, attn: boolean): void {
  resnet(a, `${name}.resnets.0`, ch, ch, null);
  if (attn) attention(a, `${name}.attentions.0`, ch, 1, ch, null, true, true);
  resnet(a, `${name}.resnets.1`, ch, ch, null);
}

/** AutoencoderKL (autoencoders/autoencoder_kl.py; Encoder and Decoder in autoencoders/vae.py) from its config. */
export function autoencoderKLSizes(c: DiffusersConfig): DiffusersSizes {
  only(c, 'use_quant_conv', [true, false, null]);
  const down = c.down_block_types ?? ['DownEncoderBlock2D'];
  const up = c.up_block_types ?? ['UpDecoderBlock2D'];
  if (!Array.isArray(down) || !Array.isArray(up) || down.length !== up.length) throw new Unsupported('down_block_types / up_block_types are not two lists of one length');
  if (!down.every((t) => t === 'DownEncoderBlock2D') || !up.every((t) => t === 'UpDecoderBlock2D')) throw new Unsupported('a VAE block type other than DownEncoderBlock2D / UpDecoderBlock2D is not modelled');
  const n = down.length;
  const boc = ints(c, 'block_out_channels', n, [64]);
  const lpb = num(c, 'layers_per_block', 1);
  const cin = num(c, 'in_channels', 3);
  const cout = num(c, 'out_channels', 3);
  const latent = num(c, 'latent_channels', 4);
  const midAttn = c.mid_block_add_attention !== false;
  const linears: LinearModule[] = [];
  const modules: ModuleSize[] = [];
  const mod = (name: string, build: (a: Acc) => void) => { const a = new Acc(linears); build(a); if (a.params > 0) modules.push({ name, params: a.params }); };
  // Encoder: conv_in, DownEncoderBlock2D × n (resnets without a time embedding, Downsample2D padding 0 but for the
  // last), the mid block, conv_norm_out, conv_out to 2·latent channels (double_z).
  mod('encoder.conv_in', (a) => a.add(conv(cin, boc[0], 3)));
  let out = boc[0];
  for (let i = 0; i < n; i++) {
    const input = out;
    out = boc[i];
    mod(`encoder.down_blocks.${i}`, (a) => {
      for (let l = 0; l < lpb; l++) resnet(a, `encoder.down_blocks.${i}.resnets.${l}`, l === 0 ? input : out, out, null);
      if (i < n - 1) a.add(conv(out, out, 3));
    });
  }
  const last = boc[n - 1];
  mod('encoder.mid_block', (a) => vaeMid(a, 'encoder.mid_block', last, midAttn));
  mod('encoder.conv_out', (a) => a.add(groupNorm(last) + conv(last, 2 * latent, 3)));
  if (c.use_quant_conv !== false) mod('quant_conv', (a) => a.add(conv(2 * latent, 2 * latent, 1)));
  if (c.use_post_quant_conv !== false) mod('post_quant_conv', (a) => a.add(conv(latent, latent, 1)));
  // Decoder: conv_in from the latent, the mid block, UpDecoderBlock2D × n (layers_per_block + 1 resnets each,
  // Upsample2D but for the last), conv_norm_out, conv_out.
  mod('decoder.conv_in', (a) => a.add(conv(latent, last, 3)));
  mod('decoder.mid_block', (a) => vaeMid(a, 'decoder.mid_block', last, midAttn));
  const rev = [...boc].reverse();
  out = rev[0];
  for (let i = 0; i < n; i++) {
    const prev = out;
    out = rev[i];
    mod(`decoder.up_blocks.${i}`, (a) => {
      for (let l = 0; l < lpb + 1; l++) resnet(a, `decoder.up_blocks.${i}.resnets.${l}`, l === 0 ? prev : out, out, null);
      if (i < n - 1) a.add(conv(out, out, 3));
    });
  }
  mod('decoder.conv_out', (a) => a.add(groupNorm(boc[0]) + conv(boc[0], cout, 3)));
  return { modules, linears };
}

/**
 * StableDiffusionSafetyChecker (diffusers pipelines/stable_diffusion/safety_checker.py, a transformers
 * PreTrainedModel): vision_model = CLIPVisionModel(vision_config) (embeddings: class_embedding h, patch_embedding
 * Conv2d(C → h, p × p, no bias), position_embedding (patches + 1) × h; pre_layrnorm; layers of q/k/v/out_proj with
 * bias, layer_norm1/2, fc1/fc2; post_layernorm), visual_projection Linear(h → projection_dim, no bias),
 * concept_embeds 17 × projection_dim, special_care_embeds 3 × projection_dim, and their weights (17 + 3).
 */
export function safetyCheckerSizes(c: DiffusersConfig): DiffusersSizes {
  const v = (c.vision_config ?? {}) as DiffusersConfig;
  const h = num(v, 'hidden_size', 768);
  const I = num(v, 'intermediate_size', 3072);
  const L = num(v, 'num_hidden_layers', 12);
  const ch = num(v, 'num_channels', 3);
  const p = num(v, 'patch_size', 32);
  const img = num(v, 'image_size', 224);
  const proj = num(c, 'projection_dim', 512);
  const layer = 4 * (h * h + h) + 2 * (2 * h) + (h * I + I) + (I * h + h);
  const embeddings = h + ch * h * p * p + ((Math.floor(img / p) ** 2) + 1) * h;
  return {
    modules: [
      { name: 'vision_model.embeddings', params: embeddings },
      { name: 'vision_model.pre_layrnorm', params: 2 * h },
      ...Array.from({ length: L }, (_, i) => ({ name: `vision_model.encoder.layers.${i}`, params: layer })),
      { name: 'vision_model.post_layernorm', params: 2 * h },
      { name: 'visual_projection', params: h * proj },
      { name: 'concept_embeds', params: 17 * proj + 3 * proj + 17 + 3 },
    ],
    linears: [],
  };
}

/** The diffusers model classes sized here, by class name. */
export const DIFFUSERS_CLASSES: Record<string, (c: DiffusersConfig) => DiffusersSizes> = {
  UNet2DConditionModel: unet2dConditionSizes,
  AutoencoderKL: autoencoderKLSizes,
  StableDiffusionSafetyChecker: safetyCheckerSizes,
  ControlNetModel: controlNetSizes,
};

/** Sizes of a diffusers class from a config, or why not. */
export function diffusersSizes(className: string, c: DiffusersConfig): DiffusersSizes | { why: string } {
  const f = DIFFUSERS_CLASSES[className];
  if (!f) return { why: `diffusers ${className} has no parameter formula in oomlens` };
  try {
    return f(c);
  } catch (e) {
    if (e instanceof Unsupported) return { why: `${className}: ${e.message}` };
    throw e;
  }
}

// ---------------------------------------------------------------------------
// The table: config.json of each component folder of popular checkpoints, as on the Hugging Face Hub
// (huggingface.co/<id>/blob/main/<subfolder>/config.json), with only the fields that size the model.

export interface ComponentEntry { id: string; subfolder: string; className: string; config: DiffusersConfig; source: string }

const SD1_UNET: DiffusersConfig = {
  attention_head_dim: 8, block_out_channels: [320, 640, 1280, 1280], cross_attention_dim: 768,
  down_block_types: ['CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'DownBlock2D'],
  up_block_types: ['UpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D'],
  in_channels: 4, out_channels: 4, layers_per_block: 2, norm_num_groups: 32, sample_size: 64,
};
const SD2_UNET: DiffusersConfig = { ...SD1_UNET, attention_head_dim: [5, 10, 20, 20], cross_attention_dim: 1024, use_linear_projection: true, sample_size: 96 };
const SDXL_UNET: DiffusersConfig = {
  addition_embed_type: 'text_time', addition_time_embed_dim: 256, projection_class_embeddings_input_dim: 2816,
  attention_head_dim: [5, 10, 20], block_out_channels: [320, 640, 1280], cross_attention_dim: 2048,
  down_block_types: ['DownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D'],
  up_block_types: ['CrossAttnUpBlock2D', 'CrossAttnUpBlock2D', 'UpBlock2D'],
  in_channels: 4, out_channels: 4, layers_per_block: 2, norm_num_groups: 32, sample_size: 128,
  transformer_layers_per_block: [1, 2, 10], use_linear_projection: true,
};
const SD_VAE: DiffusersConfig = {
  block_out_channels: [128, 256, 512, 512], down_block_types: Array(4).fill('DownEncoderBlock2D'), up_block_types: Array(4).fill('UpDecoderBlock2D'),
  in_channels: 3, out_channels: 3, latent_channels: 4, layers_per_block: 2, norm_num_groups: 32,
};

/** Text encoders (transformers CLIP configs, model_type clip_text_model), config.json of the text_encoder folders. */
const CLIP_L = { architectures: ['CLIPTextModel'], model_type: 'clip_text_model', vocab_size: 49408, hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, num_attention_heads: 12, max_position_embeddings: 77, projection_dim: 768, hidden_act: 'quick_gelu' };
const CLIP_H = { architectures: ['CLIPTextModel'], model_type: 'clip_text_model', vocab_size: 49408, hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 23, num_attention_heads: 16, max_position_embeddings: 77, projection_dim: 512, hidden_act: 'gelu' };
const CLIP_BIGG = { architectures: ['CLIPTextModelWithProjection'], model_type: 'clip_text_model', vocab_size: 49408, hidden_size: 1280, intermediate_size: 5120, num_hidden_layers: 32, num_attention_heads: 20, max_position_embeddings: 77, projection_dim: 1280, hidden_act: 'gelu' };

const COMPONENTS: ComponentEntry[] = [];
function addRepo(ids: string[], parts: [string, string, DiffusersConfig][]): void {
  for (const id of ids) for (const [subfolder, className, config] of parts) COMPONENTS.push({ id, subfolder, className, config, source: `huggingface.co/${id} ${subfolder ? `${subfolder}/` : ''}config.json` });
}
/** The SD 1.x safety checker's config.json (a CLIPConfig: ViT-L/14 vision tower, projection_dim 768). */
const SAFETY_CHECKER: DiffusersConfig = { projection_dim: 768, vision_config: { hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, num_attention_heads: 16, patch_size: 14, image_size: 224 } };
addRepo(['runwayml/stable-diffusion-v1-5', 'stable-diffusion-v1-5/stable-diffusion-v1-5', 'CompVis/stable-diffusion-v1-4', 'benjamin-paine/stable-diffusion-v1-5'], [
  ['unet', 'UNet2DConditionModel', SD1_UNET], ['vae', 'AutoencoderKL', SD_VAE], ['text_encoder', 'CLIPTextModel', CLIP_L],
  ['safety_checker', 'StableDiffusionSafetyChecker', SAFETY_CHECKER],
]);
addRepo(['stabilityai/stable-diffusion-2-1', 'stabilityai/stable-diffusion-2', 'stabilityai/stable-diffusion-2-1-base', 'stabilityai/stable-diffusion-2-base'], [
  ['unet', 'UNet2DConditionModel', SD2_UNET], ['vae', 'AutoencoderKL', SD_VAE], ['text_encoder', 'CLIPTextModel', CLIP_H],
]);
addRepo(['stabilityai/stable-diffusion-xl-base-1.0'], [
  ['unet', 'UNet2DConditionModel', SDXL_UNET], ['vae', 'AutoencoderKL', SD_VAE],
  ['text_encoder', 'CLIPTextModel', CLIP_L], ['text_encoder_2', 'CLIPTextModelWithProjection', CLIP_BIGG],
]);

/**
 * The components a pipeline repository's model_index.json lists, as the table knows them; `complete` says whether
 * the table holds every model of that repository (the SD 1.x repositories list a safety checker, SD 2.x and XL
 * ones list none in the table, so whether they ship one is not claimed: complete false).
 */
export function repoComponents(id: string): { entries: ComponentEntry[]; complete: boolean } | undefined {
  const unet = lookupComponent(id, 'unet');
  if (!unet) return undefined;
  const entries = COMPONENTS.filter((e) => e.id === unet.id);
  return { entries, complete: entries.some((e) => e.subfolder === 'safety_checker') || entries.some((e) => e.subfolder === 'text_encoder_2') };
}

// Inpainting checkpoints: the same models with a UNet that takes 9 input channels (4 latent + 4 masked-image latent + 1 mask).
addRepo(['runwayml/stable-diffusion-inpainting', 'stable-diffusion-v1-5/stable-diffusion-inpainting'], [
  ['unet', 'UNet2DConditionModel', { ...SD1_UNET, in_channels: 9 }], ['vae', 'AutoencoderKL', SD_VAE], ['text_encoder', 'CLIPTextModel', CLIP_L],
  ['safety_checker', 'StableDiffusionSafetyChecker', SAFETY_CHECKER],
]);
addRepo(['stabilityai/stable-diffusion-2-inpainting'], [
  ['unet', 'UNet2DConditionModel', { ...SD2_UNET, in_channels: 9, sample_size: 64 }], ['vae', 'AutoencoderKL', SD_VAE], ['text_encoder', 'CLIPTextModel', CLIP_H],
]);

// ControlNets for SD 1.5 (config.json at the repository's root: the SD 1.x UNet's encoder settings, conditioning
// embedding (16, 32, 96, 256) from 3 channels).
const SD15_CONTROLNET: DiffusersConfig = { ...SD1_UNET, up_block_types: undefined, conditioning_embedding_out_channels: [16, 32, 96, 256], conditioning_channels: 3 };
addRepo([
  ...['canny', 'depth', 'openpose', 'scribble', 'seg', 'hed', 'mlsd', 'normal'].map((k) => `lllyasviel/sd-controlnet-${k}`),
  ...['canny', 'openpose', 'lineart', 'softedge', 'scribble', 'seg', 'normalbae', 'inpaint', 'mlsd'].map((k) => `lllyasviel/control_v11p_sd15_${k}`),
  'lllyasviel/control_v11f1p_sd15_depth',
], [['', 'ControlNetModel', SD15_CONTROLNET]]);

// Stand-alone VAEs loaded with AutoencoderKL.from_pretrained(id) (no subfolder): fine-tunes of the SD VAE with its
// architecture (config.json at the repository's root).
addRepo(['madebyollin/sdxl-vae-fp16-fix', 'stabilityai/sd-vae-ft-mse', 'stabilityai/sd-vae-ft-ema'], [['', 'AutoencoderKL', SD_VAE]]);

/** Every component entry (for the test that checks them against diffusers and transformers). */
export const DIFFUSERS_COMPONENTS: readonly ComponentEntry[] = COMPONENTS;

/**
 * The config of `<id>/<subfolder>` in the table: ids compare case-insensitively with trailing slashes and a
 * huggingface.co prefix removed, and an id under another organisation with the same repository name (a re-upload)
 * matches; the subfolder must match exactly.
 */
export function lookupComponent(id: string, subfolder: string): ComponentEntry | undefined {
  const key = id.trim().replace(/\/+$/, '').replace(/^https?:\/\/huggingface\.co\//i, '').toLowerCase();
  const sub = subfolder.replace(/^\/+|\/+$/g, '');
  const inSub = COMPONENTS.filter((e) => e.subfolder === sub);
  return inSub.find((e) => e.id.toLowerCase() === key) ?? (key.includes('/') ? inSub.find((e) => e.id.toLowerCase().split('/')[1] === key.split('/')[1]) : undefined);
}
