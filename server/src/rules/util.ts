/**
 * Small helpers the rules share: byte formatting in the user's units, the
 * budget line of an estimate, and text edits built from spans.
 */
import type { Span } from '../../../shared/src/facts';
import { formatBytes } from '../../../shared/src/units';
import { displayName } from '../../../shared/src/devices';
import type { DeviceSpec, PhaseEstimate, Units } from '../../../shared/src/types';
import type { TextEdit } from '../analysis/api';

export function fmt(bytes: number, units: Units = 'GB'): string {
  return formatBytes(bytes, units);
}

export function deviceLabel(spec: DeviceSpec): string {
  return displayName(spec);
}

export function peakLine(p: PhaseEstimate, spec: DeviceSpec, units: Units = 'GB'): string {
  return `${p.phase} peak ${p.peakBytes === null ? 'unknown' : `${p.peakIsLowerBound ? 'at least ' : ''}${fmt(p.peakBytes, units)}`} of ${fmt(p.budgetBytes, units)} usable per device on ${deviceLabel(spec)}`;
}

export function replace(span: Span, newText: string): TextEdit {
  return { start: span.start, end: span.end, newText };
}

/** The whole line(s) of a statement, newline included, for deleting or moving it. */
export function lineSpan(text: string, span: Span): Span {
  let start = span.start;
  while (start > 0 && text[start - 1] !== '\n') start--;
  let end = span.end;
  while (end < text.length && text[end] !== '\n') end++;
  if (end < text.length) end++;
  return { start, end };
}
