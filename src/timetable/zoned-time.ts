import { LedgerError } from '../errors.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 86_400_000;

/**
 * A "wall" value: the local wall-clock fields of a zone encoded as if they were
 * UTC epoch ms (`Date.UTC(y, m, d, h, mi)`). Cron is matched on walls; only
 * `ZoneClock` turns them into instants, so the DST rules live in one place.
 */
export type WallMs = number;

/** Local calendar fields of an instant (month 1-12, weekday 0 = Sunday). */
export type WallFields = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  weekday: number;
};

/**
 * Wall-clock <-> instant conversion for one IANA zone, built on
 * `Intl.DateTimeFormat` (Node ships full ICU, so no tz library is needed).
 *
 * @example
 * const ny = zoneClock('America/New_York');
 * ny.offsetAt(Date.parse('2026-03-08T07:00:00Z')); // -14_400_000 (EDT)
 * ny.resolveWall(Date.UTC(2026, 2, 8, 2, 30)); // { instants: [...03:30 EDT], gap: true }
 */
export type ZoneClock = {
  readonly zone: string;
  /**
   * The zone's offset for UTC, Etc/UTC and the Etc/GMT±N zones (one offset for all time in the tz database), else
   * undefined, also for other names of one offset (GMT, Etc/GMT, UCT, Zulu…), which keep the general path: with it
   * every wall shows exactly once, at `wall - fixedOffset`, and arithmetic on walls is arithmetic on instants. Known
   * from the name, never from sampling offsets (a zone with DST can show one offset for decades).
   */
  readonly fixedOffset: number | undefined;
  /** UTC offset in ms at an instant (local = instant + offset). */
  offsetAt(ms: number): number;
  /** The wall value an instant shows on local clocks. */
  wallOf(ms: number): WallMs;
  /**
   * The instants that show `wall` on local clocks, ascending: one normally,
   * two in a fall-back overlap, none in a spring-forward gap. For a gap,
   * `instants` holds the wall shifted forward by the gap (pendulum's rule:
   * 02:30 in a one-hour gap is 03:30 local) and `gap` is true.
   */
  resolveWall(wall: WallMs): { instants: number[]; gap: boolean };
  /** |offset change| of a transition within a day of `ms` (0 when none). */
  shiftNear(ms: number): number;
  /**
   * An instant after `ms` up to which the offset stays what it is at `ms`: the
   * next transition, or, when none comes within about a year, that far ahead.
   */
  constantUntil(ms: number): number;
};

/** Intl formatter that yields numeric wall fields; `h23` avoids the `24:00` quirk of `hour12: false`. */
function createFormatter(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
}

/** Date.UTC maps years 0-99 to 1900-1999; this does not. */
export function utcFromFields(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

/** The fields of a wall value (or of a UTC instant). */
export function wallFields(wall: WallMs): WallFields {
  const date = new Date(wall);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
    weekday: date.getUTCDay(),
  };
}

/**
 * Throws `input.unknownZone` unless `zone` is an IANA zone name this runtime knows.
 *
 * @example
 * assertZone('Asia/Jakarta'); // ok
 * assertZone('Mars/Olympus'); // throws LedgerError('input.unknownZone', …)
 */
export function assertZone(zone: string): void {
  // IANA names start with a letter; this refuses bare offsets like '+07:00' that newer ICU accepts.
  const looksIana = /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone);
  let known = false;
  if (looksIana) {
    try {
      createFormatter(zone);
      known = true;
    } catch {
      known = false;
    }
  }
  if (!known) {
    throw new LedgerError(
      'input.unknownZone',
      `timezone '${zone}' is not a known IANA zone; use a name like 'UTC', 'Europe/Berlin' or 'America/New_York'`,
    );
  }
}

/** Days per cache chunk: one chunk holds the offsets at 65 consecutive UTC midnights and the transitions between them. */
const CHUNK_DAYS = 64;
/** How far `constantUntil` looks ahead for a transition before answering "at least until here". */
const HORIZON_DAYS = 400;

type Chunk = {
  /** Offset at the start of each day of the chunk, and at the start of the day after it (65 values). */
  boundary: Float64Array;
  /** Per day: the first instant showing the next day's offset, or +Infinity when the day has no transition. */
  transition: Float64Array;
  /** Whether any day of the chunk has a transition (most have none: `constantUntil` passes them whole). */
  anyTransition: boolean;
};

/** `en-US`, h23, era short: `5/13/2014 AD, 18:53:20`. Anything else falls back to formatToParts. */
const FORMATTED = /^(\d+)\/(\d+)\/(\d+) ([A-Z]+), (\d+):(\d+):(\d+)$/;

/**
 * The UTC offset at an instant (whole seconds) read from `Intl`: the source of
 * every zone's offsets but UTC's. Building the first formatter of a process
 * loads ICU's zone and locale data, which costs a small command a fifth of its
 * start-up; UTC, the default zone, never pays it (see `zoneClock`).
 */
