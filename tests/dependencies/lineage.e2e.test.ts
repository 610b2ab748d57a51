// runledger lineage: edges implied by the datasets OpenLineage-fed runs recorded, marked declared or not,
// and the `define --upstream` suggestion, with the real binary.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, tempDir } from '../runner/cli-helpers.js';

const PRODUCER = 'https://example.com/etl/1.0';
const SCHEMA = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
const facet = { _producer: PRODUCER, _schemaURL: 'https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json' };

/** A START and a COMPLETE of one job for one day, the COMPLETE with its datasets. */
function run(job: string, runId: string, day: string, datasets: { inputs?: string[]; outputs?: string[] }): string[] {
  const nominalTime = { ...facet, nominalStartTime: `${day}T00:00:00Z`, nominalEndTime: `${day}T00:00:00Z` };
  const base = { producer: PRODUCER, schemaURL: SCHEMA, run: { runId, facets: { nominalTime } }, job: { namespace: 'etl', name: job } };
  const ds = (names: string[] = []) => names.map((name) => ({ namespace: 's3://lake', name }));
  return [
    JSON.stringify({ ...base, eventType: 'START', eventTime: `${day}T01:00:00Z` }),
    JSON.stringify({ ...base, eventType: 'COMPLETE', eventTime: `${day}T01:05:00Z`, inputs: ds(datasets.inputs), outputs: ds(datasets.outputs) }),
  ];
}

describe('lineage from OpenLineage datasets', () => {
  test('a dataset one pipeline wrote and another read is an edge; --suggest declares it, and then it shows as declared', () => {
    const dir = tempDir();
    const env = { RUNLEDGER_DB: join(dir, 'l.db'), RUNLEDGER_NOW: '2026-11-04T00:00:00Z' };
    for (const [name, job] of [['orders_ol', 'orders_job'], ['report_ol', 'report_job'], ['audit_ol', 'audit_job']]) {
      expect(cli(dir, ['define', name as string, '--schedule', '@daily', '--start', '2026-11-01', '--openlineage', `etl/${job}`], env).code).toBe(0);
    }
    const events = [
      ...run('orders_job', '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d01', '2026-11-02', { inputs: ['raw/orders'], outputs: ['clean/orders'] }),
      ...run('report_job', '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d02', '2026-11-02', { inputs: ['clean/orders'], outputs: ['reports/sales'] }),
      ...run('audit_job', '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d03', '2026-11-02', { inputs: ['other/thing'] }),
    ];
    writeFileSync(join(dir, 'events.jsonl'), `${events.join('\n')}\n`);
    const ingest = cli(dir, ['ingest', 'openlineage', 'events.jsonl'], env);
    expect(ingest.code, ingest.stderr + ingest.stdout).toBe(0);

    const before = cli(dir, ['lineage'], env);
    expect(before.stdout).toMatch(/orders_ol\s+report_ol\s+no\s+s3:\/\/lake\/clean\/orders/);
    expect(before.stdout).not.toContain('audit_ol');
    const suggest = cli(dir, ['lineage', '--suggest'], env);
    expect(suggest.stdout).toBe('runledger define report_ol --upstream orders_ol\n');

    // Running the suggestion declares the edge: lineage now marks it, and there is nothing left to suggest.
    const [, , ...args] = suggest.stdout.trim().split(' ');
    expect(cli(dir, ['define', ...args], env).code).toBe(0);
    expect(JSON.parse(cli(dir, ['lineage', '--json'], env).stdout)).toEqual({
      edges: [{ upstream: 'orders_ol', downstream: 'report_ol', datasets: ['s3://lake/clean/orders'], declared: true }],
      suggestions: [],
    });
    expect(cli(dir, ['lineage', '--suggest'], env).stderr).toContain('every edge the recorded datasets imply is declared (1 edge)');
  });
});
