// Multi-file projects in the shapes real repositories have (model file, train
// script, config file), through the CLI as a user runs it: the program file
// gives the model its entry point builds, the definition file gives the same
// number on its class ("as built in train.py:N"), and each count equals what
// the real framework builds from the same arguments (test/python/build_count.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runPythonJson } from '../python/venv';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const projects = join(root, 'test', 'fixtures', 'projects');

interface Model { name: string; params: number | null; origin?: string; run?: string; line: number }
interface Report { files: { path: string; models: Model[]; unbuilt: { name: string; reason: string }[]; unknowns: { reason: string }[] }[] }

function check(dir: string, file: string): Report['files'][0] {
  const r = spawnSync(process.execPath, [cli, 'check', file, '--format', 'json'], { cwd: join(projects, dir), encoding: 'utf8', timeout: 120_000 });
  assert.ok(r.status === 0 || r.status === 1, `${dir}/${file}: exit ${r.status}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Report).files[0];
}

interface Case {
  dir: string;
  /** Files to check: the program(s) and the definition file, with the origin expected on the definition. */
  files: { file: string; origin?: RegExp }[];
  /** The launch command whose arguments the files are analysed with (program/launch.ts). */
  run?: RegExp;
  /** The same construction with the real framework (binds `model` or `params`). */
  code: string;
  path?: string[];
  modules: string[];
}

const CASES: Case[] = [
  {
    dir: 'nanogpt_like', modules: ['model'],
    files: [{ file: 'train.py' }, { file: 'model.py', origin: /^as built in train\.py:\d+$/ }],
    code: 'from model import GPT, GPTConfig\nmodel = GPT(GPTConfig(n_layer=6, n_head=6, n_embd=384, block_size=256, bias=False, vocab_size=65, dropout=0.2))',
  },
  {
    dir: 'src_layout', modules: ['tinylm'], path: ['src'],
    files: [{ file: 'scripts/train.py' }, { file: 'src/tinylm/model.py', origin: /^as built in \.\.\/\.\.\/scripts\/train\.py:\d+$/ }],
    code: 'from tinylm import TinyLM, LMConfig\nmodel = TinyLM(LMConfig(vocab_size=32000, d_model=512, n_layers=6, n_heads=8))',
  },
  {
    dir: 'json_params', modules: ['model'],
    files: [{ file: 'generate.py' }, { file: 'model.py', origin: /^as built in generate\.py:\d+$/ }],
    code: 'import json\nfrom model import ModelArgs, Net\nmodel = Net(ModelArgs(**json.load(open("params.json"))))',
  },
  {
    dir: 'yaml_namedtuple', modules: ['net'],
    files: [{ file: 'train.py' }, { file: 'net.py', origin: /^as built in train\.py:\d+$/ }],
    code: 'import yaml\nfrom net import ConvNet, NetConfig\nc = yaml.safe_load(open("config.yaml"))\nmodel = ConvNet(NetConfig(channels=c["model"]["channels"], num_classes=c["model"]["num_classes"]))',
  },
  {
    dir: 'eqx_cli', modules: ['model'],
    files: [{ file: 'cli.py' }, { file: 'model.py', origin: /^as built in cli\.py:\d+$/ }],
    code: 'import equinox as eqx, jax\nfrom model import MLP\nparams = eqx.filter_eval_shape(MLP, 2048, 4, jax.random.PRNGKey(0))',
  },
  {
    dir: 'absl_flax', modules: ['models', 'train'],
    files: [{ file: 'main.py' }, { file: 'models.py', origin: /^as built in main\.py:\d+$/ }, { file: 'train.py', origin: /^as built in main\.py:\d+$/ }],
    code: 'import jax, jax.numpy as jnp\nimport models\nm = models.MLP(hidden=1024, depth=3, num_classes=10)\nparams = jax.eval_shape(m.init, jax.random.PRNGKey(0), jnp.ones((1, 784)))',
  },
  {
    dir: 'hydra_app', modules: ['train'],
    files: [{ file: 'train.py' }],
    code: 'import yaml\nfrom train import Classifier\nm = yaml.safe_load(open("conf/model/small.yaml"))\nmodel = Classifier(m["d_in"], m["hidden"], m["n_classes"])',
  },
  {
    dir: 'declared', modules: ['llama'],
    files: [{ file: 'llama/model.py', origin: /^declared in pyproject\.toml:7$/ }],
    code: 'from llama.model import ModelArgs, Transformer\nmodel = Transformer(ModelArgs(dim=4096, n_layers=32, n_heads=32, vocab_size=32000))',
  },
  // The command lines the workspace runs its script with: a shell script (torchrun, variables with defaults,
  // continuation lines, an abbreviated option, a positional), a README code block (fire, --noflag),
  // .vscode/launch.json (HfArgumentParser + an arguments JSON file), absl + config_flags overrides.
  {
    dir: 'launch_torchrun', modules: ['model'], run: /^args from scripts\/train\.sh:7, torchrun ×4$/,
    files: [{ file: 'train.py' }, { file: 'model.py', origin: /^as built in train\.py:\d+$/ }],
    code: 'from model import Net\nmodel = Net(50304, 768, 12, int(768 * 2.5))',
  },
  {
    dir: 'launch_fire_readme', modules: ['model'], run: /^args from README\.md:7$/,
    files: [{ file: 'finetune.py' }, { file: 'model.py', origin: /^as built in finetune\.py:\d+$/ }],
    code: 'from model import Classifier\nmodel = Classifier(784, 2048, 6, 10, bias=False)',
  },
  {
    // tyro.cli(TrainConfig, default=tyro.from_yaml(...)) with the README's --model.num_layers=3 (its --out_dir=...$RUN_NAME
    // value is not known, the option still is); Flax Embed.attend, jnp.finfo(...).min and @dataclass(frozen=True).
    dir: 'tyro_yaml', modules: ['model'], run: /^args from README\.md:\d+$/,
    files: [{ file: 'train.py' }, { file: 'model.py', origin: /^as built in train\.py:\d+$/ }],
    code: 'import jax, jax.numpy as jnp\nfrom model import LM, ModelConfig\nparams = jax.eval_shape(lambda: LM(ModelConfig(vocab=100, width=32, num_layers=3)).init(jax.random.PRNGKey(0), jnp.zeros((2, 16), jnp.int32)))',
  },
  {
    // The same project's YAML config, named by no command: train.py reads it by default (os.path.join('config',
    // 'default.yaml')), so the file shows what train.py run with no arguments builds (2 layers, from the YAML).
    dir: 'tyro_yaml', modules: ['model'], run: /^args from train\.py \(reads config\/default\.yaml by default\)$/,
    files: [{ file: 'config/default.yaml', origin: /^as built in \.\.\/train\.py:\d+$/ }],
    code: 'import jax, jax.numpy as jnp\nfrom model import LM, ModelConfig\nparams = jax.eval_shape(lambda: LM(ModelConfig(vocab=100, width=32, num_layers=2)).init(jax.random.PRNGKey(0), jnp.zeros((2, 16), jnp.int32)))',
  },
  {
    // tyro.cli(main) on a function (Sea-Snell/JAXSeq's examples): its positional-only parameter is the README's first
    // word, `--num-layers 3` and `--no-use-bias` its other parameters (tyro writes them with hyphens).
    dir: 'tyro_function', modules: ['model'], run: /^args from README\.md:\d+$/,
    files: [{ file: 'train.py' }],
    code: 'from model import Net\nmodel = Net(768, 3, False)',
  },
  {
    // pathlib: a registry of model configs built at import from `Path(__file__).parent / "model_configs"`,
    // `.glob("*.json")`, `open(path)` and `.stem` (open_clip's factory.py), and `Path.read_text()`. pathlib was not
    // modelled: the registry was empty and "the program raises here", no model.
    dir: 'pathlib_registry', modules: ['factory'],
    files: [{ file: 'train.py' }],
    code: 'from factory import create_model\nmodel = create_model("mlp-big")',
  },
  {
    dir: 'launch_hf_json', modules: ['run'], run: /^args from \.vscode\/launch\.json:\d+$/,
    files: [{ file: 'run.py' }],
    code: 'from run import Tagger, ModelArguments\nmodel = Tagger(ModelArguments(hidden_size=1024, num_layers=4, vocab_size=32000))',
  },
  {
    dir: 'launch_absl', modules: ['main'], run: /^args from scripts\/imagenet\.sh:1$/,
    files: [{ file: 'main.py' }],
    code: 'from main import ConvNet\nmodel = ConvNet(256, 8, 1000)',
  },
  // A @contextmanager that swaps a class in another module (`blocks.Attention = AdaptedAttention`) while the model
  // is built: the adapter's parameters are made with Tensor.new_zeros, and super() inside the swapped-out class
  // still means its own parent (Python's __class__ cell), not whatever the name is bound to.
  {
    dir: 'ctx_adapter', modules: ['blocks', 'adapters'],
    files: [{ file: 'train.py' }],
    code: 'import blocks, adapters\nwith adapters.adapted(rank=8):\n    model = blocks.Net()',
  },
];

const truths = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', CASES.map((c) => ({ dir: join(projects, c.dir), path: c.path ?? [''], code: c.code, modules: c.modules })));

for (const [i, c] of CASES.entries()) {
  test(`${c.dir}: every file gives the framework's count`, () => {
    const truth = truths[i];
    assert.ok(truth.params, `framework build failed: ${truth.error}`);
    for (const f of c.files) {
      const rep = check(c.dir, f.file);
      const m = rep.models.find((x) => x.params === truth.params);
      assert.ok(m, `${c.dir}/${f.file}: no model with ${truth.params} params in ${JSON.stringify(rep.models.map((x) => [x.name, x.params, x.origin]))}; unbuilt ${JSON.stringify(rep.unbuilt)}; unknowns ${JSON.stringify(rep.unknowns)}`);
      if (f.origin) assert.match(m.origin ?? '', f.origin);
      else assert.equal(m.origin, undefined, 'the program builds it itself');
      if (c.run) assert.match(m.run ?? '', c.run);
      else assert.equal(m.run, undefined, 'no launch command runs it');
    }
  });
}

test('a class that needs arguments nobody gives is explained, with a code-free reason', () => {
  const rep = check('declared', 'llama/model.py');
  // Without the declaration the class builds from ModelArgs() whose vocab_size=-1 placeholder is not a size:
  // the declared model is the only confident number.
  const confident = rep.models.filter((m) => m.params !== null);
  assert.deepEqual(confident.map((m) => m.name), ['llama-2-7b']);
});
