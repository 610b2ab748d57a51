/**
 * The letters of a pipeline name (`[a-z0-9_.-]`) by their place in the Unicode root collation:
 * `_` `-` `.`, then the digits, then the letters. 0: not one of them.
 */
const RANK = new Uint8Array(128);
[...'_-.0123456789abcdefghijklmnopqrstuvwxyz'].forEach((char, i) => {
  RANK[char.charCodeAt(0)] = i + 1;
});

/** The root order's collator (English has no tailoring of it), made on first use: building one loads ICU's collation data (tens of milliseconds), which names of the pipeline alphabet never need. */
let collator: Intl.Collator | undefined;

/** Only letters of a pipeline name: a native regular expression, not a loop that itself needs compiling hot. */
const PIPELINE_ALPHABET = /^[a-z0-9_.-]*$/;

/**
 * Names in the Unicode root collation order (`_` `-` `.` before digits before letters; what
 * `localeCompare` gives in English and most locales), the same on every machine whatever its locale.
 * Two names of the pipeline alphabet are compared letter by letter, with no collator; any other text
 * goes to the root collator (English's, which has no tailoring), so the order stays one total order.
 *
 * @example
 * ['etl_orders', 'etl-orders', 'etl2'].sort(compareNames) // ['etl_orders', 'etl-orders', 'etl2']
 */
export function compareNames(a: string, b: string): number {
  if (!PIPELINE_ALPHABET.test(a) || !PIPELINE_ALPHABET.test(b)) {
    collator ??= new Intl.Collator('en');
    return collator.compare(a, b);
  }
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return (RANK[x] as number) - (RANK[y] as number);
  }
  return a.length - b.length;
}
