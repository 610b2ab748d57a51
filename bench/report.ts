/** One measured figure beside its baseline (and a peer's, where one was measured). */
export type Figure = {
  id: string;
  name: string;
  value: number;
  unit: string;
  baseline: { name: string; value: number; unit: string };
  /** value / baseline or baseline / value, as `ratioMeaning` says. */
  ratio: number;
  ratioMeaning: string;
  target: string;
  /** Whether this run met the target; null when the target is only "measure it". */
  met: boolean | null;
  peer?: { name: string; value: number; unit: string };
  note?: string;
};

export type BenchDoc = {
  mode: string;
  date: string;
  durationS: number;
  machine: { cpu: string; cores: number; memoryGb: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  versions: Record<string, string>;
  sizes: Record<string, number>;
  figures: Figure[];
  notes: string[];
};

export function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function num(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** The ratio as the table shows it; a baseline of 0 (a p99 under the 1 ms resolution, say) gives none. */
function ratioText(f: Figure): string {
  if (Number.isFinite(f.ratio)) return `${f.ratio.toFixed(2)}${f.ratioMeaning}`;
  return f.value === 0 && f.baseline.value === 0 ? "none (both 0 at the measure's resolution)" : 'none (a baseline of 0)';
}

function tableRows(doc: BenchDoc): string[] {
  const rows = ['| figure | runledger | baseline | ratio | peer | target | met |', '|---|---|---|---|---|---|---|'];
  for (const f of doc.figures) {
    const peer = f.peer ? `${num(f.peer.value)} ${f.peer.unit} (${f.peer.name})` : '-';
    const met = f.met === null ? '-' : f.met ? 'yes' : 'no';
    rows.push(`| ${f.name}${f.note ? ` (${f.note})` : ''} | ${num(f.value)} ${f.unit} | ${num(f.baseline.value)} ${f.baseline.unit}: ${f.baseline.name} | ${ratioText(f)} | ${peer} | ${f.target} | ${met} |`);
  }
  return rows;
}

function header(doc: BenchDoc): string[] {
  const m = doc.machine;
  return [
    `Run ${doc.date} (${doc.mode}, ${doc.durationS.toFixed(0)} s) on ${m.cores} × ${m.cpu}, ${m.memoryGb} GB; load average ${m.loadAverageAtStart.join(' ')} at the start, ${m.loadAverageAtEnd.join(' ')} at the end.`,
    `Versions: ${Object.entries(doc.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    `Sizes: ${Object.entries(doc.sizes).map(([k, v]) => `${k} ${v.toLocaleString('en')}`).join(', ')}.`,
  ];
}

export function printFigures(doc: BenchDoc, out: (line: string) => void): void {
  for (const line of header(doc)) out(line);
  out('');
  for (const line of tableRows(doc)) out(line);
  for (const note of doc.notes) out(`\n${note}`);
}

export function resultsMarkdown(doc: BenchDoc): string {
  return [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (full sizes). Every figure was measured beside its baseline in the same run, interleaved in rounds; ratios are of medians. Reproduce with `npm run bench:peers && npm run bench`; `npm run bench -- --quick --json` runs the same figures at small sizes in under a minute.',
    '',
    ...header(doc),
    '',
    ...tableRows(doc),
    '',
    ...doc.notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
}

/**
 * RESULTS.md with one section's figures from a run of that section alone (`BENCH_ONLY`, full sizes) put in place of
 * the same section from an earlier such run, below the full run's table, which stays as it was.
 */
export function withSectionRun(existing: string, sections: readonly string[], doc: BenchDoc): string {
  const title = `## BENCH_ONLY=${sections.join(',')}`;
  // Only the sizes of the sections that ran (schedulerPipelines for scheduler), where their names say so.
  const own = Object.entries(doc.sizes).filter(([key]) => sections.some((name) => key.startsWith(name)));
  if (own.length > 0) doc = { ...doc, sizes: Object.fromEntries(own) };
  const section = [title, '', `Written by \`BENCH_ONLY=${sections.join(',')} npm run bench\` (full sizes, only ${sections.length === 1 ? 'this section' : 'these sections'}); the table above is the last full run.`, '', ...header(doc), '', ...tableRows(doc), ''].join('\n');
  const start = existing.indexOf(`\n${title}\n`);
  if (start < 0) return `${existing.trimEnd()}\n\n${section}`;
  const next = existing.indexOf('\n## ', start + 1);
  return `${existing.slice(0, start + 1)}${section}${next < 0 ? '' : existing.slice(next)}`;
}
