import { LedgerError } from '../errors.js';

/** The names every loopback server answers to. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** True for the addresses that listen on every interface. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/**
 * The host names a `Host` header may carry for a server bound to `bindHost`:
 * the bound address, `localhost` and the loopback addresses when it is a
 * loopback one, every address of this machine (and its name) when it listens
 * on all of them, and each `--allowed-host`. A browser page reached through a
 * rebound DNS name (`evil.example` resolving to 127.0.0.1) carries its own
 * name, so it is refused.
 *
 * @example
 * allowedHostNames('127.0.0.1', [], { addresses: [], hostname: 'box' }) // ['127.0.0.1', 'localhost', '::1']
 */
export function allowedHostNames(bindHost: string, extra: readonly string[], machine: { addresses: readonly string[]; hostname: string }): string[] {
  const names = new Set<string>([normalHost(bindHost)]);
  if (isLoopback(bindHost)) for (const name of LOOPBACK_NAMES) names.add(name);
  if (isWildcard(bindHost)) {
    names.delete('');
    for (const name of [...LOOPBACK_NAMES, ...machine.addresses, machine.hostname]) names.add(normalHost(name));
  }
  for (const name of extra) names.add(checkAllowedHost(name));
  return [...names];
}

/**
 * One `--allowed-host`: a host name or an address, without scheme, port or path.
 *
 * @example
 * checkAllowedHost('Ledger.Example.COM') // 'ledger.example.com'
 */
export function checkAllowedHost(text: string): string {
  const host = normalHost(text);
  if (!/^(\[?[0-9a-f:.]+\]?|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*)$/.test(host.replace(/^\[|\]$/g, '')) || host.includes('/')) {
    throw new LedgerError('input.invalidAllowedHost', `--allowed-host '${text}' is not a host name or address; give the name clients use, without scheme or port, e.g. --allowed-host ledger.example.com`);
  }
  return host.replace(/^\[|\]$/g, '');
}

/**
 * The host name of a `Host` header, lowercased, without port, brackets or a
 * trailing dot; null when there is none.
 *
 * @example
 * hostOfHeader('[::1]:8080') // '::1'
 */
export function hostOfHeader(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const text = header.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) return bracketed[1] ?? null;
  // An IPv6 address without brackets has several colons and no port.
  if ((text.match(/:/g) ?? []).length > 1) return text;
  return normalHost(text.replace(/:\d*$/, ''));
}

function normalHost(text: string): string {
  return text.trim().toLowerCase().replace(/\.$/, '');
}
