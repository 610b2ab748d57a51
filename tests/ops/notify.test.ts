// The notifier's parts on a clock the test moves: which deadlines make news (late, stalled), once each per window;
// the template; and the notifier itself with a delivery that records instead of posting.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { deadlineNotifications } from '../../src/ops/notify/deadline-notifications.js';
import { checkTemplate, redactUrl, renderTemplate } from '../../src/ops/notify/deliver-notification.js';
import type { Notification } from '../../src/ops/notify/notification.js';
import { runNotifier } from '../../src/ops/notify/run-notifier.js';
import { tempDir } from '../runner/cli-helpers.js';

const T0 = Date.parse('2026-11-03T03:00:00Z');
const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

async function ledgerAt(now: number) {
  const clock = { now };
  const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => clock.now, actor: 'tester' });
  open.push(ledger);
  await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', sla: '2h', lease: '10m' });
  return { ledger, clock };
}

describe('deadlines', () => {
  test('a slot not done by run-after plus SLA is late exactly in the window its deadline falls in', async () => {
    const { ledger } = await ledgerAt(T0);
    await ledger.withRun('p', '2026-11-01', () => ({}));
    const at = (from: string, to: string) => deadlineNotifications(ledger, ['p'], { fromMs: Date.parse(from), toMs: Date.parse(to) }, ['late']);
    // 2026-11-01 is done; 2026-11-02 is due at 11-03T00:00, late at 02:00.
    expect((await at('2026-11-03T00:00:00Z', '2026-11-03T03:00:00Z')).map((n) => [n.date, n.at])).toEqual([['2026-11-02', '2026-11-03T02:00:00.000Z']]);
    expect(await at('2026-11-03T02:00:00Z', '2026-11-03T03:00:00Z')).toEqual([]);
    expect((await at('2026-11-03T01:59:59Z', '2026-11-03T02:00:00Z')).map((n) => n.date)).toEqual(['2026-11-02']);
    const [a, b] = [await at('2026-11-03T00:00:00Z', '2026-11-03T03:00:00Z'), await at('2026-11-03T01:00:00Z', '2026-11-03T02:30:00Z')];
    expect(a[0]?.idempotencyKey).toBe(b[0]?.idempotencyKey);
  });

  test('a run whose lease ran out in the window is stalled; one heartbeat later it is a new deadline with a new key', async () => {
    const { ledger, clock } = await ledgerAt(T0);
    const run = await ledger.start({ pipeline: 'p', date: '2026-11-02' });
    const window = (fromMs: number, toMs: number) => deadlineNotifications(ledger, ['p'], { fromMs, toMs }, ['stalled']);
    expect(await window(T0, T0 + 599_999)).toEqual([]);
    const first = await window(T0, T0 + 600_000);
    expect(first.map((n) => [n.kind, n.runId, n.at])).toEqual([['stalled', run.runId, new Date(T0 + 600_000).toISOString()]]);
    clock.now = T0 + 700_000;
    await ledger.heartbeat({ runId: run.runId });
    const second = await window(T0 + 600_000, T0 + 1_300_000);
    expect(second).toHaveLength(1);
    expect(second[0]?.idempotencyKey).not.toBe(first[0]?.idempotencyKey);
  });
});

