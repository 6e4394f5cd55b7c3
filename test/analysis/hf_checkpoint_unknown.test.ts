// A transformers checkpoint whose name the program does not fix (a parser field without a
// default, filled from the command line) loads a model of unknown size: the file says so
// instead of reporting nothing (transformers raises on from_pretrained(None), so the program
// cannot run without the name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const PROGRAM = `from dataclasses import dataclass, field
from typing import Optional
from transformers import AutoModelForCausalLM, HfArgumentParser


@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default=None, metadata={"help": "checkpoint"})


def main():
    parser = HfArgumentParser((ModelArguments,))
    (model_args,) = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    model.train()


if __name__ == "__main__":
    main()
`;

test('from_pretrained(None) from a parser field without a default is a file-level unknown, not silence', async () => {
  const r = await analyze(PROGRAM, { device: 'a100-80gb', versions: {} });
  assert.equal(r.models.filter((m) => m.facts.paramCount !== null).length, 0, 'no confident model');
  const u = r.unknowns.find((x) => x.what === 'model');
  assert.ok(u, `no file-level unknown: ${JSON.stringify(r.unknowns)}`);
  assert.match(u.reason, /AutoModelForCausalLM\.from_pretrained: the checkpoint name is None/);
});

test('a literal checkpoint name is not reported as unknown by that rule', async () => {
  const r = await analyze(PROGRAM.replace('default=None', 'default="gpt2"'), { device: 'a100-80gb', versions: {} });
  assert.equal(r.unknowns.filter((x) => x.what === 'model').length, 0);
  assert.equal(r.models[0]?.facts.paramCount, 124439808); // gpt2: transformers GPT2LMHeadModel (test/catalog/hf-families builds it)
});
