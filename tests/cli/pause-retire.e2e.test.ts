// Issue 40 items 2 and 3 through the built CLI: pause and unpause, retire and unretire, as events with actor and
// reason, and what each surface does with them (fleet runs, status, pending, check, metrics, state, define).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, tempDir } from '../runner/cli-helpers.js';

const NOW = '2026-11-04T01:00:00Z';

/** A ledger with raw (daily) and daily (waits for raw), each with a command that appends its date to out.txt. */
function fleet(): { dir: string; run: (args: string[], actor?: string) => ReturnType<typeof cli> } {
  const dir = tempDir();
  const run = (args: string[], actor = 'ana') => cli(dir, args, { RUNLEDGER_DB: join(dir, 'l.db'), RUNLEDGER_NOW: NOW, RUNLEDGER_ACTOR: actor });
  expect(run(['define', 'raw', '--schedule', '@daily', '--start', '2026-11-02', '--command', '--', 'sh', '-c', 'echo raw {date} >> out.txt']).code).toBe(0);
  expect(run(['define', 'daily', '--schedule', '@daily', '--start', '2026-11-02', '--upstream', 'raw', '--command', '--', 'sh', '-c', 'echo daily {date} >> out.txt']).code).toBe(0);
  return { dir, run };
}

type LogDoc = { events: Array<{ type: string; data: { pipeline: string }; metadata: { actor: string; reason?: string } }> };

