/**
 * `npm run bench` (full: a 1,000,000-event ledger, writes bench/RESULTS.md) and
 * `npm run bench -- --quick --json` (small sizes, no hourly ledger, one serve
 * round a side, about a minute, one JSON document on stdout). Every figure is measured beside its baseline in the
 * same run, interleaved in rounds, and reported with the ratio; nothing here
 * asserts a threshold.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openLedger } from '../src/open-ledger.js';
import type { NewEvent } from '../src/store/event-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-event-store.js';
import { BENCH_NOW, buildFixture, buildHourlyFixture, HOURLY_PIPELINE, pipelineName } from './ledger-fixture.js';
import { EXTRA_CA_CERTS_NOTE, timedEnv } from './timed-env.js';
import { loadEmmett } from './peer-emmett.js';
import { benchPostgres } from './postgres-writers.js';
import { appendEvents } from './append-events.js';
import { rawInsertEach } from './raw-baselines.js';
import { reportMemory } from './report-memory.js';
import { median, ms, type Figure } from './report.js';
import { printFigures, resultsMarkdown, withSectionRun } from './report.js';
import { serveRouteFigures } from './serve-routes.js';
import { serveSoak } from './serve-soak.js';
import { schedulerCost } from './scheduler-cost.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const bin = join(root, 'bin', 'runledger.js');
const childScript = join(here, 'child.js');
const quick = process.argv.includes('--quick');
const asJson = process.argv.includes('--json');
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const SIZES = {
  pipelines: env('BENCH_PIPELINES', quick ? 5 : 1000),
  dates: 1000,
  eventsPerPipeline: 1000,
  appends: env('BENCH_APPENDS', quick ? 100 : 2000),
  /** Samples of each CLI and cold-state figure (the median of 3 in quick mode: a smoke reading, not a result). */
  samples: quick ? 3 : 21,
  // The 1M-event children (rebuild, verify, export, import) run once per side: each takes minutes on this machine.
  rounds: 1,
  pgAppendsPerWriter: quick ? 40 : 300,
  pgbenchSeconds: quick ? 3 : 10,
  /** The single hourly pipeline: ten years (about 200,000 events), one in quick mode. */
  hourlyYears: env('BENCH_HOURLY_YEARS', quick ? 1 : 10),
  /** start + succeed pairs through `openLedger`, beside Emmett and raw FULL inserts of as many events. */
  libraryRuns: env('BENCH_LIBRARY_RUNS', quick ? 100 : 1000),
  /** serve under load: seconds of each measured run and rounds per side (bench/serve-routes.ts). */
  serveSeconds: env('BENCH_SERVE_SECONDS', quick ? 1 : 5),
  serveRounds: env('BENCH_SERVE_ROUNDS', quick ? 1 : 2),
  /** serve's memory soak on the big ledger (bench/serve-soak.ts): seconds, start + succeed pairs per second, readers. */
  soakSeconds: env('BENCH_SOAK_SECONDS', quick ? 2 : 600),
  soakWritesPerSecond: env('BENCH_SOAK_WRITES_PER_S', 5),
  soakReaders: env('BENCH_SOAK_READERS', 2),
  /** The scheduler's cost (bench/scheduler-cost.ts): pipelines of the idle ledger, seconds watched, dates due at one instant. */
  schedulerPipelines: env('BENCH_SCHEDULER_PIPELINES', quick ? 200 : 10_000),
  schedulerIdleSeconds: env('BENCH_SCHEDULER_IDLE_SECONDS', quick ? 5 : 300),
  /** 0 leaves the burst out: its dates fall due at a whole minute at least 30 s ahead (cron slots are whole minutes), so
   * it waits 30–90 s; --quick leaves it out unless BENCH_SCHEDULER_BURST names a size. */
  schedulerBurst: env('BENCH_SCHEDULER_BURST', quick ? 0 : 1000),
};
/**
 * `BENCH_ONLY=library,appends` runs only those sections (appends, pending, ledger, start, hourly, library, serve, scheduler,
 * postgres; serve needs ledger, and hourly outside --quick); unset runs all (--quick: all but hourly). `start` is the CLI's
 * start beside `node -e 0` (part of `ledger`, or alone on the big ledger).
 */
