import type { Ledger } from '../../src/ledger/ledger.js';
import { buildDefinition, completeDefinitionInput, diffDefinitions, type DefineChanges } from '../../src/ledger/build-definition.js';

let made = 0;

/**
 * Redefines a pipeline as a release before definitions over time did: the new timetable over the whole history,
 * recorded straight to the store past the rule that now refuses a change that would re-key or drop recorded
 * dates. For tests of ledgers that hold such a change (moved and misaligned keys stay readable).
 *
 * @example
 * await redefineAsBefore(ledger, { pipeline: 'etl', timezone: 'America/New_York' }, now);
 */
export async function redefineAsBefore(ledger: Ledger, changes: DefineChanges, nowMs: number): Promise<void> {
  const { definition: before, state } = await ledger.pipeline(changes.pipeline);
  const definition = buildDefinition(completeDefinitionInput(before, changes));
  const eventId = `01JZ${String(++made).padStart(22, '0')}`;
  const result = await ledger.store.append([
    {
      stream: changes.pipeline,
      expectedVersion: state.version,
      events: [
        {
          type: 'PipelineRedefined',
          schemaVersion: 1,
          data: { pipeline: changes.pipeline, definition, changes: diffDefinitions(before, definition) },
          eventId,
          stream: changes.pipeline,
          recordedAt: new Date(nowMs).toISOString(),
          metadata: { actor: 'old-release', toolVersion: '0.0.1' },
        },
      ],
    },
  ]);
  if (!result.ok) throw new Error(`redefineAsBefore ${changes.pipeline}: stream conflict`);
}