describe('pause and unpause', () => {
  test('a paused upstream holds its downstream in catchup --all, pending and status, and unpause lets the next catchup --all run both in order', () => {
    const { dir, run } = fleet();
    const paused = run(['pause', 'raw', '--reason', 'vendor outage']);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toBe('raw: paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage\n');

    const held = run(['catchup', '--all']);
    expect(held.code).toBe(0);
    expect(held.stdout).toContain('left alone: raw is paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage (runledger unpause raw)');
    expect(held.stdout).toMatch(/daily\s+2026-11-02\s+missing\s+skipped/);

    const pending = JSON.parse(run(['pending', 'daily', '--json']).stdout) as { pending: Array<{ date: string; reason: string; blockedBy?: { pipeline: string; paused?: { by: string; reason: string } } }> };
    expect(pending.pending.map((p) => [p.date, p.reason, p.blockedBy?.pipeline, p.blockedBy?.paused?.reason])).toEqual([
      ['2026-11-02', 'upstream', 'raw', 'vendor outage'],
      ['2026-11-03', 'upstream', 'raw', 'vendor outage'],
    ]);
    expect(run(['pending', 'daily']).stdout).toContain('raw is paused since 2026-11-04T01:00:00+00:00 by ana');

    const status = run(['status']);
    expect(status.stdout).toContain('raw (paused)');
    expect(status.stdout).toContain('raw: paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage');
    expect(status.stdout).toContain('daily: 2 dates wait for raw, paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage');
    const statusJson = JSON.parse(run(['status', '--json']).stdout) as { pipelines: Array<{ pipeline: string; paused?: { by: string } }> };
    expect(statusJson.pipelines.find((p) => p.pipeline === 'raw')?.paused?.by).toBe('ana');
    expect(statusJson.pipelines.find((p) => p.pipeline === 'daily')?.paused).toBeUndefined();

    expect(run(['unpause', 'raw'], 'bo').stdout).toBe('raw: active\n');
    const both = run(['catchup', '--all']);
    expect(both.code).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('raw 2026-11-02\nraw 2026-11-03\ndaily 2026-11-02\ndaily 2026-11-03\n');

    const log = JSON.parse(run(['log', '--json', '--type', 'PipelinePaused,PipelineUnpaused']).stdout) as LogDoc;
    expect(log.events.map((e) => [e.type, e.data.pipeline, e.metadata.actor, e.metadata.reason])).toEqual([
      ['PipelinePaused', 'raw', 'ana', 'vendor outage'],
      ['PipelineUnpaused', 'raw', 'bo', undefined],
    ]);
    const verified = run(['verify', '--projections']);
    expect(verified.code, verified.stderr).toBe(0);
  });

  test('a direct start, backfill or catchup of a paused pipeline runs and says it is paused', () => {
    const { run } = fleet();
    run(['pause', 'raw', '--reason', 'vendor outage']);
    const started = run(['start', 'raw', '2026-11-02']);
    expect(started.code).toBe(0);
    expect(started.stderr).toContain('note: raw is paused since 2026-11-04T01:00:00+00:00 by ana — vendor outage; this run goes ahead');
    // The clock is fixed, so the run's lease never runs out: finish it, or the backfill would wait for a place.
    expect(run(['succeed', started.stdout.trim()]).code).toBe(0);
    const caught = run(['catchup', 'raw', '--dry-run']);
    expect(caught.code).toBe(0);
    expect(caught.stderr).toContain('note: raw is paused');
    const backfilled = run(['backfill', 'raw', '--from', '2026-11-03', '--to', '2026-11-03']);
    expect(backfilled.code).toBe(0);
    expect(backfilled.stderr).toContain('note: raw is paused');
  });

  test('check leaves a paused pipeline lag and pending alone unless --include-paused; /metrics has runledger_pipeline_paused', () => {
    const { run } = fleet();
    run(['pause', 'raw', '--reason', 'vendor outage']);
    const check = run(['check', 'raw', '--max-lag', '1h', '--max-pending', '0']);
    expect(check.code).toBe(0);
    const included = run(['check', 'raw', '--max-lag', '1h', '--max-pending', '0', '--include-paused']);
    expect(included.code).toBe(7);
    expect(included.stdout).toContain('raw: 2 dates pending');
    const metrics = run(['metrics']).stdout;
    expect(metrics).toContain('runledger_pipeline_paused{pipeline="raw"} 1');
    expect(metrics).toContain('runledger_pipeline_paused{pipeline="daily"} 0');
    expect(metrics).toContain(`runledger_pipeline_paused_since_timestamp_seconds{pipeline="raw"} ${Date.parse(NOW) / 1000}`);
  });

  test('refusals write nothing: a pause without a reason (2), an unknown name among several (4); pausing twice changes nothing', () => {
    const { run } = fleet();
    const before = run(['log', '--json']).stdout;
    const noReason = run(['pause', 'raw']);
    expect([noReason.code, noReason.stderr]).toEqual([2, 'runledger: a pause needs a reason, recorded with it: add --reason "…" (library: reason), e.g. --reason "vendor outage until Monday"\n']);
    const unknown = run(['pause', 'raw', 'nope', '--reason', 'x']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("no pipeline 'nope'");
    expect(run(['log', '--json']).stdout).toBe(before);
    run(['pause', 'raw', '--reason', 'first']);
    const again = run(['pause', 'raw', '--reason', 'second']);
    expect(again.stdout).toBe('raw: unchanged, paused since 2026-11-04T01:00:00+00:00 by ana — first\n');
    expect((JSON.parse(run(['log', '--json', '--type', 'PipelinePaused']).stdout) as LogDoc).events).toHaveLength(1);
  });
});

describe('retire and unretire', () => {
  test('retire is refused while an active pipeline names it as upstream, naming it; the downstream retired first, it goes', () => {
    const { run } = fleet();
    const refused = run(['retire', 'raw', '--reason', 'replaced']);
    expect([refused.code, refused.stderr]).toEqual([3, 'runledger: raw is an upstream of daily, which is not retired; retire it first, or redefine it without --upstream raw\n']);
    expect(run(['retire', 'daily']).code).toBe(2);
    expect(run(['retire', 'daily', '--reason', 'replaced by daily_v2']).stdout).toBe('daily: retired since 2026-11-04T01:00:00+00:00 by ana — replaced by daily_v2\n');
    expect(run(['retire', 'raw', '--reason', 'replaced']).code).toBe(0);
  });

  test('a retired pipeline leaves status, check, metrics and fleet runs; its history stays in state --include-retired, log and verify', () => {
    const { dir, run } = fleet();
    expect(run(['retire', 'daily', '--reason', 'replaced by daily_v2']).code).toBe(0);
    const status = JSON.parse(run(['status', '--json']).stdout) as { pipelines: Array<{ pipeline: string }> };
    expect(status.pipelines.map((p) => p.pipeline)).toEqual(['raw']);
    const named = run(['status', 'daily']);
    expect(named.code).toBe(3);
    expect(named.stderr).toContain('daily is retired since 2026-11-04T01:00:00+00:00 by ana — replaced by daily_v2, so it has no status');
    expect(run(['check', '--max-pending', '0', '--json']).stdout).not.toContain('"daily"');
    expect(run(['metrics']).stdout).not.toContain('pipeline="daily"');
    run(['catchup', '--all']);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('raw 2026-11-02\nraw 2026-11-03\n');
    const state = run(['state', 'daily']);
    expect(state.code).toBe(3);
    expect(state.stderr).toContain('add --include-retired');
    expect(run(['state', 'daily', '--include-retired', '--json']).code).toBe(0);
    expect(run(['start', 'daily', '2026-11-02']).code).toBe(3);
    expect(run(['verify', '--projections']).code).toBe(0);
    expect(run(['pipelines']).stdout).toContain('retired since 2026-11-04T01:00:00+00:00 by ana — replaced by daily_v2');
  });

  test('define of a retired name is refused with how to bring it back; unretire brings back definition and history', () => {
    const { run } = fleet();
    run(['retire', 'daily', '--reason', 'replaced']);
    const define = run(['define', 'daily', '--schedule', '@hourly', '--start', '2026-11-02']);
    expect(define.code).toBe(3);
    expect(define.stderr).toContain('Bring it back with runledger unretire daily');
    expect(define.stderr).toContain('or define the new pipeline under a new name');
    const upstream = run(['define', 'other', '--schedule', '@daily', '--start', '2026-11-02', '--upstream', 'daily']);
    expect(upstream.code).toBe(3);
    expect(upstream.stderr).toContain('--upstream daily: daily is retired');
    expect(run(['unretire', 'daily', '--reason', 'rolled back']).stdout).toBe('daily: active\n');
    expect((JSON.parse(run(['status', '--json']).stdout) as { pipelines: Array<{ pipeline: string }> }).pipelines.map((p) => p.pipeline).sort()).toEqual(['daily', 'raw']);
    expect(run(['define', 'daily', '--freshness', '1d']).code).toBe(0);
  });

  test('export, import and replay carry the four events', () => {
    const { dir, run } = fleet();
    run(['pause', 'raw', '--reason', 'outage']);
    run(['unpause', 'raw']);
    run(['retire', 'daily', '--reason', 'gone']);
    run(['unretire', 'daily']);
    run(['pause', 'daily', '--reason', 'again']);
    const exported = run(['export', '--out', join(dir, 'x.jsonl')]);
    expect(exported.code, exported.stderr).toBe(0);
    const replayed = cli(dir, ['replay', join(dir, 'x.jsonl'), '--pipeline', 'daily', '--json'], { RUNLEDGER_NOW: NOW });
    expect(replayed.code, replayed.stderr).toBe(0);
    const copy = join(dir, 'copy.db');
    const imported = cli(dir, ['import', join(dir, 'x.jsonl')], { RUNLEDGER_DB: copy, RUNLEDGER_NOW: NOW });
    expect(imported.code, imported.stderr).toBe(0);
    const status = JSON.parse(cli(dir, ['status', '--json'], { RUNLEDGER_DB: copy, RUNLEDGER_NOW: NOW }).stdout) as { pipelines: Array<{ pipeline: string; paused?: { reason: string } }> };
    expect(status.pipelines.find((p) => p.pipeline === 'daily')?.paused?.reason).toBe('again');
    expect(cli(dir, ['verify', '--projections'], { RUNLEDGER_DB: copy, RUNLEDGER_NOW: NOW }).code).toBe(0);
  });
});