const ONLY = (process.env['BENCH_ONLY'] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
const SECTIONS = ['appends', 'pending', 'ledger', 'start', 'hourly', 'library', 'serve', 'scheduler', 'postgres'];
for (const name of ONLY) if (!SECTIONS.includes(name)) throw new Error(`bench: BENCH_ONLY names an unknown section "${name}"; use ${SECTIONS.join(', ')}`);
/**
 * `BENCH_LEDGER=path`: the big ledger built by an earlier run (`BENCH_KEEP=1` keeps it as big.db), used instead of
 * building one (five minutes at full size); it must be of this run's sizes. Only sections that read it may use it.
 */
const KEPT_LEDGER = process.env['BENCH_LEDGER'];
/**
 * --quick leaves out the hourly ledger (its build and its queries) unless BENCH_ONLY names it, the scheduler burst
 * (BENCH_SCHEDULER_BURST=50 brings it back), and the two scan figures without a target (the rebuild beside a floor
 * that writes, and import's bulk insert alone); it takes 3 samples where a full run takes 21.
 */
const QUICK_SKIPS = ['hourly'];
const selected = (section: string): boolean => (ONLY.length === 0 ? !(quick && QUICK_SKIPS.includes(section)) : ONLY.includes(section));
const dir = mkdtempSync(join(tmpdir(), 'runledger-bench-'));
const benchStart = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - benchStart) / 1000).toFixed(1)} s] ${line}\n`);
const figures: Figure[] = [];
const notes: string[] = process.env['NODE_EXTRA_CA_CERTS'] ? [EXTRA_CA_CERTS_NOTE] : [];
const NOW_TEXT = new Date(BENCH_NOW).toISOString();

function child(task: string, ...args: string[]): { ms: number; maxRssMb: number } {
  const result = spawnSync(process.execPath, [childScript, task, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`bench child ${task} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number; maxRssMb: number };
}

