import { LedgerError } from '../errors.js';

/** The allowed values of one cron field as a membership table plus the sorted list. */
export type CronField = { readonly values: readonly number[]; readonly has: readonly boolean[] };

/** A five-field cron expression, expanded. Weekday 7 is folded into 0 (Sunday). */
export type CronSchedule = {
  kind: 'cron';
  source: string;
  minutes: CronField;
  hours: CronField;
  daysOfMonth: CronField;
  months: CronField;
  daysOfWeek: CronField;
  /** `L` in day-of-month: the last day of each month also matches. */
  lastDayOfMonth: boolean;
  /**
   * `n#k` (the k-th weekday n of the month, k 1-5) and `nL` / `Ln` (the last
   * one) in day-of-week, per weekday 0-6: the k values allowed, -1 for last.
   * Null when the field has none; then `daysOfWeek` decides alone.
   */
  nthWeekdays: readonly (readonly number[])[] | null;
  /**
   * Airflow's cron library (croniter): when both day fields are restricted,
   * a day matches if EITHER matches; otherwise the restricted one decides.
   * A field is unrestricted when it is `*` (or `?`), or when it allows every
   * value and the other field's text contains a `*`; stepped stars and
   * `1-31/2` are restricted (unlike Vixie cron, which looks only at the first character).
   */
  dayMatch: 'either' | 'both';
  /** All 24 hours are allowed: ambiguous fall-back times then fire twice. */
  everyHour: boolean;
};

/** `every 15m`: absolute spacing from the pipeline's start. */
export type FixedSchedule = { kind: 'every'; source: string; stepMs: number };

export type Schedule = CronSchedule | FixedSchedule;

const PRESETS: Readonly<Record<string, string>> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@quarterly': '0 0 1 */3 *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

type FieldSpec = { name: string; min: number; max: number; names?: readonly string[]; nameBase?: number };

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, nameBase: 0 },
];

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const HINT = "use a five-field cron like '0 2 * * *', a preset like @daily, or 'every 6h'";
/** Longest month of each month number (February counts its leap day). */
const MAX_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function invalid(source: string, problem: string): LedgerError {
  return new LedgerError('input.invalidSchedule', `schedule '${source}': ${problem}; ${HINT}`);
}

function parseValue(text: string, spec: FieldSpec, source: string, fieldText: string): number {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) {
      throw invalid(source, `${spec.name} field '${fieldText}' is out of range ${spec.min}-${spec.max}`);
    }
    return value;
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return index + (spec.nameBase ?? 0);
  const expected = spec.names === undefined ? `a number ${spec.min}-${spec.max}` : `a number ${spec.min}-${spec.max} or a name like ${spec.names[1]}`;
  throw invalid(source, `${spec.name} field '${fieldText}' has '${text}' where ${expected} was expected`);
}

/** Day-field extras found while parsing: `L` in day-of-month, `n#k` / `nL` in day-of-week. */
type DayExtras = { lastDay: boolean; nth: number[][] | null; plainWeekdays: boolean };

const NTH_ITEM = /^([a-z0-9]+(?:-[a-z0-9]+)?)#(\d+)$/i;
const LAST_WEEKDAY_ITEM = /^(?:([a-z0-9]+)L|L([a-z0-9]+))$/i;

/** `L` in day-of-month; `n#k`, `nL` and `Ln` in day-of-week. Returns true when the item was one of them. */
function parseDayExtra(item: string, spec: FieldSpec, source: string, fieldText: string, extras: DayExtras): boolean {
  if (spec.name === 'day-of-month') {
    if (/^L$/i.test(item)) {
      extras.lastDay = true;
      return true;
    }
    if (/[LW]/i.test(item) && !/^\d+-L(\/\d+)?$/i.test(item)) {
      throw invalid(source, `day-of-month field '${fieldText}' has '${item}'; of the Quartz extensions only a bare L (the last day of the month) is supported, as in Airflow`);
    }
    return false;
  }
  if (spec.name !== 'day-of-week') return false;
  const nth = NTH_ITEM.exec(item);
  const last = nth === null ? LAST_WEEKDAY_ITEM.exec(item) : null;
  if (nth === null && last === null) {
    if (/^L$/i.test(item)) {
      throw invalid(source, `day-of-week field '${fieldText}' has a bare L; write the weekday before it (5L is the last Friday of the month), or put L in day-of-month for the last day`);
    }
    return false;
  }
  let weekdays: number[];
  let k: number;
  if (nth !== null) {
    k = Number(nth[2]);
    if (k < 1 || k > 5) {
      throw invalid(source, `day-of-week field '${fieldText}' has '${item}'; the week number after # is 1 to 5`);
    }
    const [lowText = '', highText] = (nth[1] ?? '').split('-');
    const low = parseValue(lowText, spec, source, fieldText);
    const high = highText === undefined ? low : parseValue(highText, spec, source, fieldText);
    if (low > high) {
      throw invalid(source, `day-of-week field '${fieldText}' has range '${nth[1] ?? ''}' running backwards; write it low-high`);
    }
    weekdays = [];
    for (let v = low; v <= high; v++) weekdays.push(v % 7);
  } else {
    k = -1;
    weekdays = [parseValue(last?.[1] ?? last?.[2] ?? '', spec, source, fieldText) % 7];
  }
  extras.nth ??= Array.from({ length: 7 }, () => []);
  for (const weekday of weekdays) extras.nth[weekday]?.push(k);
  return true;
}

