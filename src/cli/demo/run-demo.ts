import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { registerBackfillCommands } from '../commands/backfill-commands.js';
import { runCli } from '../create-program.js';
import { LedgerError } from '../../errors.js';
import { packageRoot } from './package-root.js';

export type DemoOptions = {
  /** Where to lay the demo down (created if missing, must be empty); default a new temp dir. */
  dir?: string;
  /** Everything the demo says. */
  out: (text: string) => void;
  /** The environment the commands and the ETL run with. */
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

  let now = DEMO_NOW;
  const etlArgs = ['--date', '{date}', '--raw', raw, '--gold', gold];
  // Each `$ runledger …` line is run by the CLI itself, in this process, on the demo's ledger and clock, and
  // what it prints on stdout is what the demo shows: the transcript is the commands' real output.
  const runledger = async (shown: string, args: string[]): Promise<number> => {
    say(`$ runledger ${shown}`);
    const globals = ['--db', db, '--now', now, ...(options.actor ? ['--actor', options.actor] : [])];
    const deps = { stdout: options.out, stderr: () => {}, env: options.env, clock: () => Date.parse(now), isTTY: false };
    return runCli([...globals, ...args], deps, [registerBackfillCommands]);
  };
  const shownEtl = `node ${etl} ${etlArgs.join(' ')}`;
  const backfill = (flags: string[]) => runledger(`backfill ${PIPELINE} ${flags.join(' ')} -- ${shownEtl}`, ['backfill', PIPELINE, ...flags, '--', options.nodePath, etl, ...etlArgs]);
  const query = (command: string) => runledger(`${command} ${PIPELINE}`, [command, PIPELINE]);

  say('runledger demo: a daily orders ETL whose scheduler was down for three days');
  say(`working in ${dir}`);
  say(`the clock is fixed at ${DEMO_NOW} (Asia/Jakarta) so the story and its figures are the same every time;`);
  say(`every command below runs with --db ${db} --now <the story's clock>`);

  heading(say, '1. Three days of raw orders, one pipeline');
  for (const date of FIRST_DATES) say(`raw/orders-${date}.csv  ${dataRows(join(raw, `orders-${date}.csv`))} rows`);
  const define = ['--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta'];
  await expectExit(0, runledger(`define ${PIPELINE} ${define.join(' ')}`, ['define', PIPELINE, ...define, '--reason', 'runledger demo']));

  heading(say, '2. The scheduler was down: three dates pending');
  await expectExit(0, query('pending'));

  heading(say, '3. Backfill them with the example ETL');
  const first = await backfill(['--from', '2026-11-02', '--to', '2026-11-04']);
  if (first !== 0) throw new Error(`the demo's first backfill exited ${first}, not 0; see the table above`);

  heading(say, '4. Run it again: nothing to do');
  await expectExit(0, backfill(['--from', '2026-11-02', '--to', '2026-11-04']));

  heading(say, '5. Force a reprocess: same input, same bytes');
  const before = hashes(gold);
  await expectExit(0, backfill(['--from', '2026-11-02', '--to', '2026-11-04', '--reprocess', 'completed']));
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
  now = DEMO_LATER;
  const later = readFileSync(join(raw, 'orders-2026-11-04.csv'), 'utf8').replaceAll('2026-11-04', '2026-11-06');
  writeFileSync(join(raw, 'orders-2026-11-06.csv'), later);
  say(`two days later (the clock moves to ${DEMO_LATER}): raw/orders-2026-11-06.csv arrived`);
  say('(11-04\'s orders, re-dated), but the file for 2026-11-05 never did.');
  say('By default a backfill stops at the first failure, so later dates stay pending:');
  const stopped = await backfill(['--from', '2026-11-05', '--to', '2026-11-06']);
  say(`exit ${stopped}; still pending:`);
  await expectExit(0, query('pending'));
  say();
  say('With --continue-on-failure each date stands alone, as in Airflow: 2026-11-05 fails again, 2026-11-06 runs:');
  const carried = await backfill(['--from', '2026-11-05', '--to', '2026-11-06', '--reprocess', 'failed', '--continue-on-failure']);
  say(`exit ${carried} (a run failed), yet 2026-11-06 is done.`);

  heading(say, '7. Where things stand');
  await expectExit(0, query('state'));
  say('watermark: the highest date that ever succeeded (it never goes down); complete through: every date up to it is a success');
  say();
  say(`ledger: ${db}`);
  say('keep exploring (the --now keeps the story\'s clock):');
  for (const command of [`state ${PIPELINE}`, `pending ${PIPELINE}`, `runs ${PIPELINE}`, `log ${PIPELINE}`, 'verify', 'serve', `report --html ${join(dir, 'report.html')}`]) {
    say(`  npx runledger --db ${db} --now ${DEMO_LATER} ${command}`);
  }
  // What the README's "Outside the clone" says, in one line (tests/demo checks the two agree).
  say('npx runledger works in the clone; elsewhere it ends in npm\'s E404 until runledger is installed: `npm link`');
  say('in the clone puts it on your PATH (see "Outside the clone" in the README).');
  return { dir, db };
}

function heading(say: (text?: string) => void, title: string): void {
  say();
  say(`== ${title} ==`);
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
  // Absolute, so the ETL (run with the demo's directory as its working directory) finds the same files.
  return resolve(dir);
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

/** The demo's own commands must work; a failure here is a bug in the demo, said as one. */
async function expectExit(expected: number, run: Promise<number>): Promise<void> {
  const code = await run;
  if (code !== expected) throw new Error(`a demo command exited ${code}, not ${expected}; see the output above`);
}
