/**
 * One answer kept for as long as its key stays the same: the key names everything the answer depends on
 * (the ledger's head position, and the second when it depends on the time), so a request that finds the
 * key unchanged gets the same answer a fresh build would give, and concurrent requests share one build.
 * A build that fails is not kept.
 *
 * @example
 * const cache = answerCache<string>();
 * const text = await cache.get(`${head.position}`, () => build());
 */
export function answerCache<T>(): { get(key: string, build: () => Promise<T>): Promise<T> } {
  let kept: { key: string; answer: Promise<T> } | null = null;
  return {
    get(key, build) {
      if (kept?.key !== key) {
        const answer = build();
        const entry = { key, answer };
        kept = entry;
        answer.catch(() => {
          if (kept === entry) kept = null;
        });
      }
      return kept.answer;
    },
  };
}
