import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EVENT_LINE, eventLine } from '../../src/audit/export-format.js';
import { matchEventLine } from '../../src/audit/match-event-line.js';

// The hand-written matcher must accept exactly the lines EVENT_LINE accepts and cut them into the same parts.

function byRegex(line: string): ReturnType<typeof matchEventLine> {
  const m = EVENT_LINE.exec(line);
  return m ? { prevHash: m[1] as string, hash: m[2] as string, signature: m[3] ?? null, payload: m[4] as string } : null;
}

const HEX = 'a'.repeat(63) + 'f';
const HEX2 = '0123456789abcdef'.repeat(4);
const SIG = 'ed25519:AbC+/=_-9';

const lines: Array<[string, string]> = [
  ['an unsigned line', eventLine({ position: 1, payload: '{"position":1}', prevHash: HEX, hash: HEX2 })],
  ['a signed line', eventLine({ position: 1, payload: '{"position":1}', prevHash: HEX, hash: HEX2, signature: SIG })],
  ['an empty payload', `{"prevHash":"${HEX}","hash":"${HEX2}","event":}`],
  ['a payload with a newline and braces', `{"prevHash":"${HEX}","hash":"${HEX2}","event":{"a":"}\n{"}}`],
  ['no closing brace', `{"prevHash":"${HEX}","hash":"${HEX2}","event":{}`],
  ['nothing after "event":', `{"prevHash":"${HEX}","hash":"${HEX2}","event":`],
  ['an upper-case hex digit', `{"prevHash":"${HEX.toUpperCase()}","hash":"${HEX2}","event":{}}`],
  ['a short prevHash', `{"prevHash":"${HEX.slice(1)}","hash":"${HEX2}","event":{}}`],
  ['a long hash', `{"prevHash":"${HEX}","hash":"${HEX2}0","event":{}}`],
  ['an empty signature', `{"prevHash":"${HEX}","hash":"${HEX2}","signature":"","event":{}}`],
  ['a signature of 200 characters', `{"prevHash":"${HEX}","hash":"${HEX2}","signature":"${'s'.repeat(200)}","event":{}}`],
  ['a signature of 201 characters', `{"prevHash":"${HEX}","hash":"${HEX2}","signature":"${'s'.repeat(201)}","event":{}}`],
  ['a signature with a space', `{"prevHash":"${HEX}","hash":"${HEX2}","signature":"a b","event":{}}`],
  ['a signature not followed by a comma', `{"prevHash":"${HEX}","hash":"${HEX2}","signature":"ab""event":{}}`],
  ['the keys in another order', `{"hash":"${HEX2}","prevHash":"${HEX}","event":{}}`],
  ['a space after a colon', `{"prevHash": "${HEX}","hash":"${HEX2}","event":{}}`],
  ['the trailer', '{"format":"runledger-export-end","events":1,"head":{"position":1,"hash":"x"}}'],
  ['an empty line', ''],
];

describe('matchEventLine', () => {
  test.each(lines)('cuts %s as EVENT_LINE does', (_label, line) => {
    expect(matchEventLine(line)).toEqual(byRegex(line));
  });

  test('accepts and cuts exactly what EVENT_LINE does, on lines near the exported form', () => {
    // Mostly well-formed parts (so that many lines match), some a character off.
    const hex = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdefA g'), minLength: 62, maxLength: 66 }) },
    );
    const signature = fc.option(
      fc.oneof(
        { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...'Az09+/=:_-'), minLength: 0, maxLength: 205 }) },
        { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'Az09+/=:_-" ,'), minLength: 0, maxLength: 205 }) },
      ),
    );
    const piece = fc.constantFrom('{"prevHash":"', '","hash":"', '",', '"signature":"', '"event":', '}', '"', ',', '', '{"prevhash":"');
    const line = fc
      .tuple(piece, hex, piece, hex, piece, signature, piece, fc.string(), fc.constantFrom('}', '', '}}', '"', '\n}'))
      .map(([a, h1, b, h2, c, sig, d, payload, end]) => `${a}${h1}${b}${h2}${c}${sig === null ? '' : `"signature":"${sig}",`}${d}${payload}${end}`);
    const wellFormed = fc
      .tuple(hex, hex, signature, fc.string(), fc.constantFrom('}', '', '}}', '\n}'))
      .map(([h1, h2, sig, payload, end]) => `{"prevHash":"${h1}","hash":"${h2}",${sig === null ? '' : `"signature":"${sig}",`}"event":${payload}${end}`);
    fc.assert(
      fc.property(fc.oneof(line, wellFormed), (text) => {
        expect(matchEventLine(text)).toEqual(byRegex(text));
      }),
      { numRuns: 5000 },
    );
  });
});