function parseField(fieldText: string, spec: FieldSpec, source: string, extras?: DayExtras): CronField {
  const has: boolean[] = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of fieldText.split(',')) {
    if (extras !== undefined && parseDayExtra(item, spec, source, fieldText, extras)) continue;
    if (extras !== undefined && spec.name === 'day-of-week') extras.plainWeekdays = true;
    const match = /^([^/]+)(?:\/(.*))?$/.exec(item);
    if (match === null || match[1] === undefined) {
      throw invalid(source, `${spec.name} field '${fieldText}' has an empty list item`);
    }
    const range = match[1];
    const stepText = match[2];
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
        throw invalid(source, `${spec.name} field '${fieldText}' has step '${stepText}'; a step is a whole number of at least 1`);
      }
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === '*' || (range === '?' && extras !== undefined)) {
      low = spec.min;
      high = spec.name === 'day-of-week' ? 6 : spec.max;
    } else if (range.includes('-')) {
      const [lowText = '', highText = '', ...rest] = range.split('-');
      if (rest.length > 0 || lowText === '' || highText === '') {
        throw invalid(source, `${spec.name} field '${fieldText}' has a malformed range '${range}'`);
      }
      low = parseValue(lowText, spec, source, fieldText);
      // `10-L` runs to the end of the month (croniter reads L there as 31; a shorter month simply has no 31).
      high = spec.name === 'day-of-month' && /^L$/i.test(highText) ? spec.max : parseValue(highText, spec, source, fieldText);
      if (low > high) {
        throw invalid(source, `${spec.name} field '${fieldText}' has range '${range}' running backwards; write it low-high`);
      }
    } else {
      low = parseValue(range, spec, source, fieldText);
      // `5/15` means "from 5 to the end in steps of 15", as in croner and Quartz.
      high = stepText === undefined ? low : spec.name === 'day-of-week' ? 6 : spec.max;
    }
    for (let value = low; value <= high; value += step) has[value] = true;
  }
  if (spec.name === 'day-of-week' && has[7] === true) {
    has[0] = true;
    has[7] = false;
  }
  const values: number[] = [];
  has.forEach((allowed, value) => {
    if (allowed) values.push(value);
  });
  return { values, has };
}

const MAX_EVERY_MS = 3650 * 86_400_000;

function parseEvery(source: string, text: string): FixedSchedule {
  const match = /^every\s+(\d+)\s*([a-z]+)$/i.exec(text);
  const unit = match?.[2]?.toLowerCase();
  const unitMs = unit === undefined ? undefined : UNIT_MS[unit];
  if (match === null || unitMs === undefined) {
    throw invalid(source, `fixed durations are written 'every <n><unit>' with unit m, h or d, e.g. 'every 15m'`);
  }
  const count = Number(match[1]);
  if (count < 1) {
    throw invalid(source, `the duration must be at least 1${unit ?? ''}`);
  }
  // Longer steps put the next tick past the dates JavaScript can hold, which broke every later query.
  if (!(count * unitMs <= MAX_EVERY_MS)) {
    throw invalid(source, `the duration must be at most ${MAX_EVERY_MS / 86_400_000}d`);
  }
  return { kind: 'every', source, stepMs: count * unitMs };
}

