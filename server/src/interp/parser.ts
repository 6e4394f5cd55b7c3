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

/**
 * How long one parse may take. tree-sitter's error recovery on a large text with many syntax errors can take
 * tens of seconds (a mutated 1.4 MB file: 21 s, 20.6 s of it in `ts_subtree_summarize_children` and
 * `ts_parser__recover`, docs/performance.md); a valid 100,000-line file parses in well under a second. Past
 * the deadline the parse is cancelled (web-tree-sitter 0.25 `ParseOptions.progressCallback` returning true
 * makes `parse` return null) and the file is reported as not analysed.
 */
export const PARSE_DEADLINE_MS = 3000;

/** A parse cancelled at its deadline. */
export class ParseTooSlow extends Error {
  constructor(readonly ms: number) { super(`not analysed: parsing took longer than ${ms / 1000} s (tree-sitter's recovery from the syntax errors in this text); fix the syntax errors to analyse it`); }
}

function parseWithin(parser: Parser, text: string, previous: Tree | undefined, deadlineMs: number): Tree {
  const end = Date.now() + deadlineMs;
  const tree = parser.parse(text, previous ?? null, { progressCallback: () => Date.now() > end });
  if (!tree) {
    // A cancelled parse would resume on the next call (tree-sitter keeps its state): start the next one afresh.
    parser.reset();
    throw new ParseTooSlow(deadlineMs);
  }
  return tree;
}

/** Parses `text`, optionally reusing an edited previous tree (incremental parsing); throws ParseTooSlow past the deadline. */
export async function parsePython(text: string, previous?: Tree, deadlineMs = PARSE_DEADLINE_MS): Promise<Tree> {
  return parseWithin(await initParser(), text, previous, deadlineMs);
}

/** Parses synchronously; the grammar must already be loaded (`initParser()` resolved). Throws ParseTooSlow past the deadline. */
export function parsePythonSync(text: string, deadlineMs = PARSE_DEADLINE_MS): Tree {
  if (!loaded) throw new Error('tree-sitter is not initialised: await initParser() first');
  return parseWithin(loaded, text, undefined, deadlineMs);
}
