import { expect, test, vi } from 'vitest';

const DAY = 86_400_000;

test('UTC builds no Intl formatter (the first one of a process loads ICU data) and answers as an Intl-backed UTC zone does', async () => {
  vi.resetModules();
  const formatters = vi.spyOn(Intl, 'DateTimeFormat');
  const { formatInstant, zoneClock } = await import('../../src/timetable/zoned-time.js');
  const utc = zoneClock('UTC');
  const etcUtc = zoneClock('Etc/UTC');
  const samples = [Date.UTC(1, 0, 1), Date.UTC(1900, 5, 1, 12), Date.UTC(2026, 2, 8, 2, 30), Date.UTC(2026, 10, 1, 1, 30, 15, 250), Date.UTC(9999, 11, 31, 23, 59, 59)];
  const answers = (clock: typeof utc) =>
    samples.map((ms) => [clock.offsetAt(ms), clock.wallOf(ms), clock.resolveWall(ms), clock.shiftNear(ms), clock.constantUntil(ms), formatInstant(ms, clock)]);
  const ours = answers(utc);
  expect(answers(etcUtc)).toEqual(ours);
  expect(formatters).not.toHaveBeenCalled();
  formatters.mockRestore();

  // 'Etc/GMT' is UTC by another name and goes through Intl: every answer must be the same.
  expect(answers(zoneClock('Etc/GMT'))).toEqual(ours);
  expect(ours[2]).toEqual([0, Date.UTC(2026, 2, 8, 2, 30), { instants: [Date.UTC(2026, 2, 8, 2, 30)], gap: false }, 0, (Math.floor(Date.UTC(2026, 2, 8, 2, 30) / DAY) + 400) * DAY, '2026-03-08T02:30:00+00:00']);
});
