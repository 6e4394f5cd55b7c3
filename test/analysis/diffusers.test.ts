// diffusers models loaded one by one from a pipeline repository, as its training scripts do
// (examples/text_to_image, examples/dreambooth): `UNet2DConditionModel.from_pretrained(id, subfolder="unet")`,
// `AutoencoderKL.from_pretrained(id, subfolder="vae")`, `CLIPTextModel.from_pretrained(id, subfolder="text_encoder")`.
// Before, the diffusers models were not reported at all and the text encoder was an "unknown checkpoint"; a full
// fine-tune of the UNet on a 16 GB card read as no model. Sizes are checked against diffusers itself in
// test/catalog/diffusers.test.ts; here what the program does with them: the dtype (float32 unless torch_dtype),
// the training step of the UNet (AdamW state, gradients), LoRA via `unet.add_adapter(LoraConfig(...))` (trainable
// = the adapters only; 797,184 adapter parameters for r=4 on to_q/to_k/to_v/to_out.0 of the SD 1.5 UNet, the count
// peft gives on the model diffusers builds from the same config, test/python/diffusers_param_counts.py's builder),
// and unknowns where the checkpoint or folder is not known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const PROGRAM = `import torch
from diffusers import UNet2DConditionModel, AutoencoderKL, DDPMScheduler
from transformers import CLIPTextModel
from peft import LoraConfig

