/**
 * Parameter arithmetic from config.json for encoder, encoder–decoder and
 * vision families: deberta-v2, bart, whisper, vit, clip. Each function
 * mirrors the modules its modeling file builds (huggingface/transformers
 * src/transformers/models/<arch>/modeling_<arch>.py, v5.x as installed by
 * test/python/requirements.txt; module names as v5 gives them) and is checked
 * against transformers itself (the model built from the same config on the
 * meta device, parameters counted: test/catalog/hf-families.test.ts), and
 * one real checkpoint per family against its published count.
 *
 * Absent config keys take the config class's default (configuration_<arch>.py).
 * A head oomlens does not list (sequence classification, …) throws: the
 * caller reports the size as unknown, never zero.
 */
import type { HfConfig, ModuleSize } from './catalog';

function num(c: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}
function req(c: Record<string, unknown>, ...keys: string[]): number {
  const v = num(c, ...keys);
  if (v === undefined) throw new Error(`config has no ${keys.join(' / ')}`);
  return v;
}
const flag = (c: Record<string, unknown>, k: string, dflt: boolean): boolean => (typeof c[k] === 'boolean' ? (c[k] as boolean) : dflt);
const lin = (i: number, o: number, bias = true) => i * o + (bias ? o : 0);
const side = (v: unknown, dflt: number): number => (typeof v === 'number' ? v : Array.isArray(v) && typeof v[0] === 'number' ? (v[0] as number) : dflt);
/** A (patches along each side)² grid of an image_size / patch_size that may be [h, w]. */
function patches(c: Record<string, unknown>, img: number, patch: number): number {
  const ih = side(c.image_size, img); const iw = Array.isArray(c.image_size) ? (c.image_size as number[])[1] : ih;
  const ph = side(c.patch_size, patch); const pw = Array.isArray(c.patch_size) ? (c.patch_size as number[])[1] : ph;
  return Math.floor(ih / ph) * Math.floor(iw / pw);
}
function numLabels(c: Record<string, unknown>): number {
  if (typeof c.num_labels === 'number') return c.num_labels;
  if (c.id2label && typeof c.id2label === 'object') return Object.keys(c.id2label as object).length;
  return 2; // PretrainedConfig default (configuration_utils.py)
}

/**
 * DeBERTa-v2/v3 (modeling_deberta_v2.py): embeddings = word (V × E, E = embedding_size or h), position (P × E)
 * when position_biased_input, token_type (T × E) when type_vocab_size > 0, embed_proj (E → h) when E ≠ h,
 * LayerNorm (2h); per layer query/key/value_proj (h → all_head_size, bias), attention.output.dense (h² + h)
 * + LayerNorm, intermediate (h → I), output (I → h) + LayerNorm, and with relative_attention and not
 * share_att_key pos_key_proj ("c2p") / pos_query_proj ("p2c"); the encoder's rel_embeddings
 * (2·position_buckets or 2·max_relative_positions rows) with relative_attention, its LayerNorm when
 * norm_rel_ebd has "layer_norm", a ConvLayer with conv_kernel_size. DebertaV2Model has no pooler;
 * DebertaV2ForMaskedLM adds (legacy, the default) cls.predictions: transform dense (h → E) + LayerNorm (E)
 * + bias (V), decoder tied; non-legacy lm_predictions.lm_head: dense (h²+h) + LayerNorm (2h) + bias (V).
 */
