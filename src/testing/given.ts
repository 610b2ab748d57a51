import { deepStrictEqual, fail } from 'node:assert/strict';
import type { LedgerEvent } from '../../events/types/ledger-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { decideClear, type ClearCommand } from '../../projections/decide-clear.js';
import { decideCompletion, type CompletionCommand } from '../../projections/decide-completion.js';
import { decideStart, type StartCommand } from '../../projections/decide-start.js';
import { evolve, initialState, type PipelineState } from '../../projections/pipeline-state.js';
import type { Refusal } from '../../projections/refusal.js';
import { recordEvents, type GivenEvent } from './record-events.js';

/** What `when` takes: a start, a completion (`succeed`, `fail`, `heartbeat`) or a clear, as the pure deciders take them. */
export type WhenCommand = ({ kind: 'start' } & StartCommand) | CompletionCommand | ({ kind: 'clear' } & ClearCommand);

/** What `then` checks: the exact events decided, a refusal code, or a matcher over the state after the decided events. */
export type Expectation = LedgerEvent[] | Refusal['code'] | ((state: PipelineState, events: LedgerEvent[]) => void);

export type GivenOptions = {
  /** The pipeline the state is about (default: the first given event's, else the command's). */
  pipeline?: string;
  /** "now" for the deciders, RFC 3339 (default: the last given event's recordedAt). */
  now?: string;
};

type Outcome = { ok: true; events: LedgerEvent[] } | { ok: false; refusal: Refusal };

/**
 * Given/when/then over the pure core (start, completion and clear rules): fold the given events
 * with `evolve`, run one command through its decider, check the outcome.
 * Assertions throw node's `AssertionError`, which vitest and jest print
 * as a diff; nothing here imports a test runner.
 *
 * @example
 * given([defined, started('2026-11-02', 'A')], { now: '2026-11-05T01:00:00+07:00' })
 *   .when({ kind: 'start', pipeline: 'etl_orders', slot, onSchedule: true, runType: 'scheduled', force: false, runId: 'B', leaseMs: 3_600_000 })
 *   .then('ledger.alreadyRunning');
 */
export function given(events: Array<GivenEvent | RecordedEvent>, options: GivenOptions = {}): Given {
  return new Given(isRecorded(events) ? events : recordEvents(events as GivenEvent[], options.now === undefined ? {} : { recordedAt: options.now }), options);
}

export class Given {
  readonly events: RecordedEvent[];
  readonly #options: GivenOptions;

  constructor(events: RecordedEvent[], options: GivenOptions) {
    this.events = events;
    this.#options = options;
  }

  /** The folded state of the given events (a fresh fold each call: `evolve` updates the state it is given). */
  state(pipeline = this.#pipeline()): PipelineState {
    return this.events.filter((e) => e.data.pipeline === pipeline).reduce(evolve, initialState(pipeline));
  }

  /** Checks the folded state of the given events alone. */
  then(matcher: (state: PipelineState) => void): void {
    matcher(this.state());
  }

  when(command: WhenCommand, options: { now?: string } = {}): When {
    const pipeline = this.#pipeline(command.kind === 'start' ? command.pipeline : undefined);
    const state = this.state(pipeline);
    const nowText = options.now ?? this.#options.now ?? this.events.at(-1)?.recordedAt;
    const outcome = (): Outcome => {
      if (command.kind === 'clear') return { ok: true, events: decideClear(state, command).events };
      if (nowText === undefined) throw new Error('given(): pass { now } — there is no given event to take the time from');
      const context = { nowMs: Date.parse(nowText) };
      const decision = command.kind === 'start' ? decideStart(state, command, context) : decideCompletion(state, command, context);
      return decision.ok ? { ok: true, events: decision.value.events } : { ok: false, refusal: decision.refusal };
    };
    return new When(outcome(), () => this.state(pipeline), this.events, nowText);
  }

  #pipeline(fallback?: string): string {
    const name = this.#options.pipeline ?? this.events[0]?.data.pipeline ?? fallback;
    if (name === undefined) throw new Error('given(): pass { pipeline } — there is no given event to take it from');
    return name;
  }
}

export class When {
  readonly outcome: Outcome;
  readonly #state: () => PipelineState;
  readonly #given: RecordedEvent[];
  readonly #now: string | undefined;

  constructor(outcome: Outcome, state: () => PipelineState, given: RecordedEvent[], now: string | undefined) {
    this.outcome = outcome;
    this.#state = state;
    this.#given = given;
    this.#now = now;
  }

  /** Asserts the outcome; returns the decided events (empty after a refusal) for further checks. */
  then(expected: Expectation): LedgerEvent[] {
    const outcome = this.outcome;
    if (typeof expected === 'string') {
      if (outcome.ok) fail(`expected the refusal ${expected}, but the command was accepted with ${describe(outcome.events)}`);
      deepStrictEqual(outcome.refusal.code, expected, `expected the refusal ${expected}, got ${outcome.refusal.code}: ${outcome.refusal.message}`);
      return [];
    }
    if (!outcome.ok) return fail(`expected the command to be accepted, but it was refused: ${outcome.refusal.code}: ${outcome.refusal.message}`);
    if (Array.isArray(expected)) {
      deepStrictEqual(outcome.events, expected);
      return outcome.events;
    }
    // Re-record given + decided so the new events get the envelope the store would give them.
    const all = recordEvents([...this.#given, ...outcome.events] as GivenEvent[], this.#now === undefined ? {} : { recordedAt: this.#now });
    const state = this.#state();
    const after = all.slice(this.#given.length).filter((e) => e.data.pipeline === state.pipeline).reduce(evolve, state);
    expected(after, outcome.events);
    return outcome.events;
  }
}

function isRecorded(events: Array<GivenEvent | RecordedEvent>): events is RecordedEvent[] {
  return events.every((e) => typeof (e as RecordedEvent).position === 'number' && typeof (e as RecordedEvent).hash === 'string');
}

function describe(events: LedgerEvent[]): string {
  return events.length === 0 ? 'no events' : events.map((e) => e.type).join(', ');
}
