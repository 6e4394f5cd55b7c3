/**
 * Declared constructions: `[[tool.oomlens.models]]` tables in pyproject.toml,
 * for models whose arguments come from where no reader can follow them (the
 * shell, a tokenizer, a dataset):
 *
 * ```toml
 * [[tool.oomlens.models]]
 * name = "llama-2-7b"              # label shown in lens, hover, CLI, JSON
 * file = "llama/model.py"          # relative to this pyproject.toml
 * construct = '''
 * model = Transformer(ModelArgs(dim=4096, n_layers=32, n_heads=32, vocab_size=32000))
 * '''
 * batch = 4                        # optional workload
 * seq = 2048
 * ```
 *
 * `construct` is Python evaluated as if appended to `file`: it sees the
 * module's names and may import. What it builds is reported under `name`.
 * Problems (unknown file, syntax error, a name the construct uses that the
 * module does not define) are messages naming the declaration's line.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Cancelled, type Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import { parsePythonSync } from '../interp/parser';

export interface Declaration {
  name: string;
  /** Absolute path of the file the construction is appended to. */
  file: string;
  construct: string;
  batch?: number;
  seq?: number;
  /** pyproject.toml and the 1-based line of the declaration's `[[tool.oomlens.models]]` header. */
  source: string;
  line: number;
  /** 1-based line in pyproject.toml of the construct's first line. */
  constructLine: number;
}

/** Reads and checks the declarations of a parsed pyproject (`doc`), with messages for the bad ones. */
export function readDeclarations(doc: Record<string, unknown>, text: string, path: string): { declarations: Declaration[]; problems: string[] } {
  const problems: string[] = [];
  const declarations: Declaration[] = [];
  const tool = (doc.tool as Record<string, unknown> | undefined)?.oomlens as Record<string, unknown> | undefined;
  const raw = tool?.models;
  if (raw === undefined) return { declarations, problems };
  const lines = text.split('\n');
  const headers = lines.flatMap((l, i) => (/^\s*\[\[\s*tool\.oomlens\.models\s*\]\]/.test(l) ? [i + 1] : []));
  if (!Array.isArray(raw)) return { declarations, problems: [`${path}: tool.oomlens.models must be an array of tables ([[tool.oomlens.models]])`] };
  raw.forEach((d, i) => {
    const line = headers[i] ?? 0;
    const at = `${path}:${line}`;
    if (typeof d !== 'object' || d === null || Array.isArray(d)) { problems.push(`${at}: a [[tool.oomlens.models]] entry must be a table`); return; }
    const e = d as Record<string, unknown>;
    const bad: string[] = [];
    for (const k of ['name', 'file', 'construct']) if (typeof e[k] !== 'string' || !(e[k] as string).trim()) bad.push(`\`${k}\` (a string) is missing`);
    for (const k of ['batch', 'seq']) if (e[k] !== undefined && !(Number.isSafeInteger(Number(e[k])) && Number(e[k]) > 0)) bad.push(`\`${k}\` must be a positive integer`);
    for (const k of Object.keys(e)) if (!['name', 'file', 'construct', 'batch', 'seq'].includes(k)) bad.push(`unknown key \`${k}\``);
    if (bad.length) { problems.push(`${at}: [[tool.oomlens.models]] ${bad.join('; ')}`); if (typeof e.construct !== 'string' || typeof e.file !== 'string' || typeof e.name !== 'string') return; }
    const file = resolve(dirname(path), e.file as string);
    if (!existsSync(file)) { problems.push(`${at}: [[tool.oomlens.models]] "${e.name as string}": file "${e.file as string}" does not exist (relative to ${path})`); return; }
    // The construct's first line: the line after `construct = '''` when the string starts with a newline.
    const end = headers[i + 1] ?? lines.length + 1;
    let constructLine = line + 1;
    for (let l = line; l < end - 1 && l < lines.length; l++) {
      const m = /^\s*construct\s*=\s*('''|"""|'|")?(.*)$/.exec(lines[l]);
      if (m) { constructLine = (m[1] === "'''" || m[1] === '"""') && m[2].trim() === '' ? l + 2 : l + 1; break; }
    }
    declarations.push({
      name: e.name as string, file, construct: e.construct as string, source: path, line, constructLine,
      ...(e.batch !== undefined ? { batch: Number(e.batch) } : {}), ...(e.seq !== undefined ? { seq: Number(e.seq) } : {}),
    });
  });
  return { declarations, problems };
}

/**
 * Runs the declarations for the interpreter's main file after its body, in its
 * namespace. Returns the records each built, and problems as messages.
 */
export function runDeclarations(it: Interpreter, declarations: Declaration[]): { built: { record: ModelRecord; decl: Declaration }[]; problems: string[] } {
  const built: { record: ModelRecord; decl: Declaration }[] = [];
  const problems: string[] = [];
  for (const decl of declarations) {
    if (!it.path || resolve(decl.file) !== resolve(it.path)) continue;
    const at = `${decl.source}:${decl.line}`;
    const tree = parsePythonSync(decl.construct);
    if (tree.rootNode.hasError) {
      problems.push(`${at}: [[tool.oomlens.models]] "${decl.name}": construct has a syntax error`);
      tree.delete();
      continue;
    }
    it.ownedTrees.push(tree);
    it.fileOf.set(tree, decl.source);
    it.lineBase.set(tree, decl.constructLine - 1);
    const before = new Set(it.memory.reported());
    it.frames.push(it.globals);
    try {
      it.execBlock(tree.rootNode.namedChildren);
    } catch (e) {
      // A newer edit cancelled the run: not a problem of the construct.
      if (e instanceof Cancelled) throw e;
      if (!(e instanceof Error) || e.constructor.name !== 'ReturnSignal') problems.push(`${at}: [[tool.oomlens.models]] "${decl.name}": ${(e as Error).message ?? String(e)}`);
    } finally {
      it.frames.pop();
    }
    // Names the construct uses that neither the module nor the construct defines.
    const undefinedNames = new Set<string>();
    for (const n of tree.rootNode.descendantsOfType('identifier')) {
      if (!n || n.parent?.type === 'keyword_argument' && n.parent.childForFieldName('name')?.id === n.id) continue;
      if (n.parent?.type === 'attribute' && n.parent.childForFieldName('attribute')?.id === n.id) continue;
      if ((n.parent?.type === 'assignment' || n.parent?.type === 'pattern_list') && n.parent.childForFieldName('left')?.id === n.id) continue;
      const v = it.lookup(n.text, n);
      if (v.t === 'unknown' && /is not defined here/.test(v.reason)) undefinedNames.add(n.text);
    }
    for (const n of undefinedNames) problems.push(`${at}: [[tool.oomlens.models]] "${decl.name}": name \`${n}\` is not defined in ${it.loader?.rel(decl.file) ?? decl.file}`);
    const recs = it.memory.reported().filter((r) => !before.has(r));
    if (!recs.length) problems.push(`${at}: [[tool.oomlens.models]] "${decl.name}": construct builds no model`);
    for (const r of recs) {
      r.name = decl.name;
      built.push({ record: r, decl });
    }
  }
  return { built, problems };
}
