import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { formatTable } from '../cli/format-table.js';
import { LedgerError } from '../errors.js';
import { openLedger, type Ledger } from '../ledger/ledger.js';
import { commandTask, type KillFn, type SpawnFn } from '../runner/command-task.js';
import { formatSummary, leftAlone, nothingToDo } from '../runner/format-summary.js';
import type { JobRequest } from '../runner/plan-job.js';
import { runJob } from '../runner/run-job.js';
import type { RunSummary } from '../runner/run-types.js';
import { packageRoot } from './package-root.js';

export type DemoOptions = {
  /** Where to lay the demo down (created if missing, must be empty); default a new temp dir. */
  dir?: string;
  /** Everything the demo says. */
  out: (text: string) => void;
  spawn: SpawnFn;
  kill: KillFn;
  /** The environment the ETL runs with. */
  env: Readonly<Record<string, string | undefined>>;
  /** The node binary that runs the ETL (`process.execPath`). */
  nodePath: string;
  actor?: string;
};

export type DemoResult = { dir: string; db: string };

const PIPELINE = 'etl_orders';
/** The story's clock: the morning after the scheduler came back, then a day later. */
export const DEMO_NOW = '2026-11-05T01:00:00+07:00';
export const DEMO_LATER = '2026-11-07T01:00:00+07:00';
const FIRST_DATES = ['2026-11-02', '2026-11-03', '2026-11-04'] as const;