function intlOffsets(zone: string): (ms: number) => number {
  const formatter = createFormatter(zone);
  function offsetFromParts(whole: number): number {
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const part of formatter.formatToParts(whole)) {
      switch (part.type) {
        case 'year':
          year = Number(part.value);
          break;
        case 'month':
          month = Number(part.value);
          break;
        case 'day':
          day = Number(part.value);
          break;
        case 'hour':
          hour = Number(part.value);
          break;
        case 'minute':
          minute = Number(part.value);
          break;
        case 'second':
          second = Number(part.value);
          break;
        case 'era':
          bc = part.value.startsWith('B');
          break;
        default:
          break;
      }
    }
    const fullYear = bc ? 1 - year : year;
    return utcFromFields(fullYear, month, day, hour, minute, second) - whole;
  }

  function rawOffset(ms: number): number {
    const whole = Math.floor(ms / SECOND) * SECOND;
    // `format` is about four times cheaper than `formatToParts`; its en-US shape is parsed here.
    const match = FORMATTED.exec(formatter.format(whole));
    if (match === null) return offsetFromParts(whole);
    const year = Number(match[3]);
    const fullYear = match[4]?.startsWith('B') === true ? 1 - year : year;
    return utcFromFields(fullYear, Number(match[1]), Number(match[2]), Number(match[5]), Number(match[6]), Number(match[7])) - whole;
  }

  return rawOffset;
}

/**
 * The clock of a zone over its raw offsets: `intlOffsets(zone)`, or a constant for UTC.
 */
