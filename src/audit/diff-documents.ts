/** One difference between two JSON documents, at a path like `dates[2026-11-02].status`. */
export type Difference = { path: string; expected: unknown; actual: unknown };

/**
 * Every place where two JSON values differ, in document order: what `replay
 * --expect` prints, one line per difference. Arrays of objects that each
 * carry a `date` (a state's dates) compare by that date key, so a difference
 * names the date; other arrays compare by index. A key or a date present on
 * one side only is a difference with `undefined` on the other.
 *
 * @example
 * diffDocuments({ a: [1, 2] }, { a: [1, 3] }) // [{ path: 'a[1]', expected: 2, actual: 3 }]
 * diffDocuments({ dates: [{ date: '2026-11-02', status: 'success' }] }, { dates: [{ date: '2026-11-02', status: 'cleared' }] })
 * // [{ path: 'dates[2026-11-02].status', expected: 'success', actual: 'cleared' }]
 */
export function diffDocuments(expected: unknown, actual: unknown, path = ''): Difference[] {
  if (Object.is(expected, actual)) return [];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (isDated(expected) && isDated(actual)) return diffByDate(expected, actual, path);
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

type Dated = Record<string, unknown> & { date: string };

function isDated(items: unknown[]): items is Dated[] {
  const dates = items.map((item) => (isObject(item) && typeof item['date'] === 'string' ? item['date'] : undefined));
  return dates.every((d) => d !== undefined) && new Set(dates).size === dates.length;
}

function diffByDate(expected: Dated[], actual: Dated[], path: string): Difference[] {
  const byDate = new Map(actual.map((item) => [item.date, item]));
  const seen = new Set(expected.map((item) => item.date));
  const pairs: Array<[string, unknown, unknown]> = [
    ...expected.map((item): [string, unknown, unknown] => [item.date, item, byDate.get(item.date)]),
    ...actual.filter((item) => !seen.has(item.date)).map((item): [string, unknown, unknown] => [item.date, undefined, item]),
  ];
  return pairs.flatMap(([date, e, a]) => diffDocuments(e, a, `${path}[${date}]`));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
