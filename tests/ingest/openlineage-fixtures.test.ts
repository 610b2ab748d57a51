import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseLineageEvent } from '../../src/ingest/openlineage/openlineage-event.js';
import { exportOpenLineage } from '../../src/ingest/openlineage/export-openlineage.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { acceptanceEvents, dailyDagStream, dbtInvocation, malformedEvents, runIdOf } from '../support/airflow-events.js';
import { OPENLINEAGE_SPEC_DIR, openLineageSpecErrors, openLineageSpecFacetIds } from '../support/openlineage-spec.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/openlineage');
/** The file of the docs' example ships in the package, under examples/; the others are the tests' own. */
const dirOf = (name: string) => (name === 'airflow-orders.jsonl' ? resolve(import.meta.dirname, '../../examples/openlineage') : FIXTURES);

/** Every fixture file and the builder that writes it; `UPDATE_FIXTURES=1 npx vitest run tests/ingest` rewrites them. */
const FILES: Record<string, () => unknown[]> = {
  'airflow-orders.jsonl': acceptanceEvents,
  'airflow-daily-stream.jsonl': dailyDagStream,
  'dbt-invocation.jsonl': () => [
    ...dbtInvocation({ runId: runIdOf(500), modelRunId: runIdOf(501), startedAt: '2026-11-05T03:00:00.000Z', endedAt: '2026-11-05T03:04:00.000Z' }),
    ...dbtInvocation({ runId: runIdOf(502), modelRunId: runIdOf(503), startedAt: '2026-11-06T03:00:00.000Z', endedAt: '2026-11-06T03:02:00.000Z', failed: 'Database Error in model orders: syntax error at or near "lkjlkjkj"' }),
  ],
  'malformed-events.json': malformedEvents,
};

function render(name: string, events: unknown[]): string {
  return name.endsWith('.jsonl') ? events.map((e) => JSON.stringify(e)).join('\n') + '\n' : JSON.stringify(events, null, 2) + '\n';
}

describe('OpenLineage fixtures', () => {
  test.each(Object.keys(FILES))('%s is what its builder writes', (name) => {
    const text = render(name, (FILES[name] as () => unknown[])());
    if (process.env['UPDATE_FIXTURES']) writeFileSync(join(dirOf(name), name), text);
    expect(readFileSync(join(dirOf(name), name), 'utf8')).toBe(text);
  });

  test.each(malformedEvents().map((m) => [m.rule, m.path, m.event] as const))('malformed: %s — refused naming %s', (_rule, path, event) => {
    const result = parseLineageEvent(event);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.path).toBe(path);
  });

  test('every well-formed fixture event passes runledger\'s own schema', () => {
    for (const name of Object.keys(FILES).filter((n) => n.endsWith('.jsonl'))) {
      for (const event of (FILES[name] as () => unknown[])()) expect(parseLineageEvent(event)).toMatchObject({ ok: true });
    }
  });
});

describe('OpenLineage fixtures against the spec\'s JSON Schema (ajv)', () => {
  test('the spec holds the facets runledger reads', () => {
    expect(openLineageSpecFacetIds().map((id) => id.split('/').pop()).sort()).toEqual(expect.arrayContaining(['ErrorMessageRunFacet.json', 'JobTypeJobFacet.json', 'NominalTimeRunFacet.json', 'ParentRunFacet.json']));
  });

  test.each(Object.keys(FILES).filter((n) => n.endsWith('.jsonl')))('every event of %s is valid OpenLineage', (name) => {
    const lines = readFileSync(join(dirOf(name), name), 'utf8').trim().split('\n');
    for (const line of lines) expect(openLineageSpecErrors(JSON.parse(line))).toEqual([]);
  });

  test.each(malformedEvents().map((m) => [m.rule, m.event] as const))('malformed: %s — the spec refuses it too', (_rule, event) => {
    expect(openLineageSpecErrors(event)).not.toEqual([]);
  });

  test('what `export --format openlineage` writes is valid OpenLineage', async () => {
    const ledger = openMemoryLedger({ clock: () => Date.parse('2026-11-06T00:00:00Z') });
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02' });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl', date: '2026-11-02' })).runId, metrics: { rows: 1 } });
    await ledger.fail({ runId: (await ledger.start({ pipeline: 'etl', date: '2026-11-03' })).runId, error: 'boom' });
    await ledger.start({ pipeline: 'etl', date: '2026-11-04' });
    await ledger.clear({ pipeline: 'etl', dates: ['2026-11-04'] });
    const lines: string[] = [];
    for await (const line of exportOpenLineage(ledger, { toolVersion: '0.1.0' })) lines.push(line);
    expect(lines.map((l) => (JSON.parse(l) as { eventType: string }).eventType)).toEqual(['START', 'COMPLETE', 'START', 'FAIL', 'START', 'ABORT']);
    for (const line of lines) {
      expect(openLineageSpecErrors(JSON.parse(line))).toEqual([]);
      expect(parseLineageEvent(JSON.parse(line))).toMatchObject({ ok: true });
    }
  });

  test('the OpenLineage client\'s own full example passes runledger\'s schema', () => {
    const example = JSON.parse(readFileSync(join(OPENLINEAGE_SPEC_DIR, '../examples/openlineage-client-full-event.json'), 'utf8')) as unknown;
    expect(openLineageSpecErrors(example)).toEqual([]);
    expect(parseLineageEvent(example)).toMatchObject({ ok: true, value: { kind: 'run' } });
  });
});
