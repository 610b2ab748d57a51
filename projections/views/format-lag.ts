/** The units of a lag, largest first, and their sizes in milliseconds. */
const UNITS = ['d', 'h', 'm', 's'] as const;
const SIZES = [86_400_000, 3_600_000, 60_000, 1000] as const;

/**
 * A lag in words: its two largest units, rounded down (`2d 1h`, `3h 5m`,
 * `45s`); under a second is `0s`.
 *
 * @example
 * formatLag(176_400_000) // '2d 1h'
 */
export function formatLag(ms: number): string {
  // The last lag asked is answered again without a word made: `status` over 1,000 pipelines of one timetable and one
  // complete-through asks the same lag for each row, and each answer (made anew: a few strings) lived in its row until
  // the table was printed, copied by every young-generation collection on the way.
  if (ms === lastMs) return lastText;
  lastText = lagWords(ms);
  lastMs = ms;
  return lastText;
}

/** The last lag `formatLag` answered (NaN, never equal to one, before any) and its words. */
let lastMs = Number.NaN;
let lastText = '';

function lagWords(ms: number): string {
  // Index loops and no array of parts: `status` formats one lag per pipeline, before V8 compiles any of this.
  let text = '';
  let units = 0;
  let rest = Math.max(0, Math.floor(ms));
  for (let i = 0; i < UNITS.length; i++) {
    const unit = UNITS[i] as string;
    const size = SIZES[i] as number;
    const amount = Math.floor(rest / size);
    if (amount > 0 || units > 0) {
      if (amount > 0) {
        text = units === 0 ? `${amount}${unit}` : `${text} ${amount}${unit}`;
        units += 1;
      }
      rest -= amount * size;
      if (units === 2 || (units === 1 && amount === 0)) break;
    }
  }
  return units === 0 ? '0s' : text;
}
