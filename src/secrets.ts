/**
 * runledger's own credentials and the secret values it must never store.
 *
 * A ledger is immutable: a password that gets into an event (a failing
 * command that prints its environment, its stderr tail recorded as the
 * error) stays there forever and travels with every export. So children do
 * not get runledger's credentials unless asked, and every free text an event
 * stores passes through `redactSecrets` first.
 */

/** Variables whose names say they hold a secret. */
const SECRET_NAME = /PASSWORD|PASSWD|TOKEN|SECRET|PRIVATE_KEY|API_KEY|SIGNING_KEY/i;
/** Shorter values are left alone: replacing `ab` everywhere would mangle ordinary text and prove nothing. */
const MIN_SECRET_CHARS = 4;
const REDACTED = '[redacted]';

/**
 * The environment a command runs with: the runner's own, minus runledger's
 * credentials (`RUNLEDGER_DB`, which may carry the ledger's password, and any
 * `RUNLEDGER_*` variable named like a secret) unless `passLedgerEnv`.
 *
 * @example
 * childEnvironment(process.env, false) // without RUNLEDGER_DB
 */
export function childEnvironment(env: Readonly<Record<string, string | undefined>>, passLedgerEnv: boolean): Record<string, string | undefined> {
  if (passLedgerEnv) return { ...env };
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key === 'RUNLEDGER_DB' || (key.startsWith('RUNLEDGER_') && SECRET_NAME.test(key))) continue;
    out[key] = value;
  }
  return out;
}

/**
 * The secret values known to this process: the password of the ledger URL,
 * and the value of every variable named like a secret (`*PASSWORD*`,
 * `*TOKEN*`, `*SECRET*`, …), including `PGPASSWORD`.
 *
 * @example
 * knownSecrets('postgres://app:s3cret@db/ops', process.env) // ['s3cret', …]
 */
export function knownSecrets(db: string | undefined, env: Readonly<Record<string, string | undefined>>): string[] {
  const secrets = new Set<string>();
  const add = (value: string | undefined) => {
    if (value !== undefined && value.length >= MIN_SECRET_CHARS) secrets.add(value);
  };
  for (const url of [db, env['RUNLEDGER_DB']]) add(urlPassword(url));
  for (const [key, value] of Object.entries(env)) {
    if (!SECRET_NAME.test(key)) continue;
    add(value);
    // RUNLEDGER_SIGNING_KEY=hmac:<secret>: the secret alone must not get into an event either.
    if (value?.startsWith('hmac:')) add(value.slice('hmac:'.length));
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...secrets].sort((a, b) => b.length - a.length);
}

function urlPassword(url: string | undefined): string | undefined {
  if (url === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined;
  try {
    const password = new URL(url).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/**
 * A text with every known secret value (and its URL-encoded form) replaced by `[redacted]`.
 *
 * @example
 * redactSecrets('login failed for app:s3cret', ['s3cret']) // 'login failed for app:[redacted]'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** Every string inside a JSON value redacted (keys too), walked with a stack so depth costs no recursion. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (typeof value !== 'object' || value === null) return value;
  const root: { v: unknown } = { v: undefined };
  const stack: Array<[unknown, Record<string, unknown> | unknown[], string | number]> = [[value, root as Record<string, unknown>, 'v']];
  while (stack.length > 0) {
    const [item, parent, key] = stack.pop() as [unknown, Record<string, unknown>, string];
    if (typeof item === 'string') parent[key] = redactSecrets(item, secrets);
    else if (Array.isArray(item)) {
      const copy: unknown[] = new Array(item.length);
      parent[key] = copy;
      item.forEach((child, i) => stack.push([child, copy as unknown as Record<string, unknown>, String(i)]));
    } else if (typeof item === 'object' && item !== null) {
      const copy: Record<string, unknown> = {};
      parent[key] = copy;
      for (const [k, child] of Object.entries(item)) stack.push([child, copy, redactSecrets(k, secrets)]);
    } else parent[key] = item;
  }
  return root.v as T;
}
