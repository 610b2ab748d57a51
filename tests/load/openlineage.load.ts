import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cli, tempDir, servingAddress } from '../support/run-cli.js';
import { dagRunEvent, dayInterval } from '../support/airflow-events.js';

/**
 * 10,000 OpenLineage events posted by 20 concurrent clients over loopback to
 * the built `serve`: every event is answered (recorded, duplicate, or refused
 * with a code and a message), the ledger verifies, and every date ends as
 * the producer meant. Run with `npm run test:load`.
 */
const NOW = { RUNLEDGER_NOW: '2026-11-10T00:00:00Z' };
const PIPELINES = 5;
const DATES = 800;
const CLIENTS = 20;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

/** A small deterministic PRNG (mulberry32), so a failing order can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const uuid = (p: number, d: number, attempt: number) => `0193b000-${p.toString(16).padStart(4, '0')}-7000-8${attempt}00-${d.toString(16).padStart(12, '0')}`;
const dateOf = (d: number) => new Date(Date.parse('2024-01-01T00:00:00Z') + d * 86_400_000).toISOString().slice(0, 10);
const at = (date: string, hours: number) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000 + hours * 3_600_000).toISOString();

function buildEvents(): Array<{ kind: 'base' | 'retry' | 'unbound' | 'duplicate'; body: string }> {
  const events: Array<{ kind: 'base' | 'retry' | 'unbound' | 'duplicate'; body: string }> = [];
  for (let p = 0; p < PIPELINES; p++) {
    for (let d = 0; d < DATES; d++) {
      const date = dateOf(d);
      const common = { dagId: `load_dag_${p}`, ...dayInterval(date) };
      const failed = d % 10 === 0;
      events.push({ kind: 'base', body: JSON.stringify(dagRunEvent({ ...common, eventType: 'START', runId: uuid(p, d, 1), eventTime: at(date, 0) })) });
      events.push({ kind: 'base', body: JSON.stringify(dagRunEvent({ ...common, eventType: failed ? 'FAIL' : 'COMPLETE', runId: uuid(p, d, 1), eventTime: at(date, 1), ...(failed ? { error: `load_dag_${p} ${date} failed` } : {}) })) });
      if (d % 20 === 0) {
        events.push({ kind: 'retry', body: JSON.stringify(dagRunEvent({ ...common, eventType: 'START', runId: uuid(p, d, 2), eventTime: at(date, 5) })) });
        events.push({ kind: 'retry', body: JSON.stringify(dagRunEvent({ ...common, eventType: 'COMPLETE', runId: uuid(p, d, 2), eventTime: at(date, 6) })) });
      }
    }
  }
  for (let i = 0; i < 500; i++) {
    const date = dateOf(i);
    events.push({ kind: 'unbound', body: JSON.stringify(dagRunEvent({ dagId: 'nobody_binds_me', ...dayInterval(date), eventType: 'START', runId: uuid(99, i, 1), eventTime: at(date, 0) })) });
  }
  const rnd = random(14);
  const originals = events.length;
  while (events.length < 10_000) {
    const original = events[Math.floor(rnd() * originals)] as { body: string };
    events.push({ kind: 'duplicate', body: original.body });
  }
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [events[i], events[j]] = [events[j] as (typeof events)[number], events[i] as (typeof events)[number]];
  }
  return events;
}

async function serve(db: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--write-token', 'load-token-0123456789'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NOW } });
  children.push(child);
  return servingAddress(child);
}

describe('load: OpenLineage over loopback', () => {
  test('10,000 events from 20 concurrent clients: every event accounted for, verify ok, every date as the producer meant', async () => {
    const db = join(tempDir(), 'load.db');
    for (let p = 0; p < PIPELINES; p++) {
      const r = cli(['--db', db, 'define', `load_dag_${p}`, '--schedule', '0 0 * * *', '--start', '2024-01-01', '--openlineage', `default/load_dag_${p}`], NOW);
      expect(r.code, r.stderr).toBe(0);
    }
    const address = await serve(db);
    const events = buildEvents();
    expect(events).toHaveLength(10_000);
    const answers: Array<{ kind: string; status: number; outcome: string; code: string | null; message: string }> = new Array(events.length);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = next++; i < events.length; i = next++) {
          const event = events[i] as { kind: string; body: string };
          const res = await fetch(`${address}/api/v1/lineage`, { method: 'POST', headers: { authorization: 'Bearer load-token-0123456789', 'content-type': 'application/json' }, body: event.body });
          const body = (await res.json()) as { results?: Array<{ outcome: string; code: string | null; message: string }> };
          const result = body.results?.[0];
          answers[i] = { kind: event.kind, status: res.status, outcome: result?.outcome ?? 'none', code: result?.code ?? null, message: result?.message ?? '' };
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const tally: Record<string, number> = {};
    for (const a of answers) tally[`${a.status} ${a.outcome}${a.code ? ` ${a.code}` : ''}`] = (tally[`${a.status} ${a.outcome}${a.code ? ` ${a.code}` : ''}`] ?? 0) + 1;
    console.log(`load: 10000 events, ${CLIENTS} clients, ${seconds.toFixed(1)} s, ${(10_000 / seconds).toFixed(0)} events/s`, tally);

    // Every event has an answer: 200 with an outcome, or a 4xx refusal with a code and a one-line message.
    expect(answers.filter((a) => a === undefined)).toEqual([]);
    for (const a of answers) {
      if (a.status === 200) expect(['recorded', 'duplicate']).toContain(a.outcome);
      else {
        expect([404, 409]).toContain(a.status);
        expect(a.outcome).toBe('refused');
        expect(a.code).toMatch(/^(notFound|ledger)\./);
        expect(a.message).not.toContain('\n');
      }
    }
    expect(answers.filter((a) => a.kind === 'unbound').every((a) => a.status === 404 && a.code === 'notFound.openlineageJob')).toBe(true);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);

    const verify = cli(['--db', db, 'verify', '--json'], NOW);
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });

    for (let p = 0; p < PIPELINES; p++) {
      const state = JSON.parse(cli(['--db', db, 'state', `load_dag_${p}`, '--to', dateOf(DATES - 1), '--json'], NOW).stdout) as { dates: Array<{ date: string; status: string }> };
      const expected = Array.from({ length: DATES }, (_, d) => [dateOf(d), d % 10 === 0 && d % 20 !== 0 ? 'failed' : 'success']);
      expect(state.dates.map((x) => [x.date, x.status])).toEqual(expected);
    }
  });
});