/** Wall time of one process, spawn to exit; its stdout goes to /dev/null, or with `read` to this process through a pipe. */
function wall(command: string, args: string[], read = false): number {
  const t = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', read ? 'pipe' : 'ignore', 'pipe'], env: timedEnv(NOW_TEXT), maxBuffer: 256 * 1024 * 1024 });
  const took = ms(t);
  if (result.status !== 0) throw new Error(`bench: ${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return took;
}

/** Runs `a` and `b` alternately (a b, b a, …) so drift over the run lands on both sides. */
function alternate(rounds: number, a: () => void, b: () => void): void {
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a();
      b();
    } else {
      b();
      a();
    }
  }
}

async function appends(): Promise<void> {
  log(`durable appends: ${SIZES.appends} one-event transactions, runledger vs raw better-sqlite3${''} in 8 interleaved rounds`);
  const events = appendEvents(0, SIZES.appends);
  const payloads = events.map((e) => JSON.stringify({ ...e, position: 1, streamVersion: 1 }));
  const peer = await loadEmmett();
  if ('missing' in peer) notes.push(peer.missing);
  const ROUNDS = 8;
  const per = Math.ceil(SIZES.appends / ROUNDS);
  let raw = 0;
  let ours = 0;
  let theirs = 0;
  let read = 0;
  let theirRead = 0;
  const ourAppend = async (r: number, slice: NewEvent[]) => {
    const store = openSqliteStore({ path: join(dir, `append-${r}.db`), create: true });
    const t = process.hrtime.bigint();
    for (const event of slice) {
      if (!(await store.append([{ stream: event.stream, expectedVersion: 0, events: [event] }])).ok) throw new Error('bench: conflict');
    }
    ours += ms(t);
    const tr = process.hrtime.bigint();
    for (const event of slice) for await (const batch of store.read({ stream: event.stream })) if (batch.length !== 1) throw new Error('bench: read');
    read += ms(tr);
    await store.close();
  };
  let peerFailed: string | null = null;
  let peerRetries = 0;
  const peerAppend = async (r: number, from: number, count: number) => {
    if ('missing' in peer || peerFailed !== null) return;
    // In a process of its own: its sqlite3 driver can throw from a callback (SQLITE_BUSY under load), which no caller can catch.
    const attempt = (n: number) => spawnSync(process.execPath, [childScript, 'emmett', join(dir, `emmett-${r}-${n}.db`), String(from), String(count)], { encoding: 'utf8' });
    // One retry on a fresh file: on a loaded machine its driver sometimes fails a commit with SQLITE_BUSY.
    let result = attempt(1);
    if (result.status !== 0) result = attempt(2);
    if (result.status !== 0) {
      peerFailed = (result.stderr.split('\n').find((line) => line.includes('Error')) ?? `exit ${result.status}`).trim();
      return;
    }
    // Its withTransaction prints each error it rolls back (console.log) to stdout: the figures are the line that starts with {"ms".
    const line = result.stdout.split('\n').find((text) => text.startsWith('{"ms"'));
    const took = JSON.parse(line ?? '{}') as { ms: number; readMs: number; retries: number };
    theirs += took.ms;
    theirRead += took.readMs;
    peerRetries += took.retries;
  };
  // Warm-up: JIT and first-file costs land on no side.
  rawInsertEach(join(dir, 'warm-raw.db'), payloads.slice(0, 30));
  await ourAppend(-1, events.slice(0, 30));
  await peerAppend(-1, 0, 30);
  [ours, read, theirs, theirRead, peerRetries] = [0, 0, 0, 0, 0];
  for (let r = 0; r < ROUNDS; r++) {
    const slice = [r * per, Math.min(SIZES.appends, (r + 1) * per)] as const;
    // The peer first, then raw and runledger, each first in every other round, so both stand in the same places
    // relative to the peer's process. Rotating all three put raw right after it in five rounds of eight and
    // runledger in three, and the ratio then depended on whether the peer was installed: 1.19-1.21x with it,
    // 1.07-1.10x without (2,000 appends, same code, idle machine).
    await peerAppend(r, slice[0], slice[1] - slice[0]);
    const pair = [() => { raw += rawInsertEach(join(dir, `raw-${r}.db`), payloads.slice(...slice)); }, () => ourAppend(r, events.slice(...slice))];
    for (let i = 0; i < pair.length; i++) await pair[(i + r) % pair.length]?.();
  }
  const n = SIZES.appends;
  figures.push({
    id: 'append',
    name: 'durable single-event append',
    value: ours / n,
    unit: 'ms/append',
    baseline: { name: 'raw better-sqlite3 insert, one transaction per row, same table and pragmas', value: raw / n, unit: 'ms/insert' },
    ratio: ours / raw,
    ratioMeaning: '× the raw time',
    target: '≤ 1.25× the raw time (read models kept in the same transaction)',
    met: ours / raw <= 1.25,
    ...('missing' in peer || peerFailed !== null ? {} : { peer: { name: `${peer.name} ${peer.version} appendToStream (its defaults)`, value: theirs / n, unit: 'ms/append' } }),
  });
  if (peerRetries > 0) notes.push(`Emmett's SQLite event store failed ${peerRetries} of its appends with SQLITE_BUSY from its own connection handling (an unawaited PRAGMA still running at COMMIT); each was tried again, and the failed tries' time is in its figure.`);
  if (peerFailed !== null) notes.push(`Emmett's SQLite event store failed during the append rounds (${peerFailed}); its column is left out of this run.`);
  if (!('missing' in peer) && peerFailed === null) {
    figures.push({
      id: 'read-stream',
      name: 'read one stream back (one event each)',
      value: read / n,
      unit: 'ms/read',
      baseline: { name: `${peer.name} ${peer.version} readStream`, value: theirRead / n, unit: 'ms/read' },
      ratio: read / theirRead,
      ratioMeaning: '× the peer time',
      target: 'measured beside the peer',
      met: null,
    });
  }
}

async function coldState(big: string, pipelines: number): Promise<void> {
  log(`cold state: a fresh openLedger per call, ${SIZES.samples} pipelines, with and without checkpoints, alternating`);
  const withCheckpoints: number[] = [];
  const without: number[] = [];
  const one = async (pipeline: string, checkpointAfter: number, into: number[]) => {
    const t = process.hrtime.bigint();
    const ledger = await openLedger({ db: big, create: false, clock: () => BENCH_NOW, checkpointAfter });
    const view = await ledger.state({ pipeline });
    await ledger.close();
    into.push(ms(t));
    if (view.dates.length !== 1000) throw new Error(`bench: state of ${pipeline} has ${view.dates.length} dates`);
  };
  for (let i = 0; i < SIZES.samples; i++) {
    const pipeline = pipelineName((i * 7919) % pipelines);
    if (i % 2 === 0) {
      await one(pipeline, 256, withCheckpoints);
      await one(pipeline, 0, without);
    } else {
      await one(pipeline, 0, without);
      await one(pipeline, 256, withCheckpoints);
    }
  }
  const p50 = median(withCheckpoints);
  const base = median(without);
  figures.push({
    id: 'cold-state',
    name: `cold state of one pipeline (1,000 dates), ${(pipelines * 1000).toLocaleString('en')}-event ledger, library, fresh openLedger each`,
    value: p50,
    unit: 'ms p50',
    baseline: { name: 'the same call folding the pipeline from its first event (checkpoints off)', value: base, unit: 'ms p50' },
    ratio: p50 / base,
    ratioMeaning: '× the no-checkpoint time',
    target: 'p50 ≤ 20 ms',
    met: p50 <= 20,
  });
  log('cold state through the CLI vs `runledger --version`, alternating');
  const cli: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < SIZES.samples; i++) {
    const pipeline = pipelineName((i * 104729) % pipelines);
    alternate(quick ? 1 : 1 + (i % 2), () => cli.push(wall(process.execPath, [bin, '--db', big, 'state', pipeline, '--json'])), () => version.push(wall(process.execPath, [bin, '--version'])));
  }
  figures.push({
    id: 'cli-state',
    name: 'cold `runledger state <pipeline> --json` on that ledger (wall time)',
    value: median(cli),
    unit: 'ms p50',
    baseline: { name: '`runledger --version`', value: median(version), unit: 'ms p50' },
    ratio: median(cli) / median(version),
    ratioMeaning: '× the --version wall time',
    target: '≤ 1.3× `runledger --version`',
    met: median(cli) / median(version) <= 1.3,
  });
}

