/**
 * Loads tree-sitter (wasm) and the Python grammar once per process and
 * parses text. The wasm files sit next to the bundle (esbuild.mjs copies
 * them); when running from source (tests through tsx) they are resolved from
 * node_modules instead.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

export type SyntaxNode = Node;
export type { Tree };

let ready: Promise<Parser> | undefined;
let loaded: Parser | undefined;

/** Finds a wasm file beside the bundle, in $OOMLENS_WASM_DIR, or in its npm package. */
function locate(file: string, resolveFrom: string): string {
  const besideBundle = join(__dirname, file);
  if (existsSync(besideBundle)) return besideBundle;
  const env = process.env.OOMLENS_WASM_DIR;
  if (env && existsSync(join(env, file))) return join(env, file);
  return join(dirname(require.resolve(resolveFrom)), file);
}

/** Resolves once the grammar is loaded; later calls share the same parser. */
export function initParser(): Promise<Parser> {
  ready ??= (async () => {
    await Parser.init({
      locateFile: (name: string) => locate(name, 'web-tree-sitter/tree-sitter.wasm'),
    });
    const lang = await Language.load(locate('tree-sitter-python.wasm', 'tree-sitter-python/package.json'));
    const parser = new Parser();
    parser.setLanguage(lang);
    loaded = parser;
    return parser;
  })();
  return ready;
}

/** Parses `text`, optionally reusing an edited previous tree (incremental parsing). */
export async function parsePython(text: string, previous?: Tree): Promise<Tree> {
  const parser = await initParser();
  const tree = parser.parse(text, previous);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

/** Parses synchronously; the grammar must already be loaded (`initParser()` resolved). */
export function parsePythonSync(text: string): Tree {
  if (!loaded) throw new Error('tree-sitter is not initialised: await initParser() first');
  const tree = loaded.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}
