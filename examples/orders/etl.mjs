#!/usr/bin/env node
// Example orders ETL: one raw partition in, one gold file (and optionally a rejects file) out.
//
//   node examples/orders/etl.mjs --date 2026-11-02 --raw examples/orders/raw --gold /tmp/gold [--rejects /tmp/rejects]
//
// --date falls back to $RUNLEDGER_DATE. If $RUNLEDGER_METRICS names a file, JSON
// metrics are written there. Exit codes: 0 done; 1 the run failed (missing or
// unreadable partition, write error); 2 bad usage (nothing read or written).
// All logic lives in orders.mjs; this file only does arguments and I/O.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  PartitionError,
  goldFileName,
  isValidDate,
  rawFileName,
  rejectsFileName,
  runPartition,
  summaryLine,
} from './orders.mjs';

const USAGE =
  'usage: node examples/orders/etl.mjs --date <YYYY-MM-DD> --raw <dir> --gold <dir> [--rejects <dir>]';

class UsageError extends Error {}

function parseArgs(argv) {
  const known = new Set(['date', 'raw', 'gold', 'rejects']);
  const args = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    const m = /^--([a-z]+)(?:=(.*))?$/s.exec(arg);
    if (!m || !known.has(m[1])) throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    let value = m[2];
    if (value === undefined) {
      value = argv[i + 1];
      i += 1;
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${m[1]} needs a value`);
    }
    if (value === '') throw new UsageError(`--${m[1]} must not be empty`);
    if (m[1] in args) throw new UsageError(`--${m[1]} given twice`);
    args[m[1]] = value;
  }
  return args;
}

/** Write a file so that readers see either the old content or the complete new one. */
function writeFileAtomic(file, content) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const fd = fs.openSync(tmp, 'wx');
    try {
      fs.writeFileSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

function main(argv, env) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const date = args.date ?? env.RUNLEDGER_DATE;
  if (date === undefined || date === '') {
    process.stderr.write(`missing --date (or $RUNLEDGER_DATE)\n${USAGE}\n`);
    return 2;
  }
  if (!isValidDate(date)) {
    process.stderr.write(`invalid date ${JSON.stringify(date)}: expected a calendar date YYYY-MM-DD\n`);
    return 2;
  }
  for (const name of ['raw', 'gold']) {
    if (args[name] === undefined) {
      process.stderr.write(`missing --${name} <dir>\n${USAGE}\n`);
      return 2;
    }
  }

  const rawPath = path.join(args.raw, rawFileName(date));
  let text;
  try {
    text = fs.readFileSync(rawPath, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') {
      process.stderr.write(`no raw partition for ${date}: ${rawPath} does not exist\n`);
    } else {
      process.stderr.write(`cannot read raw partition for ${date}: ${rawPath}: ${e.message}\n`);
    }
    return 1;
  }

  let result;
  try {
    result = runPartition(text, date);
  } catch (e) {
    if (!(e instanceof PartitionError)) throw e;
    process.stderr.write(`bad raw partition for ${date}: ${rawPath}: ${e.message}\n`);
    return 1;
  }

  // Everything is computed before anything is written.
  const goldPath = path.resolve(args.gold, goldFileName(date));
  const rejectsPath = args.rejects === undefined ? null : path.resolve(args.rejects, rejectsFileName(date));
  if (rejectsPath !== null) writeFileAtomic(rejectsPath, result.rejectsCsv);
  writeFileAtomic(goldPath, result.goldCsv);

  const metricsPath = env.RUNLEDGER_METRICS;
  if (metricsPath !== undefined && metricsPath !== '') {
    const metrics = { date, ...result.stats, output: goldPath, rejectsOutput: rejectsPath };
    writeFileAtomic(metricsPath, `${JSON.stringify(metrics, null, 2)}\n`);
  }

  process.stdout.write(`${summaryLine(date, result.stats)}\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2), process.env);
} catch (e) {
  process.stderr.write(`orders etl failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
