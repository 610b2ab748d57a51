import type { SchedulerHealth } from '../../projections/views/scheduler-health.js';
import type { Ledger } from '../ledger/ledger.js';
import { processAlive, processMetadata, toolVersion } from '../runtime.js';

/** How often a scheduler writes its row while nothing else makes it write (a long sleep). */
export const HEALTH_BEAT_MS = 10_000;

/**
 * How long after a change the row is written: the changes of that while (a burst of starts and ends) make one
 * write. On SQLite each write is a durable transaction on the scheduler's own thread: written at every start and end
 * (two per run), they took 2.7 s of the 42 s of CPU a scheduler spent on a burst of 300 runs in one profile. Readers
 * see the row at most this much later.
 */
const HEALTH_COALESCE_MS = 500;

/** Rows nobody wrote for this long are removed when a scheduler starts: a scheduler gone a day ago is not news. */
const FORGET_AFTER_MS = 86_400_000;

export type HealthRecorder = {
  /** Changes the row and writes it soon: the changes of the next half second are written together. */
  update(change: (row: SchedulerHealth) => SchedulerHealth): void;
  /** Writes the last row (`stopped`) and stops the heartbeat. */
  close(): Promise<void>;
};

/**
 * Records a scheduler's health in the ledger's database (`runledger_schedulers`, outside the hash chain) for
 * `status`, the web view and `/metrics` of other processes: at each change, and every `HEALTH_BEAT_MS` while
 * nothing changes, so a reader tells a sleeping scheduler from a dead one by the age of its row. A store that
 * keeps no such rows, or a write that fails (the database busy or away), costs the scheduler nothing: the next
 * write tries again. At start, rows of stopped schedulers on this host, of processes of this host that are gone,
 * and rows silent for a day are removed.
 *
 * @example
 * const health = await recordHealth(ledger, { parallel: 4, once: false, pipelines: null });
 * health.update((row) => ({ ...row, passes: row.passes + 1 }));
 */
export async function recordHealth(ledger: Ledger, setup: Pick<SchedulerHealth, 'parallel' | 'once' | 'pipelines'>, beatMs = HEALTH_BEAT_MS): Promise<HealthRecorder> {
  const store = ledger.store.schedulers;
  const { host, pid } = processMetadata();
  const iso = () => new Date(ledger.now()).toISOString();
  const startedAt = iso();
  let row: SchedulerHealth = { id: ledger.newId(), host, pid, version: toolVersion, startedAt, updatedAt: startedAt, beatSeconds: beatMs / 1000, state: 'running', ...setup, passes: 0, lastPassAt: null, nextWake: null, inFlight: [] };
  if (store === undefined) return { update: () => undefined, close: async () => undefined };
  await forgetGone(store, host, ledger.now()).catch(() => undefined);
  let writing: Promise<void> | null = null;
  let again = false;
  const write = (): Promise<void> => {
    if (writing) {
      again = true;
      return writing;
    }
    row = { ...row, updatedAt: iso() };
    const saved = row;
    writing = store
      .save({ id: saved.id, updatedAt: saved.updatedAt, body: JSON.stringify(saved) })
      .catch(() => undefined)
      .finally(() => {
        writing = null;
        if (again) {
          again = false;
          void write();
        }
      });
    return writing;
  };
  const beat = setInterval(() => void write(), beatMs);
  beat.unref();
  await write();
  let soon: NodeJS.Timeout | undefined;
  return {
    update(change) {
      row = change(row);
      soon ??= setTimeout(() => {
        soon = undefined;
        void write();
      }, HEALTH_COALESCE_MS);
      soon.unref();
    },
    async close() {
      clearInterval(beat);
      clearTimeout(soon);
      soon = undefined;
      while (writing) await writing;
      row = { ...row, state: 'stopped', inFlight: [], nextWake: null };
      await write();
    },
  };
}

async function forgetGone(store: NonNullable<Ledger['store']['schedulers']>, host: string, nowMs: number): Promise<void> {
  const gone: string[] = [];
  for (const stored of await store.list()) {
    let body: Partial<SchedulerHealth>;
    try {
      body = JSON.parse(stored.body) as Partial<SchedulerHealth>;
    } catch {
      continue;
    }
    const old = nowMs - Date.parse(stored.updatedAt) > FORGET_AFTER_MS;
    const here = body.host === host && typeof body.pid === 'number';
    if (old || (here && (body.state === 'stopped' || !processAlive(body.pid as number)))) gone.push(stored.id);
  }
  await store.remove(gone);
}
