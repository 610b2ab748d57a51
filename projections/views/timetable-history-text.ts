import type { PipelineDefinition } from '../../events/pipeline-definition.js';

type Timetable = Pick<PipelineDefinition, 'schedule' | 'timetable' | 'timezone'>;

/** `@daily UTC`, or `@daily UTC trigger` for zero-width slots. */
function timetableWords(t: Timetable): string {
  return `${t.schedule} ${t.timezone}${t.timetable === 'trigger' ? ' trigger' : ''}`;
}

/** An instant as the change recorded it, its date alone when it is a midnight (it is written in the old zone). */
function untilWords(until: string): string {
  const midnight = /^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?(?:Z|[+-]\d{2}:\d{2})$/.exec(until);
  return midnight ? (midnight[1] as string) : until;
}

/**
 * A pipeline's timetables over time, in one line: `@daily UTC until 2026-11-05, then 0 6 * * * Europe/Berlin`;
 * null when one timetable holds for its whole history.
 *
 * @example
 * timetableHistoryText(definition) // '@daily UTC until 2026-11-05T10:00:00Z, then @daily Asia/Jakarta'
 */
export function timetableHistoryText(definition: Timetable & Pick<PipelineDefinition, 'earlierTimetables'>): string | null {
  const earlier = definition.earlierTimetables;
  if (earlier === undefined || earlier.length === 0) return null;
  return [...earlier.map((t) => `${timetableWords(t)} until ${untilWords(t.until)}`), timetableWords(definition)].join(', then ');
}