describe('the notifier', () => {
  test('a failure that will be retried is not news; the final one is, once; its clock moves on with the ledger', async () => {
    const { ledger, clock } = await ledgerAt(T0);
    const got: Notification[] = [];
    const options = { consumer: 'ops', kinds: ['failed', 'late', 'recovered'] as const, deliver: async (n: Notification) => void got.push(n), retries: 0, retryDelay: 1, once: true, fromPosition: 1 };
    await runNotifier(ledger, { ...options });
    expect(got).toEqual([]);
    const a = await ledger.start({ pipeline: 'p', date: '2026-11-01' });
    await ledger.fail({ runId: a.runId, error: 'flaky', retry: { attempt: 2, maxAttempts: 2, delayMs: 0 } });
    const b = await ledger.start({ pipeline: 'p', date: '2026-11-01' });
    await ledger.fail({ runId: b.runId, error: 'still down' });
    clock.now += 86_400_000;
    await runNotifier(ledger, { ...options });
    // 2026-11-02 was late at 02:00 on the 3rd, before the consumer's clock began at 03:00: not news to it.
    expect(got.map((n) => `${n.kind} ${n.date} ${n.error ?? ''}`.trim())).toEqual(['failed 2026-11-01 still down', 'late 2026-11-03']);
    await runNotifier(ledger, { ...options });
    expect(got).toHaveLength(2);
    const c = await ledger.start({ pipeline: 'p', date: '2026-11-01' });
    await ledger.succeed({ runId: c.runId });
    await runNotifier(ledger, { ...options });
    expect(got.slice(2).map((n) => n.summary)).toEqual(['p 2026-11-01 recovered: attempt 3 succeeded after attempt 2 failed']);
  });

  test('a delivery that keeps failing stops the notifier with its position before that notification', async () => {
    const { ledger } = await ledgerAt(T0);
    const a = await ledger.start({ pipeline: 'p', date: '2026-11-01' });
    await ledger.fail({ runId: a.runId, error: 'down' });
    let tries = 0;
    const failing = runNotifier(ledger, {
      consumer: 'x',
      kinds: ['failed'],
      fromPosition: 1,
      once: true,
      retries: 2,
      retryDelay: 1,
      sleep: async () => undefined,
      deliver: async () => {
        tries += 1;
        throw new Error('connection refused');
      },
    });
    await expect(failing).rejects.toThrow(/was not delivered after 3 tries: connection refused/);
    expect(tries).toBe(3);
    expect(await ledger.store.consumers.get('x')).toBe(2);
  });
});

describe('templates', () => {
  const n: Notification = {
    kind: 'failed', idempotencyKey: 'k', pipeline: 'p', date: '2026-11-01', runId: 'R', at: '2026-11-02T00:00:00Z', position: 3,
    summary: 'p 2026-11-01 failed: said "no"\nand more', error: 'said "no"', code: null, attempt: 1, runAfter: null, slaMs: null, actor: 'a',
  };

  test('fields are escaped for JSON strings, null is empty, {{document}} is the whole notification', () => {
    const text = renderTemplate('{"text": "{{summary}}", "code": "{{code}}", "all": {{document}}}', n);
    expect(JSON.parse(text)).toEqual({ text: n.summary, code: '', all: n });
  });

  test('an unknown field or a template that does not give JSON is refused before anything is sent', () => {
    expect(() => checkTemplate('{"text": "{{nope}}"}')).toThrow(/names \{\{nope\}\}/);
    expect(() => checkTemplate('{"text": {{summary}}}')).toThrow(/does not give JSON/);
    expect(() => checkTemplate('{"text": "{{ summary }}"}')).not.toThrow();
  });

  test('the Slack example escapes & < > in every field: a failure message cannot mention @channel or hide a link', () => {
    const template = readFileSync(resolve(import.meta.dirname, '../../examples/notify/slack.json'), 'utf8');
    checkTemplate(template);
    const hostile = { ...n, error: '<!channel> see <https://evil.example|the docs> & more', summary: 'p 2026-11-01 failed: <!channel> see <https://evil.example|the docs> & more' };
    const slack = JSON.parse(renderTemplate(template, hostile)) as { text: string; blocks: Array<{ text?: { text: string } }> };
    const texts = [slack.text, ...slack.blocks.map((b) => b.text?.text ?? '')];
    for (const text of texts) expect(text).not.toMatch(/<|>/);
    expect(slack.text).toBe('runledger: p 2026-11-01 failed: &lt;!channel&gt; see &lt;https://evil.example|the docs&gt; &amp; more');
  });

  test('{{field}} escapes for JSON only; an unknown target, or a target on {{document}}, is refused', () => {
    expect(JSON.parse(renderTemplate('{"t": "{{error}}"}', { ...n, error: '<b> & "q"' }))).toEqual({ t: '<b> & "q"' });
    expect(() => checkTemplate('{"t": "{{error|html}}"}')).toThrow('the targets are slack');
    expect(() => checkTemplate('{"t": {{document|slack}}}')).toThrow('{{document}} takes no target');
  });

  test('a webhook URL is shown without the path or query a service keeps its secret in', () => {
    expect(redactUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBe('https://hooks.slack.com/…');
    expect(redactUrl('http://127.0.0.1:8080/hook')).toBe('http://127.0.0.1:8080/hook');
  });
});
