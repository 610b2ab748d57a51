import type { StripBucket, StripPeriod } from '../../projections/views/history-strip.js';
import type { Timetable } from '../timetable/timetable.js';
import { utcFromFields, zoneClock } from '../timetable/zoned-time.js';

/** One column of an aggregated strip: the instants it covers (inclusive) and the calendar period it stands for. */
export type PeriodColumn = { fromMs: number; toMs: number; period: NonNullable<StripBucket['period']> };

const PERIODS: readonly StripPeriod[] = ['day', 'month', 'quarter', 'year'];
const DAY_MS = 86_400_000;
const LOCAL_DAY = /^(\d{4})-(\d\d)-(\d\d)/;

/**
 * The columns of a whole-history strip of a long pipeline: one per local day, month, quarter or year of its zone,
 * the finest of them that keeps the columns at most `maxColumns` (57 years of minutes: 228 quarters). Each names
 * its period and the bare dates a calendar range of it is asked with. Null for a range whose dates have no four-digit year.
 *
 * @example
 * stripPeriods(timetable, Date.parse('1970-01-01T00:00:00Z'), Date.parse('2026-11-30T23:59:00Z'), 400)?.[0]?.label // '1970 Q1'
 */
export function stripPeriods(timetable: Timetable, fromMs: number, toMs: number, maxColumns: number): PeriodColumn[] | null {
  const first = LOCAL_DAY.exec(timetable.formatInstant(fromMs));
  const last = LOCAL_DAY.exec(timetable.formatInstant(toMs));
  if (first === null || last === null || toMs < fromMs) return null;
  const [fy, fm, fd] = [Number(first[1]), Number(first[2]), Number(first[3])];
  const [ly, lm, ld] = [Number(last[1]), Number(last[2]), Number(last[3])];
  const clock = zoneClock(timetable.spec.timezone);
  // A local midnight's instant (one in a gap is shifted forward, as every wall time is).
  const startOf = (y: number, m: number, d: number) => clock.resolveWall(utcFromFields(y, m, d)).instants[0] ?? utcFromFields(y, m, d) - clock.offsetAt(utcFromFields(y, m, d));
  const dayText = (y: number, m: number, d: number) => new Date(utcFromFields(y, m, d)).toISOString().slice(0, 10);
  const counts: Record<StripPeriod, number> = {
    day: Math.round((utcFromFields(ly, lm, ld) - utcFromFields(fy, fm, fd)) / DAY_MS) + 1,
    month: (ly - fy) * 12 + (lm - fm) + 1,
    quarter: (ly - fy) * 4 + Math.floor((lm - 1) / 3) - Math.floor((fm - 1) / 3) + 1,
    year: ly - fy + 1,
  };
  const period = PERIODS.find((p) => counts[p] <= maxColumns) ?? 'year';
  const columns: PeriodColumn[] = [];
  const push = (start: [number, number, number], next: [number, number, number], label: string) => {
    const a = Math.max(fromMs, startOf(...start));
    const b = Math.min(toMs, startOf(...next) - 1);
    if (b < a) return;
    const lastDay = new Date(utcFromFields(...next) - DAY_MS).toISOString().slice(0, 10);
    columns.push({ fromMs: a, toMs: b, period: { unit: period, label, range: { from: dayText(...start), to: lastDay } } });
  };
  if (period === 'day') {
    for (let i = 0; i < counts.day; i++) push([fy, fm, fd + i], [fy, fm, fd + i + 1], dayText(fy, fm, fd + i));
    return columns;
  }
  const step = period === 'month' ? 1 : period === 'quarter' ? 3 : 12;
  const firstMonth = fy * 12 + Math.floor((fm - 1) / step) * step;
  for (let month = firstMonth; month <= ly * 12 + lm - 1; month += step) {
    const y = Math.floor(month / 12);
    const m = (month % 12) + 1;
    const label = period === 'month' ? `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}` : period === 'quarter' ? `${String(y).padStart(4, '0')} Q${(m - 1) / 3 + 1}` : String(y).padStart(4, '0');
    push([y, m, 1], [Math.floor((month + step) / 12), ((month + step) % 12) + 1, 1], label);
  }
  return columns;
}
