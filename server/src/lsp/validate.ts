/**
 * Shape checks for request and notification parameters. A client (or a
 * fuzzer) may send anything; a handler validates what it reads before using
 * it, so a malformed request gets an InvalidParams error response instead of
 * an internal TypeError, and a malformed notification is logged and ignored.
 */
import { ErrorCodes, ResponseError } from 'vscode-languageserver';

export type Json = unknown;

const isObj = (x: Json): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isUInt = (x: Json): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

export function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

export function isPosition(x: Json): x is { line: number; character: number } {
  return isObj(x) && isUInt(x.line) && isUInt(x.character);
}

export function isRange(x: Json): x is { start: { line: number; character: number }; end: { line: number; character: number } } {
  return isObj(x) && isPosition(x.start) && isPosition(x.end);
}

/** `{ textDocument: { uri } }`: the document's URI, or throws InvalidParams. */
export function docUri(p: Json): string {
  if (!isObj(p) || !isObj(p.textDocument) || typeof p.textDocument.uri !== 'string') throw invalid('expected params.textDocument.uri (a string)');
  return p.textDocument.uri;
}

/** `{ textDocument: { uri }, position }`, or throws InvalidParams. */
export function docPosition(p: Json): { uri: string; position: { line: number; character: number } } {
  const uri = docUri(p);
  const position = (p as { position?: unknown }).position;
  if (!isPosition(position)) throw invalid('expected params.position with non-negative integer line and character');
  return { uri, position };
}

/** Code action params: the URI, the `only` kinds and the context's diagnostics, or throws InvalidParams. */
export function codeActionParams(p: Json): { uri: string; only?: string[]; diagnostics: unknown[] } {
  const uri = docUri(p);
  const ctx = (p as { context?: unknown }).context;
  if (!isObj(ctx) || !Array.isArray(ctx.diagnostics)) throw invalid('expected params.context.diagnostics (an array)');
  if (ctx.only !== undefined && (!Array.isArray(ctx.only) || !ctx.only.every((k) => typeof k === 'string'))) throw invalid('expected params.context.only to be an array of strings');
  if (!isRange((p as { range?: unknown }).range)) throw invalid('expected params.range');
  return { uri, only: ctx.only as string[] | undefined, diagnostics: ctx.diagnostics };
}

/** didOpen: the document, or undefined when malformed. */
export function openParams(p: Json): { uri: string; languageId: string; version: number; text: string } | undefined {
  if (!isObj(p) || !isObj(p.textDocument)) return undefined;
  const t = p.textDocument;
  if (typeof t.uri !== 'string' || typeof t.languageId !== 'string' || typeof t.version !== 'number' || !Number.isFinite(t.version) || typeof t.text !== 'string') return undefined;
  return { uri: t.uri, languageId: t.languageId, version: t.version, text: t.text };
}

export type ContentChange = { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string } | { text: string };

/** didChange: the document, its new version and the changes, or undefined when malformed. */
export function changeParams(p: Json): { uri: string; version: number; changes: ContentChange[] } | undefined {
  if (!isObj(p) || !isObj(p.textDocument) || typeof p.textDocument.uri !== 'string') return undefined;
  const version = p.textDocument.version;
  if (typeof version !== 'number' || !Number.isFinite(version) || !Array.isArray(p.contentChanges)) return undefined;
  for (const c of p.contentChanges) {
    if (!isObj(c) || typeof c.text !== 'string') return undefined;
    if (c.range !== undefined && !isRange(c.range)) return undefined;
  }
  return { uri: p.textDocument.uri, version, changes: p.contentChanges as ContentChange[] };
}
