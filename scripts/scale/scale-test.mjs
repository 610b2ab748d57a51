// The million-event check (`npm run test:scale`): builds a ledger of EVENTS events (default
// 1,000,000) by importing a generated export, then runs import, verify, export (to a file and
// to stdout), replay, log --json and log --jsonl on it, each under /usr/bin/time, and fails when
// any command fails or its peak RSS passes the cap (default 300 MB). Prints one line per command.
//
//   npm run test:scale                       # 1,000,000 events, 300 MB cap
//   SCALE_EVENTS=200000 SCALE_DIR=/tmp/x npm run test:scale
//   SCALE_ONLY=replay SCALE_FILE=/tmp/g.jsonl npm run test:scale
//     SCALE_ONLY: only the commands whose label starts with one of these words (comma-separated:
//     import, verify, export, replay, log); SCALE_FILE: an already generated file, used as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const events = Number(process.env.SCALE_EVENTS ?? 1_000_000);
const capMb = Number(process.env.SCALE_RSS_MB ?? 300);
const dir = process.env.SCALE_DIR ?? '/tmp/runledger-scale';
const only = process.env.SCALE_ONLY?.split(',').map((word) => word.trim()).filter(Boolean);
/** Whether a command is measured in this run (all of them unless SCALE_ONLY names some). */
const wanted = (label) => only === undefined || only.some((word) => label.startsWith(word));
const bin = new URL('../../bin/runledger.js', import.meta.url).pathname;
if (!existsSync('/usr/bin/time')) {
  console.error('scale test: /usr/bin/time is needed to measure peak RSS (apt-get install time)');
  process.exit(2);
}
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
// SCALE_FILE: an export generated before by generate-export.mjs (40 pipelines), reused instead of generating one.
const generated = process.env.SCALE_FILE ?? join(dir, 'generated.jsonl');
const ledger = join(dir, 'ledger.db');
const copy = join(dir, 'copy.db');
const exported = join(dir, 'exported.jsonl');

let failed = false;
/** Runs one command under /usr/bin/time; its stdout goes to a file (or /dev/null), never into this process. */
function measure(label, args, { stdoutFile = '/dev/null', node = true, capped = true } = {}) {
  const timeFile = join(dir, 'time.txt');
  const started = Date.now();
  const command = node ? [process.execPath, ...args] : args;
  const result = spawnSync('/bin/sh', ['-c', `/usr/bin/time -f '%M %e' -o ${timeFile} "$@" > ${stdoutFile}`, 'sh', ...command], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  const [kb, seconds] = spawnSync('cat', [timeFile], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1).split(' ').map(Number);
  const mb = Math.round(kb / 1024);
  const over = capped && mb > capMb;
  const ok = result.status === 0 && !over;
  failed ||= !ok;
  const elapsed = seconds ?? (Date.now() - started) / 1000;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label.padEnd(34)} peak RSS ${String(mb).padStart(4)} MB${capped ? ` (cap ${capMb})` : ''}  ${elapsed.toFixed(1)} s${result.status === 0 ? '' : `  exit ${result.status}: ${result.stderr.trim().split('\n').at(-1)}`}`);
  return result;
}

console.log(`scale test: ${events.toLocaleString('en')} events in ${dir}`);
if (process.env.SCALE_FILE === undefined) measure('generate the export file', [new URL('./generate-export.mjs', import.meta.url).pathname, generated, String(events)], { capped: false });
console.log(`     generated file: ${Math.round(statSync(generated).size / 1e6)} MB`);
// Every command after the first import reads the ledger it builds, so it runs whenever another one is wanted.
const needsLedger = only === undefined || only.some((word) => word !== 'replay');
if (needsLedger) measure('import (builds the ledger)', [bin, '--db', ledger, 'import', generated]);
if (wanted('verify')) measure('verify', [bin, '--db', ledger, 'verify']);
if (wanted('export --out') || wanted('import of')) measure('export --out', [bin, '--db', ledger, 'export', '--out', exported]);
if (wanted('export > file')) measure('export > file', [bin, '--db', ledger, 'export'], { stdoutFile: join(dir, 'stdout.jsonl') });
if (wanted('import of')) measure('import of the export', [bin, '--db', copy, 'import', exported]);
// No heap flag: the cap is on the command as a user runs it.
if (wanted('replay')) measure('replay --pipeline', [bin, 'replay', generated, '--pipeline', 'scale_007', '--json']);
if (wanted('log --json')) measure('log --json', [bin, '--db', ledger, 'log', '--json']);
if (wanted('log --jsonl')) measure('log --jsonl', [bin, '--db', ledger, 'log', '--jsonl']);
if (wanted('log (table)')) measure('log (table)', [bin, '--db', ledger, 'log']);


if (wanted('import of')) {
  const heads = [ledger, copy].map((db) => spawnSync(process.execPath, [bin, '--db', db, 'verify'], { encoding: 'utf8' }).stdout.split('\n')[1]);
  if (heads[0] !== heads[1]) {
    failed = true;
    console.log(`FAIL the imported copy's head ${heads[1]} differs from the ledger's ${heads[0]}`);
  } else console.log(`ok   the imported copy has the ledger's ${heads[0]}`);
}
if (!process.env.SCALE_KEEP) rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
