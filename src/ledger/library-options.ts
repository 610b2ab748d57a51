import { illFormedTextAt, illFormedTextMessage } from '../../events/well-formed-text.js';
import { checkDurationMs, parseDuration } from '../duration.js';
import { LedgerError } from '../errors.js';

/**
 * Every key an options object may have, as a record so the compiler checks the list against the type: a field
 * added to the type and not here (or the other way round) fails to compile.
 *
 * @example
 * const START_KEYS = optionKeys<StartInput>()({ pipeline: true, date: true, … });
 */
export function optionKeys<T>(): (keys: { [K in keyof Required<T>]: true }) => readonly string[] {
  return (keys) => Object.keys(keys);
}

/**
 * Refuses an options object with a key the call does not know, as one line naming the nearest known key: a plain
 * JavaScript caller gets no excess-property check, and `type: 'manual'` (for `runType`) would be silently ignored.
 *
 * @example
 * checkOptionKeys({ pipeline: 'p', type: 'manual' }, START_KEYS, 'ledger.start')
 * // throws input.unknownOption: ledger.start has no option 'type'; did you mean 'runType'? (…)
 */
export function checkOptionKeys(input: unknown, known: readonly string[], call: string): void {
  if (input === null || typeof input !== 'object') {
    throw new LedgerError('input.unknownOption', `${call} takes one options object ({ ${known.slice(0, 3).join(', ')}, … }), not ${input === null ? 'null' : typeof input}`);
  }
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    const near = nearest(key, known);
    throw new LedgerError('input.unknownOption', `${call} has no option '${key}'${near ? `; did you mean '${near}'?` : ''} (its options: ${known.join(', ')})`);
  }
  // Every text of every call is Unicode a database can hold, checked before anything is decided (a dry run too).
  const illFormed = illFormedTextAt(input, '');
  if (illFormed !== null) throw new LedgerError('input.illFormedText', illFormedTextMessage(illFormed));
}

/** Names a caller often writes for a known one: the CLI's flag names (`--type`, `--tz`) and older spellings. */
const ALIASES: Record<string, string> = { type: 'runType', tz: 'timezone', zone: 'timezone', name: 'pipeline', id: 'runId', leaseMs: 'lease', freshnessMs: 'freshness', interval: 'dataInterval' };

function nearest(key: string, known: readonly string[]): string | undefined {
  const alias = ALIASES[key];
  if (alias !== undefined && known.includes(alias)) return alias;
  return known.find((name) => name.toLowerCase() === key.toLowerCase() || name.toLowerCase() === key.toLowerCase().replace(/[-_]/g, ''));
}

/** A duration as the library takes it everywhere: `"1h"`, `"30m"`, `"1h30m"` (as on the CLI), or milliseconds. */
export type Duration = string | number;

/**
 * Milliseconds from a library duration: a text like the CLI's (`"1h"`) or a whole number of milliseconds.
 *
 * @example
 * durationMs('1h', 'lease') // 3600000
 */
export function durationMs(value: Duration, what: string): number {
  if (typeof value === 'string') return parseDuration(value, what);
  if (typeof value !== 'number') throw new LedgerError('input.invalidDuration', `${what} must be a duration like "1h" or a number of milliseconds, not ${typeof value}`);
  return checkDurationMs(value, what);
}

const noted = new Set<string>();

/**
 * Says once per process that an old form still works but is going away (a Node `DeprecationWarning`, which
 * `--no-deprecation` silences), as Node itself does for its own deprecated APIs.
 *
 * @example
 * deprecated('ledger.withRun(pipeline, date, fn)', 'ledger.withRun({ pipeline, date }, fn)')
 */
export function deprecated(old: string, instead: string): void {
  if (noted.has(old)) return;
  noted.add(old);
  process.emitWarning(`runledger: ${old} is deprecated and will be removed in the next minor version; use ${instead}`, { type: 'DeprecationWarning', code: 'RUNLEDGER_DEPRECATED' });
}

/**
 * Forgets which old forms were noted, as a new process would: for a test file that checks the note itself while it
 * shares its process with other files (the suite runs files without isolation).
 */
export function forgetDeprecationNotes(): void {
  noted.clear();
}

/**
 * The milliseconds of the duration option `name` (`"5m"` or milliseconds), or of its deprecated `<name>Ms` form (said
 * once per process); undefined when neither is given, null when the one given is null (a redefinition drops it).
 * `zero`: the option may be 0 (`"0"`, `"0s"`: a retry at once).
 *
 * @example
 * durationOption({ retryDelay: '30s' }, 'retryDelay', 'ledger.define') // 30000
 */
export function durationOption(input: object, name: string, call: string, zero = false): number | null | undefined {
  const record = input as Record<string, unknown>;
  const value = record[name] as Duration | null | undefined;
  const old = record[`${name}Ms`] as number | null | undefined;
  if (value !== undefined && old !== undefined) {
    throw new LedgerError('input.conflictingOptions', `${call} got both ${name} and ${name}Ms; pass ${name} alone ("5m" or milliseconds)`);
  }
  if (old !== undefined) {
    deprecated(`${call}({ ${name}Ms })`, `${call}({ ${name}: "5m" }) or { ${name}: <milliseconds> }`);
    if (old === null) return null;
    return zero && old === 0 ? 0 : checkDurationMs(old, `${name}Ms`);
  }
  if (value === undefined || value === null) return value;
  if (zero && (value === 0 || (typeof value === 'string' && /^\s*0+(ms|s|m|h|d)?\s*$/.test(value)))) return 0;
  return durationMs(value, name);
}

/**
 * The lease in milliseconds from `lease` (`"1h"` or ms) or the deprecated `leaseMs`; undefined when neither is given.
 *
 * @example
 * leaseOf({ lease: '2h' }, 'ledger.start') // 7200000
 */
export function leaseOf(input: { lease?: Duration | undefined; leaseMs?: number | undefined }, call: string): number | undefined {
  return durationOption(input, 'lease', call) ?? undefined;
}