function debertaV2(c: HfConfig, cls: string): ModuleSize[] {
  const h = req(c, 'hidden_size'); const V = req(c, 'vocab_size'); const L = req(c, 'num_hidden_layers'); const I = req(c, 'intermediate_size');
  const heads = req(c, 'num_attention_heads');
  const A = (num(c, 'attention_head_size') ?? Math.floor(h / heads)) * heads;
  const P = num(c, 'max_position_embeddings') ?? 512; const E = num(c, 'embedding_size') ?? h; const T = num(c, 'type_vocab_size') ?? 0;
  const rel = flag(c, 'relative_attention', false); const share = flag(c, 'share_att_key', false);
  const pat = Array.isArray(c.pos_att_type) ? (c.pos_att_type as string[]).map((x) => String(x).toLowerCase()) : typeof c.pos_att_type === 'string' ? c.pos_att_type.toLowerCase().split('|').map((x) => x.trim()) : [];
  const emb = V * E + (flag(c, 'position_biased_input', true) ? P * E : 0) + (T > 0 ? T * E : 0) + (E !== h ? E * h : 0) + 2 * h;
  const posProj = rel && !share ? (pat.includes('c2p') ? lin(h, A) : 0) + (pat.includes('p2c') ? lin(h, A) : 0) : 0;
  const layer = 3 * lin(h, A) + lin(h, h) + 2 * h + lin(h, I) + lin(I, h) + 2 * h + posProj;
  const maxRel = (num(c, 'max_relative_positions') ?? -1) < 1 ? P : num(c, 'max_relative_positions')!;
  const buckets = num(c, 'position_buckets') ?? -1;
  const norms = String(c.norm_rel_ebd ?? 'none').toLowerCase().split('|').map((x) => x.trim());
  const k = num(c, 'conv_kernel_size') ?? 0;
  const head = /ForMaskedLM$/.test(cls);
  if (!head && !/^(AutoModel|DebertaV2Model)$/.test(cls)) throw new Error(`${cls} is not listed`);
  const pre = head ? 'deberta.' : '';
  const out: ModuleSize[] = [{ name: `${pre}embeddings`, params: emb }];
  for (let i = 0; i < L; i++) out.push({ name: `${pre}encoder.layer.${i}`, params: layer });
  if (rel) out.push({ name: `${pre}encoder.rel_embeddings`, params: (buckets > 0 ? 2 * buckets : 2 * maxRel) * h });
  if (norms.includes('layer_norm')) out.push({ name: `${pre}encoder.LayerNorm`, params: 2 * h });
  if (k > 0) out.push({ name: `${pre}encoder.conv`, params: h * Math.floor(h / (num(c, 'conv_groups') ?? 1)) * k + h + 2 * h });
  if (head) {
    if (flag(c, 'legacy', true)) out.push({ name: 'cls.predictions', params: lin(h, E) + 2 * E + V });
    else out.push({ name: 'lm_predictions', params: lin(h, h) + 2 * h + V });
  }
  return out;
}

/**
 * BART (modeling_bart.py): shared (V × d, the encoder's and decoder's embed_tokens); each stack's
 * embed_positions ((max_position_embeddings + 2) × d: BartLearnedPositionalEmbedding's offset 2) and
 * layernorm_embedding (2d); encoder layers self_attn q/k/v/out_proj with bias + LayerNorm, fc1 (d → F),
 * fc2 (F → d) + final LayerNorm; decoder layers add encoder_attn + its LayerNorm. BartForConditionalGeneration's
 * lm_head is tied to shared (final_logits_bias is a buffer).
 */
function bart(c: HfConfig, cls: string, tied: boolean): ModuleSize[] {
  const d = req(c, 'd_model', 'hidden_size'); const V = req(c, 'vocab_size');
  const P = num(c, 'max_position_embeddings') ?? 1024;
  const eL = num(c, 'encoder_layers', 'num_hidden_layers') ?? 12; const dL = num(c, 'decoder_layers') ?? 12;
  const eF = num(c, 'encoder_ffn_dim') ?? 4096; const dF = num(c, 'decoder_ffn_dim') ?? 4096;
  const attn = 4 * lin(d, d) + 2 * d;
  const lmHead = /ForConditionalGeneration$|ForSeq2SeqLM$/.test(cls);
  if (!lmHead && !/^(AutoModel|BartModel)$/.test(cls)) throw new Error(`${cls} is not listed`);
  const pre = lmHead ? 'model.' : '';
  const out: ModuleSize[] = [{ name: `${pre}shared`, params: V * d }, { name: `${pre}encoder.embed_positions`, params: (P + 2) * d }];
  for (let i = 0; i < eL; i++) out.push({ name: `${pre}encoder.layers.${i}`, params: attn + lin(d, eF) + lin(eF, d) + 2 * d });
  out.push({ name: `${pre}encoder.layernorm_embedding`, params: 2 * d }, { name: `${pre}decoder.embed_positions`, params: (P + 2) * d });
  for (let i = 0; i < dL; i++) out.push({ name: `${pre}decoder.layers.${i}`, params: 2 * attn + lin(d, dF) + lin(dF, d) + 2 * d });
  out.push({ name: `${pre}decoder.layernorm_embedding`, params: 2 * d });
  if (lmHead && !tied) out.push({ name: 'lm_head', params: V * d });
  return out;
}

/**
 * Whisper (modeling_whisper.py): encoder conv1 (num_mel_bins → d, kernel 3) and conv2 (d → d, kernel 3)
 * with biases, embed_positions (max_source_positions × d), layers of self_attn (q/v/out_proj with bias,
 * k_proj without: WhisperAttention) + LayerNorm, fc1/fc2 + final LayerNorm, then layer_norm; decoder
 * embed_tokens (V × d), embed_positions (max_target_positions × d), layers with encoder_attn as well,
 * layer_norm. WhisperForConditionalGeneration's proj_out is tied to embed_tokens.
 */