/**
 * `runledger demo`: the README's first command. A small shop's daily orders
 * ETL missed three days; the ledger shows them, backfills them with the
 * shipped example ETL (through the same runner as `runledger backfill`), shows
 * that a re-run does nothing and a forced one rewrites identical bytes, then
 * that a missing partition stops the default backfill while
 * `--continue-on-failure` carries on. The clock is fixed, so every figure is
 * the same on every machine.
 *
 * @example
 * await runDemo({ out: (t) => process.stdout.write(t), spawn, kill: process.kill, env: process.env, nodePath: process.execPath });
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const say = (text = '') => options.out(`${text}\n`);
  const root = packageRoot();
  const etl = join(root, 'examples', 'orders', 'etl.mjs');
  const dir = prepareDir(options.dir);
  const raw = join(dir, 'raw');
  const gold = join(dir, 'gold');
  const db = join(dir, 'runledger.db');
  mkdirSync(raw, { recursive: true });
  for (const date of FIRST_DATES) copyFileSync(join(root, 'examples', 'orders', 'raw', `orders-${date}.csv`), join(raw, `orders-${date}.csv`));

  let nowMs = Date.parse(DEMO_NOW);
  const ledger = await openLedger({ db, clock: () => nowMs, ...(options.actor ? { actor: options.actor } : {}) });
  const etlArgs = ['--date', '{date}', '--raw', raw, '--gold', gold];
  const shown = `node ${etl} ${etlArgs.join(' ')}`;
  const backfill = async (flags: string, request: Omit<Extract<JobRequest, { kind: 'backfill' }>, 'kind' | 'pipeline'>, continueOnFailure = false) => {
    say(`$ runledger backfill ${PIPELINE} ${flags} -- ${shown}`);
    return runBackfill(ledger, options, [options.nodePath, etl, ...etlArgs], dir, { kind: 'backfill', pipeline: PIPELINE, ...request }, continueOnFailure, say);
  };

  try {
    say('runledger demo: a daily orders ETL whose scheduler was down for three days');
    say(`working in ${dir}`);
    say(`the clock is fixed at ${DEMO_NOW} (Asia/Jakarta) so the story and its figures are the same every time`);

    heading(say, '1. Three days of raw orders, one pipeline');
    for (const date of FIRST_DATES) say(`raw/orders-${date}.csv  ${dataRows(join(raw, `orders-${date}.csv`))} rows`);
    say(`$ runledger define ${PIPELINE} --schedule @daily --start 2026-11-02 --tz Asia/Jakarta`);
    const defined = await ledger.define({ pipeline: PIPELINE, schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', reason: 'runledger demo' });
    say(`defined ${PIPELINE}: ${defined.definition.schedule} in ${defined.definition.timezone} from ${defined.definition.start}`);

    heading(say, '2. The scheduler was down: three dates pending');
    say(`$ runledger pending ${PIPELINE}`);
    await showPending(ledger, say);

    heading(say, '3. Backfill them with the example ETL');
    const first = await backfill('--from 2026-11-02 --to 2026-11-04', { from: '2026-11-02', to: '2026-11-04' });
    if (first.succeeded !== FIRST_DATES.length) {
      throw new Error(`the demo's first backfill did not succeed for all three dates (${first.succeeded} succeeded); see the table above`);
    }

    heading(say, '4. Run it again: nothing to do');
    await backfill('--from 2026-11-02 --to 2026-11-04', { from: '2026-11-02', to: '2026-11-04' });

    heading(say, '5. Force a reprocess: same input, same bytes');
    const before = hashes(gold);
    await backfill('--from 2026-11-02 --to 2026-11-04 --reprocess completed', { from: '2026-11-02', to: '2026-11-04', reprocess: 'completed' });
    const after = hashes(gold);
    say('gold file                        sha256 before  sha256 after   same bytes');
    let identical = true;
    for (const [file, hash] of before) {
      const again = after.get(file) ?? '(missing)';
      identical &&= again === hash;
      say(`${file.padEnd(33)}${hash.slice(0, 12)}   ${again.slice(0, 12)}   ${again === hash ? 'yes' : 'NO'}`);
    }
    say(identical ? `all ${before.size} gold files are byte-identical: reprocessing is safe to repeat` : 'the gold files changed: the ETL is not deterministic');

    heading(say, '6. A missing partition');
    nowMs = Date.parse(DEMO_LATER);
    const later = readFileSync(join(raw, 'orders-2026-11-04.csv'), 'utf8').replaceAll('2026-11-04', '2026-11-06');
    writeFileSync(join(raw, 'orders-2026-11-06.csv'), later);
    say(`two days later (the clock moves to ${DEMO_LATER}): raw/orders-2026-11-06.csv arrived`);
    say('(11-04\'s orders, re-dated), but the file for 2026-11-05 never did.');
    say('By default a backfill stops at the first failure, so later dates stay pending:');
    const stopped = await backfill('--from 2026-11-05 --to 2026-11-06', { from: '2026-11-05', to: '2026-11-06' });
    say(`exit ${exitCodeOf(stopped)}; still pending:`);
    await showPending(ledger, say);
    say();
    say('With --continue-on-failure each date stands alone, as in Airflow: 2026-11-05 fails again, 2026-11-06 runs:');
    const carried = await backfill('--from 2026-11-05 --to 2026-11-06 --reprocess failed --continue-on-failure', { from: '2026-11-05', to: '2026-11-06', reprocess: 'failed' }, true);
    say(`exit ${exitCodeOf(carried)} (a run failed), yet 2026-11-06 is done.`);

    heading(say, '7. Where things stand');
    say(`$ runledger state ${PIPELINE}`);
    const state = await ledger.state({ pipeline: PIPELINE });
    say(
      formatTable(
        ['DATE', 'STATUS', 'ATTEMPTS', 'TYPE', 'DETAIL'],
        state.dates.map((d) => [d.date, d.status, String(d.attempts), d.runType ?? '-', d.error ?? figures(d.metrics)]),
      ).trimEnd(),
    );
    say(`watermark: ${state.watermark ?? 'none'} (the highest date that ever succeeded; it never goes down)`);
    say(`complete through: ${state.completeThrough ?? 'none'} (every date up to it is a success)`);
    say();
    say(`ledger: ${db}`);
    say('keep exploring (the --now keeps the story\'s clock):');
    for (const command of [`state ${PIPELINE}`, `pending ${PIPELINE}`, `runs ${PIPELINE}`, `log ${PIPELINE}`, 'verify', 'serve', `report --html ${join(dir, 'report.html')}`]) {
      say(`  runledger --db ${db} --now ${DEMO_LATER} ${command}`);
    }
  } finally {
    await ledger.close();
  }
  return { dir, db };
}

async function runBackfill(
  ledger: Ledger,
  options: DemoOptions,
  argv: string[],
  cwd: string,
  request: JobRequest,
  continueOnFailure: boolean,
  say: (text?: string) => void,
): Promise<RunSummary> {
  // The ETL's stdout is its one-line summary per date: show it as the CLI would.
  const command = commandTask({ argv, spawn: options.spawn, kill: options.kill, env: options.env, cwd, onOutput: (stream, _run, line) => stream === 'stdout' && say(line) });
  const { job, summary } = await runJob(ledger, request, command.task, { continueOnFailure });
  if (job.plan.slots.length === 0) say(`${nothingToDo(job)}\n${leftAlone(job.plan)}`.trimEnd());
  else say(formatSummary(summary).trimEnd());
  return summary;
}

function heading(say: (text?: string) => void, title: string): void {
  say();
  say(`== ${title} ==`);
}

async function showPending(ledger: Ledger, say: (text?: string) => void): Promise<void> {
  const view = await ledger.pending({ pipeline: PIPELINE });
  if (view.pending.length === 0) return say('nothing pending');
  say(formatTable(['DATE', 'REASON', 'RUN AFTER'], view.pending.map((p) => [p.date, p.reason, p.runAfter])).trimEnd());
}

function prepareDir(dir: string | undefined): string {
  if (dir === undefined) return mkdtempSync(join(tmpdir(), 'runledger-demo-'));
  if (existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).length > 0) {
    throw new LedgerError('input.demoDirNotEmpty', `--dir ${dir} is not empty; the demo lays down its own files and ledger, so give it a new or empty directory`);
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    // A file in the way (EEXIST, ENOTDIR), an empty path (ENOENT) or no permission (EACCES) is the user's --dir.
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' ? 'it is a file' : code === 'ENOENT' && dir.trim() === '' ? 'the path is empty' : (code ?? (error as Error).message);
    throw new LedgerError('input.demoDir', `cannot use --dir '${dir}' for the demo: ${why}; give it a new or empty directory`);
  }
  return dir;
}

function dataRows(file: string): number {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').length - 1;
}

/** sha256 of each gold file, by name. */
function hashes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.csv')).sort()) {
    out.set(basename(name), createHash('sha256').update(readFileSync(join(dir, name))).digest('hex'));
  }
  return out;
}

function figures(metrics: Record<string, unknown> | null): string {
  if (!metrics) return '';
  const n = (key: string) => (typeof metrics[key] === 'number' ? (metrics[key] as number) : null);
  const revenue = n('revenueIdr');
  return [`raw=${n('rawRows')}`, `valid=${n('valid')}`, `rejected=${n('rejected')}`, `duplicates=${n('duplicates')}`, `cities=${n('cities')}`, revenue === null ? '' : `revenue=Rp${revenue.toLocaleString('en-US')}`]
    .filter(Boolean)
    .join(' ');
}

function exitCodeOf(summary: RunSummary): number {
  return summary.failed > 0 ? 6 : 0;
}
