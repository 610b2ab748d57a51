import { terminalText } from '../format/terminal-text.js';
import { parseDuration } from '../duration.js';
import { LedgerError } from '../errors.js';
import { similarNames } from '../ledger/similar-names.js';
import { openLedger, type Ledger } from '../open-ledger.js';
import { knownSecrets } from '../secrets.js';
import { SIGNING_KEY_ENV } from '../store/event-signer.js';
import { rebuildProgressLine } from './rebuild-progress.js';
import { parseInstant } from '../ledger/parse-instant.js';

/** What the CLI needs from the outside world; tests pass fakes, `main.ts` the real process. */
export type CliDeps = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds since the epoch when neither --now nor RUNLEDGER_NOW is given. */
  clock: () => number;
  /** True when stdout/stderr is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** The terminal's width when stdout is one; tables cut their last column to it. */
  columns?: number;
  /** True when stdout itself is a terminal (`state` then draws its calendar); default false. */
  stdoutIsTTY?: boolean;
  /**
   * Resolves once everything given to `stdout` so far has been written; rejects with `output.writeFailed`
   * when a write failed (ENOSPC, EIO, …). After a failed write, `stdout` itself throws the same error, so a
   * streaming command stops instead of producing the rest for nobody. Absent in tests that collect output.
   */
  flush?: () => Promise<void>;
  /** Forwarded to long-running commands (backfill) so they can stop cleanly. */
  signals?: { on(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void; off(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void };
};

export type GlobalOptions = { db?: string; now?: string; actor?: string; maxClockSkew?: string; maxEventAge?: string };

/** The options every command shares, resolved against the environment. */
export class CliContext {
  readonly deps: CliDeps;
  readonly #globals: () => GlobalOptions;
  #clockNoted = false;

  constructor(deps: CliDeps, globals: () => GlobalOptions) {
    this.deps = deps;
    this.#globals = globals;
  }

  get db(): string {
    // An empty --db or RUNLEDGER_DB is a mistake (`export RUNLEDGER_DB=$TYPO`): SQLite would open a throwaway
    // temporary database and the events would vanish, and falling back to ./runledger.db would write to a ledger
    // nobody named. Both are refused; unset the variable to use the default.
    const flag = this.#globals().db;
    if (flag !== undefined && flag.trim() === '') throw new LedgerError('input.emptyDb', '--db is empty; pass a ledger file path or a postgres:// URL');
    const variable = this.deps.env['RUNLEDGER_DB'];
    if (flag === undefined && variable !== undefined && variable.trim() === '') {
      throw new LedgerError('input.emptyDb', 'RUNLEDGER_DB is set but empty; set it to a ledger file path or a postgres:// URL, or unset it to use ./runledger.db');
    }
    const db = flag ?? variable ?? './runledger.db';
    // SQLite's in-memory database lives as long as this one command: define would say 'defined' and keep nothing.
    if (db === ':memory:') throw new LedgerError('input.memoryDb', "--db ':memory:' would keep the ledger only while this one command runs; pass a ledger file path or a postgres:// URL");
    return db;
  }

  /** The fixed clock of `--now` / `RUNLEDGER_NOW`, or the real one. */
  clock(): () => number {
    const flag = this.#globals().now;
    const text = flag ?? this.deps.env['RUNLEDGER_NOW'];
    if (text === undefined || text === '') return this.deps.clock;
    const ms = parseInstant(text, '--now');
    // An exported RUNLEDGER_NOW outlives the session it was set for and fakes every later answer: on a terminal,
    // each command says so (once). Off a terminal (scripts, CI, tests) stderr stays for errors.
    if (this.deps.isTTY && !this.#clockNoted) {
      this.#clockNoted = true;
      this.note(`runledger: the clock is fixed at ${text} by ${flag === undefined ? 'RUNLEDGER_NOW (unset it for the real time)' : '--now'}`);
    }
    return () => ms;
  }

  /** Opens the ledger for one command and always closes it. */
  async withLedger<T>(create: boolean, body: (ledger: Ledger) => Promise<T>): Promise<T> {
    const clock = this.clock();
    const actor = this.#globals().actor ?? this.deps.env['RUNLEDGER_ACTOR'];
    // The signing key comes from this command's environment (tests pass their own), never from a flag.
    const signingKey = this.deps.env[SIGNING_KEY_ENV] ?? null;
    // Building the read models (once, after an upgrade) can take a while on a large ledger: a terminal sees it advance.
    const progress = this.deps.isTTY ? { rebuildProgress: rebuildProgressLine((text) => this.deps.stderr(text)) } : {};
    const skew = this.#globals().maxClockSkew ?? this.deps.env['RUNLEDGER_MAX_CLOCK_SKEW'];
    const age = this.#globals().maxEventAge ?? this.deps.env['RUNLEDGER_MAX_EVENT_AGE'];
    const window = { ...(skew ? { maxClockSkew: parseDuration(skew, '--max-clock-skew') } : {}), ...(age ? { maxEventAge: parseDuration(age, '--max-event-age') } : {}) };
    const ledger = await openLedger({ db: this.db, clock, create, signingKey, secrets: knownSecrets(this.db, this.deps.env), ...(actor ? { actor } : {}), ...window, ...progress });
    try {
      return await body(ledger);
    } catch (error) {
      throw await withSimilarPipeline(ledger, error);
    } finally {
      await ledger.close();
    }
  }

  /** Waits until the output so far is written: a success line must not come before a failed write. */
  async flush(): Promise<void> {
    await this.deps.flush?.();
  }

  json(value: unknown): void {
    // Two writes, not one `${json}\n`: the joined text would be copied whole before it is written.
    this.deps.stdout(JSON.stringify(value, null, 2));
    this.deps.stdout('\n');
  }

  /** A human line (or lines) on stdout: every control character in it shown as its escape (`terminalText`), never sent raw. */
  out(text: string): void {
    const safe = terminalText(text, { keepLines: true });
    this.deps.stdout(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /**
   * A document another program reads (Prometheus text), runledger's own styling (the calendar's colours), or a
   * `formatTable` table (which shows every cell as `terminalText` does already), as it is.
   */
  outVerbatim(text: string): void {
    this.deps.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A human line on stderr, escaped as `out` escapes. */
  note(text: string): void {
    const safe = terminalText(text, { keepLines: true });
    this.deps.stderr(safe.endsWith('\n') ? safe : `${safe}\n`);
  }
}

/**
 * A `notFound.pipeline` for a name close to one the ledger holds says "did you mean", as a mistyped command does,
 * instead of suggesting to define the typo.
 */
async function withSimilarPipeline(ledger: Ledger, error: unknown): Promise<unknown> {
  if (!(error instanceof LedgerError) || error.code !== 'notFound.pipeline') return error;
  const typed = /^no pipeline '([^']+)'/.exec(error.message)?.[1];
  if (typed === undefined) return error;
  const near = similarNames(typed, (await ledger.pipelines()).map((d) => d.pipeline));
  if (near.length === 0) return error;
  return new LedgerError('notFound.pipeline', `no pipeline '${typed}' in this ledger; did you mean ${near.slice(0, 3).join(' or ')}? (\`runledger pipelines\` lists them)`);
}
