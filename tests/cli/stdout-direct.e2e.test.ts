import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { BIN, tempDir } from '../support/run-cli.js';

// main.ts writes stdout to fd 1 with write(2) when fstat says it is no terminal (a file, a pipe, a socket, /dev/null)
// and makes process.stdout's stream only when a write fails (EPIPE, EAGAIN, ENOSPC: the stream then fails or waits as
// it always did) or something asks for it; a terminal keeps the stream. The first test is what changed (no stream, so
// no net and no SyncWriteStream); the others hold on the build before it too: the same bytes, exit codes and errors.

const NOW = '2026-11-06T01:00:00Z';
const linux = process.platform === 'linux';
let dir: string;
let db: string;
/** `pending etl_hourly --json` as written to a file: 7,417 hourly dates, about 2.2 MB, far more than a pipe holds. */
let bigJson: string;

beforeAll(async () => {
  dir = tempDir('runledger-stdout-');
  db = join(dir, 'ledger.db');
  const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'tester' });
  try {
    await ledger.define({ pipeline: 'etl_daily', schedule: '@daily', start: '2026-11-02' });
    await ledger.define({ pipeline: 'etl_hourly', schedule: '@hourly', start: '2026-01-01' });
  } finally {
    await ledger.close();
  }
  writeFileSync(
    join(dir, 'probe.cjs'),
    // Which of the stream's modules the process loaded (stream: Node's streams stack, not even through node:v8, which
    // bin/runledger.js does not load to set V8's flags), written where PROBE_OUT says when it exits.
    "process.on('exit', () => { const l = process.moduleLoadList; require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ net: l.includes('NativeModule net'), syncWriteStream: l.includes('NativeModule internal/fs/sync_write_stream'), tty: l.includes('NativeModule tty'), stream: l.includes('NativeModule stream') })); });\n",
  );
  const file = join(dir, 'pending.json');
  const r = sh(`${cli('pending etl_hourly --json')} > ${file}`);
  expect(r.status, r.stderr).toBe(0);
  bigJson = readFileSync(file, 'utf8');
  expect(bigJson.length).toBeGreaterThan(1_000_000);
}, 60_000);

/** The binary on the test ledger as a shell command line, with the probe preloaded. */
function cli(args: string): string {
  return `"${process.execPath}" -r "${join(dir, 'probe.cjs')}" "${BIN}" --db "${db}" --now ${NOW} ${args}`;
}

let probes = 0;
/** Runs a shell line with the probe's file in PROBE_OUT; stdout and stderr are pipes of their own. */
function sh(line: string, shell = '/bin/sh'): ReturnType<typeof spawnSync> & { stdout: string; stderr: string; probe: () => { net: boolean; syncWriteStream: boolean; tty: boolean; stream: boolean } } {
  const probeOut = join(dir, `probe-${(probes += 1)}.json`);
  const r = spawnSync(shell, ['-c', line], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, PROBE_OUT: probeOut, RUNLEDGER_ACTOR: 'tester' } });
  return Object.assign(r, { probe: () => JSON.parse(readFileSync(probeOut, 'utf8')) as { net: boolean; syncWriteStream: boolean; tty: boolean; stream: boolean } });
}

