import { afterEach, describe, expect, test, vi } from 'vitest';
import { watchAppends } from '../../src/ledger/watch-appends.js';
import type { EventStore } from '../../src/store/event-store.js';

// A store that can notify, as PostgreSQL's does: its listener says "look" as soon as it listens (anything appended
// while nobody listened), then whenever `append` is called.
function notifyingStore(): { store: EventStore; append(): void } {
  let position = 0;
  let notify: (() => void) | undefined;
  const store = {
    head: async () => ({ position, hash: `h${position}` }),
    listenForAppends: async (onAppend: () => void) => {
      notify = onAppend;
      onAppend();
      return async () => {
        notify = undefined;
      };
    },
  } as unknown as EventStore;
  return {
    store,
    append() {
      position += 1;
      notify?.();
    },
  };
}

describe('watchAppends on a store that notifies', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('when it is stopped then no timer of its slow poll is left to hold the process open', async () => {
    vi.useFakeTimers();
    const { store, append } = notifyingStore();
    const heads: number[] = [];
    const stop = await watchAppends(store, (head) => heads.push(head.position));
    append();
    await vi.advanceTimersByTimeAsync(0);
    expect(heads).toEqual([1]);
    await stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