/**
 * The CLI's start-up beside `node -e 0` (the floor of any Node CLI): `--version`, and a cold `status` over the whole
 * ledger. Run in pairs, the order alternating, and each pair's ratio taken before the median, so a pair shares
 * whatever the machine was doing at that moment.
 */
function startFigures(big: string, label: string): void {
  log('CLI start: `runledger --version` and cold `runledger status` vs `node -e 0`, pair by pair');
  // stdout to /dev/null, and for `status` also read through a pipe, as a prompt, cron or a dashboard reads it (a Node
  // parent's pipe is a socket pair); `node -e 0` writes nothing either way.
  const lines: Array<{ id: string; name: string; args: string[]; target: number; read?: boolean }> = [
    { id: 'cli-version', name: '`runledger --version` (wall time)', args: ['--version'], target: 1.6 },
    { id: 'cli-status-cold', name: `cold \`runledger status\` on the ${label} (wall time)`, args: ['--db', big, 'status'], target: 2.5 },
    { id: 'cli-status-cold-pipe', name: `cold \`runledger status\` on the ${label}, its output read through a pipe (wall time)`, args: ['--db', big, 'status'], target: 2.5, read: true },
  ];
  for (const line of lines) {
    const ours: number[] = [];
    const node: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < SIZES.samples; i++) {
      const first = i % 2 === 0 ? wall(process.execPath, ['-e', '0']) : 0;
      const a = wall(process.execPath, [bin, ...line.args], line.read);
      const b = i % 2 === 0 ? first : wall(process.execPath, ['-e', '0']);
      ours.push(a);
      node.push(b);
      ratios.push(a / b);
    }
    const ratio = median(ratios);
    figures.push({
      id: line.id,
      name: line.name,
      value: median(ours),
      unit: 'ms p50',
      baseline: { name: '`node -e 0`', value: median(node), unit: 'ms p50' },
      ratio,
      ratioMeaning: '× `node -e 0` (median of the pairs\' ratios)',
      target: `≤ ${line.target}× \`node -e 0\``,
      met: ratio <= line.target,
      note: `pairs: ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
    });
  }
}

async function pendingFigures(): Promise<string> {
  const db = join(dir, 'timetables.db');
  const setup = await openLedger({ db, clock: () => BENCH_NOW });
  const hourlyStart = new Date(BENCH_NOW - 3652 * 86_400_000).toISOString();
  const dailyStart = new Date(BENCH_NOW - 9805 * 86_400_000).toISOString();
  await setup.define({ pipeline: 'hourly', schedule: '@hourly', start: hourlyStart, timezone: 'Europe/Berlin' });
  await setup.define({ pipeline: 'daily', schedule: '@daily', start: dailyStart, timezone: 'UTC' });
  await setup.close();
  for (const [pipeline, target] of [['hourly', 50], ['daily', 10]] as const) {
    log(`pending ${pipeline}: a fresh openLedger per call vs a raw loop building the same slots`);
    const ours: number[] = [];
    const raw: number[] = [];
    let count = 0;
    let first = 0;
    for (let i = 0; i < SIZES.samples; i++) {
      const t = process.hrtime.bigint();
      const ledger = await openLedger({ db, create: false, clock: () => BENCH_NOW });
      count = (await ledger.pending({ pipeline })).pending.length;
      await ledger.close();
      const took = ms(t);
      if (i === 0) first = took;
      else ours.push(took);
      raw.push(rawSlots(count, pipeline === 'hourly' ? 3_600_000 : 86_400_000));
    }
    figures.push({
      id: `pending-${pipeline}`,
      name: `pending over ${count.toLocaleString('en')} ${pipeline} slots (${pipeline === 'hourly' ? 'Europe/Berlin, ten years' : 'UTC, 26 years'}), fresh openLedger each`,
      value: median(ours),
      unit: 'ms p50',
      baseline: { name: 'raw loop: two toISOString and one slot object per slot', value: median(raw), unit: 'ms p50' },
      ratio: median(ours) / median(raw),
      ratioMeaning: '× the raw loop',
      target: `≤ ${target} ms`,
      met: median(ours) <= target,
      note: `first call in the process (zone offsets not yet cached): ${first.toFixed(1)} ms`,
    });
  }
  return db;
}

/** The floor of listing `n` slots: two ISO strings and one slot-shaped object each. */
function rawSlots(n: number, step: number): number {
  const t = process.hrtime.bigint();
  const out: Array<{ date: string; logicalDate: string; dataInterval: { start: string; end: string }; runAfter: string }> = [];
  let at = BENCH_NOW - n * step;
  for (let i = 0; i < n; i++) {
    const start = new Date(at).toISOString();
    const end = new Date(at + step).toISOString();
    out.push({ date: start, logicalDate: start, dataInterval: { start, end }, runAfter: end });
    at += step;
  }
  const took = ms(t);
  if (out.length !== n) throw new Error('bench: raw slots');
  return took;
}

function startup(small: string): void {
  log('CLI start-up: `runledger watermark daily` on a small ledger vs `node -e 0`, alternating');
  const ours: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < SIZES.samples; i++) {
    alternate(quick ? 1 : 1 + (i % 2), () => ours.push(wall(process.execPath, [bin, '--db', small, 'watermark', 'daily'])), () => node.push(wall(process.execPath, ['-e', '0'])));
  }
  figures.push({
    id: 'cli-startup',
    name: '`runledger watermark <pipeline>` on a small ledger (wall time)',
    value: median(ours),
    unit: 'ms p50',
    baseline: { name: '`node -e 0`', value: median(node), unit: 'ms p50' },
    ratio: median(ours) / median(node),
    ratioMeaning: '× the `node -e 0` wall time',
    target: '≤ 2.5×',
    met: median(ours) / median(node) <= 2.5,
  });
}

/**
 * A figure of one of our commands beside its raw baseline, as speed (the baseline's time over ours); `target` is the
 * least ratio that meets it, or what the figure is measured for when it has none.
 */
function speedFigure(id: string, name: string, measured: { ours: number; raw: number }, baseline: string, target: number | string, note?: string): Figure {
  const ratio = measured.raw / measured.ours;
  return {
    id,
    name,
    value: measured.ours,
    unit: 'ms',
    baseline: { name: baseline, value: measured.raw, unit: 'ms' },
    ratio,
    ratioMeaning: '× raw speed',
    target: typeof target === 'number' ? `≥ ${target}× raw speed` : target,
    met: typeof target === 'number' ? ratio >= target : null,
    ...(note === undefined ? {} : { note }),
  };
}

function scans(big: string, events: number): void {
  const size = `${events.toLocaleString('en')} events`;
  log(`cold rebuild, verify, export and import of ${size}, each beside its raw baseline, in separate processes`);
  const pair = (ours: string, raw: string, args: (side: string) => string[]) => {
    const a: Array<{ ms: number; maxRssMb: number }> = [];
    const b: Array<{ ms: number; maxRssMb: number }> = [];
    alternate(SIZES.rounds, () => a.push(child(ours, ...args('ours'))), () => b.push(child(raw, ...args('raw'))));
    return { ours: median(a.map((x) => x.ms)), raw: median(b.map((x) => x.ms)), rss: Math.max(...a.map((x) => x.maxRssMb)) };
  };
  const rebuild = pair('rebuild', 'raw-scan', () => [big]);
  figures.push(speedFigure('rebuild', `runledger rebuild: the read models dropped and every pipeline refolded and written, ${size}`, rebuild, 'raw scan of every payload + JSON.parse', 0.5, `peak RSS ${rebuild.rss.toFixed(0)} MB`));
  // The scan above writes nothing; a rebuild writes 900,000 rows. Beside a floor that writes them too, what is left is the fold.
  if (!quick) {
    const rebuildWrites = pair('rebuild', 'raw-rebuild', (side) => (side === 'ours' ? [big] : [big, join(dir, 'raw-rebuild.db')]));
    figures.push(speedFigure('rebuild-vs-writes', `runledger rebuild beside a floor that also writes its rows, ${size}`, rebuildWrites, 'on a copy of the ledger, in one transaction: the read-model tables dropped, a raw scan of every payload + JSON.parse, the same rows (in memory already) inserted 50 a statement, indexes after', 'measured (no target): how much of the rebuild is the fold'));
  }
  const verify = pair('verify', 'raw-verify', () => [big]);
  figures.push(speedFigure('verify', `verify, ${size}`, verify, 'raw scan recomputing the same sha256 chain', 0.5));
  const exported = pair('export', 'raw-export', (side) => [big, join(dir, `export-${side}.jsonl`)]);
  figures.push(speedFigure('export', `export, ${size}`, exported, 'raw scan writing the same event lines', 0.5));
  let n = 0;
  // `import` reads the export file written just above, as `runledger import` does.
  const imported = pair('import', 'raw-import', (side) => [side === 'ours' ? join(dir, 'export-ours.jsonl') : big, join(dir, `import-${side}-${++n}.db`)]);
  figures.push(speedFigure('import', `import of an export file, ${size} (every line parsed, re-hashed and validated, read models built, one transaction)`, imported, 'raw insert of the same rows, already in memory, in one transaction, no hashing', 0.5));
  if (quick) return;
  const rows = pair('import-rows', 'raw-import', (side) => [big, join(dir, `import-${side}-${++n}.db`)]);
  figures.push(speedFigure('import-rows', `the store's bulk insert alone (importSealed), rows in memory, ${size} (chain re-hashed, events validated)`, rows, 'raw insert of the same rows in one transaction, no hashing', 'measured (the part of import after the file is read)'));
}

/** Cold CLI `watermark`, `status` and a one-day `state` on `db`, each beside `runledger --version`, alternating. */
function cliQueries(db: string, label: string, pipeline: string, day: string): void {
  const queries: Array<[string, string[]]> = [
    ['watermark', ['watermark', pipeline]],
    ['status', ['status', '--json']],
    ['one-day state', ['state', pipeline, '--from', day, '--to', day, '--json']],
  ];
  // The first query opens the ledger once (WAL files, page cache), as any earlier command would have.
  wall(process.execPath, [bin, '--db', db, 'watermark', pipeline]);
  for (const [name, args] of queries) {
    log(`cold CLI ${name} on the ${label} vs \`runledger --version\`, alternating`);
    const ours: number[] = [];
    const version: number[] = [];
    for (let i = 0; i < SIZES.samples; i++) {
      alternate(1, () => ours.push(wall(process.execPath, [bin, '--db', db, ...args])), () => version.push(wall(process.execPath, [bin, '--version'])));
    }
    const ratio = median(ours) / median(version);
    figures.push({
      id: `cli-${name.replace(/\W+/g, '-')}-${label.replace(/\W+/g, '-')}`,
      name: `cold \`runledger ${args.join(' ')}\` on the ${label} (wall time)`,
      value: median(ours),
      unit: 'ms p50',
      baseline: { name: '`runledger --version`', value: median(version), unit: 'ms p50' },
      ratio,
      ratioMeaning: '× the --version wall time',
      target: '≤ 1.3× `runledger --version`',
      met: ratio <= 1.3,
    });
  }
}

/**
 * The library's write path: `start` + `succeed` through one `openLedger`, date after date, beside raw
 * better-sqlite3 inserts of as many events (one FULL-synced transaction each) and Emmett's SQLite store on
 * one shared connection appending a start and a success to each run's stream, in alternating rounds;
 * figures in events per second. Each side is warmed up first (20 runs) outside the timing.
 */
async function libraryWrites(): Promise<void> {
  const runs = SIZES.libraryRuns;
  log(`library writes: ${runs} start + succeed through openLedger vs raw FULL inserts and Emmett (shared connection), ${2 * runs} events each`);
  const peer = await loadEmmett();
  const payloads = appendEvents(0, 2 * runs).map((e) => JSON.stringify({ ...e, position: 1, streamVersion: 1 }));
  // Eight rounds, each side first in turn: on a shared machine fsync time swings within seconds, and four
  // blocks of a quarter each let one side catch a slow spell the others missed.
  const ROUNDS = 8;
  const WARM = 20;
  const per = Math.ceil(runs / ROUNDS);
  let ours = 0;
  let raw = 0;
  let theirs = 0;
  let theirsRan = 0;
  let theirDurability = '';
  let theirFailure = '';
  const first = BENCH_NOW - (runs + WARM + 2) * 86_400_000;
  const day = (i: number) => new Date(first + i * 86_400_000).toISOString().slice(0, 10);
  const ledgerDb = join(dir, 'library.db');
  const setup = await openLedger({ db: ledgerDb, clock: () => BENCH_NOW });
  await setup.define({ pipeline: 'library', schedule: '@daily', start: day(0) });
  await setup.close();
  const ledger = await openLedger({ db: ledgerDb, clock: () => BENCH_NOW });
  const ourRuns = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const run = await ledger.start({ pipeline: 'library', date: day(i) });
      await ledger.succeed({ runId: run.runId, metrics: { rows: i } });
    }
  };
  await ourRuns(0, WARM);
  rawInsertEach(join(dir, 'library-raw-warm.db'), payloads.slice(0, 2 * WARM));
  for (let r = 0; r < ROUNDS; r++) {
    const from = r * per;
    const to = Math.min(runs, from + per);
    const sides = [
      async () => {
        const t = process.hrtime.bigint();
        await ourRuns(WARM + from, WARM + to);
        ours += ms(t);
      },
      async () => {
        raw += rawInsertEach(join(dir, `library-raw-${r}.db`), payloads.slice(2 * from, 2 * to));
      },
      async () => {
        if ('missing' in peer || theirFailure !== '') return;
        const result = spawnSync(process.execPath, [childScript, 'emmett-runs', join(dir, `library-emmett-${r}.db`), String(from), String(to - from)], { encoding: 'utf8' });
        const line = result.stdout.split('\n').find((text) => text.startsWith('{"ms"'));
        if (result.status !== 0 || line === undefined) {
          theirFailure = (result.stderr.split('\n').find((text) => text.includes('Error')) ?? `exit ${result.status}`).trim();
          return;
        }
        const took = JSON.parse(line) as { ms: number; durability: string };
        theirs += took.ms;
        theirDurability = took.durability;
        theirsRan += 1;
      },
    ];
    for (let i = 0; i < sides.length; i++) await sides[(i + r) % sides.length]?.();
  }
  await ledger.close();
  const rate = (total: number) => (2 * runs) / (total / 1000);
  figures.push({
    id: 'library-vs-raw',
    name: `library start + succeed through openLedger, ${runs} runs (${2 * runs} events)`,
    value: rate(ours),
    unit: 'events/s',
    baseline: { name: 'raw better-sqlite3 inserts, one FULL-synced transaction per event', value: rate(raw), unit: 'events/s' },
    ratio: raw / ours,
    ratioMeaning: '× raw speed',
    target: '≥ 0.4× raw speed',
    met: raw / ours >= 0.4,
  });
  if (theirsRan === ROUNDS) {
    figures.push({
      id: 'library-vs-emmett',
      name: `library start + succeed through openLedger, ${runs} runs (${2 * runs} events)`,
      value: rate(ours),
      unit: 'events/s',
      baseline: { name: `${'missing' in peer ? 'Emmett' : `${peer.name} ${peer.version}`} appendToStream on one shared connection (${theirDurability}), a start and a success per run stream`, value: rate(theirs), unit: 'events/s' },
      ratio: theirs / ours,
      ratioMeaning: '× the peer speed',
      target: '≥ 1.5× the peer speed',
      met: theirs / ours >= 1.5,
    });
  } else if (theirFailure !== '') {
    notes.push(`Emmett's SQLite event store failed in the library rounds (${theirFailure}); the library write path was measured beside raw inserts only.`);
  } else {
    notes.push('Emmett (bench/peers) is not installed, so the library write path was measured beside raw inserts only; run `npm run bench:peers` first.');
  }
}