function whisper(c: HfConfig, cls: string, tied: boolean): ModuleSize[] {
  const d = req(c, 'd_model', 'hidden_size'); const V = num(c, 'vocab_size') ?? 51865;
  const mel = num(c, 'num_mel_bins') ?? 80; const S = num(c, 'max_source_positions') ?? 1500; const Tt = num(c, 'max_target_positions') ?? 448;
  const eL = num(c, 'encoder_layers', 'num_hidden_layers') ?? 4; const dL = num(c, 'decoder_layers') ?? 4;
  const eF = num(c, 'encoder_ffn_dim') ?? 1536; const dF = num(c, 'decoder_ffn_dim') ?? 1536;
  const attn = 4 * d * d + 3 * d + 2 * d;
  const lmHead = /ForConditionalGeneration$|ForSpeechSeq2Seq$/.test(cls);
  if (!lmHead && !/^(AutoModel|WhisperModel)$/.test(cls)) throw new Error(`${cls} is not listed`);
  const pre = lmHead ? 'model.' : '';
  const out: ModuleSize[] = [
    { name: `${pre}encoder.conv1`, params: mel * d * 3 + d }, { name: `${pre}encoder.conv2`, params: d * d * 3 + d },
    { name: `${pre}encoder.embed_positions`, params: S * d },
  ];
  for (let i = 0; i < eL; i++) out.push({ name: `${pre}encoder.layers.${i}`, params: attn + lin(d, eF) + lin(eF, d) + 2 * d });
  out.push({ name: `${pre}encoder.layer_norm`, params: 2 * d }, { name: `${pre}decoder.embed_tokens`, params: V * d }, { name: `${pre}decoder.embed_positions`, params: Tt * d });
  for (let i = 0; i < dL; i++) out.push({ name: `${pre}decoder.layers.${i}`, params: 2 * attn + lin(d, dF) + lin(dF, d) + 2 * d });
  out.push({ name: `${pre}decoder.layer_norm`, params: 2 * d });
  if (lmHead && !tied) out.push({ name: 'proj_out', params: V * d });
  return out;
}

/** One pre-norm transformer layer with biased q/k/v/o (qkv bias optional), two LayerNorms and an fc1/fc2 MLP. */
const vitLayer = (h: number, I: number, qkvBias = true) => 3 * lin(h, h, qkvBias) + lin(h, h) + 4 * h + lin(h, I) + lin(I, h);

/**
 * ViT (modeling_vit.py): embeddings = cls_token (h) + position_embeddings ((patches + 1) × h) +
 * patch projection (Conv2d C → h, kernel p, with bias) (+ mask_token with use_mask_token); layers of
 * q/k/v_proj (bias with qkv_bias), o_proj, layernorm_before/after, mlp fc1/fc2; layernorm; ViTModel's
 * pooler (h → pooler_output_size or h). ViTForImageClassification: vit without pooler + classifier (h → num_labels).
 */
function vit(c: HfConfig, cls: string): ModuleSize[] {
  const h = num(c, 'hidden_size') ?? 768; const L = num(c, 'num_hidden_layers') ?? 12; const I = num(c, 'intermediate_size') ?? 3072;
  const p = side(c.patch_size, 16); const C = num(c, 'num_channels') ?? 3; const N = patches(c, 224, 16);
  const classify = /ForImageClassification$/.test(cls);
  if (!classify && !/^(AutoModel|ViTModel)$/.test(cls)) throw new Error(`${cls} is not listed`);
  const pre = classify ? 'vit.' : '';
  const out: ModuleSize[] = [{ name: `${pre}embeddings`, params: h + (N + 1) * h + h * C * p * p + h + (flag(c, 'use_mask_token', false) ? h : 0) }];
  for (let i = 0; i < L; i++) out.push({ name: `${pre}layers.${i}`, params: vitLayer(h, I, flag(c, 'qkv_bias', true)) });
  out.push({ name: `${pre}layernorm`, params: 2 * h });
  if (classify) out.push({ name: 'classifier', params: lin(h, numLabels(c)) });
  else out.push({ name: 'pooler', params: lin(h, num(c, 'pooler_output_size') ?? h) });
  return out;
}

