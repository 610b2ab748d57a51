/** The `prevHash` of the first event of every ledger. */
export const GENESIS_HASH = '0'.repeat(64);

/** A SHA-256 hex digest function, passed in so this module stays free of I/O and `node:` imports. */
export type Sha256Hex = (text: string) => string;

/**
 * The hash link of the chain: `sha256(prevHash ‖ canonical event)`.
 *
 * @example
 * const hash = chainHash(GENESIS_HASH, '{"position":1,…}', sha256Hex);
 */
export function chainHash(prevHash: string, canonicalEvent: string, sha256: Sha256Hex): string {
  return sha256(prevHash + canonicalEvent);
}
