// `runledger notify` as a real process against a local HTTP receiver (127.0.0.1, port 0) and a command: one
// notification per final failure across a kill -9 and a restart, retries until the receiver answers 200, late and
// recovered dates. Needs the built CLI (`npm run build`).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { idempotencyKey } from '../../src/ops/notify/notification.js';
import { spawnKillable } from '../support/killable-process.js';
import { cli, cliAsync, tempDir } from '../runner/cli-helpers.js';

const BIN = resolve(import.meta.dirname, '../../bin/runledger.js');

type Received = { key: string; body: Record<string, unknown> };

/** A receiver on 127.0.0.1 at a free port; `answer` picks each status (and may hold the answer back). */
async function receiver(answer: (n: number, req: IncomingMessage) => Promise<number> | number): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ key: String(req.headers['idempotency-key']), body: JSON.parse(body) as Record<string, unknown> });
      void Promise.resolve(answer(received.length, req)).then((status) => {
        res.statusCode = status;
        res.end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function ok(dir: string, args: string[]): string {
  const r = cli(dir, ['--db', join(dir, 'l.db'), ...args]);
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Three dates that fail for good; the RunFailed events' ids, in order. */
function threeFailures(dir: string): string[] {
  ok(dir, ['define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
  for (const date of ['2026-11-01', '2026-11-02', '2026-11-03']) ok(dir, ['fail', ok(dir, ['start', 'p', date]), '--error', `no data for ${date}`]);
  const log = JSON.parse(ok(dir, ['log', 'p', '--type', 'RunFailed', '--json'])) as { events: Array<{ eventId: string }> };
  return log.events.map((e) => e.eventId);
}

describe('notify', () => {
  test('a receiver gets exactly one notification per failure, by idempotency key, across a kill -9 of the notifier and a restart', async () => {
    const dir = tempDir();
    const failures = threeFailures(dir);
    let release: (() => void) | undefined;
    const held = new Promise<void>((r) => (release = r));
    // The second notification is held unanswered while the notifier is killed: it was received, never acknowledged.
    const hook = await receiver((n) => (n === 2 ? held.then(() => 200) : 200));
    const args = [BIN, '--db', join(dir, 'l.db'), 'notify', '--on', 'failed', '--webhook', hook.url, '--consumer', 'oncall', '--from-position', '1', '--retry-delay', '100ms'];
    const first = spawnKillable(args, { cwd: dir });
    while (hook.received.length < 2) await new Promise((r) => setTimeout(r, 20));
    await first.kill();
    release?.();
    // Async: the receiver lives in this process, and a blocking child would keep it from answering.
    const second = await cliAsync(dir, ['--db', join(dir, 'l.db'), 'notify', '--on', 'failed', '--webhook', hook.url, '--consumer', 'oncall', '--once']).done;
    expect(second.code, second.stderr).toBe(0);
    const expected = failures.map((id) => idempotencyKey('failed', id));
    // What the receiver saw: the notification in hand at the kill came again, with the same key and the same body.
    expect(hook.received.map((r) => r.key)).toEqual([expected[0], expected[1], expected[1], expected[2]]);
    expect(hook.received[2]?.body).toEqual(hook.received[1]?.body);
    // Deduplicated by its key, as a receiver does, each failure arrived exactly once.
    expect([...new Set(hook.received.map((r) => r.key))]).toEqual(expected);
    expect(hook.received.map((r) => [r.body['kind'], r.body['date'], r.body['error']]).filter((_, i) => i !== 2)).toEqual([
      ['failed', '2026-11-01', 'no data for 2026-11-01'],
      ['failed', '2026-11-02', 'no data for 2026-11-02'],
      ['failed', '2026-11-03', 'no data for 2026-11-03'],
    ]);
    const consumers = JSON.parse(ok(dir, ['consumers', '--json'])) as { head: number; consumers: Array<{ name: string; position: number }> };
    expect(consumers.consumers.find((c) => c.name === 'oncall')?.position).toBe(consumers.head);
  });

  test('a webhook that answers 500 three times is retried until it answers 200, always with the same key', async () => {
    const dir = tempDir();
    ok(dir, ['define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const hook = await receiver((n) => (n <= 3 ? 500 : 200));
    const args = ['--db', join(dir, 'l.db'), 'notify', '--on', 'failed', '--webhook', hook.url, '--consumer', 'c', '--retry-delay', '50ms'];
    expect((await cliAsync(dir, [...args, '--once']).done).code).toBe(0);
    ok(dir, ['fail', ok(dir, ['start', 'p', '2026-11-01']), '--error', 'boom']);
    const r = await cliAsync(dir, [...args, '--once']).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('answered HTTP 500); retry 3 of 8 in 200 ms');
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((x) => x.key)).size).toBe(1);
    // Delivered and acknowledged: the next run has nothing to send.
    expect((await cliAsync(dir, [...args, '--once']).done).code).toBe(0);
    expect(hook.received).toHaveLength(4);
  });

  test('a retried failure is not news; late dates come from the clock, once each; a command gets the details in its environment', () => {
    const dir = tempDir();
    ok(dir, ['--now', '2026-11-02T00:00:00Z', 'define', 'p', '--schedule', '@daily', '--start', '2026-11-01', '--sla', '2h']);
    const command = ['--', 'sh', '-c', 'echo "$RUNLEDGER_NOTIFY_KIND $RUNLEDGER_NOTIFY_DATE $RUNLEDGER_NOTIFY_IDEMPOTENCY_KEY" >> got.txt; cat >> got.jsonl'];
    const notify = (now: string) => cli(dir, ['--db', join(dir, 'l.db'), '--now', now, 'notify', '--on', 'failed,late,recovered', '--consumer', 'ops', '--once', ...command]);
    expect(notify('2026-11-02T00:00:00Z').code).toBe(0);
    // 2026-11-01 fails and is retried by the runner, then fails for good; 2026-11-02 is never run.
    const flaky = join(dir, 'flaky.sh');
    writeFileSync(flaky, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    expect(cli(dir, ['--db', join(dir, 'l.db'), '--now', '2026-11-03T03:00:00Z', 'backfill', 'p', '--from', '2026-11-01', '--to', '2026-11-01', '--retries', '1', '--retry-delay', '0', '--no-logs', '--', flaky]).code).toBe(6);
    const r = notify('2026-11-03T03:00:00Z');
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'got.txt'), 'utf8').trim().split('\n').map((l) => l.split(' ').slice(0, 2).join(' '));
    // One failure (the retried attempt was not one), and both dates late: due at 00:00, SLA 2h, still not done at 03:00.
    expect(lines).toEqual(['failed 2026-11-01', 'late 2026-11-01', 'late 2026-11-02']);
    const docs = readFileSync(join(dir, 'got.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs[1]).toMatchObject({ kind: 'late', pipeline: 'p', date: '2026-11-01', at: '2026-11-02T02:00:00.000Z', runAfter: '2026-11-02T00:00:00+00:00', slaMs: 7_200_000, code: 'failed' });
    // The same instant again: nothing new. A mark of the failed date is a recovery.
    expect(notify('2026-11-03T03:00:00Z').code).toBe(0);
    ok(dir, ['--now', '2026-11-03T04:00:00Z', 'mark', 'p', '2026-11-01', '--skipped', '--reason', 'no orders that day']);
    expect(notify('2026-11-03T04:00:00Z').code).toBe(0);
    const all = readFileSync(join(dir, 'got.txt'), 'utf8').trim().split('\n').map((l) => l.split(' ').slice(0, 2).join(' '));
    expect(all).toEqual(['failed 2026-11-01', 'late 2026-11-01', 'late 2026-11-02', 'recovered 2026-11-01']);
  });

  test('bad options are refused before anything runs (exit 2)', () => {
    const dir = tempDir();
    ok(dir, ['define', 'p', '--schedule', '@daily', '--start', '2026-11-01']);
    const run = (args: string[]) => cli(dir, ['--db', join(dir, 'l.db'), 'notify', ...args]);
    expect(run(['--on', 'failed,exploded', '--webhook', 'http://127.0.0.1:1/x', '--consumer', 'c']).stderr.trim()).toBe(
      "runledger: --on 'exploded' is not one or more of failed, stalled, late, recovered, overdue, comma-separated, e.g. --on failed,stalled,overdue,late",
    );
    expect(run(['--on', 'failed', '--consumer', 'c']).code).toBe(2);
    writeFileSync(join(dir, 't.json'), '{"text": "{{nope}}"}');
    const bad = run(['--on', 'failed', '--webhook', 'http://127.0.0.1:1/x', '--consumer', 'c', '--template', join(dir, 't.json')]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('the template names {{nope}}')]);
  });
});
