/**
 * torchvision's standard image data sets and transforms, so that a DataLoader over them (data.ts) gives batches of
 * a known shape and the training step's activations can be traced op by op.
 *
 * Items, as each data set's `__getitem__` makes them (torchvision/datasets, 0.2x):
 * - MNIST, FashionMNIST, KMNIST, QMNIST, EMNIST: a 28 × 28 PIL image in mode "L" (`_Image_fromarray(img.numpy(),
 *   mode="L")`, mnist.py) and an int target;
 * - CIFAR10 / CIFAR100 (cifar.py `Image.fromarray(img)`, 32 × 32 × 3 uint8), SVHN (32 × 32, svhn.py), STL10 (96 × 96,
 *   stl10.py): RGB, int target;
 * - FakeData(size, image_size=(3, 224, 224), num_classes): `transforms.ToPILImage()(torch.randn(*image_size))`
 *   and `target.item()` (fakedata.py);
 * - ImageFolder / DatasetFolder: RGB (`pil_loader` converts), of a size the files decide: unknown until a transform
 *   fixes it.
 * Then `transform(img)` and `target_transform(target)` when given.
 *
 * Transforms (torchvision/transforms/transforms.py and transforms/v2, same output shapes):
 * - ToTensor: float32 [C, H, W]; PILToTensor / v2.ToImage: uint8 [C, H, W]; v2.ToDtype(dtype): that dtype;
 *   ConvertImageDtype(dtype) likewise;
 * - Resize(size): an int resizes the smaller edge to it and the other to `int(size * long / short)`
 *   (functional.py `_compute_resized_output_size`); a pair is (h, w);
 * - CenterCrop, RandomCrop (padding is cropped away again), RandomResizedCrop: (size, size) or the pair;
 * - Grayscale(num_output_channels=1): that many channels;
 * - Normalize, flips, rotations without `expand`, ColorJitter, RandomAffine, GaussianBlur, RandomErasing,
 *   RandomGrayscale, AutoAugment-style policies: the shape is kept.
 * Anything else (Lambda, a transform of the program's own) is applied as a call, and what it returns is what the
 * analysis makes of it (usually unknown, with the reason).
 */
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type DType } from '../../../../shared/src/facts';
import { type Value, NONE, int, num, unknown } from '../../interp/values';

/** A PIL image: args [channels, height, width], each an int or unknown. */
const IMAGE = 'torchvision.PIL.Image#';
const DATASET = 'torchvision.dataset#';
const TRANSFORM = 'torchvision.transform#';

/** Native image size, and where `transform` sits among the positional arguments (after root, train / split ...). */
const NATIVE: Record<string, { chw: [number, number, number]; tfAt: number }> = {
  MNIST: { chw: [1, 28, 28], tfAt: 2 }, FashionMNIST: { chw: [1, 28, 28], tfAt: 2 }, KMNIST: { chw: [1, 28, 28], tfAt: 2 },
  // QMNIST(root, what, compat, train, **kwargs) and EMNIST(root, split, **kwargs) take transform by keyword only.
  QMNIST: { chw: [1, 28, 28], tfAt: Infinity }, EMNIST: { chw: [1, 28, 28], tfAt: Infinity },
  CIFAR10: { chw: [3, 32, 32], tfAt: 2 }, CIFAR100: { chw: [3, 32, 32], tfAt: 2 }, SVHN: { chw: [3, 32, 32], tfAt: 2 },
  STL10: { chw: [3, 96, 96], tfAt: 3 },
};

/** Transforms that keep the image's shape and dtype. */
const SAME = new Set([
  'Normalize', 'RandomHorizontalFlip', 'RandomVerticalFlip', 'RandomRotation', 'ColorJitter', 'RandomAffine', 'GaussianBlur',
  'RandomErasing', 'RandomGrayscale', 'RandomApply', 'RandomAutocontrast', 'RandomEqualize', 'RandomInvert', 'RandomPosterize',
  'RandomSolarize', 'RandomAdjustSharpness', 'AutoAugment', 'RandAugment', 'TrivialAugmentWide', 'AugMix', 'RandomPerspective',
]);

