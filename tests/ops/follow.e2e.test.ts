// Acceptance 2 of the operating issue through the built binary, on SQLite and PostgreSQL:
// `follow --consumer alerts --type RunFailed -- sh -c 'cat >> failed.jsonl'`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { BIN, cli, tempDir } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 120_000 });

type Backend = { name: string; fresh(): Promise<string> };
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : null;
afterAll(async () => schemas?.dropAll());
const backends: Backend[] = [{ name: 'SQLite', fresh: async () => join(tempDir('runledger-follow-'), 'ledger.db') }];
if (schemas) backends.push({ name: 'PostgreSQL', fresh: () => schemas.fresh() });
else console.log(pgSkipMessage('follow'));

const NOW = '2026-11-20T00:00:00Z';

/** Starts `follow` and resolves once it says where it follows from (it is listening then). */
async function follow(db: string, cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'follow', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((ready, fail) => {
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('runledger: following from position')) ready();
    });
    void exit.then(() => fail(new Error(`follow exited early: ${stderr}`)));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

// In-process and synchronous: the followers are processes of their own, and what they print waits in their pipes.
async function recordFailure(db: string, date: string): Promise<void> {
  const started = cli(['--db', db, '--now', NOW, 'start', 'etl_orders', date]);
  expect(started.code, started.stderr).toBe(0);
  const failed = cli(['--db', db, '--now', NOW, 'fail', started.stdout.trim(), '--error', `no raw file for ${date}`]);
  expect(failed.code, failed.stderr).toBe(0);
}

function consumerPosition(db: string): number {
  const r = cli(['--db', db, 'consumers', '--json']);
  return (JSON.parse(r.stdout) as { consumers: Array<{ name: string; position: number }> }).consumers.find((c) => c.name === 'alerts')?.position ?? 0;
}
function lastFailurePosition(db: string): number {
  const r = cli(['--db', db, 'log', '--type', 'RunFailed', '--limit', '1', '--json']);
  return (JSON.parse(r.stdout) as { events: Array<{ position: number }> }).events[0]?.position ?? 0;
}

