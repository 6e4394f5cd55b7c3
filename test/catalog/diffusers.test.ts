// The diffusers parameter formulas against diffusers itself: each config is
// built by diffusers on the meta device (test/python/diffusers_param_counts.py)
// and its parameters counted and its Linear layers listed; the table's text
// encoders are built by transformers the same way. Small configs exercise the
// options (linear projections, per-block heads, transformer depth, the
// text_time embedding, no mid-block attention); the table's Stable Diffusion
// checkpoints are checked in full.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIFFUSERS_COMPONENTS, diffusersSizes, lookupComponent, type DiffusersConfig } from '../../server/src/frameworks/diffusers/catalog';
import { moduleSizes, type HfConfig } from '../../server/src/frameworks/transformers/catalog';
import { runPythonJson } from '../python/venv';

const SMALL_UNET = {
  block_out_channels: [32, 64], attention_head_dim: 4, cross_attention_dim: 24, norm_num_groups: 8, layers_per_block: 1,
  down_block_types: ['CrossAttnDownBlock2D', 'DownBlock2D'], up_block_types: ['UpBlock2D', 'CrossAttnUpBlock2D'],
};
const CASES: { className: string; config: DiffusersConfig }[] = [
  { className: 'UNet2DConditionModel', config: SMALL_UNET },
  { className: 'UNet2DConditionModel', config: { ...SMALL_UNET, use_linear_projection: true, attention_head_dim: [2, 8], layers_per_block: [1, 3], transformer_layers_per_block: [2, 1], in_channels: 9 } },
  { className: 'UNet2DConditionModel', config: { ...SMALL_UNET, block_out_channels: [32, 64, 96], attention_head_dim: [2, 4, 8], down_block_types: ['DownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D'], up_block_types: ['CrossAttnUpBlock2D', 'CrossAttnUpBlock2D', 'UpBlock2D'], addition_embed_type: 'text_time', addition_time_embed_dim: 16, projection_class_embeddings_input_dim: 56, transformer_layers_per_block: [1, 2, 3] } },
  { className: 'UNet2DConditionModel', config: { ...SMALL_UNET, time_embedding_dim: 40, out_channels: 8 } },
  { className: 'ControlNetModel', config: { ...SMALL_UNET, up_block_types: undefined, cross_attention_dim: 24, layers_per_block: 2, conditioning_embedding_out_channels: [8, 16, 24] } },
  { className: 'ControlNetModel', config: { ...SMALL_UNET, up_block_types: undefined, block_out_channels: [32, 64, 96], attention_head_dim: [2, 4, 8], down_block_types: ['DownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D'], addition_embed_type: 'text_time', addition_time_embed_dim: 16, projection_class_embeddings_input_dim: 56, transformer_layers_per_block: [1, 2, 3], use_linear_projection: true } },
  { className: 'AutoencoderKL', config: { block_out_channels: [16, 32, 32], down_block_types: Array(3).fill('DownEncoderBlock2D'), up_block_types: Array(3).fill('UpDecoderBlock2D'), norm_num_groups: 8, layers_per_block: 1, latent_channels: 8 } },
  { className: 'AutoencoderKL', config: { block_out_channels: [16, 32], down_block_types: Array(2).fill('DownEncoderBlock2D'), up_block_types: Array(2).fill('UpDecoderBlock2D'), norm_num_groups: 8, mid_block_add_attention: false, use_quant_conv: false, use_post_quant_conv: false } },
];

const ours = (className: string, config: DiffusersConfig) => {
  const s = diffusersSizes(className, config);
  if ('why' in s) throw new Error(s.why);
  return s;
};

