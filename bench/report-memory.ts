/**
 * Peak memory of `runledger report --html` on a bench ledger, beside the peak of `runledger --version`
 * (the same process with nothing read): the report must stay under 150 MB however long the history.
 * Each peak is the child's own `process.resourceUsage().maxRSS`, printed by a module preloaded with
 * `--import` as the child exits, so no `/usr/bin/time` is needed.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { median, type Figure } from './report.js';
import { timedEnv } from './timed-env.js';

const MARK = 'runledger-bench-max-rss-kb=';
/** Preloaded into the measured child: its peak resident set size, on stderr, as it exits. */
const PRINT_PEAK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\n${MARK}'+process.resourceUsage().maxRSS+'\\n'))`;
/** The report's target: a ceiling in MB. */
const CEILING_MB = 150;

export type ReportMemoryInput = {
  /** bin/runledger.js */
  bin: string;
  db: string;
  /** What the ledger is, for the figure's name ("1,000,000-event ledger (1,000 pipelines)"). */
  label: string;
  /** Where the HTML goes (removed after). */
  dir: string;
  /** `RUNLEDGER_NOW` for the child, so the report's "now" is the bench's. */
  nowText: string;
  /**
   * Runs of `--version` and of the report, each figure their median: the report's peak moves between runs
   * of the same build (the hourly ledger's: 141 MB in most runs, 176–180 MB in one of several, as the
   * collector happens to run), so the note gives every run's.
   */
  runs: number;
  log: (line: string) => void;
};

/** Peak RSS (MB) and wall time (ms) of one `node <args>` child. */
function peakOf(args: string[], nowText: string): { mb: number; ms: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', PRINT_PEAK, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: timedEnv(nowText) });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`bench: node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const line = result.stderr.split('\n').find((l) => l.startsWith(MARK));
  if (line === undefined) throw new Error(`bench: node ${args.join(' ')} did not report its peak RSS`);
  return { mb: Number(line.slice(MARK.length)) / 1024, ms };
}

/**
 * The figure: peak RSS of `report --html` on `db` beside the peak RSS of `runledger --version`.
 *
 * @example
 * figures.push(reportMemory({ bin, db: big, label: '1,000,000-event ledger', dir, nowText, runs: 3, log }));
 */
export function reportMemory(input: ReportMemoryInput): Figure {
  const out = join(input.dir, 'report.html');
  input.log(`report --html on the ${input.label}: peak RSS beside \`runledger --version\``);
  const versions: number[] = [];
  for (let i = 0; i < input.runs; i++) versions.push(peakOf([input.bin, '--version'], input.nowText).mb);
  const reports: { mb: number; ms: number }[] = [];
  for (let i = 0; i < input.runs; i++) reports.push(peakOf([input.bin, '--db', input.db, 'report', '--html', out], input.nowText));
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  const baseline = median(versions);
  const report = { mb: median(reports.map((r) => r.mb)), ms: median(reports.map((r) => r.ms)) };
  const each = reports.length > 1 ? `; median of ${reports.length} runs: ${reports.map((r) => r.mb.toFixed(0)).join(', ')} MB` : '';
  return {
    id: `report-memory-${input.label.replace(/\W+/g, '-')}`,
    name: `peak RSS of \`runledger report --html\` on the ${input.label}`,
    value: report.mb,
    unit: 'MB',
    baseline: { name: '`runledger --version` peak RSS', value: baseline, unit: 'MB' },
    ratio: report.mb / baseline,
    ratioMeaning: '× the --version peak',
    target: `< ${CEILING_MB} MB`,
    met: report.mb < CEILING_MB,
    note: `${(bytes / 2 ** 20).toFixed(1)} MB of HTML in ${(report.ms / 1000).toFixed(1)} s${each}`,
  };
}