function linesOf(path: string): Array<{ type: string; data: { date: string } }> {
  return existsSync(path) ? readFileSync(path, 'utf8').trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(backends)('follow on $name', (backend) => {
  test('acceptance: three failures, three lines once each; killed, two more failures, restarted: exactly two more lines', async () => {
    const db = await backend.fresh();
    const cwd = tempDir('runledger-follow-cwd-');
    const out = join(cwd, 'failed.jsonl');
    expect(cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    const args = ['--consumer', 'alerts', '--type', 'RunFailed', '--', 'sh', '-c', 'cat >> failed.jsonl'];

    const first = await follow(db, cwd, args);
    for (const date of ['2026-11-02', '2026-11-03', '2026-11-04']) await recordFailure(db, date);
    await until(() => linesOf(out).length >= 3, 'three lines');
    // Killed once it has acknowledged the third, as a person would (a kill before that hands the third over again: see the kill test).
    await until(() => consumerPosition(db) >= lastFailurePosition(db), 'the acknowledgement');
    first.child.kill('SIGKILL');
    await first.exit;
    expect(linesOf(out).map((l) => [l.type, l.data.date])).toEqual([
      ['RunFailed', '2026-11-02'],
      ['RunFailed', '2026-11-03'],
      ['RunFailed', '2026-11-04'],
    ]);

    for (const date of ['2026-11-05', '2026-11-06']) await recordFailure(db, date);
    const second = await follow(db, cwd, args);
    await until(() => linesOf(out).length >= 5, 'two more lines');
    // Until it has acknowledged the last one: a second handover of any of them would have run its command before
    // that (the command ends before its event is acknowledged), and the SIGTERM below lets it finish what it holds.
    await until(() => consumerPosition(db) >= lastFailurePosition(db), 'the acknowledgement of the last');
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);
    expect(linesOf(out).map((l) => l.data.date)).toEqual(['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06']);
    // The consumer position lives outside the chain: verify and export are as before.
    const verify = cli(['--db', db, 'verify', '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
    const exported = cli(['--db', db, 'export']);
    expect(exported.stdout).not.toContain('alerts');
    const consumers = JSON.parse(cli(['--db', db, 'consumers', '--json']).stdout) as { head: number; consumers: Array<{ name: string; position: number; behind: number }> };
    expect(consumers.consumers).toMatchObject([{ name: 'alerts', position: consumers.head, behind: 0 }]);
    // The table shows when it last moved as other tables show instants: with the offset, no milliseconds.
    expect(cli(['--db', db, 'consumers']).stdout).toMatch(/^alerts\s+\d+\s+0\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?\+00:00$/m);
  });

  test('without a command, events are JSON Lines on stdout with the fields of log --json; the RUNLEDGER_EVENT_* variables reach a command', async () => {
    const db = await backend.fresh();
    const cwd = tempDir('runledger-follow-cwd-');
    expect(cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    const printer = await follow(db, cwd, ['etl_orders', '--from-position', '1']);
    const env = await follow(db, cwd, ['etl_orders', '--type', 'RunFailed', '--', 'sh', '-c', 'echo "$RUNLEDGER_EVENT_POSITION $RUNLEDGER_EVENT_TYPE $RUNLEDGER_EVENT_PIPELINE $RUNLEDGER_EVENT_DATE" >> env.txt']);
    await recordFailure(db, '2026-11-02');
    await until(() => printer.stdout().trimEnd().split('\n').length >= 3, 'three JSON lines');
    await until(() => existsSync(join(cwd, 'env.txt')), 'the command to run');
    printer.child.kill('SIGTERM');
    env.child.kill('SIGTERM');
    await Promise.all([printer.exit, env.exit]);
    const events = printer.stdout().trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => [e['position'], e['type']])).toEqual([
      [1, 'PipelineDefined'],
      [2, 'RunStarted'],
      [3, 'RunFailed'],
    ]);
    expect(Object.keys(events[2] ?? {}).sort()).toEqual(['data', 'eventId', 'hash', 'metadata', 'position', 'recordedAt', 'stream', 'type']);
    expect(readFileSync(join(cwd, 'env.txt'), 'utf8')).toBe('3 RunFailed etl_orders 2026-11-02\n');
  });
});

describe('follow on SQLite: failures and bad input', () => {
  test('a command that keeps failing is retried, then follow stops (exit 1) with one clear line and the position unmoved', async () => {
    const db = join(tempDir('runledger-follow-'), 'ledger.db');
    const cwd = tempDir('runledger-follow-cwd-');
    expect(cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    const args = ['--consumer', 'pager', '--type', 'RunFailed', '--retries', '2', '--retry-delay', '10ms', '--', 'sh', '-c', 'echo tried >> tries.txt; exit 3'];
    const failing = await follow(db, cwd, args);
    await recordFailure(db, '2026-11-02');
    expect(await failing.exit).toBe(1);
    const lines = failing.stderr().trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('retry'))).toHaveLength(2);
    expect(lines.at(-1)).toBe('runledger: consumer pager failed on event 3 (RunFailed) 3 times: exited with code 3; its position stays before event 3, so a restart hands that event over again');
    expect(readFileSync(join(cwd, 'tries.txt'), 'utf8')).toBe('tried\ntried\ntried\n');
    // Restarted with a command that works, it gets that event.
    const fixed = await follow(db, cwd, ['--consumer', 'pager', '--type', 'RunFailed', '--', 'sh', '-c', 'cat >> handled.jsonl']);
    expect(fixed.stderr()).toContain('following from position 3 (consumer pager)');
    await until(() => linesOf(join(cwd, 'handled.jsonl')).length === 1, 'the redelivered failure');
    fixed.child.kill('SIGTERM');
    await fixed.exit;
    expect(linesOf(join(cwd, 'handled.jsonl')).map((l) => l.data.date)).toEqual(['2026-11-02']);
  });

  test.each([
    { label: 'an unknown event type', args: ['--type', 'runfailed'], message: 'did you mean RunFailed?' },
    { label: 'a bad consumer name', args: ['--consumer', 'no way'], message: 'is not a valid consumer name' },
    { label: 'a position below 1', args: ['--from-position', '0'], message: '--from-position must be a whole number of 1 or more' },
    { label: 'nothing after --', args: ['--'], message: 'no command after --' },
    { label: 'two pipelines', args: ['a', 'b'], message: 'follow takes one pipeline' },
  ])('$label is one line, exit 2', ({ args, message }) => {
    const db = join(tempDir('runledger-follow-'), 'ledger.db');
    cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']);
    const r = cli(['--db', db, 'follow', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
  });

  test("runledger's own credentials do not reach the command unless --pass-ledger-env", async () => {
    const db = join(tempDir('runledger-follow-'), 'ledger.db');
    const cwd = tempDir('runledger-follow-cwd-');
    expect(cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']).code).toBe(0);
    const secrets = { RUNLEDGER_DB: db, RUNLEDGER_SIGNING_KEY: 'hmac:abcdefghijklmnopqrstuvwxyz123456', RUNLEDGER_WRITE_TOKEN: 'wtok123456', MY_SETTING: 'kept' };
    const seen = async (file: string, extra: string[]) => {
      const f = await follow(db, cwd, ['etl_orders', '--from-position', '1', ...extra, '--', 'sh', '-c', `env | grep -E '^(RUNLEDGER_(DB|SIGNING_KEY|WRITE_TOKEN|EVENT_TYPE)|MY_SETTING)=' | sort > ${file}`], secrets);
      await until(() => existsSync(join(cwd, file)) && readFileSync(join(cwd, file), 'utf8').includes('RUNLEDGER_EVENT_TYPE'), 'the command to run');
      f.child.kill('SIGTERM');
      await f.exit;
      return readFileSync(join(cwd, file), 'utf8');
    };
    const stripped = await seen('plain.txt', []);
    expect(stripped).toBe('MY_SETTING=kept\nRUNLEDGER_EVENT_TYPE=PipelineDefined\n');
    const passed = await seen('passed.txt', ['--pass-ledger-env']);
    expect(passed).toContain('RUNLEDGER_SIGNING_KEY=hmac:abcdefghijklmnopqrstuvwxyz123456');
    expect(passed).toContain('RUNLEDGER_WRITE_TOKEN=wtok123456');
    expect(passed).toContain(`RUNLEDGER_DB=${db}`);
  });

  test('an unknown pipeline is not found (exit 4)', () => {
    const db = join(tempDir('runledger-follow-'), 'ledger.db');
    cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01']);
    expect(cli(['--db', db, 'follow', 'nope']).code).toBe(4);
  });
});
