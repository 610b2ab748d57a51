import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { metricsText } from '../../src/ops/metrics-text.js';

/** The text `metricsText` prints, and its pieces. */
function printed(write: (out: ReturnType<typeof metricsText>) => void): { text: string; pieces: string[] } {
  const pieces: string[] = [];
  const out = metricsText((piece) => pieces.push(piece));
  write(out);
  out.end();
  return { text: pieces.join(''), pieces };
}

describe('metricsText', () => {
  test('when metrics with escaped help, label values and special values are printed then the text is what prom-client prints', async () => {
    const registry = new Registry();
    const help = 'A help with a back\\slash and a\nnewline.';
    const gauge = new Gauge({ name: 'g_seconds', help, labelNames: ['pipeline', 'job'], registers: [registry] });
    const cases: Array<[string, string, number]> = [
      ['plain', 'ns/job', 1.5],
      ['quote"d', 'back\\slash', Number.NaN],
      ['new\nline', '', Number.POSITIVE_INFINITY],
      ['ünïcode ✓', 'x', Number.NEGATIVE_INFINITY],
      ['big', 'y', 1_780_000_000.123],
    ];
    for (const [pipeline, job, value] of cases) gauge.set({ pipeline, job }, value);
    const single = new Gauge({ name: 'head_position', help: 'Position.', registers: [registry] });
    single.set(42);
    // A gauge without labels never set (it prints 0), and one with labels never set (no sample).
    registry.registerMetric(new Gauge({ name: 'verify_ok', help: 'Verified.', registers: [] }));
    registry.registerMetric(new Gauge({ name: 'consumers', help: 'No label set yet.', labelNames: ['consumer'], registers: [] }));
    const counter = new Counter({ name: 'runs_total', help: 'Runs.', labelNames: ['pipeline', 'outcome'], registers: [registry] });
    counter.inc({ pipeline: 'a', outcome: 'success' }, 0);
    counter.inc({ pipeline: 'a', outcome: 'failed' }, 3);
    const histogram = new Histogram({ name: 'duration_seconds', help: 'Durations.', labelNames: ['pipeline'], buckets: [1, 5], registers: [registry] });
    histogram.observe({ pipeline: 'a' }, 2);

    const { text } = printed((out) => {
      out.metric('g_seconds', help, 'gauge');
      for (const [pipeline, job, value] of cases) out.sample('g_seconds', out.labels([['pipeline', pipeline], ['job', job]]), value);
      out.metric('head_position', 'Position.', 'gauge');
      out.sample('head_position', '', 42);
      out.metric('verify_ok', 'Verified.', 'gauge');
      out.sample('verify_ok', '', 0);
      out.metric('consumers', 'No label set yet.', 'gauge');
      out.metric('runs_total', 'Runs.', 'counter');
      out.sample('runs_total', out.labels([['pipeline', 'a'], ['outcome', 'success']]), 0);
      out.sample('runs_total', out.labels([['pipeline', 'a'], ['outcome', 'failed']]), 3);
      out.metric('duration_seconds', 'Durations.', 'histogram');
      for (const [le, count] of [[1, 0], [5, 1], ['+Inf', 1]] as const) out.sample('duration_seconds_bucket', out.labels([['le', le], ['pipeline', 'a']]), count);
      out.sample('duration_seconds_sum', out.labels([['pipeline', 'a']]), 2);
      out.sample('duration_seconds_count', out.labels([['pipeline', 'a']]), 1);
    });

    expect(text).toBe(await registry.metrics());
  });

  test('when the text is long then it is handed on in pieces, none of the whole text', () => {
    const { text, pieces } = printed((out) => {
      out.metric('m', 'Many samples.', 'gauge');
      for (let i = 0; i < 5000; i++) out.sample('m', out.labels([['pipeline', `pipeline_${i}`]]), i);
    });
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(text.length / 3);
    expect(text.split('\n')).toHaveLength(5000 + 3);
    expect(text.endsWith('m{pipeline="pipeline_4999"} 4999\n')).toBe(true);
  });
});
