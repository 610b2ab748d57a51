import type { LedgerEvent } from '../events/types/ledger-event.js';
import { pausedText, retiredText, type PipelineControl } from './pipeline-control.js';
import { accept, refuse, type Decision } from './refusal.js';

/** What can be done to a defined pipeline's run control: pause or unpause it, retire it or bring it back. */
export type ControlKind = 'pause' | 'unpause' | 'retire' | 'unretire';

/** What a control command did: the new state's name, or `unchanged` (already so: nothing written). */
export type ControlOutcome = 'paused' | 'unpaused' | 'retired' | 'unretired' | 'unchanged';

/** What the rule needs of a pipeline: its name, its pause and its retirement. */
export type ControlState = { pipeline: string; paused: PipelineControl | null; retired: PipelineControl | null };

/**
 * The run-control rule (pause, unpause and retire change what runs, never what was recorded). Pausing a paused
 * pipeline, unpausing one that is not paused, retiring a retired one or bringing back one that is not retired changes
 * nothing and records nothing (as `define` with nothing new). A retired pipeline is neither paused nor unpaused (bring
 * it back first: its pause, if it had one, comes back with it). A pipeline is not retired while an active pipeline
 * names it as an upstream (`activeDownstream`: their names), so no pipeline waits for one that will never run.
 *
 * @example
 * decideControl({ pipeline: 'etl', paused: null, retired: null }, 'pause', []) // ok: one PipelinePaused
 */
export function decideControl(state: ControlState, kind: ControlKind, activeDownstream: readonly string[]): Decision<{ outcome: ControlOutcome; events: LedgerEvent[] }> {
  const { pipeline } = state;
  const unchanged = accept<{ outcome: ControlOutcome; events: LedgerEvent[] }>({ outcome: 'unchanged', events: [] });
  if ((kind === 'pause' || kind === 'unpause') && state.retired !== null) {
    return refuse('ledger.retired', `${pipeline} is ${retiredText(state.retired)}; a retired pipeline is neither paused nor unpaused: bring it back first with runledger unretire ${pipeline}`);
  }
  switch (kind) {
    case 'pause':
      return state.paused !== null ? unchanged : accept({ outcome: 'paused', events: [{ type: 'PipelinePaused', schemaVersion: 1, data: { pipeline } }] });
    case 'unpause':
      return state.paused === null ? unchanged : accept({ outcome: 'unpaused', events: [{ type: 'PipelineUnpaused', schemaVersion: 1, data: { pipeline } }] });
    case 'retire':
      if (state.retired !== null) return unchanged;
      if (activeDownstream.length > 0) {
        const names = activeDownstream.join(', ');
        return refuse(
          'ledger.hasDownstream',
          `${pipeline} is an upstream of ${names}, which ${activeDownstream.length === 1 ? 'is' : 'are'} not retired; retire ${activeDownstream.length === 1 ? 'it' : 'them'} first, or redefine ${activeDownstream.length === 1 ? 'it' : 'them'} without --upstream ${pipeline}`,
        );
      }
      return accept({ outcome: 'retired', events: [{ type: 'PipelineRetired', schemaVersion: 1, data: { pipeline } }] });
    case 'unretire':
      return state.retired === null ? unchanged : accept({ outcome: 'unretired', events: [{ type: 'PipelineUnretired', schemaVersion: 1, data: { pipeline } }] });
    default:
      return kind satisfies never;
  }
}

/** The one line a paused pipeline's direct run prints, so no one runs it thinking the fleet will too. */
export function pausedNote(pipeline: string, paused: PipelineControl): string {
  return `note: ${pipeline} is ${pausedText(paused)}; this run goes ahead, but fleet runs (scheduler, catchup --all, backfill --with-downstream) leave it alone until runledger unpause ${pipeline}`;
}
