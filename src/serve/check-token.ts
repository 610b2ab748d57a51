import { createHash, timingSafeEqual } from 'node:crypto';

/** The cookie a browser keeps the read token in after opening a page with `?token=`. */
export const TOKEN_COOKIE = 'runledger_token';

/**
 * Compares a presented token with the expected one in constant time (both are
 * hashed first, so their lengths leak nothing either).
 *
 * @example
 * tokenMatches('s3cret', 's3cret') // true
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The bearer token of an `Authorization` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** One cookie's value from a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
