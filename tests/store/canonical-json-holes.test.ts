import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson, canonicalJsonWithHoles } from '../../events/canonical-json.js';

// PostgreSQL builds each appended payload from these pieces and the two numbers only it knows, then
// hashes the text: any difference from canonicalJson would give a chain SQLite never wrote.
describe('canonicalJsonWithHoles', () => {
  const fill = (pieces: string[], values: unknown[]) => pieces.map((piece, i) => (i < values.length ? piece + canonicalJson(values[i]) : piece)).join('');

  test('when the holes are filled then the text is canonicalJson of the whole object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer({ min: 1 }), fc.integer({ min: 1 }), (rest, position, streamVersion) => {
        const { position: _p, streamVersion: _s, ...value } = rest;
        expect(fill(canonicalJsonWithHoles(value, ['position', 'streamVersion']), [position, streamVersion])).toBe(canonicalJson({ ...value, position, streamVersion }));
      }),
      { numRuns: 300 },
    );
  });

  test('when an event envelope is split then the pieces sit around position and streamVersion', () => {
    const pieces = canonicalJsonWithHoles({ type: 'RunStarted', eventId: 'E1', data: { b: 'é"\\\n', a: [1, null] }, stream: 's', metadata: { actor: 'x' }, recordedAt: 'T', schemaVersion: 1, gone: undefined }, ['position', 'streamVersion']);
    expect(pieces).toEqual(['{"data":{"a":[1,null],"b":"é\\"\\\\\\n"},"eventId":"E1","metadata":{"actor":"x"},"position":', ',"recordedAt":"T","schemaVersion":1,"stream":"s","streamVersion":', ',"type":"RunStarted"}']);
  });

  test('when holes are named out of key order then it refuses, rather than filling them in the wrong places', () => {
    expect(() => canonicalJsonWithHoles({ a: 1 }, ['streamVersion', 'position'])).toThrow(/not in key order/);
  });
});
