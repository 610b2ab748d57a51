import { decodeTrustedEvent, type EventCheck } from '../../events/decode-trusted-event.js';
import { chainHash, GENESIS_HASH, type Sha256Hex } from '../../events/hash-chain.js';
import { LedgerError } from '../errors.js';
import { CompactKeyTable } from './compact-key-table.js';
import { matchEventLine } from './match-event-line.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { ChainHead, RawEvent } from '../store/event-store.js';

/**
 * The export file (JSON Lines), version 1:
 *
 *     {"format":"runledger-export","version":1,"exportedAt":…,"toolVersion":…,"filtered":false,"pipeline":null,"ledgerHead":{…}}
 *     {"prevHash":"<64 hex>","hash":"<64 hex>","event":<the stored payload, byte for byte>}
 *     {"prevHash":"<64 hex>","hash":"<64 hex>","signature":"ed25519:<base64>","event":<…>}
 *     …
 *     {"format":"runledger-export-end","events":<n>,"head":{"position":…,"hash":…}}
 *
 * Event lines are built by concatenation around the stored payload, never
 * by re-serializing it, so `hash = sha256(prevHash ‖ payload)` can be checked
 * on the file itself and an import stores the very bytes that were hashed.
 * An event signed when it was appended carries its `signature` (of `hash`)
 * before `event`; unsigned events have no such field, so an export of an
 * unsigned ledger is byte for byte what earlier versions wrote, and their
 * exports read as before.
 */
export const EXPORT_FORMAT = 'runledger-export';
export const EXPORT_END = 'runledger-export-end';
export const EXPORT_VERSION = 1;

export type ExportHeader = {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: string;
  toolVersion: string;
  /** True when only one pipeline's events were exported: the chain then has gaps and cannot be imported as is. */
  filtered: boolean;
  pipeline: string | null;
  /** The ledger's head when the export was taken (for a filtered export, beyond its last line). */
  ledgerHead: ChainHead;
};

export type ExportTrailer = { format: typeof EXPORT_END; events: number; head: ChainHead };

export type ParsedExport = { header: ExportHeader; rows: RawEvent[]; trailer: ExportTrailer };

export function headerLine(header: Omit<ExportHeader, 'format' | 'version'>): string {
  const { exportedAt, toolVersion, filtered, pipeline, ledgerHead } = header;
  return JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt, toolVersion, filtered, pipeline, ledgerHead });
}

/** One event line; the payload goes in verbatim (see the format above). */
export function eventLine(row: RawEvent): string {
  const signature = row.signature ? `"signature":${JSON.stringify(row.signature)},` : '';
  return `{"prevHash":${JSON.stringify(row.prevHash)},"hash":${JSON.stringify(row.hash)},${signature}"event":${row.payload}}`;
}

export function trailerLine(events: number, head: ChainHead): string {
  return JSON.stringify({ format: EXPORT_END, events, head: { position: head.position, hash: head.hash } });
}

/** An event line in the exported form: 1 prevHash, 2 hash, 3 signature (when signed), 4 the payload text. */
export const EVENT_LINE = /^\{"prevHash":"([0-9a-f]{64})","hash":"([0-9a-f]{64})",(?:"signature":"([A-Za-z0-9+/=:_-]{1,200})",)?"event":(.*)\}$/s;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Reads and checks a whole export held in memory (small files, tests): see
 * `ExportChecker` for what is checked. The first problem throws
 * `input.badExport` naming the line.
 *
 * @example
 * const parsed = parseExport(readFileSync('ledger.jsonl', 'utf8'), 'ledger.jsonl', sha256Hex, checkEventSchema);
 */
export function parseExport(text: string, source: string, sha256: Sha256Hex, check: EventCheck): ParsedExport {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const checker = new ExportChecker(source, sha256, check);
  const rows: RawEvent[] = [];
  lines.forEach((line, i) => {
    const row = checker.line(line, i === lines.length - 1);
    if (row) rows.push(row);
  });
  const { header, trailer } = checker.end();
  return { header, rows, trailer };
}

/**
 * Checks an export one line at a time, so a file of any size is checked with
 * memory that follows its event ids, not its bytes: the header, then every
 * event line (JSON, hash over the exact payload, a valid event, chain link and
 * gapless positions, unique event ids, stream versions in order), then the
 * trailer (count and head, and the header's ledger head for a full export).
 * A filtered export is checked the same way except that positions only have
 * to increase and links are per line. The first problem throws
 * `input.badExport` naming the line. Each event is checked with `check`
 * (`checkEventSchema`; passed in, so that this module does not load zod).
 *
 * @example
 * const checker = new ExportChecker('ledger.jsonl', sha256Hex, checkEventSchema);
 * for (const line of lines) { const row = checker.line(line); if (row) store(row); }
 * const { header, trailer } = checker.end();
 */
