const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * A lag in words: its two largest units, rounded down (`2d 1h`, `3h 5m`,
 * `45s`); under a second is `0s`.
 *
 * @example
 * formatLag(176_400_000) // '2d 1h'
 */
export function formatLag(ms: number): string {
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(ms));
  for (const [unit, size] of UNITS) {
    const amount = Math.floor(rest / size);
    if (amount > 0 || parts.length > 0) {
      if (amount > 0) parts.push(`${amount}${unit}`);
      rest -= amount * size;
      if (parts.length === 2 || (parts.length === 1 && amount === 0)) break;
    }
  }
  return parts.length === 0 ? '0s' : parts.join(' ');
}