test('diffusers parameter formulas equal diffusers on small configs of every option, Linear layers included', () => {
  const truth = runPythonJson<({ params: number; linears: [string, number, number, boolean][] } | { error: string })[]>('diffusers_param_counts.py', CASES.map((c) => ({ class: c.className, config: c.config })));
  CASES.forEach((c, i) => {
    const t = truth[i];
    if ('error' in t) assert.fail(`diffusers could not build case ${i}: ${t.error}`);
    const s = ours(c.className, c.config);
    assert.equal(s.modules.reduce((a, m) => a + m.params, 0), t.params, `case ${i} (${c.className}) parameters`);
    assert.deepEqual(s.linears.map((l) => [l.name, l.in, l.out, l.bias]).sort(), [...t.linears].sort(), `case ${i} Linear layers`);
  });
});

test('every Stable Diffusion component in the table equals its framework (UNet, VAE, safety checker, CLIP text encoders)', () => {
  const diff = DIFFUSERS_COMPONENTS.filter((e) => ['UNet2DConditionModel', 'AutoencoderKL', 'StableDiffusionSafetyChecker', 'ControlNetModel'].includes(e.className));
  const truth = runPythonJson<({ params: number } | { error: string })[]>('diffusers_param_counts.py', diff.map((e) => ({ class: e.className, config: e.config })));
  diff.forEach((e, i) => {
    const t = truth[i];
    if ('error' in t) assert.fail(`${e.id}/${e.subfolder}: ${t.error}`);
    assert.equal(ours(e.className, e.config).modules.reduce((a, m) => a + m.params, 0), t.params, `${e.id}/${e.subfolder}`);
  });
  const text = DIFFUSERS_COMPONENTS.filter((e) => e.className.startsWith('CLIPText'));
  const tt = runPythonJson<({ params: number } | { error: string })[]>('hf_param_counts.py', text.map((e) => ({ config: e.config, class: e.className })));
  text.forEach((e, i) => {
    const t = tt[i];
    if ('error' in t) assert.fail(`${e.id}/${e.subfolder}: ${t.error}`);
    assert.equal(moduleSizes(e.config as HfConfig, e.className).reduce((a, m) => a + m.params, 0), t.params, `${e.id}/${e.subfolder}`);
  });
});

test('published sizes: SD 1.5 UNet 859,520,964, VAE 83,653,863, SDXL UNet 2,567,463,684 parameters', () => {
  // Counts printed by the Stable Diffusion model cards / diffusers' own `num_parameters()` for these checkpoints.
  const total = (id: string, sub: string) => { const e = lookupComponent(id, sub)!; return ours(e.className, e.config).modules.reduce((a, m) => a + m.params, 0); };
  assert.equal(total('runwayml/stable-diffusion-v1-5', 'unet'), 859_520_964);
  assert.equal(total('runwayml/stable-diffusion-v1-5', 'vae'), 83_653_863);
  assert.equal(total('stabilityai/stable-diffusion-xl-base-1.0', 'unet'), 2_567_463_684);
});

test('lookupComponent: a re-upload under another organisation matches; another subfolder or repository does not', () => {
  assert.equal(lookupComponent('someone/stable-diffusion-v1-5', 'unet')?.className, 'UNet2DConditionModel');
  assert.equal(lookupComponent('runwayml/stable-diffusion-v1-5', 'scheduler'), undefined);
  assert.equal(lookupComponent('runwayml/other-model', 'unet'), undefined);
  assert.equal(lookupComponent('stable-diffusion-v1-5', 'unet'), undefined);
});

test('a config option that changes the modules and is not modelled gives no size, with the reason', () => {
  const s = diffusersSizes('UNet2DConditionModel', { ...SMALL_UNET, resnet_time_scale_shift: 'scale_shift' });
  assert.ok('why' in s && /resnet_time_scale_shift/.test(s.why));
  const b = diffusersSizes('UNet2DConditionModel', { ...SMALL_UNET, down_block_types: ['SimpleCrossAttnDownBlock2D', 'DownBlock2D'] });
  assert.ok('why' in b && /SimpleCrossAttnDownBlock2D/.test(b.why));
  assert.ok('why' in diffusersSizes('UNet3DConditionModel', {}));
});
