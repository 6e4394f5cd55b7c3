/**
 * Notebooks as the analyzer sees them: the code cells, in order, joined
 * into one Python text, with a map back from a line of that text to its
 * cell and the line inside the cell. IPython syntax that is not Python
 * (`%magic`, `!shell`, `%%bash` cells) becomes a comment of the same length,
 * so every column stays where it was. Used by the CLI for `.ipynb` files
 * and by the language server for notebook documents.
 */

/** A code cell: its 1-based position among all the notebook's cells, and its source. */
export interface CodeCell { index: number; text: string }

/** Where a cell starts in the joined text: its first line (1-based) and its offset. */
export interface CellSpan { cell: number; startLine: number; startOffset: number; length: number }

export interface JoinedNotebook { text: string; cells: CellSpan[] }

/** Cell magics whose body is still Python (IPython's %%time, %%timeit, %%capture). */
const PYTHON_CELL_MAGICS = /^%%(time|timeit|capture)\b/;

/** The cell's source with IPython-only lines commented out, same length line by line. */
export function pythonOfCell(src: string): string {
  const lines = src.split('\n');
  const whole = /^%%/.test(lines[0] ?? '') && !PYTHON_CELL_MAGICS.test(lines[0]);
  return lines.map((l, i) => {
    if (whole || (i === 0 && /^%%/.test(l))) return l.length ? '#' + l.slice(1) : l;
    // Line magics and shell escapes, possibly indented; `x = !ls` and `x = %env` assignments.
    const m = /^(\s*)([%!])/.exec(l) ?? /^(\s*[A-Za-z_][\w.]*\s*=\s*)([%!])/.exec(l);
    if (m) return l.slice(0, m[1].length) + '#' + l.slice(m[1].length + 1);
    // `obj?` / `obj??` help requests.
    if (/^\s*[\w.]+\?\??\s*$/.test(l)) return l.replace(/\S/, '#');
    return l;
  }).join('\n');
}

export function joinCells(cells: CodeCell[]): JoinedNotebook {
  let text = '';
  let line = 1;
  const spans: CellSpan[] = [];
  for (const c of cells) {
    let src = pythonOfCell(c.text.replace(/\r\n/g, '\n'));
    if (!src.endsWith('\n')) src += '\n';
    spans.push({ cell: c.index, startLine: line, startOffset: text.length, length: src.length });
    text += src;
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) line++;
  }
  return { text, cells: spans };
}

/** The code cells of an .ipynb file (nbformat 4; `source` a string or a list of lines), or an error. */
export function parseIpynb(raw: string): { cells: CodeCell[] } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    return { error: `not a notebook: invalid JSON (${(e as Error).message})` };
  }
  const cells = (doc as { cells?: unknown })?.cells;
  if (!Array.isArray(cells)) return { error: 'not a notebook: no "cells" list (nbformat 4)' };
  const out: CodeCell[] = [];
  cells.forEach((c, i) => {
    const cell = c as { cell_type?: string; source?: string | string[] };
    if (cell?.cell_type !== 'code') return;
    const text = Array.isArray(cell.source) ? cell.source.join('') : typeof cell.source === 'string' ? cell.source : '';
    out.push({ index: i + 1, text });
  });
  return { cells: out };
}

/** The cell holding a 1-based line of the joined text, and the line inside it. */
export function cellLine(cells: CellSpan[], line: number): { cell: number; line: number } | undefined {
  let found: CellSpan | undefined;
  for (const c of cells) if (c.startLine <= line) found = c;
  return found && { cell: found.cell, line: line - found.startLine + 1 };
}
