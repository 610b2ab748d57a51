import { canonicalJson } from '../../events/canonical-json.js';
import { formatBytes, jsonDepth, MAX_JSON_DEPTH, utf8Bytes } from '../../events/limits.js';

/**
 * The size of metrics as recorded (bytes of canonical JSON), or why they
 * cannot be recorded at all (too deep, a value JSON cannot hold).
 *
 * @example
 * measureMetrics({ rows: 42 }) // { bytes: 10 }
 */
export function measureMetrics(metrics: object): { bytes: number } | { problem: string } {
  // Depth first: canonical JSON recurses, and 5,000 levels overflow the stack.
  if (jsonDepth(metrics, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return { problem: `they nest deeper than ${MAX_JSON_DEPTH} levels; flatten them` };
  try {
    return { bytes: utf8Bytes(canonicalJson(metrics)) };
  } catch (error) {
    return { problem: (error as Error).message.replace(/^canonicalJson: /, '') };
  }
}

/** Why metrics of `bytes` do not fit a pipeline's cap of `maxBytes`, or null when they do. */
export function metricsSizeProblem(bytes: number, maxBytes: number): string | null {
  if (bytes <= maxBytes) return null;
  return `they take ${bytes.toLocaleString('en')} bytes, over the ${formatBytes(maxBytes)} limit; record a summary and keep large data in files (--output), or raise the pipeline's limit with define --max-metrics-bytes`;
}

/**
 * Why metrics cannot be recorded under a pipeline's cap (too deep, too large,
 * a value JSON cannot hold), or null. The runner asks this before it records
 * a success, so a command's bad metrics fail its run instead of stopping the runner.
 *
 * @example
 * metricsProblem({ rows: 42 }, 65536) // null
 */
export function metricsProblem(metrics: object, maxBytes: number): string | null {
  const measured = measureMetrics(metrics);
  return 'problem' in measured ? measured.problem : metricsSizeProblem(measured.bytes, maxBytes);
}
