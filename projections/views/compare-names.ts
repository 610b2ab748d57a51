/** One collator for the process, made on first use: building it loads ICU's collation data, which a command that sorts no names never needs. */
let collator: Intl.Collator | undefined;

/**
 * `a.localeCompare(b)`'s order (the default locale's), without a collator per comparison nor one built at start-up.
 *
 * @example
 * names.sort(compareNames)
 */
export function compareNames(a: string, b: string): number {
  collator ??= new Intl.Collator();
  return collator.compare(a, b);
}
