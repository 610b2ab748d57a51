import fc from 'fast-check';
import { expect, test } from 'vitest';
import { canonicalJson } from '../../events/canonical-json.js';

/** The definition, spelled out slowly: keys sorted by code unit, undefined fields dropped, JSON.stringify for the rest. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const fields = Object.entries(value).filter(([, field]) => field !== undefined);
  fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${fields.map(([key, field]) => `${JSON.stringify(key)}:${reference(field)}`).join(',')}}`;
}

test('canonical JSON is JSON with sorted keys and no undefined fields, for any JSON-like value', () => {
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node')),
      fc.dictionary(fc.string(), fc.oneof(tie('node'), fc.constant(undefined))),
    ),
  })).node;
  fc.assert(
    fc.property(value, (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }),
    { numRuns: 500 },
  );
});

test('canonical JSON matches the definition for text of any code units (quotes, controls, lone surrogates) and for objects of many keys', () => {
  const text = fc.string({ unit: 'binary', maxLength: 12 });
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(text, fc.oneof(tie('node'), fc.constant(undefined)), { maxKeys: 6 }),
      fc.dictionary(text, fc.oneof(fc.integer(), fc.constant(undefined)), { minKeys: 10, maxKeys: 40 }),
    ),
  })).node;
  fc.assert(
    fc.property(value, (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }),
    { numRuns: 500 },
  );
});

test('every single code unit, alone and between letters, as a value and as a key, is written as JSON.stringify writes it', () => {
  const differing: number[] = [];
  for (let unit = 0; unit <= 0xffff; unit++) {
    const c = String.fromCharCode(unit);
    const texts = [c, `a${c}b`];
    if (texts.some((t) => canonicalJson(t) !== JSON.stringify(t) || canonicalJson({ [t]: 1 }) !== `{${JSON.stringify(t)}:1}`)) differing.push(unit);
  }
  expect(differing).toEqual([]);
  expect(canonicalJson('\ud83d\ude00')).toBe(JSON.stringify('\ud83d\ude00'));
});

test('a value JSON cannot hold is refused with its path, however deep', () => {
  expect(() => canonicalJson({ a: [1, { b: Number.NaN }] })).toThrow('canonicalJson: $.a[1].b is NaN, which JSON cannot hold');
  expect(() => canonicalJson({ z: 1, a: { f: () => 1 } })).toThrow('canonicalJson: $.a.f is a function, which JSON cannot hold');
  expect(() => canonicalJson([1, undefined])).toThrow('canonicalJson: $[1] is a undefined, which JSON cannot hold');
});