export function installVisionData(it: Interpreter): void {
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };
  const names = (leaf: string, mods: string[]) => mods.map((m) => `${m}.${leaf}`);
  const DS_MODS = ['torchvision.datasets'];
  const TF_MODS = ['torchvision.transforms', 'torchvision.transforms.v2', 'torchvision.transforms.transforms'];

  for (const [name, { chw: [ch, h, w], tfAt }] of Object.entries(NATIVE)) {
    reg(names(name, DS_MODS), (_s, c) => dataset({ t: 'extern', name: IMAGE, args: [int(ch), int(h), int(w)] }, c.kw.get('transform') ?? c.args[tfAt], c.kw.get('target_transform') ?? c.args[tfAt + 1]));
  }
  reg(names('FakeData', DS_MODS), (_s, c, node) => {
    const size = c.kw.get('image_size') ?? c.args[1];
    const dims = size?.t === 'tuple' || size?.t === 'list' ? size.items : size === undefined ? [int(3), int(224), int(224)] : undefined;
    const img: Value = dims && dims.length === 3 ? { t: 'extern', name: IMAGE, args: dims } : unknown('FakeData image_size is not a (C, H, W) triple', it.span(node));
    return dataset(img, c.kw.get('transform') ?? c.args[3], c.kw.get('target_transform') ?? c.args[4]);
  });
  reg(names('ImageFolder', DS_MODS).concat(names('DatasetFolder', DS_MODS)), (_s, c, node) => {
    const why = unknown('the images\' size is decided by the files in the folder', it.span(node));
    return dataset({ t: 'extern', name: IMAGE, args: [int(3), why, why] }, c.kw.get('transform') ?? c.args[1], c.kw.get('target_transform') ?? c.args[2]);
  });

  /** Items: the image and an int target (every data set here returns `int(target)` or `target.item()`). */
  function dataset(image: Value, transform: Value | undefined, targetTransform: Value | undefined): Value {
    return { t: 'extern', name: DATASET, args: [image, transform ?? NONE, targetTransform ?? NONE, int(0)] };
  }

  // Transforms: values that remember their name and arguments; applied when an item is made.
  const TF_NAMES = ['Compose', 'ToTensor', 'PILToTensor', 'ToImage', 'ToDtype', 'ConvertImageDtype', 'Resize', 'CenterCrop', 'RandomCrop',
    'RandomResizedCrop', 'Grayscale', ...SAME];
  for (const n of TF_NAMES) {
    reg(names(n, TF_MODS), (_s, c) => ({ t: 'extern', name: TRANSFORM, args: [{ t: 'str', v: n }, ...c.args], kw: new Map(c.kw) }));
  }
  // Calling a transform value applies it.
  it.externs.set(TRANSFORM, (_i, _self, c, node, fnv) => applyTransform(it, fnv, c.args[0] ?? NONE, node));
}

/** `dataset[i]` of a data set above: the transformed image and target; undefined for any other value. */
export function visionItem(it: Interpreter, ds: Value, node: SyntaxNode): Value | undefined {
  if (ds.t !== 'extern' || ds.name !== DATASET) return undefined;
  const [image, tf, ttf, target] = ds.args ?? [];
  const img = tf && tf.t !== 'none' ? applyTransform(it, tf, image ?? NONE, node) : image ?? NONE;
  const tgt = ttf && ttf.t !== 'none' ? applyTransform(it, ttf, target ?? NONE, node) : target ?? NONE;
  return { t: 'tuple', items: [img, tgt] };
}

