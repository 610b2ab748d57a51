/** One difference between two JSON documents, at a path like `dates[2].status`. */
export type Difference = { path: string; expected: unknown; actual: unknown };

/**
 * Every place where two JSON values differ, in document order: what `replay
 * --expect` prints, one line per difference. Arrays compare by index; a key
 * present on one side only is a difference with `undefined` on the other.
 *
 * @example
 * diffDocuments({ a: [1, 2] }, { a: [1, 3] }) // [{ path: 'a[1]', expected: 2, actual: 3 }]
 */
export function diffDocuments(expected: unknown, actual: unknown, path = ''): Difference[] {
  if (Object.is(expected, actual)) return [];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) out.push(...diffDocuments(expected[i], actual[i], `${path}[${i}]`));
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => diffDocuments(expected[key], actual[key], path === '' ? key : `${path}.${key}`));
  }
  return [{ path: path === '' ? '(document)' : path, expected, actual }];
}

/** `path: expected X, actual Y`, with values as compact JSON. */
export function formatDifference(d: Difference): string {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  return `${d.path}: expected ${show(d.expected)}, actual ${show(d.actual)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
