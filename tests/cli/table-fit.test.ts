// Tables fit the terminal and show the most telling line of a multi-line error; --wide and --json keep everything.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { tellingLine } from '../../projections/views/telling-line.js';
import { formatTable } from '../../src/format/format-table.js';
import { tempDir } from '../runner/cli-helpers.js';

const NODE_MISSING_MODULE = [
  'exited with code 1: node:internal/modules/cjs/loader:1210',
  '  throw err;',
  '  ^',
  '',
  "Error: Cannot find module '/srv/etl/load.js'",
  '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
  '    at node:internal/main/run_main_module:28:49 {',
  "  code: 'MODULE_NOT_FOUND',",
  '  requireStack: []',
  '}',
  '',
  'Node.js v20.19.0',
].join('\n');

describe('the most telling line of a multi-line error', () => {
  test.each([
    { label: "node's missing module, after how the command ended", text: NODE_MISSING_MODULE, line: "exited with code 1: Error: Cannot find module '/srv/etl/load.js'" },
    { label: 'a Python traceback: its last line names the exception', text: 'Traceback (most recent call last):\n  File "etl.py", line 3, in <module>\n    load()\nKeyError: \'date\'', line: "KeyError: 'date'" },
    { label: 'psql: the ERROR line', text: 'exited with code 3: psql:load.sql:12: ERROR:  duplicate key\nDETAIL:  Key (id)=(1) already exists.', line: 'exited with code 3: psql:load.sql:12: ERROR:  duplicate key' },
    { label: 'no error-like line: the last non-empty one', text: 'loading 2026-11-02\nrows: 0\nno input file for 2026-11-02\n\n', line: 'no input file for 2026-11-02' },
    { label: 'one line stays as it is', text: 'boom', line: 'boom' },
  ])('$label', ({ text, line }) => {
    expect(tellingLine(text)).toBe(line);
  });
});

describe('formatTable fits a width', () => {
  const rows = [['1', 'x'.repeat(300), 'why'], ['2', 'short', 'y'.repeat(50)]];
  test('flexible columns give way until every line fits, cut with …', () => {
    const lines = formatTable(['POS', 'WHAT', 'WHY'], rows, { width: 80, flexible: [1, 2] }).trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    expect(lines[1]).toMatch(/^1 {4}x+…/);
  });
  test('off a terminal a flexible cell keeps 100 characters; wide keeps all', () => {
    expect(formatTable(['POS', 'WHAT', 'WHY'], rows, { flexible: [1, 2] }).split('\n')[1]).toMatch(/^1 {4}x{99}… {2}why$/);
    expect(formatTable(['POS', 'WHAT', 'WHY'], rows, { flexible: [1, 2], wide: true }).split('\n')[1]).toContain('x'.repeat(300));
  });
  test('a line break in a cell never breaks the row', () => {
    expect(formatTable(['A', 'B'], [['1', 'two\nlines']]).trimEnd().split('\n')).toEqual(['A  B', '1  two lines']);
  });
});

describe('pending, state, log and status on an 120-column terminal', () => {
  async function session() {
    const db = join(tempDir(), 'l.db');
    const run = async (args: string[], columns?: number) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(['--db', db, '--now', '2026-11-05T01:00:00+07:00', ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: Date.now, isTTY: false, ...(columns ? { columns } : {}) }, extraCommands);
      return { code, stdout, stderr };
    };
    await run(['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta']);
    const runId = (await run(['start', 'etl_orders', '2026-11-03'])).stdout.trim();
    expect((await run(['fail', runId, '--error', NODE_MISSING_MODULE])).code).toBe(0);
    return run;
  }

  test.each([
    { command: ['pending', 'etl_orders'] },
    { command: ['state', 'etl_orders', '--table'] },
    { command: ['log', 'etl_orders'] },
    { command: ['status'] },
  ])('$command.0: every row is one line within 120 columns, and with --wide the row names the missing module', async ({ command }) => {
    const run = await session();
    const { code, stdout } = await run(command, 120);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.length > 120)).toEqual([]);
    expect(lines.filter((l) => l.includes('2026-11-03'))).not.toEqual([]);
    const wide = await run([...command, '--wide'], 120);
    const row = wide.stdout.split('\n').filter((l) => l.includes('2026-11-03') && l.includes("Error: Cannot find module '/srv/etl/load.js'"));
    expect(row).toHaveLength(1);
    for (const text of [stdout, wide.stdout]) {
      expect(text).not.toContain('node:internal');
      expect(text).not.toContain('requireStack');
    }
  });

  test('--wide shows the whole telling line, --json the whole text', async () => {
    const run = await session();
    expect((await run(['pending', 'etl_orders', '--wide'], 80)).stdout).toContain("exited with code 1: Error: Cannot find module '/srv/etl/load.js'");
    expect((await run(['log', 'etl_orders', '--wide'], 80)).stdout).toMatch(/: exited with code 1: Error: Cannot find module '\/srv\/etl\/load.js'\n/);
    const json = JSON.parse((await run(['state', 'etl_orders', '--json'])).stdout) as { dates: Array<{ date: string; error: string | null }> };
    expect(json.dates.find((d) => d.date === '2026-11-03')?.error).toBe(NODE_MISSING_MODULE);
  });

  test('log WHAT is not padded to its longest sentence on a 100-column terminal', async () => {
    const run = await session();
    await run(['define', 'etl_orders', '--reason', 'r'.repeat(400), '--max-active-runs', '2']);
    await run(['start', 'etl_orders', '2026-11-04', '--reason', 'w'.repeat(300)]);
    const { stdout } = await run(['log', 'etl_orders'], 100);
    expect(Math.max(...stdout.trimEnd().split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(stdout).toMatch(/r+…\n/);
  });
});
