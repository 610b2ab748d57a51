import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNames } from '../../projections/views/compare-names.js';

const root = new Intl.Collator('en');
const alphabet = [...'_-.0123456789abcdefghijklmnopqrstuvwxyz'];
const name = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 12 }).map((chars) => chars.join(''));
const anyText = fc.oneof(name, fc.string({ maxLength: 8 }), fc.constantFrom('Ab', 'é', 'a b', 'ch', 'Ch', 'ß'));

describe('compareNames', () => {
  it('orders pipeline names as the root collation does, letter by letter', () => {
    fc.assert(
      fc.property(name, name, (a, b) => {
        expect(Math.sign(compareNames(a, b))).toBe(Math.sign(root.compare(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('stays one total order when other text is compared with names', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        expect(Math.sign(compareNames(a, b))).toBe(Math.sign(root.compare(a, b)));
      }),
      { numRuns: 3000 },
    );
  });

  it('puts _ - . before digits before letters, and a name before its longer names', () => {
    expect(['etl2', 'etl.x', 'etl', 'etl-x', 'etl_x', 'etla'].sort(compareNames)).toEqual(['etl', 'etl_x', 'etl-x', 'etl.x', 'etl2', 'etla']);
  });

  it('does not follow the locale: Czech sorts "ch" after "h", pipeline names do not', () => {
    expect(['h', 'ch', 'i'].sort(new Intl.Collator('cs').compare)).toEqual(['h', 'ch', 'i']);
    expect(['h', 'ch', 'i'].sort(compareNames)).toEqual(['ch', 'h', 'i']);
  });
});
