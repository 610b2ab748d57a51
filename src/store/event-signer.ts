import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from '../node-crypto.js';
import { readFileSync } from 'node:fs';
import { LedgerError } from '../errors.js';

/**
 * Signs an event's chain hash as it is appended. The signature is stored beside the hash, never the key.
 * `sign` returns `<scheme>:<base64>` (`ed25519:…` or `hmac-sha256:…`), so a reader knows which check applies.
 */
export type EventSigner = { readonly scheme: SignatureScheme; sign(hash: string): string };

/** Checks one stored signature; returns what is wrong with it in a few words, or null when it is good. */
export type SignatureChecker = { readonly scheme: SignatureScheme; problem(hash: string, signature: string | null | undefined): string | null };

export type SignatureScheme = 'ed25519' | 'hmac-sha256';

/** The environment variable that turns signing on for every append of this process. */
export const SIGNING_KEY_ENV = 'RUNLEDGER_SIGNING_KEY';

/** What is signed: the chain hash with a fixed prefix, so a signature made for something else never passes as one. */
function message(hash: string): Buffer {
  return Buffer.from(`runledger event hash v1:${hash}`, 'utf8');
}

const HMAC_PREFIX = 'hmac:';

/**
 * The signer a `RUNLEDGER_SIGNING_KEY` value (or `openLedger`'s `signingKey`) names:
 * `hmac:<secret>` signs with HMAC-SHA256 under that secret; anything else is the path of a PEM file
 * holding an Ed25519 private key. Bad input (a missing file, another key type) is `input.badSigningKey`.
 *
 * @example
 * const signer = eventSigner('/etc/runledger/signing-key.pem'); // ed25519
 * const shared = eventSigner('hmac:correct horse battery staple');
 */
export function eventSigner(spec: string): EventSigner {
  if (spec.startsWith(HMAC_PREFIX)) {
    const secret = hmacSecret(spec.slice(HMAC_PREFIX.length), SIGNING_KEY_ENV);
    return { scheme: 'hmac-sha256', sign: (hash) => `hmac-sha256:${hmac(secret, hash)}` };
  }
  const key = keyFromFile(spec, 'private');
  return { scheme: 'ed25519', sign: (hash) => `ed25519:${nodeCrypto().sign(null, message(hash), key).toString('base64')}` };
}

/**
 * A checker for Ed25519 signatures from a PEM file holding the public key. A private key file is refused:
 * whoever verifies should not hold the key that signs.
 *
 * @example
 * const checker = ed25519Checker('./signing-key.pub.pem');
 */
export function ed25519Checker(path: string): SignatureChecker {
  const key = keyFromFile(path, 'public');
  return schemeChecker('ed25519', 'an Ed25519', 'this public key', (hash, body) => {
    const bytes = Buffer.from(body, 'base64');
    return bytes.length === 64 && nodeCrypto().verify(null, message(hash), key, bytes);
  });
}

/**
 * A checker for HMAC-SHA256 signatures under a shared secret. Whoever holds the secret can also sign.
 *
 * @example
 * const checker = hmacChecker('correct horse battery staple');
 */
export function hmacChecker(secretText: string): SignatureChecker {
  const secret = hmacSecret(secretText, '--signing-secret');
  return schemeChecker('hmac-sha256', 'an HMAC-SHA256', 'this secret', (hash, body) => {
    const given = Buffer.from(body);
    const wanted = Buffer.from(hmac(secret, hash));
    return given.length === wanted.length && nodeCrypto().timingSafeEqual(given, wanted);
  });
}

/**
 * The checks every scheme shares: a signature is there and names `scheme` (the `<scheme>:` prefix `sign` writes);
 * `matches` then judges what follows the prefix. `kind` and `under` only word the problems.
 */
function schemeChecker(scheme: SignatureScheme, kind: string, under: string, matches: (hash: string, body: string) => boolean): SignatureChecker {
  const prefix = `${scheme}:`;
  return {
    scheme,
    problem(hash, signature) {
      if (!signature) return 'it carries no signature';
      if (!signature.startsWith(prefix)) return `its signature is not ${kind} one (${schemeOf(signature)})`;
      return matches(hash, signature.slice(prefix.length)) ? null : `its signature does not match its hash under ${under}`;
    },
  };
}

/**
 * The HMAC secret of a `RUNLEDGER_SIGNING_KEY=hmac:<secret>` value, for `verify --signing-secret` without a value.
 *
 * @example
 * hmacSecretOf('hmac:s3cret-value') // 's3cret-value'
 */
export function hmacSecretOf(spec: string | undefined): string | null {
  return spec?.startsWith(HMAC_PREFIX) ? spec.slice(HMAC_PREFIX.length) : null;
}

function hmac(secret: string, hash: string): string {
  return nodeCrypto().createHmac('sha256', secret).update(message(hash)).digest('base64');
}

/** Shorter secrets are guessable; a signature under one proves little. */
const MIN_HMAC_SECRET = 16;

function hmacSecret(secret: string, where: string): string {
  if (secret.length < MIN_HMAC_SECRET) {
    throw new LedgerError('input.badSigningKey', `the HMAC secret of ${where} has ${secret.length} characters; use at least ${MIN_HMAC_SECRET} (e.g. the output of \`openssl rand -base64 32\`)`);
  }
  return secret;
}

function schemeOf(signature: string): string {
  const scheme = signature.split(':', 1)[0] ?? '';
  return /^[a-z0-9-]{1,20}$/.test(scheme) ? scheme : 'unknown';
}

function keyFromFile(path: string, want: 'private' | 'public'): KeyObject {
  const what = want === 'private' ? `${SIGNING_KEY_ENV} (an Ed25519 private key PEM file, or hmac:<secret>)` : '--public-key (an Ed25519 public key PEM file)';
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new LedgerError('input.badSigningKey', `cannot read the key file ${path} named by ${what}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (want === 'public' && holdsPrivateKey(pem)) {
    throw new LedgerError('input.badSigningKey', `the file ${path} named by --public-key holds a private key; pass the public key; derive it with openssl pkey -in ${path} -pubout -out key.pub.pem`);
  }
  let key: KeyObject;
  try {
    key = want === 'private' ? nodeCrypto().createPrivateKey(pem) : nodeCrypto().createPublicKey(pem);
  } catch {
    throw new LedgerError('input.badSigningKey', `the file ${path} named by ${what} holds no ${want} key in PEM form; create one with \`openssl genpkey -algorithm ed25519\``);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new LedgerError('input.badSigningKey', `the key in ${path} named by ${what} is ${key.asymmetricKeyType ?? 'not an asymmetric key'}, not Ed25519; create one with \`openssl genpkey -algorithm ed25519\``);
  }
  return key;
}

/** True when the PEM text parses as a private key (which `createPublicKey` would silently accept). */
function holdsPrivateKey(pem: string): boolean {
  try {
    nodeCrypto().createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}
