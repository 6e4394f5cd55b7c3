/**
 * `npm run corpus`: the issue-4 corpus report. One line per model with the
 * expected and predicted parameter counts, the status (exact / unknown with
 * the analyzer's reasons / missing / wrong) and the file's analysis time,
 * then the false alarms and the totals. `--update-baseline` rewrites
 * test/corpus/baseline.json with the models that are exact now, so the test
 * suite fails if any of them regresses later.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, DEVICE, runCorpus, totals } from '../test/corpus/compare';

const fmt = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US'));

async function main(): Promise<void> {
  const r = await runCorpus();
  if (!r.torch.ok) console.log(`! PyTorch truth unavailable: ${r.torch.error}`);
  else console.log(`PyTorch truth: torch ${r.torch.torch} via ${r.torch.python}; device ${DEVICE}`);
  for (const row of r.rows) {
    const id = `${row.entry.file} ${row.entry.name}${row.entry.index ? `#${row.entry.index}` : ''}`;
    let line = `${id.padEnd(46)} expected ${fmt(row.expected).padStart(15)}  predicted ${fmt(row.predicted).padStart(15)}  ${row.status.padEnd(8)} ${String(row.ms).padStart(5)} ms`;
    if (row.expectedBuffers !== null && row.expectedBuffers !== row.predictedBuffers) {
      line += `  [buffers: PyTorch ${fmt(row.expectedBuffers)}, predicted ${fmt(row.predictedBuffers)}]`;
    }
    if (row.reasons.length) {
      const shown = row.reasons.slice(0, 3).join('; ');
      line += `  (${shown}${row.reasons.length > 3 ? `; +${row.reasons.length - 3} more` : ''})`;
    }
    console.log(line);
  }
  if (r.falseAlarms.length) {
    console.log('\nFalse alarms (findings not listed in expectFindings):');
    for (const a of r.falseAlarms) console.log(`  ${a.file} ${a.code} (${a.severity}): ${a.message}`);
  } else console.log('\nFalse alarms: none');
  const t = totals(r);
  const bufferMismatches = r.rows.filter((x) => x.expectedBuffers !== null && x.expectedBuffers !== x.predictedBuffers);
  console.log(`Buffers (PyTorch models, counted apart from parameters): ${bufferMismatches.length ? `${bufferMismatches.length} differ: ${bufferMismatches.map((x) => x.key).join(', ')}` : 'all equal to PyTorch'}`);
  console.log(`\nTotals: ${t.total} models, ${t.exact} exact (${(100 * t.exactShare).toFixed(1)}%), ${t.unknown} unknown, ${t.missing} missing, ${t.wrong} wrong, ${t.noTruth} without truth; slowest file ${t.slowestFile} ${t.slowestMs} ms`);
  if (process.argv.includes('--update-baseline')) {
    const exact = r.rows.filter((x) => x.status === 'exact').map((x) => x.key);
    writeFileSync(join(CORPUS_DIR, 'baseline.json'), JSON.stringify({ exact }, null, 2) + '\n');
    console.log(`baseline.json: ${exact.length} exact models recorded`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
