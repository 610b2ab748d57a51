import { createHash, timingSafeEqual } from 'node:crypto';
import { LedgerError } from '../errors.js';

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

/** Shortest token `serve` takes: shorter ones can be guessed. */
export const MIN_TOKEN_LENGTH = 16;

/** One write token and the name its writes are recorded under (`http:<name>`); null for an unnamed token. */
export type WriteToken = { name: string | null; token: string };

const WRITER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/**
 * Reads one `--write-token` value: `NAME=SECRET` names the writer, anything
 * else is an unnamed secret. A secret that itself holds `=` (base64 padding)
 * stays whole unless what comes before the first `=` is a writer name and
 * something follows it.
 *
 * @example
 * parseWriteToken('airflow=0123456789abcdef') // { name: 'airflow', token: '0123456789abcdef' }
 */
export function parseWriteToken(text: string): WriteToken {
  const eq = text.indexOf('=');
  if (eq > 0 && eq < text.length - 1 && WRITER_NAME.test(text.slice(0, eq))) return { name: text.slice(0, eq), token: text.slice(eq + 1) };
  return { name: null, token: text };
}

/**
 * Refuses tokens that protect nothing (`input.weakToken`, exit 2): shorter
 * than 16 characters, holding whitespace or control characters (a bearer
 * header could never carry them), a write token equal to the read token or
 * to another write token, or two writers of one name.
 *
 * @example
 * checkTokens(undefined, [{ name: null, token: 'a' }]) // throws: --write-token is 1 character long; …
 */
export function checkTokens(readToken: string | undefined, writers: readonly WriteToken[]): void {
  const check = (token: string, what: string) => {
    if (!/^[\x21-\x7e]+$/.test(token)) {
      throw new LedgerError('input.weakToken', `${what} holds spaces or characters a bearer header cannot carry; use printable ASCII, e.g. from \`openssl rand -hex 24\``);
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new LedgerError('input.weakToken', `${what} is ${token.length} character${token.length === 1 ? '' : 's'} long; use at least ${MIN_TOKEN_LENGTH}, e.g. from \`openssl rand -hex 24\``);
    }
  };
  if (readToken !== undefined) check(readToken, '--token');
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const writer of writers) {
    const what = writer.name === null ? '--write-token' : `--write-token ${writer.name}=…`;
    check(writer.token, what);
    if (readToken !== undefined && writer.token === readToken) {
      throw new LedgerError('input.weakToken', `${what} is the read token; a write token must differ from --token, or anyone who may read could write`);
    }
    if (seen.has(writer.token)) throw new LedgerError('input.weakToken', `${what} repeats another write token; give each writer its own`);
    if (writer.name !== null && names.has(writer.name)) throw new LedgerError('input.weakToken', `two write tokens are named ${writer.name}; give each writer its own name`);
    seen.add(writer.token);
    if (writer.name !== null) names.add(writer.name);
  }
}

/** The writer a bearer token names, or undefined when it is no write token. */
export function writerOf(presented: string | undefined, writers: readonly WriteToken[]): WriteToken | undefined {
  // Every token is compared, so the time taken says nothing about which one matched.
  let found: WriteToken | undefined;
  for (const writer of writers) if (tokenMatches(presented, writer.token) && !found) found = writer;
  return found;
}
