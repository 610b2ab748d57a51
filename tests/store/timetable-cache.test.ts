import { describe, expect, it } from 'vitest';
import type { PipelineDefinition } from '../../events/types/pipeline-definition.js';
import { timetableCache, timetableOf } from '../../src/store/read-model-fold.js';

const base = { pipeline: 'etl', schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-11-01T00:00:00+00:00', end: null, catchup: true, leaseMs: 3_600_000, maxActiveRuns: 1 } as unknown as PipelineDefinition;

/** The first three slot keys from the start: what tells two timetables apart. */
function keys(definition: PipelineDefinition, of: (d: PipelineDefinition) => ReturnType<typeof timetableOf>): string[] {
  const timetable = of(definition);
  if (timetable === null) return [];
  const from = Date.parse('2026-11-02T00:00:00Z');
  const out: string[] = [];
  timetable.eachSlot(from - 1, from + 3 * 86_400_000, (date, logicalDate, end) => void out.push(`${date} ${logicalDate} ${end}`));
  return out;
}

describe('timetableCache', () => {
  it('answers a new definition object with the fields of the one before with the same timetable', () => {
    const cache = timetableCache();
    const first = cache(base);
    expect(cache({ ...base, pipeline: 'other', leaseMs: 60_000 })).toBe(first);
    expect(cache({ ...base, end: undefined } as unknown as PipelineDefinition)).toBe(first);
  });

  it('never answers a definition with another field of its timetable with the timetable before it', () => {
    const cache = timetableCache();
    const changes: Array<Partial<PipelineDefinition>> = [
      { schedule: '@hourly' },
      { timezone: 'Asia/Jakarta' },
      { start: '2026-11-01T06:00:00+00:00' },
      { timetable: 'trigger' } as Partial<PipelineDefinition>,
      { end: '2026-11-03T00:00:00+00:00' } as Partial<PipelineDefinition>,
      { schedule: '0 4 * * *', earlierTimetables: [{ until: '2026-11-03T00:00:00+00:00', schedule: '0 2 * * *', timetable: 'interval', timezone: 'UTC', start: '2026-11-01T00:00:00+00:00' }] } as unknown as Partial<PipelineDefinition>,
    ];
    for (const change of changes) {
      const changed = { ...base, ...change } as PipelineDefinition;
      // Asked right after the base definition (the last one answered), then the base again after it.
      cache(base);
      expect(keys(changed, cache)).toEqual(keys(changed, timetableOf));
      expect(keys(base, cache)).toEqual(keys(base, timetableOf));
    }
  });
});