function applyTransform(it: Interpreter, tf: Value, x: Value, node: SyntaxNode): Value {
  if (x.t === 'unknown') return x;
  if (tf.t !== 'extern' || tf.name !== TRANSFORM) return it.call(tf, { args: [x], kw: new Map() }, node);
  const [nameV, ...args] = tf.args ?? [];
  const name = nameV?.t === 'str' ? nameV.v : '';
  const kw = tf.kw ?? new Map<string, Value>();
  if (name === 'Compose') {
    const list = args[0] ?? kw.get('transforms');
    if (list?.t !== 'list' && list?.t !== 'tuple') return unknown('transforms.Compose of a list oomlens does not know', it.span(node));
    let v: Value = x;
    for (const t of list.items) { v = applyTransform(it, t, v, node); if (v.t === 'unknown') return v; }
    return v;
  }
  const shape = shapeOf(x);
  if (!shape) return unknown(`${name} applied to ${x.t === 'extern' ? x.name : x.t}, which is not an image oomlens knows`, it.span(node));
  const [ch, h, w] = shape.dims;
  const size = (v: Value | undefined): [Value, Value] | undefined => {
    if (v === undefined) return undefined;
    if (v.t === 'int') return [v, v];
    if ((v.t === 'tuple' || v.t === 'list') && v.items.length === 1) return [v.items[0], v.items[0]];
    if ((v.t === 'tuple' || v.t === 'list') && v.items.length === 2) return [v.items[0], v.items[1]];
    return undefined;
  };
  if (SAME.has(name)) return x;
  switch (name) {
    case 'ToTensor': return tensor(it, [ch, h, w], 'float32', node);
    case 'PILToTensor': case 'ToImage': return shape.dtype ? x : tensor(it, [ch, h, w], 'uint8', node);
    case 'ToDtype': case 'ConvertImageDtype': {
      const d = args[0] ?? kw.get('dtype');
      return d?.t === 'dtype' ? tensor(it, [ch, h, w], d.dtype, node) : unknown(`${name} to a dtype oomlens does not know`, it.span(node));
    }
    case 'Grayscale': return like(it, shape, [num(args[0] ?? kw.get('num_output_channels') ?? int(1)) === 3 ? int(3) : int(1), h, w], node);
    case 'CenterCrop': case 'RandomCrop': case 'RandomResizedCrop': {
      const s = size(args[0] ?? kw.get('size'));
      return s ? like(it, shape, [ch, s[0], s[1]], node) : unknown(`${name} size is not known`, it.span(node));
    }
    case 'Resize': {
      const sv = args[0] ?? kw.get('size');
      if ((sv?.t === 'tuple' || sv?.t === 'list') && sv.items.length === 2) return like(it, shape, [ch, sv.items[0], sv.items[1]], node);
      const s = sv?.t === 'int' ? sv.v : (sv?.t === 'tuple' || sv?.t === 'list') && sv.items.length === 1 ? num(sv.items[0]) : undefined;
      if (s === undefined || kw.has('max_size')) return unknown('Resize with a size oomlens does not read', it.span(node));
      const hh = num(h), ww = num(w);
      if (hh === undefined || ww === undefined) return unknown(`Resize(${s}) of an image whose size is not known keeps its aspect ratio: the other side is not known`, it.span(node));
      // functional.py _compute_resized_output_size: the shorter side becomes s, the longer int(s * long / short).
      const [nh, nw] = ww <= hh ? [Math.trunc((s * hh) / ww), s] : [s, Math.trunc((s * ww) / hh)];
      return like(it, shape, [ch, int(nh), int(nw)], node);
    }
    default: return unknown(`transform ${name} is not modelled`, it.span(node));
  }
}

/** The [C, H, W] of a PIL image or an image tensor, with the tensor's dtype. */
function shapeOf(x: Value): { dims: [Value, Value, Value]; dtype?: DType } | undefined {
  if (x.t === 'extern' && x.name === IMAGE && x.args?.length === 3) return { dims: [x.args[0], x.args[1], x.args[2]] };
  if (x.t === 'tensor' && x.shape.length === 3) {
    const d = (i: number): Value => (typeof x.shape[i] === 'number' ? int(x.shape[i] as number) : unknown('image dimension not known'));
    return { dims: [d(0), d(1), d(2)], dtype: x.dtype };
  }
  return undefined;
}

/** An image of the same kind (PIL or tensor of the same dtype) with new dims. */
function like(it: Interpreter, shape: { dtype?: DType }, dims: Value[], node: SyntaxNode): Value {
  return shape.dtype ? tensor(it, dims, shape.dtype, node) : { t: 'extern', name: IMAGE, args: dims };
}

function tensor(it: Interpreter, dims: Value[], dtype: DType, node: SyntaxNode): Value {
  const bad = dims.find((d) => d.t !== 'int');
  if (bad) return bad.t === 'unknown' ? bad : unknown('image size not known', it.span(node));
  return it.callExtern({ t: 'extern', name: 'torch.zeros' }, { args: [{ t: 'tuple', items: dims }], kw: new Map([['dtype', { t: 'dtype', dtype }]]) }, node);
}