/** The events of a ledger kept from an earlier run (`BENCH_LEDGER`), which must hold this run's sizes. */
function keptLedgerEvents(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const { events, pipelines } = db.prepare("SELECT count(*) AS events, count(DISTINCT CASE WHEN type = 'PipelineDefined' THEN stream END) AS pipelines FROM events").get() as { events: number; pipelines: number };
  db.close();
  if (pipelines !== SIZES.pipelines) throw new Error(`bench: BENCH_LEDGER ${path} has ${pipelines} pipelines, this run's size is ${SIZES.pipelines}; set BENCH_PIPELINES or build it again`);
  return events;
}

function versions(): Record<string, string> {
  const pkg = (name: string) => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  const db = new Database(':memory:');
  const sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  db.close();
  return {
    node: process.version,
    runledger: (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    'better-sqlite3': pkg('better-sqlite3'),
    sqlite,
    pg: pkg('pg'),
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  log(`runledger bench (${quick ? 'quick' : 'full'}), temp dir ${dir}`);
  if (selected('appends')) await appends();
  if (selected('pending')) startup(await pendingFigures());
  const big = KEPT_LEDGER ?? join(dir, 'big.db');
  let events = 0;
  let buildMs = 0;
  if (selected('ledger') || selected('start')) {
    if (KEPT_LEDGER === undefined) {
      log(`building the ledger: ${SIZES.pipelines} pipelines × ${SIZES.dates} daily dates, ${SIZES.eventsPerPipeline} events each`);
      const tBuild = process.hrtime.bigint();
      const store = openSqliteStore({ path: big, create: true });
      events = await buildFixture(store, SIZES);
      await store.close();
      buildMs = ms(tBuild);
    } else {
      events = keptLedgerEvents(KEPT_LEDGER);
      notes.push(`The ${events.toLocaleString('en')}-event ledger was one built by an earlier run (BENCH_LEDGER), not built by this one.`);
    }
    const label = `${events.toLocaleString('en')}-event ledger (${SIZES.pipelines} pipelines)`;
    if (selected('ledger')) {
      scans(big, events);
      await coldState(big, SIZES.pipelines);
    } else wall(process.execPath, [bin, '--db', big, 'watermark', pipelineName(0)]); // its read models caught up, as the scans leave them
    startFigures(big, label);
    if (selected('ledger')) {
      cliQueries(big, label, pipelineName(SIZES.pipelines - 1), new Date(BENCH_NOW - 86_400_000).toISOString().slice(0, 10));
      figures.push(reportMemory({ bin, db: big, label, dir, nowText: NOW_TEXT, runs: quick ? 1 : 3, log }));
    }
  }
  let hourlyEvents = 0;
  if (selected('hourly')) {
    const hourly = join(dir, 'hourly.db');
    log(`building the hourly ledger: one @hourly pipeline over ${SIZES.hourlyYears} year(s)`);
    const hourlyStore = openSqliteStore({ path: hourly, create: true });
    hourlyEvents = await buildHourlyFixture(hourlyStore, SIZES.hourlyYears);
    await hourlyStore.close();
    cliQueries(hourly, `${hourlyEvents.toLocaleString('en')}-event hourly pipeline`, HOURLY_PIPELINE, new Date(BENCH_NOW - 86_400_000).toISOString().slice(0, 10));
    figures.push(reportMemory({ bin, db: hourly, label: `${hourlyEvents.toLocaleString('en')}-event hourly pipeline`, dir, nowText: NOW_TEXT, runs: quick ? 1 : 3, log }));
  }
  if (selected('library')) await libraryWrites();
  if (selected('serve') && selected('ledger') && (quick || selected('hourly'))) {
    if (KEPT_LEDGER !== undefined) throw new Error('bench: the serve section writes to the big ledger; leave BENCH_LEDGER unset when it runs');
    const serveInput = { serveScript: join(here, 'serve-ledger.js'), baselineScript: join(here, 'serve-baseline.js'), dir, seconds: SIZES.serveSeconds, rounds: SIZES.serveRounds, log };
    const bigLabel = `${events.toLocaleString('en')}-event ledger (${SIZES.pipelines} pipelines)`;
    figures.push(...(await serveRouteFigures({ ...serveInput, db: big, label: bigLabel, pipeline: pipelineName(SIZES.pipelines - 1) })));
    // --quick measures the routes on the one ledger it builds; the hourly ledger's figures come from a full run.
    if (selected('hourly')) figures.push(...(await serveRouteFigures({ ...serveInput, db: join(dir, 'hourly.db'), label: `${hourlyEvents.toLocaleString('en')}-event hourly pipeline`, pipeline: HOURLY_PIPELINE })));
    // Last on the big ledger: its writes change it.
    const soakPipelines = Array.from({ length: SIZES.pipelines }, (_, i) => pipelineName(i));
    const firstDay = new Date(BENCH_NOW - SIZES.dates * 86_400_000).toISOString().slice(0, 10);
    figures.push(await serveSoak({ serveScript: serveInput.serveScript, db: big, label: bigLabel, pipelines: soakPipelines, firstDay, seconds: SIZES.soakSeconds, writesPerSecond: SIZES.soakWritesPerSecond, readers: SIZES.soakReaders, log }));
  }
  if (selected('scheduler')) {
    figures.push(...(await schedulerCost({ dir, bin, pipelines: SIZES.schedulerPipelines, idleSeconds: SIZES.schedulerIdleSeconds, burst: SIZES.schedulerBurst, parallel: 64, log })));
  }
  log('done with SQLite');
  const pg: Awaited<ReturnType<typeof benchPostgres>> = selected('postgres')
    ? await benchPostgres({ dir, childScript, writers: 8, appendsPerWriter: SIZES.pgAppendsPerWriter, pgbenchSeconds: SIZES.pgbenchSeconds, log })
    : { missing: '' };
  if ('missing' in pg) {
    if (pg.missing !== '') notes.push(pg.missing);
  } else figures.push(pg.figure);
  if (quick) notes.push(`--quick: ${SIZES.samples} samples a figure (a full run: 21); left out: the hourly ledger, the rebuild beside a floor that writes, import's bulk insert alone${SIZES.schedulerBurst > 0 ? '' : ', the scheduler burst (it waits for a whole minute; BENCH_SCHEDULER_BURST=50 runs it)'}.`);
  if (ONLY.length > 0) notes.push(`Only these sections ran (BENCH_ONLY): ${ONLY.join(', ')}; a full-size run writes their own section of bench/RESULTS.md, a full run of every section its main table.`);
  const doc = {
    mode: quick ? 'quick' : 'full',
    date: new Date(started).toISOString(),
    durationS: (Date.now() - started) / 1000,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), loadAverageAtStart: loadBefore.map((x) => Number(x.toFixed(2))), loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
    versions: { ...versions(), ...(pg.versions ?? {}) },
    sizes: { ...SIZES, ledgerEvents: events, hourlyEvents, buildLedgerS: Number((buildMs / 1000).toFixed(1)) },
    figures,
    notes,
  };
  if (asJson) process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  else printFigures(doc, (line) => process.stdout.write(`${line}\n`));
  const results = join(root, 'bench', 'RESULTS.md');
  if (!quick && ONLY.length === 0) {
    writeFileSync(results, resultsMarkdown(doc));
    log('wrote bench/RESULTS.md');
  } else if (!quick) {
    // A section run alone at full sizes keeps its own table in RESULTS.md, below the full run's.
    writeFileSync(results, withSectionRun(readFileSync(results, 'utf8'), ONLY, doc));
    log(`wrote the BENCH_ONLY=${ONLY.join(',')} section of bench/RESULTS.md`);
  }
  if (process.env['BENCH_KEEP']) log(`kept ${dir} (BENCH_KEEP)`);
  else rmSync(dir, { recursive: true, force: true });
}

await main();
