import { canonicalJson } from '../../events/canonical-json.js';
import { formatBytes, jsonDepth, MAX_JSON_DEPTH, MAX_RECORDED_TEXT_BYTES, utf8Bytes } from '../../events/limits.js';

/**
 * Why metrics cannot be recorded (too deep, too large, a value JSON cannot
 * hold), or null. The runner asks this before it records a success, so a
 * command's bad metrics fail its run instead of stopping the runner.
 *
 * @example
 * metricsProblem({ rows: 42 }) // null
 */
export function metricsProblem(metrics: object): string | null {
  if (jsonDepth(metrics, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return `they nest deeper than ${MAX_JSON_DEPTH} levels; flatten them`;
  let text: string;
  try {
    text = canonicalJson(metrics);
  } catch (error) {
    return (error as Error).message.replace(/^canonicalJson: /, '');
  }
  const bytes = utf8Bytes(text);
  if (bytes > MAX_RECORDED_TEXT_BYTES) {
    return `they take ${bytes.toLocaleString('en')} bytes, over the ${formatBytes(MAX_RECORDED_TEXT_BYTES)} limit; record a summary and keep large data in files (--output)`;
  }
  return null;
}
