import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLag } from '../../projections/views/format-lag.js';

// formatLag answers the lag it was last asked again without making its words anew: never another lag's words.
describe('formatLag remembering its last answer', () => {
  it('answers every lag in a sequence (repeats and all) as it answers it asked first', () => {
    const lag = fc.oneof(fc.constantFrom(0, 999, 1000, 60_000, 86_400_000, 86_443_200_000, 176_400_000), fc.integer({ min: 0, max: 10 ** 12 }), fc.double({ min: 0, max: 1e12, noNaN: true }));
    fc.assert(
      fc.property(fc.array(lag, { maxLength: 30 }), (lags) => {
        const inTurn = lags.map((ms) => formatLag(ms));
        const fresh = lags.map((ms) => {
          formatLag(ms === 5 ? 6 : 5); // another lag asked just before
          return formatLag(ms);
        });
        expect(inTurn).toEqual(fresh);
      }),
      { numRuns: 500 },
    );
  });
});