/**
 * CLIP (modeling_clip.py): logit_scale (1); text_model = token_embedding (V × h) + position_embedding (P × h),
 * layers (q/k/v/out_proj with bias, layer_norm1/2, mlp fc1/fc2), final_layer_norm; vision_model = class_embedding (h)
 * + patch_embedding (Conv2d without bias) + position_embedding ((patches + 1) × h), pre_layrnorm, layers,
 * post_layernorm; visual_projection and text_projection (→ projection_dim, no bias). CLIPTextModel /
 * CLIPVisionModel hold one tower.
 */
function clip(c: HfConfig, cls: string): ModuleSize[] {
  const t = (c.text_config ?? {}) as Record<string, unknown>;
  const v = (c.vision_config ?? {}) as Record<string, unknown>;
  const text = /TextModel(WithProjection)?$/.test(cls) || c.model_type === 'clip_text_model' ? c as Record<string, unknown> : t;
  const vision = /VisionModel$/.test(cls) ? c as Record<string, unknown> : v;
  const ht = num(text, 'hidden_size') ?? 512; const It = num(text, 'intermediate_size') ?? 2048; const Lt = num(text, 'num_hidden_layers') ?? 12;
  const V = num(text, 'vocab_size') ?? 49408; const P = num(text, 'max_position_embeddings') ?? 77;
  const hv = num(vision, 'hidden_size') ?? 768; const Iv = num(vision, 'intermediate_size') ?? 3072; const Lv = num(vision, 'num_hidden_layers') ?? 12;
  const p = side(vision.patch_size, 32); const C = num(vision, 'num_channels') ?? 3; const N = patches(vision, 224, 32);
  const proj = num(c, 'projection_dim') ?? 512;
  const textTower = (pre: string): ModuleSize[] => [
    { name: `${pre}embeddings`, params: V * ht + P * ht },
    ...Array.from({ length: Lt }, (_, i) => ({ name: `${pre}encoder.layers.${i}`, params: vitLayer(ht, It) })),
    { name: `${pre}final_layer_norm`, params: 2 * ht },
  ];
  const visionTower = (pre: string): ModuleSize[] => [
    { name: `${pre}embeddings`, params: hv + hv * C * p * p + (N + 1) * hv },
    { name: `${pre}pre_layrnorm`, params: 2 * hv },
    ...Array.from({ length: Lv }, (_, i) => ({ name: `${pre}encoder.layers.${i}`, params: vitLayer(hv, Iv) })),
    { name: `${pre}post_layernorm`, params: 2 * hv },
  ];
  if (/^CLIPTextModel$/.test(cls) || (c.model_type === 'clip_text_model' && cls === 'AutoModel')) return textTower('text_model.');
  // CLIPTextModelWithProjection (modeling_clip.py): the text tower and text_projection (h → projection_dim, no bias),
  // as Stable Diffusion XL's second text encoder is built.
  if (/^CLIPTextModelWithProjection$/.test(cls)) return [...textTower('text_model.'), { name: 'text_projection', params: ht * proj }];
  if (c.model_type === 'clip_text_model') throw new Error(`${cls} is not listed for a CLIP text config`);
  if (/^CLIPVisionModel$/.test(cls)) return visionTower('vision_model.');
  if (!/^(AutoModel|CLIPModel)$/.test(cls)) throw new Error(`${cls} is not listed`);
  return [{ name: 'logit_scale', params: 1 }, ...textTower('text_model.'), ...visionTower('vision_model.'),
    { name: 'visual_projection', params: hv * proj }, { name: 'text_projection', params: ht * proj }];
}

/** tie_word_embeddings defaults (configuration_<arch>.py). */
export const ENCODER_TIE_DEFAULT: Record<string, boolean> = { 'deberta-v2': true, bart: true, whisper: true, vit: true, clip: true, clip_text_model: true };

export const ENCODER_FAMILIES = ['deberta-v2', 'bart', 'whisper', 'vit', 'clip', 'clip_text_model'];

/** Module sizes of a family in this file; undefined when the model_type is not one of them; throws for a head not listed. */
export function encoderFamilySizes(c: HfConfig, className: string, tied: boolean): ModuleSize[] | undefined {
  switch (c.model_type) {
    case 'deberta-v2': return debertaV2(c, className);
    case 'bart': return bart(c, className, tied);
    case 'whisper': return whisper(c, className, tied);
    case 'vit': return vit(c, className);
    // A text_encoder folder's config.json (CLIPTextConfig, model_type "clip_text_model") holds the text tower's fields itself.
    case 'clip': case 'clip_text_model': return clip(c, className);
    default: return undefined;
  }
}
