import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

// Writers' text on an operator's terminal: every text field a writer fills (error, reason, an OpenLineage-style
// error message, a command's stderr tail as the runner records it) holds ESC, CSI, OSC (a window title and an
// OSC 8 link), BEL, CR, backspace, a C1 CSI and a bidi override. Every human output of every command that shows
// them is read on a real terminal (util-linux `script` gives the CLI a pseudo-terminal, 60 columns wide, so the
// narrow tables cut their cells): not one of those characters reaches the terminal raw, and each is shown as its
// visible escape. `--json` stays JSON: the same text comes back whole.

const BIN = resolve('bin/runledger.js');
const NOW = '2026-11-06T01:00:00Z';
const HOSTILE = 'boom\x1b]0;PWNED\x07 \x1b[2J \x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\ cr\rbs\b c1\x9b[31m bidi\u202eevil';
/** HOSTILE as a terminal must show it. */
const HOSTILE_SHOWN = 'boom\\x1b]0;PWNED\\x07 \\x1b[2J \\x1b]8;;https://evil.example/\\x1b\\docs\\x1b]8;;\\x1b\\ cr\\rbs\\b c1\\x9b[31m bidi\\u202eevil';
/** What a terminal would obey: C0 controls but the pty's own line ends, DEL, C1 controls, bidi controls. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function seed(db: string): Promise<string> {
  const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'writer' });
  try {
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
    const failed = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-02', reason: `start ${HOSTILE}` });
    await ledger.fail({ runId: failed.runId, error: HOSTILE, code: 'E_BAD' });
    const cleared = await ledger.start({ pipeline: 'etl_orders', date: '2026-11-03' });
    await ledger.succeed({ runId: cleared.runId, metrics: { note: HOSTILE } });
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: `clear ${HOSTILE}` });
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-04'], skipped: true, reason: `mark ${HOSTILE}` });
    return failed.runId;
  } finally {
    await ledger.close();
  }
}

/** Runs `commands` one after another in one bash on a pseudo-terminal; each one's transcript, by its command. */
async function onTerminal(dir: string, commands: string[]): Promise<Map<string, string>> {
  const lines = ['stty cols 60 rows 50'];
  commands.forEach((command, i) => lines.push(`printf '@@@%s\\n' ${i}`, `${command} 2>&1`, `printf '@@@rc=%s\\n' $?`));
  const file = join(dir, 'session.sh');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const transcript = await new Promise<string>((done, fail) => {
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, TERM: 'xterm-256color', RUNLEDGER_DB: join(dir, 'ledger.db'), RUNLEDGER_NOW: NOW, NO_COLOR: '1' };
    const child = spawn('script', ['-q', '-e', '-c', `bash ${file}`, '/dev/null'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', fail);
    child.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
  });
  // The pty writes each line feed as CR LF: those are the terminal's, not the writers'.
  const parts = transcript.replace(/\r\n/g, '\n').split(/@@@(\d+)\n/);
  const out = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) out.set(commands[Number(parts[i])] ?? '?', parts[i + 1] ?? '');
  return out;
}

describe('writers text on a terminal', () => {
  test('every human output shows ESC, CSI, OSC, BEL, CR, backspace, C1 and bidi controls as escapes, never raw', async () => {
    const dir = tempDir('runledger-tty-');
    const db = join(dir, 'ledger.db');
    const runId = await seed(db);
    // One more failure, with a command's stderr tail as the runner records it, for the notifier to tell.
    writeFileSync(
      join(dir, 'fail-again.mjs'),
      `import { openLedger } from ${JSON.stringify(resolve('dist/src/open-ledger.js'))};\n` +
        `const l = await openLedger({ db: ${JSON.stringify(db)}, clock: () => Date.parse(${JSON.stringify(NOW)}) });\n` +
        `const r = await l.start({ pipeline: 'etl_orders', date: '2026-11-05' });\n` +
        `await l.fail({ runId: r.runId, error: ${JSON.stringify(`stderr tail: ${HOSTILE}`)}, code: 'exit:1' });\nawait l.close();\n`,
    );
    const human = [
      `node ${BIN} pending etl_orders`,
      `node ${BIN} pending etl_orders --wide`,
      `node ${BIN} status`,
      `node ${BIN} status --wide`,
      `node ${BIN} check --max-pending 0`,
      `node ${BIN} state etl_orders --table`,
      `node ${BIN} state etl_orders --table --wide`,
      `node ${BIN} log`,
      `node ${BIN} log --wide`,
      `node ${BIN} runs etl_orders`,
      `node ${BIN} runs etl_orders --run ${runId}`,
      `node ${BIN} pipelines`,
      `node fail-again.mjs`,
      `node ${BIN} notify --on failed --once --consumer pager --from-position 1 -- true`,
      // A refusal quoting what the caller sent.
      `node ${BIN} start etl_orders "$(printf 'x\\033[2J\\033]0;PWNED\\007')"`,
    ];
    const json = `node ${BIN} state etl_orders --json`;
    const out = await onTerminal(dir, [...human, json]);
    if (process.env['RUNLEDGER_SHOW_TTY']) for (const [command, text] of out) console.log(`$ ${command}\n${text}`);
    for (const command of human) {
      const text = out.get(command);
      expect(text, command).toBeDefined();
      const raw = RAW.exec(text ?? '');
      expect(raw === null ? null : `U+${(raw[0].codePointAt(0) ?? 0).toString(16)} at ${raw.index}: ${JSON.stringify(text)}`, command).toBeNull();
    }
    // Shown, not dropped: the escapes are there as text wherever the error is, cut only after them in a narrow table,
    // and whole where nothing is cut.
    for (const command of [human[0], human[3], human[5]]) expect(out.get(command ?? ''), command).toContain('boom\\x1b]0;');
    for (const command of [human[1], human[6], human[8]]) expect(out.get(command ?? ''), command).toContain(HOSTILE_SHOWN);
    expect(out.get(human[4] ?? '')).toMatch(/@@@rc=7/);
    expect(out.get(human[13] ?? '')).toContain('stderr tail: boom\\x1b]0;PWNED\\x07');
    expect(out.get(human[14] ?? '')).toContain('x\\x1b[2J\\x1b]0;PWNED\\x07');
    // JSON output stays JSON, with the text whole.
    // (stderr's note that the clock is fixed shares the terminal: it is the line before the document.)
    const document = (out.get(json) ?? '').replace(/^runledger: the clock is fixed.*\n/, '').replace(/@@@rc=\d+\n?$/, '');
    const state = JSON.parse(document) as { dates: Array<{ date: string; error: string | null }> };
    expect(state.dates.find((d) => d.date === '2026-11-02')?.error).toBe(HOSTILE);
  }, 120_000);
});
