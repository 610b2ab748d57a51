import type { EventStore } from '../store/event-store.js';

/** Names the tz database defines as UTC itself; years 1 to 9999, where the ISO text has four digits. */
const UTC_ZONES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC']);
const YEAR_1 = Date.parse('0001-01-01T00:00:00Z');
const YEAR_10000 = Date.parse('+010000-01-01T00:00:00Z');
/**
 * `toISOString`'s text of an instant of years 1 to 9999 that is its own UTC wall time: days 1–28 of any month, 29 and
 * 30 of any but February, 31 of the months that have one. February 29th is left to the parse, which rolls it into
 * March in a common year (as it does `2026-02-30`), as the answer must.
 */
const CANONICAL_UTC = /^(?!0000)\d{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * An instant as the pipeline's people read it: wall time in its zone with the offset, as date keys and data
 * intervals are already shown (`2026-11-05T01:00:00+07:00`). Milliseconds are kept only when there are any.
 * `--json` keeps UTC; this is for tables and messages.
 *
 * @example
 * inZone('2026-11-04T18:00:00.000Z', 'Asia/Jakarta') // '2026-11-05T01:00:00+07:00'
 */
export function inZone(iso: string, timeZone: string): string {
  // A recorded instant is already the ISO text of UTC (`toISOString`): in UTC, its text is the answer, unparsed.
  if (UTC_ZONES.has(timeZone) && CANONICAL_UTC.test(iso)) return `${iso.slice(0, 19)}${iso.endsWith('.000Z') ? '' : iso.slice(19, 23)}+00:00`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  // UTC is its own wall time: the ISO text itself, without asking `Intl` (its first formatter loads the zone data,
  // most of a cold `status` over a thousand UTC pipelines, and each instant formatted by it costs more than the row).
  if (UTC_ZONES.has(timeZone) && ms >= YEAR_1 && ms < YEAR_10000) {
    const text = new Date(ms).toISOString();
    return `${text.slice(0, 19)}${text.endsWith('.000Z') ? '' : text.slice(19, 23)}+00:00`;
  }
  const parts = Object.fromEntries(
    wallFormat(timeZone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  // Date.UTC reads years 0-99 as 1900-1999: the year is set apart, so year 1 (a producer's clock gone wrong) is year 1.
  const wallDate = new Date(Date.UTC(2000, Number(parts['month']) - 1, Number(parts['day']), Number(parts['hour']), Number(parts['minute']), Number(parts['second'])));
  wallDate.setUTCFullYear(Number(parts['year']));
  const wall = wallDate.getTime();
  const year = parts['year'] ?? '';
  const fraction = ms % 1000 === 0 ? '' : `.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}`;
  const offsetMinutes = Math.round((wall - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${year.padStart(4, '0')}-${parts['month']}-${parts['day']}T${parts['hour']}:${parts['minute']}:${parts['second']}${fraction}${offset}`;
}

/**
 * One formatter per zone, made once: a page shows an instant in every row, and a new `Intl.DateTimeFormat` for
 * each was most of a report's time (a third of it on the 1,000-pipeline ledger) and much of its garbage.
 */
const wallFormats = new Map<string, Intl.DateTimeFormat>();

function wallFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    wallFormats.set(timeZone, format);
  }
  return format;
}

/** The zone of each named pipeline (its current definition; `UTC` when it has none), read from its own stream. */
export async function pipelineZones(ledger: { store: Pick<EventStore, 'read'> }, pipelines: Iterable<string>): Promise<Map<string, string>> {
  const zones = new Map<string, string>();
  for (const pipeline of new Set(pipelines)) {
    let zone = 'UTC';
    for await (const batch of ledger.store.read({ stream: pipeline })) {
      for (const event of batch) {
        if (event.type === 'PipelineDefined') zone = event.data.timezone;
        if (event.type === 'PipelineRedefined') zone = event.data.definition.timezone;
      }
    }
    zones.set(pipeline, zone);
  }
  return zones;
}