function createZoneClock(zone: string, rawOffset: (ms: number) => number, fixedOffset: number | undefined): ZoneClock {
  // Offsets are cached per UTC day, a chunk of 64 days at a time: a timetable asks
  // for the same few years over and over, and one `Intl` call per slot made a
  // ten-year hourly range cost most of a second. Assumes at most one transition
  // per UTC day, which holds for every zone in the tz database since 1900.
  const chunks = new Map<number, Chunk>();

  function transitionIn(dayIndex: number, startOffset: number): number {
    // Binary search, in whole seconds, for the first second showing the new offset.
    let lo = dayIndex * DAY;
    let hi = (dayIndex + 1) * DAY;
    while (hi - lo > SECOND) {
      const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND;
      if (rawOffset(mid) === startOffset) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  function chunkOf(key: number): Chunk {
    const cached = chunks.get(key);
    if (cached !== undefined) return cached;
    const firstDay = key * CHUNK_DAYS;
    const boundary = new Float64Array(CHUNK_DAYS + 1);
    const transition = new Float64Array(CHUNK_DAYS).fill(Number.POSITIVE_INFINITY);
    let anyTransition = false;
    for (let i = 0; i <= CHUNK_DAYS; i++) boundary[i] = rawOffset((firstDay + i) * DAY);
    for (let i = 0; i < CHUNK_DAYS; i++) {
      const start = boundary[i] as number;
      if (start !== boundary[i + 1]) {
        transition[i] = transitionIn(firstDay + i, start);
        anyTransition = true;
      }
    }
    const chunk = { boundary, transition, anyTransition };
    chunks.set(key, chunk);
    return chunk;
  }

  // The chunk of the last lookup: a walk asks for the same chunk 64 days (1,536 hourly slots) in a row.
  let lastKey = Number.NaN;
  let lastChunk: Chunk | undefined;

  function offsetAt(ms: number): number {
    const dayIndex = Math.floor(ms / DAY);
    const key = Math.floor(dayIndex / CHUNK_DAYS);
    if (key !== lastKey || lastChunk === undefined) {
      lastChunk = chunkOf(key);
      lastKey = key;
    }
    const chunk = lastChunk;
    const i = dayIndex - key * CHUNK_DAYS;
    return (ms < (chunk.transition[i] as number) ? chunk.boundary[i] : chunk.boundary[i + 1]) as number;
  }

  function constantUntil(ms: number): number {
    const firstDay = Math.floor(ms / DAY);
    const endDay = firstDay + HORIZON_DAYS;
    // Chunk by chunk, passing whole the chunks without a transition: a day at a time, the horizon was 400 lookups.
    for (let dayIndex = firstDay; dayIndex < endDay; ) {
      const key = Math.floor(dayIndex / CHUNK_DAYS);
      const chunk = chunkOf(key);
      const chunkEnd = Math.min(endDay, (key + 1) * CHUNK_DAYS);
      if (chunk.anyTransition) {
        for (; dayIndex < chunkEnd; dayIndex++) {
          const at = chunk.transition[dayIndex - key * CHUNK_DAYS] as number;
          if (at > ms && at !== Number.POSITIVE_INFINITY) return at;
        }
      }
      dayIndex = chunkEnd;
    }
    return endDay * DAY;
  }

  function resolveWall(wall: WallMs): { instants: number[]; gap: boolean } {
    // Offsets a day either side bracket any transition affecting this wall
    // (local offsets are within ±14h), the approach of the Temporal polyfill.
    const before = offsetAt(wall - DAY);
    const after = offsetAt(wall + DAY);
    // The candidates in ascending order, without a sort: long walks resolve walls around every transition.
    const early = wall - Math.max(before, after);
    const late = wall - Math.min(before, after);
    const earlyShows = early + offsetAt(early) === wall;
    const lateShows = late !== early && late + offsetAt(late) === wall;
    if (earlyShows && lateShows) return { instants: [early, late], gap: false };
    if (earlyShows) return { instants: [early], gap: false };
    if (lateShows) return { instants: [late], gap: false };
    // Spring-forward gap: read the wall with the pre-transition offset, which lands
    // it the same distance past the transition as it was past the gap's start.
    return { instants: [wall - before], gap: true };
  }

  return {
    zone,
    fixedOffset,
    offsetAt,
    constantUntil,
    wallOf: (ms) => ms + offsetAt(ms),
    resolveWall,
    shiftNear: (ms) => Math.abs(offsetAt(ms + DAY) - offsetAt(ms - DAY)),
  };
}

/** Names the tz database defines as UTC itself (offset 0, no transitions, ever): known without asking `Intl`. */
const UTC_ZONES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC']);

/**
 * `Etc/GMT+5` and its kind: the tz database's fixed-offset zones, one offset for all time, its sign inverted (POSIX
 * style: Etc/GMT+5 is UTC-05:00), from Etc/GMT-14 to Etc/GMT+12.
 */
const ETC_GMT = /^Etc\/GMT([+-])(\d{1,2})$/;

/**
 * The offset of a zone the tz database defines with one offset for all time, when the name says so and `Intl`, whose
 * offsets the clock reports, agrees; else undefined (a zone with DST, or a fixed zone this runtime's ICU reads
 * otherwise, keeps every offset from `Intl`).
 */
function fixedOffsetOf(zone: string, rawOffset: (ms: number) => number): number | undefined {
  const match = ETC_GMT.exec(zone);
  if (match === null) return undefined;
  const hours = Number(match[2]);
  if (hours > (match[1] === '+' ? 12 : 14)) return undefined;
  // Etc/GMT+0 is UTC: 0, not -0.
  const offset = hours === 0 ? 0 : (match[1] === '+' ? -hours : hours) * 3_600_000;
  return rawOffset(0) === offset ? offset : undefined;
}

// A pure memo (zone name -> clock): results never change for a zone, so sharing
// it across timetables is unobservable and saves rebuilding the offset cache.
const clocks = new Map<string, ZoneClock>();

/**
 * The (cached) clock of a zone; throws `input.unknownZone` for unknown zones.
 *
 * @example
 * zoneClock('Australia/Sydney').offsetAt(Date.parse('2026-01-01T00:00:00Z')); // 39_600_000
 */
export function zoneClock(zone: string): ZoneClock {
  let clock = clocks.get(zone);
  if (clock === undefined) {
    if (UTC_ZONES.has(zone)) {
      clock = createZoneClock(zone, () => 0, 0);
    } else {
      assertZone(zone);
      const rawOffset = intlOffsets(zone);
      clock = createZoneClock(zone, rawOffset, fixedOffsetOf(zone, rawOffset));
    }
    clocks.set(zone, clock);
  }
  return clock;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `YYYY-MM-DD` of a wall value (years outside 0-9999 use the RFC 3339-incompatible ±YYYYYY form). */
export function formatWallDate(wall: WallMs): string {
  const fields = wallFields(wall);
  const year =
    fields.year >= 0 && fields.year <= 9999 ? pad(fields.year, 4) : (fields.year < 0 ? '-' : '+') + pad(Math.abs(fields.year), 6);
  return `${year}-${pad(fields.month)}-${pad(fields.day)}`;
}

/**
 * RFC 3339 with the zone's local offset, seconds precision (milliseconds only
 * when non-zero). Historic offsets with seconds (LMT) are rounded down to the
 * minute and the wall time adjusted, so the text still names the exact instant.
 *
 * @example
 * formatInstant(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York'); // '2026-03-08T03:00:00-04:00'
 */
export function formatInstant(ms: number, zone: string | ZoneClock): string {
  const clock = typeof zone === 'string' ? zoneClock(zone) : zone;
  const offsetMinutes = Math.floor(clock.offsetAt(ms) / MINUTE);
  const wall = ms + offsetMinutes * MINUTE;
  const fields = wallFields(wall);
  const millis = fields.millisecond === 0 ? '' : `.${pad(fields.millisecond, 3)}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  return (
    `${formatWallDate(wall)}T${pad(fields.hour)}:${pad(fields.minute)}:${pad(fields.second)}${millis}` +
    `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`
  );
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => pad(i));

/** The cached formatters of one zone (see `instantFormatter`). */
export type InstantFormatter = {
  /** `formatInstant(ms, zone)`. */
  instant(ms: number): string;
  /** `formatWallDate(wall)`. */
  wallDate(wall: WallMs): string;
  /** The `T05:00:00+01:00` part of an instant: its local time of day and its offset in whole minutes. */
  timeText(msOfDay: number, offsetMinutes: number): string;
};

/**
 * `formatInstant` and the `YYYY-MM-DD` of a wall for one zone, with the date
 * text cached per local day and the offset text per offset: a timetable formats
 * two instants per slot, and building each from `Date` fields dominated long
 * ranges. Results are identical to `formatInstant` and `formatWallDate`.
 *
 * @example
 * const format = instantFormatter(zoneClock('America/New_York'));
 * format.instant(Date.parse('2026-03-08T07:00:00Z')); // '2026-03-08T03:00:00-04:00'
 */
export function instantFormatter(clock: ZoneClock): InstantFormatter {
  // One-entry memos: a walk formats the same local day (and the same offset) many times in a row,
  // and a new day's text is a few integer steps from its day number, without a Date.
  let lastDay = Number.NaN;
  let lastDate = '';
  let dayBefore = Number.NaN;
  let dateBefore = '';
  let lastOffsetMinutes = Number.NaN;
  let lastOffset = '';

  function wallDate(wall: WallMs): string {
    const dayIndex = Math.floor(wall / DAY);
    if (dayIndex === lastDay) return lastDate;
    // Two days: a walk over daily slots asks for a slot's end (the next day) and then for its key (its day).
    if (dayIndex === dayBefore) return dateBefore;
    dayBefore = lastDay;
    dateBefore = lastDate;
    lastDate = dateOfDay(dayIndex);
    lastDay = dayIndex;
    return lastDate;
  }

  function offsetText(offsetMinutes: number): string {
    if (offsetMinutes !== lastOffsetMinutes) {
      const absolute = Math.abs(offsetMinutes);
      lastOffset = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
      lastOffsetMinutes = offsetMinutes;
    }
    return lastOffset;
  }

  // `T05:00:00+01:00` per time of day and offset: a timetable's ticks fall on a few times of day, and the
  // text of an instant is then one join of two shared strings, not seven, all of them kept by a long answer.
  const suffixes = new Map<number, string>();

  function suffix(msOfDay: number, offsetMinutes: number): string {
    const key = msOfDay * 4096 + offsetMinutes + 2048;
    let text = suffixes.get(key);
    if (text === undefined) {
      let rest = msOfDay;
      const hour = Math.floor(rest / 3_600_000);
      rest -= hour * 3_600_000;
      const minute = Math.floor(rest / MINUTE);
      rest -= minute * MINUTE;
      const second = Math.floor(rest / SECOND);
      const millisecond = rest - second * SECOND;
      const millis = millisecond === 0 ? '' : `.${pad(millisecond, 3)}`;
      text = `T${TWO_DIGITS[hour] as string}:${TWO_DIGITS[minute] as string}:${TWO_DIGITS[second] as string}${millis}${offsetText(offsetMinutes)}`;
      // Bounded, as every memo here: a minutely schedule has 1,440 times of day, a few offsets each.
      if (suffixes.size >= 10_000) suffixes.clear();
      suffixes.set(key, text);
    }
    return text;
  }

  function instant(ms: number): string {
    const offsetMinutes = Math.floor(clock.offsetAt(ms) / MINUTE);
    const wall = ms + offsetMinutes * MINUTE;
    return wallDate(wall) + suffix(wall - Math.floor(wall / DAY) * DAY, offsetMinutes);
  }

  return { instant, wallDate, timeText: suffix };
}

/**
 * `formatWallDate` of a day number (days since 1970-01-01), by the civil-from-days
 * arithmetic of H. Hinnant's date algorithms; years outside 0-9999 take `formatWallDate`.
 */
function dateOfDay(dayIndex: number): string {
  const z = dayIndex + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return formatWallDate(dayIndex * DAY);
  const monthKey = year * 16 + month;
  if (monthKey !== lastMonthKey) {
    lastMonthPrefix = `${year < 1000 ? pad(year, 4) : String(year)}-${TWO_DIGITS[month] as string}-`;
    lastMonthKey = monthKey;
  }
  return lastMonthPrefix + (TWO_DIGITS[day] as string);
}

// `YYYY-MM-` of the last month `dateOfDay` wrote (a pure memo: the text of a month never changes).
let lastMonthKey = Number.NaN;
let lastMonthPrefix = '';
