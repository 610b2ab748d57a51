import { describe, expect, test } from 'vitest';
import { formatTable } from '../../src/format/format-table.js';
import { terminalText } from '../../src/format/terminal-text.js';

describe('terminalText', () => {
  test.each([
    ['plain text is left as it is', 'rows=3 ok 😀 é', 'rows=3 ok 😀 é'],
    ['ESC and an OSC window title', 'a\x1b]0;t\x07b', 'a\\x1b]0;t\\x07b'],
    ['a CSI that clears the screen', '\x1b[2J', '\\x1b[2J'],
    ['an OSC 8 link', '\x1b]8;;https://x/\x1b\\t\x1b]8;;\x1b\\', '\\x1b]8;;https://x/\\x1b\\t\\x1b]8;;\\x1b\\'],
    ['CR, backspace, tab, a line feed', 'a\rb\bc\td\ne', 'a\\rb\\bc\\td\\ne'],
    ['NUL, DEL and a C1 CSI', '\u0000\u007f\u009b', '\\x00\\x7f\\x9b'],
    ['bidi overrides and isolates', 'a\u202eb\u2066c\u2069', 'a\\u202eb\\u2066c\\u2069'],
  ])('%s', (_label, text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  test('keepLines keeps line feeds and still shows a carriage return', () => {
    expect(terminalText('one\r\ntwo\x1b[2J', { keepLines: true })).toBe('one\\r\ntwo\\x1b[2J');
  });

  test('a table escapes before it measures and cuts, so a cut never splits a sequence', () => {
    const table = formatTable(['DATE', 'ERROR'], [['2026-11-02', 'boom\x1b]0;pwned\x07 and more text after it']], { width: 30, flexible: [1] });
    expect(table).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(table.split('\n')[1]).toBe('2026-11-02  boom\\x1b]0;pwned\\…');
  });
});