model_id = "MODEL"
text_encoder = CLIPTextModel.from_pretrained(model_id, subfolder="text_encoder")
vae = AutoencoderKL.from_pretrained(model_id, subfolder="vae")
unet = UNet2DConditionModel.from_pretrained(model_id, subfolder="unet"UNET_KW)
vae.requires_grad_(False)
text_encoder.requires_grad_(False)
ADAPTER
vae.to("cuda", dtype=torch.float16)
text_encoder.to("cuda", dtype=torch.float16)
unet.to("cuda")
params = [p for p in unet.parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(params, lr=1e-5)
for step in range(10):
    latents = torch.randn(1, 4, 64, 64, device="cuda")
    timesteps = torch.randint(0, 1000, (1,), device="cuda")
    hidden = torch.randn(1, 77, 768, device="cuda")
    pred = unet(latents, timesteps, hidden).sample
    loss = torch.nn.functional.mse_loss(pred, latents)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;

const UNET = 859_520_964;
const VAE = 83_653_863;
const CLIP_L = 123_060_480;

async function run(opts: { model?: string; unetKw?: string; adapter?: string; device?: string }) {
  const src = PROGRAM.replace('MODEL', opts.model ?? 'runwayml/stable-diffusion-v1-5').replace('UNET_KW', opts.unetKw ?? '').replace('ADAPTER', opts.adapter ?? '');
  return analyze(src, { device: opts.device ?? 't4', versions: {} });
}

test('the UNet, the VAE and the text encoder of a pipeline repository are each sized from their folder', async () => {
  const r = await run({});
  const by = (re: RegExp) => r.models.find((m) => re.test(m.facts.name));
  assert.equal(by(/\(unet\)/)?.estimate.paramCount, UNET);
  assert.equal(by(/\(vae\)/)?.estimate.paramCount, VAE);
  assert.equal(by(/\(text_encoder\)/)?.estimate.paramCount, CLIP_L);
  // diffusers builds in torch's default dtype without torch_dtype: float32, 4 B per parameter (the load phase,
  // before the program casts the VAE and the text encoder).
  assert.equal(by(/\(unet\)/)!.estimate.paramBytes, UNET * 4);
});

test('torch_dtype=torch.float16 loads the UNet in 2 B per parameter', async () => {
  const r = await run({ unetKw: ', torch_dtype=torch.float16' });
  assert.equal(r.models.find((m) => /\(unet\)/.test(m.facts.name))!.estimate.paramBytes, UNET * 2);
});

test('a full fine-tune of the UNet with AdamW does not fit a T4: parameters, gradients and Adam state alone exceed it', async () => {
  const r = await run({});
  const unet = r.models.find((m) => /\(unet\)/.test(m.facts.name))!;
  const t = unet.estimate.phases.find((p) => p.phase === 'training')!;
  assert.ok(t, 'a training phase');
  const part = (re: RegExp) => t.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  assert.equal(part(/^optimizer state/), UNET * 8, 'AdamW m and v in float32');
  assert.equal(part(/^gradients/), UNET * 4);
  // The frozen VAE and text encoder, cast to float16 on the device, are in the step.
  assert.equal(part(/^another module on the device/), (VAE + CLIP_L) * 2);
  // The UNet's activations are not modelled: a lower bound, which already exceeds the card.
  assert.ok(t.unknowns.some((u) => u.what === 'activations'));
  assert.equal(t.fits, false);
  assert.ok(t.peakIsLowerBound);
  assert.ok(r.findings.some((d) => d.code === 'OOM001'));
});

test('unet.add_adapter(LoraConfig(...)) trains only the adapters: no "does not fit" from the frozen base', async () => {
  const truth = runPythonJson<{ trainable: number; total: number }>('diffusers_lora_count.py', {
    config: { attention_head_dim: 8, block_out_channels: [320, 640, 1280, 1280], cross_attention_dim: 768,
      down_block_types: ['CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D', 'DownBlock2D'],
      up_block_types: ['UpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D', 'CrossAttnUpBlock2D'], layers_per_block: 2 },
    lora: { r: 4, lora_alpha: 4, target_modules: ['to_k', 'to_q', 'to_v', 'to_out.0'] },
  });
  const r = await run({ adapter: 'unet.requires_grad_(False)\nunet.add_adapter(LoraConfig(r=4, lora_alpha=4, init_lora_weights="gaussian", target_modules=["to_k", "to_q", "to_v", "to_out.0"]))' });
  const unet = r.models.find((m) => /\(unet\)/.test(m.facts.name))!;
  const t = unet.estimate.phases.find((p) => p.phase === 'training')!;
  const part = (re: RegExp) => t.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  assert.equal(part(/^LoRA adapters/), truth.trainable * 4, 'the adapters peft adds, in float32');
  assert.equal(part(/^optimizer state/), truth.trainable * 8, 'Adam state for the adapters only');
  assert.ok(!r.findings.some((d) => d.code === 'OOM001'), 'no OOM001 from the frozen base');
});

test('an unknown repository, an unknown folder or a pipeline: a model whose size is unknown, never zero', async () => {
  const r = await run({ model: 'someone/my-private-model' });
  assert.ok(r.models.every((m) => !/my-private-model/.test(m.facts.name) || m.estimate.paramCount === null), 'no size for an unknown repository');
  const reasons = r.models.flatMap((m) => m.estimate.unknowns.map((u) => u.reason)).join('\n');
  assert.match(reasons, /unknown checkpoint "someone\/my-private-model \(unet\)"/);
  assert.match(reasons, /unknown checkpoint "someone\/my-private-model \(text_encoder\)"/);
  const p = await analyze(`import torch
from diffusers import StableDiffusionPipeline
pipe = StableDiffusionPipeline.from_pretrained(f"someone/{'private'}", torch_dtype=torch.float16)
pipe = pipe.to("cuda")
`, { device: 't4', versions: {} });
  assert.ok(p.models.every((m) => m.estimate.paramCount === null), 'a pipeline of an unknown repository has no size');
  assert.ok(!p.findings.some((d) => d.code === 'OOM001'));
});

test('diffusers EMAModel: a copy of every trained parameter, on the device once the program moves it there', async () => {
  const step = async (adapter: string) => {
    const r = await run({ adapter: `from diffusers.training_utils import EMAModel\n${adapter}` });
    const t = r.models.find((m) => /\(unet\)/.test(m.facts.name))!.estimate.phases.find((p) => p.phase === 'training')!;
    return t.breakdown.filter((b) => /^another module on the device: EMAModel/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  };
  // training_utils.py EMAModel.__init__: shadow_params = [p.clone().detach() for p in parameters] (float32 here).
  assert.equal(await step('ema = EMAModel(unet.parameters(), decay=0.9999)\nema.to("cuda")'), UNET * 4);
  assert.equal(await step('ema = EMAModel(unet.parameters(), decay=0.9999)'), 0, 'left on the host: not in the device step');
  assert.equal(await step('ema = EMAModel(unet.parameters())\nema.to("cuda")\ndel ema'), 0, 'released before the loop');
});

const PIPE = (args: string, after = 'pipe = pipe.to("cuda")') => `import torch
from diffusers import StableDiffusionPipeline, DiffusionPipeline
pipe = DiffusionPipeline.from_pretrained(${args})
${after}
image = pipe("an astronaut riding a horse").images[0]
`;
// StableDiffusionSafetyChecker on CLIP ViT-L/14 (pipelines/stable_diffusion/safety_checker.py), = diffusers' count
// (test/catalog/diffusers.test.ts).
const SAFETY = 303_981_588;

test('a pipeline loads every component of its repository in torch_dtype; a component passed in (or None) is not loaded again', async () => {
  const pipeOf = async (src: string) => (await analyze(src, { device: 't4', versions: {} })).models.find((m) => /stable-diffusion-v1-5/.test(m.facts.name))!;
  const all = await pipeOf(PIPE('"runwayml/stable-diffusion-v1-5", torch_dtype=torch.float16'));
  assert.equal(all.estimate.paramCount, UNET + VAE + CLIP_L + SAFETY);
  assert.equal(all.estimate.paramBytes, (UNET + VAE + CLIP_L + SAFETY) * 2);
  // Run under torch.no_grad() (the pipeline's __call__): the denoising loop's memory is an unknown, never "fits".
  const inf = all.estimate.phases.find((x) => x.phase === 'inference')!;
  assert.equal(inf.fits, null);
  assert.ok(inf.unknowns.some((u) => /denoising loop/.test(u.reason)));
  assert.ok(!inf.unknowns.some((u) => /autograd on/.test(u.reason)), 'not a forward with autograd on');
  const noSafety = await pipeOf(PIPE('"runwayml/stable-diffusion-v1-5", safety_checker=None, torch_dtype=torch.float16'));
  assert.equal(noSafety.estimate.paramCount, UNET + VAE + CLIP_L);
  // Without torch_dtype every component loads in float32.
  const f32 = await pipeOf(PIPE('"runwayml/stable-diffusion-v1-5"'));
  assert.equal(f32.estimate.paramBytes, (UNET + VAE + CLIP_L + SAFETY) * 4);
});

test('model CPU offload keeps the pipeline on the host: no device verdict from components that are never all on the device', async () => {
  const r = await analyze(PIPE('"runwayml/stable-diffusion-v1-5", torch_dtype=torch.float16', 'pipe.enable_model_cpu_offload()'), { device: 't4', versions: {} });
  assert.equal(r.models.length, 0);
  assert.equal(r.host?.length, 1);
  assert.match(r.host![0].reason, /enable_model_cpu_offload/);
});

test('a repository the table does not list completely: the missing part is an unknown of the pipeline, not zero', async () => {
  const r = await analyze(PIPE('"stabilityai/stable-diffusion-2-1", torch_dtype=torch.float16'), { device: 't4', versions: {} });
  const m = r.models[0];
  const load = m.estimate.phases.find((x) => x.phase === 'load')!;
  assert.ok(load.peakIsLowerBound && load.fits === null);
  assert.ok(m.estimate.unknowns.some((u) => /safety checker/.test(u.reason)));
});

test('a pipeline in the local Hugging Face cache: model_index.json lists the components, each sized from its folder', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const cache = mkdtempSync(join(tmpdir(), 'oomlens-hub-'));
  const snap = join(cache, 'models--me--tiny-sd', 'snapshots', 'abc123');
  const put = (rel: string, v: unknown) => { mkdirSync(join(snap, rel, '..'), { recursive: true }); writeFileSync(join(snap, rel), JSON.stringify(v)); };
  mkdirSync(join(cache, 'models--me--tiny-sd', 'refs'), { recursive: true });
  writeFileSync(join(cache, 'models--me--tiny-sd', 'refs', 'main'), 'abc123');
  put('model_index.json', { _class_name: 'StableDiffusionPipeline', unet: ['diffusers', 'UNet2DConditionModel'], vae: ['diffusers', 'AutoencoderKL'], scheduler: ['diffusers', 'PNDMScheduler'], safety_checker: [null, null], tokenizer: ['transformers', 'CLIPTokenizer'] });
  const unet = { _class_name: 'UNet2DConditionModel', block_out_channels: [32, 64], attention_head_dim: 4, cross_attention_dim: 24, norm_num_groups: 8, layers_per_block: 1, down_block_types: ['CrossAttnDownBlock2D', 'DownBlock2D'], up_block_types: ['UpBlock2D', 'CrossAttnUpBlock2D'] };
  const vae = { _class_name: 'AutoencoderKL', block_out_channels: [16, 32], down_block_types: ['DownEncoderBlock2D', 'DownEncoderBlock2D'], up_block_types: ['UpDecoderBlock2D', 'UpDecoderBlock2D'], norm_num_groups: 8 };
  put('unet/config.json', unet);
  put('vae/config.json', vae);
  const truth = runPythonJson<{ params: number }[]>('diffusers_param_counts.py', [{ class: 'UNet2DConditionModel', config: unet }, { class: 'AutoencoderKL', config: vae }]);
  const prev = process.env.HF_HUB_CACHE;
  process.env.HF_HUB_CACHE = cache;
  try {
    const r = await analyze(PIPE('"me/tiny-sd"'), { device: 't4', versions: {} });
    assert.equal(r.models[0].estimate.paramCount, truth[0].params + truth[1].params);
    assert.deepEqual(r.models[0].estimate.unknowns.filter((u) => u.what === 'parameters'), [], 'the null safety checker and the scheduler are not model parts');
  } finally {
    if (prev === undefined) delete process.env.HF_HUB_CACHE; else process.env.HF_HUB_CACHE = prev;
    rmSync(cache, { recursive: true, force: true });
  }
});

test('ControlNetModel.from_unet(unet): the UNet\'s encoder half and the control blocks, sized from the UNet\'s config, in float32', async () => {
  const { diffusersSizes, lookupComponent } = await import('../../server/src/frameworks/diffusers/catalog');
  const cn = diffusersSizes('ControlNetModel', { ...lookupComponent('runwayml/stable-diffusion-v1-5', 'unet')!.config });
  assert.ok(!('why' in cn));
  const CN = cn.modules.reduce((a, m) => a + m.params, 0);
  const r = await run({ adapter: 'from diffusers import ControlNetModel\nunet.requires_grad_(False)\ncontrolnet = ControlNetModel.from_unet(unet)\ncontrolnet.to("cuda")\ncontrolnet.train()\nparams = list(controlnet.parameters())' });
  const c = r.models.find((m) => /ControlNetModel\.from_unet/.test(m.facts.name))!;
  assert.equal(c.estimate.paramCount, CN);
  assert.equal(c.estimate.paramBytes, CN * 4);
});

test('PretrainedConfig.from_pretrained(id, subfolder=…) reads that folder\'s config: the text encoder class comes from its architectures', async () => {
  // The diffusers SDXL scripts pick the class with `PretrainedConfig.from_pretrained(..., subfolder=...).architectures[0]`.
  const r = await analyze(`import torch
from transformers import PretrainedConfig

def pick(name, subfolder):
    cfg = PretrainedConfig.from_pretrained(name, subfolder=subfolder)
    model_class = cfg.architectures[0]
    if model_class == "CLIPTextModel":
        from transformers import CLIPTextModel
        return CLIPTextModel
    elif model_class == "CLIPTextModelWithProjection":
        from transformers import CLIPTextModelWithProjection
        return CLIPTextModelWithProjection
    raise ValueError(model_class)

repo = "stabilityai/stable-diffusion-xl-base-1.0"
one = pick(repo, "text_encoder").from_pretrained(repo, subfolder="text_encoder")
two = pick(repo, "text_encoder_2").from_pretrained(repo, subfolder="text_encoder_2")
`, { device: 'a100-80gb', versions: {} });
  const p = (re: RegExp) => r.models.find((m) => re.test(m.facts.name))?.estimate.paramCount;
  assert.equal(p(/\(text_encoder\)/), CLIP_L);
  // CLIPTextModelWithProjection(bigG): the text tower and its 1280 × 1280 projection (= transformers, catalog test).
  assert.equal(p(/\(text_encoder_2\)/), 694_659_840);
});

// A pipeline's components are its attributes (pipeline_utils.py register_modules): training `pipe.unet` alone
// (kvablack/ddpo-pytorch, huggingface/diffusers#…'s DDPO-style scripts) was charged for every component in float32 —
// weights, gradients and AdamW state of 1.37 B parameters — and read "over by 2.4 GB" on an RTX 3090 for what is the
// UNet's 17.2 GB (the same step with the UNet loaded on its own).
const TRAIN_UNET = (before: string) => `import torch
from diffusers import StableDiffusionPipeline
pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
${before}
opt = torch.optim.AdamW(pipe.unet.parameters(), lr=1e-5)
for step in range(10):
    latents = torch.randn(1, 4, 64, 64, device="cuda")
    loss = pipe.unet(latents, torch.tensor([10], device="cuda"), torch.randn(1, 77, 768, device="cuda")).sample.square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
`;

test('a pipeline component trained alone: its weights, gradients and optimizer state, not the whole pipeline\'s', async () => {
  const r = await analyze(TRAIN_UNET('pipe.safety_checker = None\npipe.unet.to("cuda")'), { device: 'rtx-3090', versions: {} });
  const m = r.models[0];
  const bytes = (phase: string, re: RegExp) => m.estimate.phases.find((p) => p.phase === phase)!.breakdown.filter((b) => re.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  // Only the moved UNet is on the device: the VAE, the text encoder and the dropped safety checker stay on the host.
  assert.equal(bytes('load', /./), UNET * 4);
  assert.equal(bytes('training', /^parameters/), UNET * 4);
  assert.equal(bytes('training', /^gradients/), UNET * 4);
  assert.equal(bytes('training', /^optimizer state/), UNET * 8);
  const tr = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.notEqual(tr.fits, false, 'no "over" verdict from components that never reach the device');
});

test('components moved one by one, cast on the way: the device holds them in float16, and OOM201 stays quiet', async () => {
  const r = await analyze(TRAIN_UNET(`pipe.vae.requires_grad_(False)
pipe.text_encoder.requires_grad_(False)
pipe.safety_checker = None
pipe.vae.to("cuda", dtype=torch.float16)
pipe.text_encoder.to("cuda", dtype=torch.float16)
pipe.unet.to("cuda", dtype=torch.float16)`), { device: 't4', versions: {} });
  const m = r.models[0];
  const load = m.estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.breakdown.reduce((a, b) => a + b.bytes, 0), (UNET + VAE + CLIP_L) * 2);
  assert.ok(load.breakdown.every((b) => !/float32/.test(b.label)), JSON.stringify(load.breakdown.map((b) => b.label)));
  assert.ok(!r.findings.some((f) => f.code === 'OOM201'), JSON.stringify(r.findings.map((f) => f.code)));
  // The pipeline moved as a whole still puts every component it holds on the device.
  const whole = await analyze(TRAIN_UNET('pipe.safety_checker = None\npipe.to("cuda")'), { device: 'a100-80gb', versions: {} });
  assert.equal(whole.models[0].estimate.phases.find((p) => p.phase === 'load')!.breakdown.reduce((a, b) => a + b.bytes, 0), (UNET + VAE + CLIP_L) * 4);
});

test('from_pretrained of the program\'s subclass of a diffusers model class loads the library\'s model (T2I-Adapter\'s UNet: was dropped)', async () => {
  const src = (cls: string) => `import torch
from diffusers import UNet2DConditionModel


class UNet(UNet2DConditionModel):
    def forward(self, *args, down_block_additional_residuals=None, **kwargs):
        return super().forward(*args, **kwargs)


unet = ${cls}.from_pretrained("stabilityai/stable-diffusion-xl-base-1.0", subfolder="unet")
unet.to("cuda", dtype=torch.float16)
`;
  const sub = await analyze(src('UNet'), { device: 'a100-40gb', versions: {} });
  const base = await analyze(src('UNet2DConditionModel'), { device: 'a100-40gb', versions: {} });
  assert.equal(sub.models.length, 1);
  assert.equal(sub.models[0].facts.paramCount, base.models[0].facts.paramCount);
  assert.ok(sub.models[0].facts.paramCount! > 2_000_000_000);
});
