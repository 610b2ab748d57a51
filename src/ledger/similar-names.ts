/**
 * The names within a small edit distance of a mistyped one, nearest first: the "did you mean" commander gives for a
 * mistyped command, for pipeline names. A distance of up to a third of the name's length (at least 1, at most 3)
 * counts: `etl_order` finds `etl_orders`, `orders` does not find `users`.
 *
 * @example
 * similarNames('etl_order', ['etl_orders', 'billing']) // ['etl_orders']
 */
export function similarNames(typed: string, known: readonly string[]): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  return known
    .map((name) => ({ name, distance: editDistance(typed, name) }))
    .filter((c) => c.distance > 0 && c.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .map((c) => c.name);
}

/** Damerau–Levenshtein distance (optimal string alignment): a swapped pair of letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      let best = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