export class ExportChecker {
  readonly #source: string;
  readonly #sha256: Sha256Hex;
  #n = 0;
  #header: ExportHeader | null = null;
  #trailer: ExportTrailer | null = null;
  #count = 0;
  #prev: ChainHead = { position: 0, hash: GENESIS_HASH };
  // Hashed keys, not strings: a million event ids and streams as strings would take ~150 MB.
  readonly #eventIds = new CompactKeyTable();
  readonly #streamVersions = new CompactKeyTable();
  /** Hand each row on with the event decoded from it (`RawEvent.checked`), so `importSealed` does not check it twice. */
  handOnChecked = false;
  /** Called with each decoded event, for callers that gather facts while checking (replay's pipeline names). */
  onEvent: ((event: RecordedEvent) => void) | undefined;
  /** The check of each decoded event; it may be replaced between lines (see `retakeLine`). */
  eventCheck: EventCheck;

  constructor(source: string, sha256: Sha256Hex, check: EventCheck) {
    this.#source = source;
    this.#sha256 = sha256;
    this.eventCheck = check;
  }

  get header(): ExportHeader | null {
    return this.#header;
  }

  #fail(line: number, why: string): never {
    throw new LedgerError('input.badExport', `${this.#source} line ${line}: ${why}`);
  }

  /** Takes the next line (without its newline); returns the stored row for an event line, null for the header and trailer. */
  line(text: string, last = false): RawEvent | null {
    const n = ++this.#n;
    const fail = (line: number, why: string): never => this.#fail(line, why);
    // Not `replace(/\r$/)`: that regex scans the whole line for a `\r` before it finds none at the end.
    const line = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
    if (n === 1) {
      this.#header = parseHeader(line, fail);
      return null;
    }
    const header = this.#header as ExportHeader;
    if (this.#trailer) fail(n, 'there are lines after the export trailer; the file was altered');
    if (line.trim() === '') fail(n, 'the line is empty; the file was altered');
    // The common case parses once: a line in the exported form is valid JSON exactly when its payload is, so
    // only lines that are not (the trailer, damage) take the slower path with its precise messages.
    const fast = matchEventLine(line);
    let payload: unknown;
    let row: RawEvent | null = null;
    if (fast) {
      try {
        payload = JSON.parse(fast.payload);
        row = { position: 0, payload: fast.payload, prevHash: fast.prevHash, hash: fast.hash, signature: fast.signature };
      } catch {
        row = null;
      }
    }
    if (!row) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        fail(n, last ? 'the line is cut short or garbled (not JSON); the file was truncated or damaged' : 'the line is not JSON; the file is garbled');
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(n, 'the line is not a JSON object');
      const obj = value as Record<string, unknown>;
      if (obj['format'] === EXPORT_END) {
        this.#trailer = checkTrailer(obj, this.#count, this.#prev, header, n, fail);
        return null;
      }
      if (obj['format'] !== undefined) fail(n, `unexpected ${JSON.stringify(obj['format'])} line; the file was altered`);
      row = eventRow(line, obj, n, fail);
      // Decode the extracted text itself, not the line's parse: the bytes that get stored are what must be an event.
      try {
        payload = JSON.parse(row.payload);
      } catch {
        fail(n, 'the event is not one JSON value; the line was edited');
      }
    }
    if (chainHash(row.prevHash, row.payload, this.#sha256) !== row.hash) fail(n, "the event's hash does not match its content; the event was altered");
    const decoded = decodeTrustedEvent(payload, { prevHash: row.prevHash, hash: row.hash }, this.eventCheck);
    if (!decoded.ok) return fail(n, decoded.reason);
    const event = decoded.event;
    row.position = event.position;
    const prev = this.#prev;
    if (header.filtered) {
      if (event.position <= prev.position) fail(n, `position ${event.position} does not come after ${prev.position}; lines are out of order`);
    } else {
      if (event.position !== prev.position + 1) {
        fail(n, `position ${event.position} where ${prev.position + 1} was expected; lines are missing or out of order`);
      }
      if (row.prevHash !== prev.hash) fail(n, 'its prevHash is not the hash of the line before; lines are missing, inserted or out of order');
    }
    // Each key hashed once (a swap, not a get and a set). A failed line ends the check, so what it left in the tables does not matter.
    if (this.#eventIds.swap(event.eventId, 1) !== 0) fail(n, `event id ${event.eventId} appears twice`);
    const version = this.#streamVersions.swap(event.stream, event.streamVersion) + 1;
    if (event.streamVersion !== version) fail(n, `stream ${event.stream} is at version ${event.streamVersion} where ${version} was expected; lines are missing or out of order`);
    this.#count += 1;
    this.#prev = { position: row.position, hash: row.hash };
    this.onEvent?.(event);
    // Hash, JSON and schema are checked above: the store need not check them again (see `RawEvent.checked`).
    if (this.handOnChecked) row.checked = event;
    return row;
  }

  /**
   * Takes the line that the last `line` call threw on again, as if for the first time: for an `eventCheck`
   * that threw because it could not decide (import's worker, before it has loaded zod). Such a throw comes
   * before the line changed anything but the line count.
   */
  retakeLine(text: string, last = false): RawEvent | null {
    this.#n -= 1;
    return this.line(text, last);
  }

  /** After the last line: the header and trailer, or `input.badExport` when the file is empty or has no trailer. */
  end(): { header: ExportHeader; trailer: ExportTrailer } {
    if (this.#n === 0 || !this.#header) return this.#fail(1, 'the file is empty; it is not a runledger export');
    if (!this.#trailer) return this.#fail(this.#n + 1, 'the file ends without its trailer line; it was truncated');
    return { header: this.#header, trailer: this.#trailer };
  }
}

type Fail = (line: number, why: string) => never;

function parseHeader(line: string, fail: Fail): ExportHeader {
  let value: unknown;
  try {
    value = JSON.parse(line.replace(/\r$/, ''));
  } catch {
    return fail(1, 'not a runledger export (the first line is not JSON)');
  }
  const h = value as Partial<ExportHeader> | null;
  if (typeof h !== 'object' || h === null || h.format !== EXPORT_FORMAT) return fail(1, `not a runledger export (no {"format":"${EXPORT_FORMAT}"} header)`);
  if (!Number.isInteger(h.version) || (h.version as number) < 1) return fail(1, 'the header has no valid format version');
  if ((h.version as number) > EXPORT_VERSION) return fail(1, `export format version ${h.version} is newer than this runledger understands (${EXPORT_VERSION}); upgrade runledger`);
  if (typeof h.filtered !== 'boolean' || typeof h.exportedAt !== 'string' || !isHead(h.ledgerHead)) return fail(1, 'the header lacks filtered, exportedAt or ledgerHead');
  return {
    format: EXPORT_FORMAT,
    version: h.version as number,
    exportedAt: h.exportedAt,
    toolVersion: typeof h.toolVersion === 'string' ? h.toolVersion : 'unknown',
    filtered: h.filtered,
    pipeline: typeof h.pipeline === 'string' ? h.pipeline : null,
    ledgerHead: h.ledgerHead,
  };
}

function eventRow(line: string, obj: Record<string, unknown>, n: number, fail: Fail): RawEvent {
  const prevHash = obj['prevHash'];
  const hash = obj['hash'];
  if (typeof prevHash !== 'string' || !HEX64.test(prevHash) || typeof hash !== 'string' || !HEX64.test(hash)) {
    return fail(n, 'the line lacks a prevHash and hash of 64 hex digits');
  }
  // The payload is the exact text between `"event":` and the closing brace; the hash check proves it.
  const match = EVENT_LINE.exec(line);
  if (!match || match[1] !== prevHash || match[2] !== hash || (match[3] ?? null) !== (obj['signature'] ?? null)) {
    return fail(n, 'the line is not in the exported form {"prevHash":…,"hash":…,"signature":…,"event":…}; it was re-serialized or edited');
  }
  return { position: 0, payload: match[4] as string, prevHash, hash, signature: match[3] ?? null };
}

function checkTrailer(obj: Record<string, unknown>, count: number, prev: ChainHead, header: ExportHeader, n: number, fail: Fail): ExportTrailer {
  const head = obj['head'];
  if (!isHead(head) || !Number.isInteger(obj['events'])) return fail(n, 'the trailer lacks events and head');
  if (obj['events'] !== count) fail(n, `the trailer says ${String(obj['events'])} events but the file holds ${count}; lines were removed or added`);
  if (head.position !== prev.position || head.hash !== prev.hash) {
    fail(n, `the trailer's head ${head.position}:${head.hash} is not the last event's ${prev.position}:${prev.hash}; the file was altered`);
  }
  // A full export stops at the head it saw first, so its header names the same head as its trailer: events
  // cut from the end together with a rewritten trailer still disagree with the header.
  if (!header.filtered && (header.ledgerHead.position !== head.position || header.ledgerHead.hash !== head.hash)) {
    fail(n, `the trailer's head ${head.position}:${head.hash} is not the header's ledger head ${header.ledgerHead.position}:${header.ledgerHead.hash}; the file was altered`);
  }
  return { format: EXPORT_END, events: count, head };
}

function isHead(value: unknown): value is ChainHead {
  const h = value as ChainHead | null;
  return typeof h === 'object' && h !== null && Number.isInteger(h.position) && typeof h.hash === 'string' && HEX64.test(h.hash);
}