describe('stdout written to fd 1 directly', () => {
  test('status to a file, a pipe, a socket or /dev/null makes no stdout stream (no net, no SyncWriteStream) and writes the same bytes', () => {
    const file = join(dir, 'status.txt');
    const toFile = sh(`${cli('status')} > ${file}`);
    expect(toFile.status, toFile.stderr).toBe(0);
    expect(toFile.stderr).toBe('');
    expect(toFile.probe()).toEqual({ net: false, syncWriteStream: false, tty: false, stream: false });
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^PIPELINE +SCHEDULE[^\n]*\netl_hourly +@hourly/);

    const toPipe = sh(`${cli('status')} | cat`);
    expect(toPipe.status, toPipe.stderr).toBe(0);
    expect(toPipe.stdout).toBe(text);
    expect(toPipe.probe()).toEqual({ net: false, syncWriteStream: false, tty: false, stream: false });

    // A Node parent's `stdio: 'pipe'` is a socket pair.
    const probeOut = join(dir, 'probe-socket.json');
    const toSocket = spawnSync(process.execPath, ['-r', join(dir, 'probe.cjs'), BIN, '--db', db, '--now', NOW, 'status'], { encoding: 'utf8', env: { ...process.env, PROBE_OUT: probeOut } });
    expect(toSocket.status, toSocket.stderr).toBe(0);
    expect(toSocket.stdout).toBe(text);
    expect(JSON.parse(readFileSync(probeOut, 'utf8'))).toEqual({ net: false, syncWriteStream: false, tty: false, stream: false });

    const toNull = sh(`${cli('status')} > /dev/null`);
    expect(toNull.status, toNull.stderr).toBe(0);
    expect(toNull.probe()).toEqual({ net: false, syncWriteStream: false, tty: false, stream: false });

    const version = sh(`${cli('--version')} | cat`);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(version.probe().net).toBe(false);
  }, 60_000);

  test('two megabytes of JSON arrive whole through a pipe, to a file and to a socket', () => {
    const toPipe = sh(`${cli('pending etl_hourly --json')} | cat`);
    expect(toPipe.status, toPipe.stderr).toBe(0);
    expect(toPipe.stdout === bigJson).toBe(true);
    const toSocket = spawnSync(process.execPath, [BIN, '--db', db, '--now', NOW, 'pending', 'etl_hourly', '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(toSocket.status, toSocket.stderr).toBe(0);
    expect(toSocket.stdout === bigJson).toBe(true);
  }, 60_000);

  test.runIf(linux)('a full device (/dev/full) is one line naming ENOSPC and exit 1', () => {
    const r = sh(`${cli('status --json')} > /dev/full`);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('runledger: cannot write the output to stdout (ENOSPC, no space left on the device); the output is incomplete: free space or write it elsewhere, then run the command again\n');
  }, 60_000);

  test('a closed fd 1 is written to as /dev/null (Node opens it there at start): exit 0, nothing said', () => {
    const r = sh(`${cli('status')} >&-`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  }, 60_000);

  test('a reader that goes away (| head -1) ends the command quietly with exit 0', () => {
    const r = sh(`${cli('pending etl_hourly')} | head -1; echo "rc=\${PIPESTATUS[0]}"`, 'bash');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^DATE +REASON +RUN AFTER +DATA INTERVAL\nrc=0\n$/);
  }, 60_000);

  test('a reader on a socket that goes away after the first chunk: exit 0, nothing on stderr', async () => {
    const r = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, [BIN, '--db', db, '--now', NOW, 'pending', 'etl_hourly', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', fail);
      child.on('close', (code, signal) => done({ code, signal, stderr }));
    });
    expect(r).toEqual({ code: 0, signal: null, stderr: '' });
  }, 60_000);

  test.runIf(linux)('a non-blocking pipe that a slow reader keeps full loses and reorders nothing (the stream takes over on EAGAIN)', () => {
    // The parent sets O_NONBLOCK on the pipe's write end (the file description fd 1 then shares), waits until the
    // child has filled the pipe (its write cut short, its next one EAGAIN), then reads 4 KiB a millisecond.
    const reader = join(dir, 'slow-reader.py');
    writeFileSync(
      reader,
      [
        'import fcntl, os, subprocess, sys, termios, array, time',
        'r, w = os.pipe()',
        'fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)',
        'err = open(sys.argv[2], "wb")',
        'child = subprocess.Popen(sys.argv[3:], stdout=w, stderr=err)',
        'os.close(w)',
        // 16 KiB (F_SETPIPE_SZ): the CLI's first 32 KiB write is then cut short before its next one gets EAGAIN.
        'fcntl.fcntl(r, 1031, 16384)',
        'capacity = fcntl.fcntl(r, 1032)  # F_GETPIPE_SZ',
        'filled = False',
        'while child.poll() is None:',
        '    n = array.array("i", [0])',
        '    fcntl.ioctl(r, termios.FIONREAD, n)',
        '    if n[0] >= capacity:',
        '        filled = True',
        '        break',
        '    time.sleep(0.01)',
        'chunks = []',
        'while True:',
        '    chunk = os.read(r, 4096)',
        '    if not chunk:',
        '        break',
        '    chunks.append(chunk)',
        '    time.sleep(0.001)',
        'with open(sys.argv[1], "wb") as out:',
        '    out.write(b"".join(chunks))',
        'print(child.wait(), filled)',
      ].join('\n'),
    );
    const out = join(dir, 'slow.json');
    const errors = join(dir, 'slow.err');
    const probeOut = join(dir, 'probe-slow.json');
    const r = spawnSync('python3', [reader, out, errors, process.execPath, '-r', join(dir, 'probe.cjs'), BIN, '--db', db, '--now', NOW, 'pending', 'etl_hourly', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, PROBE_OUT: probeOut },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('0 True\n');
    expect(readFileSync(errors, 'utf8')).toBe('');
    expect(readFileSync(out, 'utf8') === bigJson).toBe(true);
    // The stream took the rest: the EAGAIN path ran (the build before made the stream at start, so it holds there too).
    expect(JSON.parse(readFileSync(probeOut, 'utf8')).net).toBe(true);
  }, 120_000);

  test('a backfill whose reader stalls still records its runs: its stdout queues in the stream, as before', async () => {
    // 3.2 MB of command output, far more than a socket holds: written with write(2), the backfill would block in it.
    const copy = join(dir, 'stalled.db');
    writeFileSync(copy, readFileSync(db));
    const child = spawn(process.execPath, [BIN, '--db', copy, '--now', NOW, 'backfill', 'etl_daily', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', `yes ${'y'.repeat(64)} | head -n 50000`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, RUNLEDGER_ACTOR: 'tester' },
    });
    child.stdout.pause();
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const status = () => {
      const r = spawnSync(process.execPath, [BIN, '--db', copy, '--now', NOW, 'state', 'etl_daily', '--json'], { encoding: 'utf8' });
      return (JSON.parse(r.stdout) as { dates: Array<{ date: string; status: string }> }).dates.find((d) => d.date === '2026-11-02')?.status;
    };
    try {
      // Nothing read yet: the date is done all the same.
      let done = false;
      for (let i = 0; i < 60 && !done; i++) {
        done = status() === 'success';
        if (!done) await new Promise((wake) => setTimeout(wake, 250));
      }
      expect(done).toBe(true);
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
      expect(await exited).toBe(0);
      const lines = Buffer.concat(chunks).toString('utf8').split('\n');
      expect(lines.filter((line) => line === 'y'.repeat(64)).length).toBe(50_000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  test('stdout and stderr into one file or one pipe interleave as the command wrote them', () => {
    // backfill writes each command's output line on stdout, then the date's progress line on stderr; the table on
    // stdout, then the summary on stderr.
    const backfill = (redirect: string) => {
      const copy = join(dir, `backfill-${(probes += 1)}.db`);
      writeFileSync(copy, readFileSync(db));
      const r = sh(`"${process.execPath}" "${BIN}" --db "${copy}" --now ${NOW} backfill etl_daily --from 2026-11-02 --to 2026-11-04 -- sh -c 'echo out-$RUNLEDGER_DATE' ${redirect}`);
      expect(r.status, r.stderr).toBe(0);
      return r;
    };
    const file = join(dir, 'both.txt');
    backfill(`> ${file} 2>&1`);
    const piped = backfill('2>&1 | cat').stdout;
    const progress = (date: string, n: number) => `out-${date}\nbackfill etl_daily ${date} success \\(attempt 1, [\\d.]+m?s\\) \\[${n}/3\\]\n`;
    const expected = new RegExp(`^${progress('2026-11-02', 1)}${progress('2026-11-03', 2)}${progress('2026-11-04', 3)}DATE +REASON +STATUS[^\n]*\n(2026-11-0[234] +missing +success[^\n]*\n){3}backfill etl_daily from 2026-11-02 to 2026-11-04: 3 succeeded, 0 failed, 0 skipped in \\S+\n?$`);
    expect(readFileSync(file, 'utf8')).toMatch(expected);
    expect(piped).toMatch(expected);
  }, 60_000);

  test.runIf(linux)('a terminal keeps the stream: tables cut to its width, state draws its calendar', () => {
    const session = join(dir, 'tty.sh');
    const probeOut = join(dir, 'probe-tty.json');
    writeFileSync(session, `stty cols 60 rows 50\n${cli('status')} 2>/dev/null\nprintf '@@@\\n'\n${cli('state etl_daily')} 2>/dev/null\n`);
    const r = spawnSync('script', ['-q', '-e', '-c', `sh ${session}`, '/dev/null'], { encoding: 'utf8', env: { ...process.env, PROBE_OUT: probeOut, NO_COLOR: '1', TERM: 'xterm' } });
    expect(r.status, r.stderr).toBe(0);
    // The pty writes each line feed as CR LF.
    const [status = '', state = ''] = r.stdout.replace(/\r\n/g, '\n').split('@@@\n');
    expect(status).toMatch(/^PIPELINE +SCHEDULE/);
    expect(status).toMatch(/\netl_daily +@daily/);
    // Cut to the terminal's 60 columns (its width comes from the stream): a file gets the cells whole.
    expect(status).toMatch(/^etl_hourly .*\d+d \d+h \(\d*\u2026/m);
    expect(sh(cli('status')).stdout).not.toContain('\u2026');
    expect(state).toMatch(/^day +1 +5 +10/);
    expect(JSON.parse(readFileSync(probeOut, 'utf8')).tty).toBe(true);
  }, 60_000);
});

describe('stdout file descriptor kinds', () => {
  test('a file opened for reading only as fd 1 fails as before: one line, exit 1', () => {
    const file = join(dir, 'readonly.txt');
    writeFileSync(file, '');
    const fd = openSync(file, 'r');
    try {
      const r = spawnSync(process.execPath, [BIN, '--db', db, '--now', NOW, 'status'], { encoding: 'utf8', stdio: ['ignore', fd, 'pipe'] });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^runledger: cannot write the output to stdout \(EBADF\)/);
    } finally {
      closeSync(fd);
    }
  }, 60_000);
});
