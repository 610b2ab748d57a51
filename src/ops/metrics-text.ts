/** A sample's labels, as [name, value] pairs in the order they are printed. */
export type MetricLabels = ReadonlyArray<readonly [string, string | number]>;

/** Characters of text handed on at once: a piece stays under glibc's 128 KiB mmap threshold once encoded. */
const PIECE_CHARS = 16_384;

/**
 * Prometheus text (format 0.0.4) written line by line exactly as prom-client's `Registry.metrics()` prints
 * the same metrics (its escaping, `Nan`/`+Inf`/`-Inf`, a blank line between metrics, a newline at the end),
 * handed to `print` a piece of about 16,000 characters at a time. prom-client builds each metric's text from
 * an array of its lines and an array of each line's labels: 1,000 pipelines (4.7 MB of text) allocated
 * 160 MB a scrape that way, and what was still held at the young generation's collections went to the old one.
 *
 * @example
 * const out = metricsText((text) => pieces.push(text));
 * out.metric('runledger_ledger_head_position', 'Position of the last event in the ledger.', 'gauge');
 * out.sample('runledger_ledger_head_position', '', 42);
 * out.end(); // pieces.join('') === '# HELP runledger_ledger_head_position Position …\n# TYPE … gauge\nrunledger_ledger_head_position 42\n'
 */
export function metricsText(print: (text: string) => void): {
  /** A metric's `# HELP` and `# TYPE` lines; its samples follow. */
  metric(name: string, help: string, type: 'gauge' | 'counter' | 'histogram'): void;
  /** One sample of the current metric (`name`: the metric's, or its `_bucket`, `_sum`, `_count`); `labels` from `labels()`, '' for none. */
  sample(name: string, labels: string, value: number): void;
  /** Labels as a sample prints them between its braces, to be made once and printed in many samples. */
  labels(pairs: MetricLabels): string;
  /** The newline the text ends with, and what is left handed on. */
  end(): void;
} {
  let pending = '';
  let first = true;
  const add = (text: string) => {
    pending += text;
    if (pending.length >= PIECE_CHARS) {
      print(pending);
      pending = '';
    }
  };
  return {
    metric(name, help, type) {
      const escaped = escapeString(name);
      add(`${first ? '' : '\n\n'}# HELP ${escaped} ${escapeString(help)}\n# TYPE ${escaped} ${type}`);
      first = false;
    },
    sample(name, labels, value) {
      add(labels === '' ? `\n${name} ${valueText(value)}` : `\n${name}{${labels}} ${valueText(value)}`);
    },
    labels(pairs) {
      let text = '';
      for (let i = 0; i < pairs.length; i++) {
        const [label, value] = pairs[i] as MetricLabels[number];
        text += `${i === 0 ? '' : ','}${label}="${typeof value === 'string' ? escapeString(value).replace(/"/g, '\\"') : value}"`;
      }
      return text;
    },
    end() {
      add('\n');
      if (pending !== '') print(pending);
      pending = '';
    },
  };
}

/** A value as prom-client prints it. */
function valueText(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

function escapeString(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
