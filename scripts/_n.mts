import { readFileSync } from 'node:fs';
import { analyzeFile } from '../server/src/program/project';
const f = process.argv[2];
const r = await analyzeFile(readFileSync(f, 'utf8'), { path: f, device: process.argv[3] ?? 'a100-80gb' });
console.log('unknowns', JSON.stringify(r.unknowns).slice(0, 1500));
console.log('unbuilt', JSON.stringify(r.unbuilt).slice(0, 500));
for (const m of r.models) { console.log(m.facts.name, m.run, JSON.stringify(m.facts.unknowns).slice(0, 800)); for (const p of m.estimate.phases) console.log(p.phase, JSON.stringify(p.notes).slice(0, 800)); }