function assertCanFire(source: string, schedule: CronSchedule): void {
  // When both day fields must match, a day-of-month like 30 in February only never fires.
  if (schedule.dayMatch === 'either' || schedule.lastDayOfMonth || schedule.nthWeekdays !== null) return;
  const fires = schedule.months.values.some((month) =>
    schedule.daysOfMonth.values.some((day) => day <= (MAX_DAYS[month - 1] ?? 31)),
  );
  if (!fires) {
    throw invalid(source, 'day-of-month and month fields never meet (no such date), so it would never fire');
  }
}

/**
 * Parses a schedule: a preset (`@hourly @daily @midnight @weekly @monthly
 * @yearly @annually`), a five-field cron (ranges, steps, lists, `JAN`,
 * `MON-FRI`, `7` = Sunday) or a fixed duration (`every 15m`, `every 6h`,
 * `every 1d`). Throws `LedgerError('input.invalidSchedule')` naming the bad field.
 *
 * @example
 * parseSchedule('0,30 9-17 * * MON-FRI'); // { kind: 'cron', minutes: { values: [0, 30] }, … }
 * parseSchedule('every 6h'); // { kind: 'every', stepMs: 21_600_000, … }
 * parseSchedule('0 25 * * *'); // throws: hour field '25' is out of range 0-23
 */
export function parseSchedule(source: string): Schedule {
  const text = source.trim();
  if (text === '') throw invalid(source, 'it is empty');
  if (/^every\b/i.test(text)) return parseEvery(source, text);
  let cron = text;
  if (text.startsWith('@')) {
    const preset = PRESETS[text.toLowerCase()];
    if (preset === undefined) {
      throw invalid(source, `unknown preset '${text}' (known: ${Object.keys(PRESETS).join(' ')})`);
    }
    cron = preset;
  }
  const parts = cron.split(/\s+/);
  if (parts.some((part) => part.split(',').some((item) => /^H(\(|\/|$)/i.test(item)))) {
    throw invalid(source, "'H' (Jenkins' hashed value) is not supported: it picks a time from a hash of the job's name, which Airflow refuses too and which would move the slots if the pipeline were renamed; write the minute and hour you want");
  }
  if (parts.length === 6 || parts.length === 7) {
    throw invalid(source, `got ${parts.length} fields; seconds (and years) are not supported: slots are whole minutes, and a sixth field means seconds at the end to Airflow's cron library but seconds first to Quartz, so the same text names two schedules; drop the seconds field`);
  }
  if (parts.length !== FIELDS.length) {
    throw invalid(source, `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  }
  const extras: DayExtras = { lastDay: false, nth: null, plainWeekdays: false };
  const fields = FIELDS.map((spec, index) => parseField(parts[index] ?? '', spec, source, index === 2 || index === 4 ? extras : undefined));
  const [minutes, hours, daysOfMonth, months, plainDaysOfWeek] = fields as [CronField, CronField, CronField, CronField, CronField];
  const domText = parts[2] ?? '*';
  const dowText = parts[4] ?? '*';
  if (extras.nth !== null && extras.plainWeekdays) {
    throw invalid(source, `day-of-week field '${dowText}' mixes plain weekdays with n#k or nL, which Airflow's cron library refuses; use only n#k / nL items, or define two pipelines`);
  }
  const nth = extras.nth;
  const daysOfWeek = nth === null ? plainDaysOfWeek : fieldOf(nth.map((ks) => ks.length > 0));
  const isStar = (text: string): boolean => text.split(',').every((item) => item === '*' || item === '?');
  const domFull = daysOfMonth.values.length === 31 && !extras.lastDay;
  const dowFull = nth === null && daysOfWeek.values.length === 7;
  // croniter's rule: a field that allows every value counts as `*` only when the other field's text has a `*`.
  const domRestricted = !(isStar(domText) || (domFull && dowText.includes('*')));
  const dowRestricted = !(isStar(dowText) || (dowFull && domText.includes('*')));
  const schedule: CronSchedule = {
    kind: 'cron',
    source,
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek,
    lastDayOfMonth: extras.lastDay,
    nthWeekdays: nth,
    dayMatch: domRestricted && dowRestricted ? 'either' : 'both',
    everyHour: hours.values.length === 24,
  };
  assertCanFire(source, schedule);
  return schedule;
}

function fieldOf(has: boolean[]): CronField {
  const values: number[] = [];
  has.forEach((allowed, value) => {
    if (allowed) values.push(value);
  });
  return { values, has };
}
