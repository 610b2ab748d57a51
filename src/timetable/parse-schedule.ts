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
  /**
   * Vixie cron: when both day fields are restricted (neither starts with `*`),
   * a day matches if EITHER matches; otherwise both must match.
   */
  dayMatch: 'either' | 'both';
  /** All 24 hours are allowed: ambiguous fall-back times then fire twice (S16). */
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

function parseField(fieldText: string, spec: FieldSpec, source: string): CronField {
  const has: boolean[] = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of fieldText.split(',')) {
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
    if (range === '*') {
      low = spec.min;
      high = spec.name === 'day-of-week' ? 6 : spec.max;
    } else if (range.includes('-')) {
      const [lowText = '', highText = '', ...rest] = range.split('-');
      if (rest.length > 0 || lowText === '' || highText === '') {
        throw invalid(source, `${spec.name} field '${fieldText}' has a malformed range '${range}'`);
      }
      low = parseValue(lowText, spec, source, fieldText);
      high = parseValue(highText, spec, source, fieldText);
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
  if (schedule.dayMatch === 'either') return;
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
  if (parts.length !== FIELDS.length) {
    throw invalid(source, `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  }
  const fields = FIELDS.map((spec, index) => parseField(parts[index] ?? '', spec, source));
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = fields as [CronField, CronField, CronField, CronField, CronField];
  const domText = parts[2] ?? '*';
  const dowText = parts[4] ?? '*';
  const schedule: CronSchedule = {
    kind: 'cron',
    source,
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek,
    dayMatch: !domText.startsWith('*') && !dowText.startsWith('*') ? 'either' : 'both',
    everyHour: hours.values.length === 24,
  };
  assertCanFire(source, schedule);
  return schedule;
}
