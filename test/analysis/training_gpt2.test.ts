// Done-check of issue 5: the nanoGPT-style GPT-2 small training script in
// examples/gpt2_train (AdamW, fp32, batch 8 × 1024 tokens, tied wte/lm_head)
// run through the CLI as a user would (`oomlens check examples/gpt2_train`),
// its training breakdown compared component by component with a hand count.
//
// Hand calculation (n_layer 12, n_head 12, n_embd 768, vocab 50257, block 1024, bias=True):
//   parameters: wte 50257·768 = 38,597,376; wpe 1024·768 = 786,432;
//     per block: ln_1 2·768 = 1,536; c_attn 768·2304 + 2304 = 1,771,776;
//     attn c_proj 768·768 + 768 = 590,592; ln_2 1,536; c_fc 768·3072 + 3072 = 2,362,368;
//     mlp c_proj 3072·768 + 768 = 2,360,064 → 7,087,872 per block, × 12 = 85,054,464;
//     ln_f 1,536; lm_head tied to wte (counted once).
//     Total 124,439,808 → × 4 B = 497,759,232 B.
//   gradients: one fp32 .grad per parameter = 497,759,232 B.
//   AdamW state (torch/optim/adamw.py: exp_avg, exp_avg_sq = zeros_like(p)) = 2 × 497,759,232 = 995,518,464 B.
//   activations (Korthikanti et al. 2022 §4.1, per layer 16·sbh elements + 2·sbh mask bytes
//     + (2 elements + 1 mask byte)·as²b; the paper's 34·sbh + 5·as²b at 2 B):
//     fp32 → 4 B per element; dropout p = 0.0 in GPTConfig, and at::dropout returns its input when
//     p == 0 (no masks, no dropout copy) → 64·sbh + 4·as²b per layer. Attention is written out
//     (q @ k.T, softmax, att @ v), so the s×s scores are stored.
//     s·b·h = 1024·8·768 = 6,291,456 → 64 × 6,291,456 = 402,653,184;
//     a·s²·b = 12·1024²·8 = 100,663,296 → × 4 = 402,653,184;
//     per layer 805,306,368 B; × 12 layers = 9,663,676,416 B.
//   logits [8, 1024, 50257] fp32 = 411,705,344 × 4 = 1,646,821,376 B (kept: returned by forward);
//   cross-entropy's saved log_softmax result, same size = 1,646,821,376 B.
//   Start of the backward (zero_grad(set_to_none=True): no .grad yet): nll_loss's and log_softmax's
//     backward write two more [8, 1024, 50257] fp32 gradients (derivatives.yaml nll_loss_forward,
//     _log_softmax) = 2 × 1,646,821,376 = 3,293,642,752 B, larger than the 497,759,232 B of gradients
//     made after it, so the peak is that instant (measured on the CPU for a smaller GPT in
//     test/truth/programs/gpt_adamw.py: within 1%; the earlier count with gradients in its place was −13%).
//   Peak = 497,759,232 + 995,518,464 + 9,663,676,416 + 4 × 1,646,821,376 = 17,744,239,616 B.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../server/src/cli/main';

const root = join(__dirname, '..', '..');

async function check(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main(['check', ...args], { out: (s) => { out += s + '\n'; }, err: (s) => { out += s + '\n'; } });
  return { code, out };
}

interface Row { label: string; bytes: number }

const HAND = {
  params: 497_759_232,
  grads: 497_759_232,
  adamw: 995_518_464,
  activations: 9_663_676_416,
  logits: 1_646_821_376,
  logProbs: 1_646_821_376,
  ceBackward: 3_293_642_752,
  peak: 17_744_239_616,
};

const within10 = (got: number | undefined, want: number, what: string) =>
  assert.ok(got !== undefined && Math.abs(got - want) <= 0.1 * want, `${what}: got ${got}, hand ${want}`);

test('GPT-2 small AdamW fp32 training: CLI breakdown matches the hand calculation', async () => {
  const r = await check([join(root, 'examples', 'gpt2_train'), '--format', 'json']);
  const report = JSON.parse(r.out) as { files: { device: string; models: { name: string; params: number; phases: { name: string; peakBytes: number; fits: boolean | null; breakdown: Row[] }[] }[] }[] };
  const f = report.files[0];
  assert.equal(f.device, 'a100-40gb');
  const m = f.models.find((x) => x.name === 'GPT')!;
  assert.equal(m.params, 124_439_808);
  const tr = m.phases.find((p) => p.name === 'training');
  assert.ok(tr, 'a training phase');
  const by = (re: RegExp) => tr.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  within10(by(/^parameters/), HAND.params, 'parameters');
  // The gradients come after the peak (the cross-entropy backward's instant), so they are not in its breakdown.
  assert.equal(by(/^gradients/), 0);
  within10(by(/cross-entropy backward/), HAND.ceBackward, 'cross-entropy backward gradients');
  within10(by(/^optimizer state: torch\.optim\.AdamW/), HAND.adamw, 'AdamW state');
  within10(by(/^activations saved for backward/), HAND.activations, 'activations');
  within10(by(/^logits/), HAND.logits, 'logits');
  within10(by(/log-probs/), HAND.logProbs, 'log-probs');
  within10(tr.peakBytes, HAND.peak, 'peak');
  // The components are the whole peak: nothing unexplained.
  assert.equal(tr.breakdown.reduce((a, c) => a + c.bytes, 0), tr.peakBytes);
  // 17.7 GB fits the 41.9 GB PyTorch budget of an A100 40GB (CUDA's 42.3 GB less the 429 MB runtime).
  assert.equal(tr.fits, true);
});

test('GPT-2 example: the text report lists every training component', async () => {
  const r = await check([join(root, 'examples', 'gpt2_train')]);
  // The contributor lines under "largest at the training peak:", one per component.
  const block = /largest at the training peak:\n((?: {6}.*\n)+)/.exec(r.out);
  const line = block?.[1] ?? '';
  for (const part of ['activations saved for backward', 'logits', 'log-probs', 'optimizer state: torch.optim.AdamW', 'parameters (float32)', 'cross-entropy backward']) {
    assert.ok(line.includes(part), `${part} missing from: ${line}`);
  }
  // Budget: CUDA's 42,298,834,944 B for an A100 40GB − 428,998,656 B of runtime = 41,869,836,288 B = 41.9 GB.
  assert.match(r.out, /training\s+17\.7 GB\s+41\.9 GB\s+✓/);
});
